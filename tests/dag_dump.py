"""Dump the DAG that `snakemake -n` plans, to show that a change to the workflow or to what it loads changes no job.

    python tests/dag_dump.py dump OUT.jsonl [snakemake arguments: targets, --config ...]   (in the repository root)
    python tests/dag_dump.py compare A.jsonl B.jsonl

``dump`` writes one JSON line per job of the DAG (rule, wildcards, params, named and all inputs, outputs, logs, whether
it would run), sorted. ``compare`` says whether two dumps (made in the same folder) are identical, or identical once the sources digests are
masked (a change to a package module changes the digest of every paper that imports it: that is intended, and such
jobs rerun), checking that the digests map one to one. Not a test: a tool for a change's review (issue 41).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from snakemake.cli import main  # before snakemake.workflow: the CLI imports the package in its order

import snakemake.workflow  # isort: skip


def plain(value):
    """A JSON-able copy of a param or input value (anything else by its repr)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def dump(out_path: str, argv: list[str]) -> None:
    captured = {}
    build_dag = snakemake.workflow.Workflow._build_dag

    def keep_dag(self):
        build_dag(self)
        captured["dag"] = self.dag

    snakemake.workflow.Workflow._build_dag = keep_dag
    try:
        main([*argv, "-n", "--quiet", "all"])
    except SystemExit as end:
        if end.code:
            raise
    dag = captured["dag"]
    rows = sorted(json.dumps({
        "rule": job.rule.name,
        "wildcards": plain(dict(job.wildcards_dict)),
        "params": plain(dict(job.params.items())),
        "input": plain(dict(job.input.items())),
        "input_all": sorted(map(str, job.input)),
        "output": sorted(map(str, job.output)),
        "log": sorted(map(str, job.log)),
        "needrun": dag.needrun(job),
    }, sort_keys=True) for job in dag.jobs)
    Path(out_path).write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} jobs -> {out_path}", file=sys.stderr)


def _digests(value, found: list) -> list:
    if isinstance(value, dict):
        if isinstance(value.get("sha256"), str):
            found.append(value["sha256"])
        for v in value.values():
            _digests(v, found)
    return found


def compare(a_path: str, b_path: str) -> bool:
    a_text, b_text = (Path(p).read_text(encoding="utf-8") for p in (a_path, b_path))
    if a_text == b_text:
        print(f"identical ({a_text.count(chr(10))} jobs)")
        return True
    a_jobs, b_jobs = ([json.loads(line) for line in t.splitlines()] for t in (a_text, b_text))
    mapping, back = {}, {}
    def key(job):
        return job["rule"], json.dumps(job["wildcards"], sort_keys=True), job["output"]

    by_key = {json.dumps(key(b)): b for b in b_jobs}
    for a in a_jobs:
        b = by_key.get(json.dumps(key(a)))
        if b is None:
            print(f"DIFFERENT: job {key(a)} only in {a_path}")
            return False
        for x, y in zip(_digests(a["params"].get("sources"), []), _digests(b["params"].get("sources"), [])):
            if mapping.setdefault(x, y) != y or back.setdefault(y, x) != x:
                print(f"DIFFERENT: sources digest {x} maps to two digests")
                return False
    for x, y in mapping.items():
        a_text = a_text.replace(x, y)
    same = a_text == b_text
    print(f"{'identical but for the sources digests' if same else 'DIFFERENT'} ({len(a_jobs)} vs {len(b_jobs)} "
          f"jobs; {len(mapping)} digests)")
    return same


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(0 if compare(sys.argv[2], sys.argv[3]) else 1)
