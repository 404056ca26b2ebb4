"""Command line of the AmesHousing forest table (used by workflow/rules/papers/censored_resources.smk)::

    python -m banditrepro.experiments.censored_resources.forest_cli chunk --table T --run K --mtry M \
        --trees 100 200 ... --node-sizes 3 5 7 9 --fractions .55 .632 .75 .8 --seed S --out chunk.csv
    python -m banditrepro.experiments.censored_resources.forest_cli merge chunk1.csv ... --out table.csv
    python -m banditrepro.experiments.censored_resources.forest_cli export --table table.csv --out active.csv
    python -m banditrepro.experiments.censored_resources.forest_cli install --table shipped.csv --out active.csv
    python -m banditrepro.experiments.censored_resources.forest_cli record   (after a recompute build)
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from ... import layout
from .forest_model import (
    ACTIVE_TABLE,
    PAPER,
    PROGRESS_SECONDS,
    RECOMPUTE_RECORD,
    describe_source,
    export_table,
    install_table,
    machine_record,
    merge_chunks,
    record_recompute,
    run_chunk,
    sha256_of,
    sidecar_path,
)

PROG = "python -m banditrepro.experiments.censored_resources.forest_cli"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=PROG)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("chunk", help="fit the forests of one (run, mtry) chunk")
    c.add_argument("--table", required=True)
    c.add_argument("--run", type=int, required=True)
    c.add_argument("--mtry", type=int, nargs="+", required=True)
    c.add_argument("--trees", type=int, nargs="+", required=True)
    c.add_argument("--node-sizes", type=int, nargs="+", required=True)
    c.add_argument("--fractions", type=float, nargs="+", required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--progress-every", type=float, default=PROGRESS_SECONDS, help="seconds between log lines")
    m = sub.add_parser("merge", help="merge chunks into one table (with a provenance sidecar)")
    m.add_argument("chunks", nargs="+")
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int)
    e = sub.add_parser("export", help="write the shipped columns of a merged table with provenance and sha256")
    e.add_argument("--table", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--source", choices=["recompute"], help="label the table as recomputed on this machine")
    e.add_argument("--merge-record", help="JSON file saying how the merged table was made (default: its sidecar)")
    r = sub.add_parser("record", help="record a recomputed table's training times and Fig. 5's verdicts "
                                      f"(default: the active table and its claims -> {RECOMPUTE_RECORD})")
    r.add_argument("--table", default=ACTIVE_TABLE)
    r.add_argument("--claims", default=layout.figure_claims_file(PAPER, "fig5"))
    r.add_argument("--wall-seconds", type=float, help="wall time of the recompute build, to quote with it")
    r.add_argument("--out", default=RECOMPUTE_RECORD)
    i = sub.add_parser("install", help="check a table's sha256 and copy it to the experiment's path")
    i.add_argument("--table", required=True)
    i.add_argument("--out", required=True)
    i.add_argument("--source", choices=["cached", "recompute"], required=True)
    args = ap.parse_args(argv)
    command = f"{PROG} " + shlex.join(
        sys.argv[1:] if argv is None else list(argv))
    if args.cmd == "chunk":
        t0 = time.process_time()
        df = run_chunk(args.table, args.run, args.mtry, args.trees, args.node_sizes, args.fractions, args.seed,
                       progress_every=args.progress_every)
        tmp = Path(args.out).with_suffix(".tmp")
        df.to_csv(tmp, index=False)
        tmp.replace(args.out)
        print(f"run {args.run}, mtry {args.mtry}: {len(df)} rows, CPU {time.process_time() - t0:.1f} s", file=sys.stderr)
    elif args.cmd == "merge":
        from ... import provenance  # git commit of the code that ran the forests

        df = merge_chunks(args.chunks)
        df.to_csv(args.out, index=False)
        sidecar_path(args.out).write_text(json.dumps({
            "sha256": sha256_of(args.out), "rows": len(df), "chunks": len(args.chunks), "seed": args.seed,
            "measured_on": machine_record(), "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "command": "snakemake (rule censored_resources_forest_table): " + command,
            "git_commit": provenance.git_commit(Path.cwd()),
        }, indent=2, sort_keys=True) + "\n")
        print(f"merged {len(args.chunks)} chunks: {len(df)} rows; total training time "
              f"{df.groupby(['run', 'mtry', 'min_node_size', 'sample_fraction'])['train_seconds'].max().sum():.1f} s",
              file=sys.stderr)
    elif args.cmd == "export":
        record = json.loads(Path(args.merge_record).read_text()) if args.merge_record else None
        prov = export_table(args.table, args.out, command, record, source_label=args.source)
        print(f"{args.out}: {prov['rows']} rows, sha256 {prov['sha256']}", file=sys.stderr)
    elif args.cmd == "record":
        rec = record_recompute(args.table, args.claims, args.out, command, args.wall_seconds)
        print(f"{args.out}: recompute of {rec['date']} on {rec['measured_on'].get('cpu_model', '?')}, "
              f"{len(rec['claims'])} claims", file=sys.stderr)
    else:
        prov = install_table(args.table, args.out, args.source)
        print(f"{args.out}: {describe_source(prov)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
