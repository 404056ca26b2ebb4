"""Mutation testing of the claims: planted bugs (mutants) and the scratch copies of the package that run them.

A paper declares its mutants in its config (``mutants:``, experiments/paper.schema.yaml): each one a
plausible implementation error in one algorithm, written as a one-line substitution ``old`` -> ``new`` in
one file of ``src/banditrepro``. As mutation-testing tools do (mutmut), the substitution is applied to a
scratch copy of the package (:func:`write_scratch_copy`, ``results/mutants/<mutant>/package/banditrepro``),
never to the package itself, so production code carries no mutant switch. Only the mutant rules
(workflow/rules/mutants.smk) import that copy: their jobs run ``python -m banditrepro.mutation job`` with
the copy first on ``PYTHONPATH`` (:func:`run_job`), which runs the normal workflow script (simulation,
summary, claims) under it. The copy's numba kernels are compiled from its own sources into its own cache
directory (banditrepro.numba_cache keys the directory by the sources, which differ by the planted line).

Which runs a mutant redoes: :func:`mutated_algorithms`, the algorithms that are the mutated one (named as
the mutant's ``algorithm`` or in its ``shared_with``, or having it as a parameter value: the ``policy``,
``variant`` or ``oracle`` it runs). A mutant shard reruns those and copies every other algorithm's runs from
the main build's shard of the same replications (the same keys give the same numbers); experiments without
a mutated algorithm (:func:`mutated_experiments`) keep the main build's shards.
"""

from __future__ import annotations

import argparse
import json
import runpy
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "banditrepro"
#: the source tree of the package this module belongs to (the one a scratch copy is made from)
PACKAGE_DIR = Path(__file__).resolve().parent
#: the kinds of claim whose verdicts a mutant must move (headline: the paper's statements; sanity: the guards)
MUTANT_CLAIM_KINDS = ("headline", "sanity")


class MutantError(ValueError):
    """A mutant that cannot be planted: its file is missing, or its ``old`` text is not found exactly once."""


@dataclass(frozen=True)
class Mutant:
    id: str
    paper: str
    algorithm: str
    description: str
    file: str  # relative to src/banditrepro
    old: str
    new: str
    explanation: str = ""
    shared_with: tuple[str, ...] = ()  # other algorithms that run the mutated line

    @property
    def runs_in(self) -> tuple[str, ...]:
        """Every algorithm name whose experiments the mutant reruns."""
        return (self.algorithm, *self.shared_with)

    def as_dict(self) -> dict:
        return {**self.__dict__, "shared_with": list(self.shared_with)}

    def patch_fields(self) -> dict:
        """What the scratch copy depends on (so a reworded description or explanation reruns nothing)."""
        return {"id": self.id, "paper": self.paper, "file": self.file, "old": self.old, "new": self.new}

    @classmethod
    def from_patch(cls, fields: dict) -> Mutant:
        return cls(algorithm="", description="", **fields)


def mutants_of(spec) -> list[Mutant]:
    """The mutants a paper config declares (``mutants:``), in config order."""
    return [Mutant(id=m["id"], paper=spec.paper, algorithm=m["algorithm"], description=m["description"].strip(),
                   file=m["patch"]["file"], old=m["patch"]["old"], new=m["patch"]["new"],
                   explanation=str(m.get("explanation", "")).strip(),
                   shared_with=tuple(m.get("shared_with", ())))
            for m in spec.config.get("mutants", [])]


def apply_patch(text: str, old: str, new: str, where: str = "") -> str:
    """``text`` with its one occurrence of ``old`` replaced by ``new``. A one-line substitution: ``old`` and
    ``new`` hold no line break; ``old`` must occur exactly once (0 or 2+ matches would plant no bug or an
    unintended one) and differ from ``new``."""
    if "\n" in old or "\n" in new:
        raise MutantError(f"{where}: a mutant substitutes within one line; old/new must hold no line break")
    if old == new:
        raise MutantError(f"{where}: old and new text are the same (the mutant would change nothing)")
    count = text.count(old)
    if count != 1:
        raise MutantError(f"{where}: the old text {old!r} occurs {count} times, expected exactly once")
    return text.replace(old, new, 1)


def patched_source(mutant: Mutant, package_dir: Path | str = PACKAGE_DIR) -> str:
    """The mutated text of the mutant's file (the package is read, never written)."""
    path = Path(package_dir) / mutant.file
    where = f"mutant {mutant.id} ({mutant.paper}), {PACKAGE}/{mutant.file}"
    if not path.is_file():
        raise MutantError(f"{where}: no such file")
    return apply_patch(path.read_text(encoding="utf-8"), mutant.old, mutant.new, where)


def write_scratch_copy(mutant: Mutant, dest: Path | str, package_dir: Path | str = PACKAGE_DIR) -> Path:
    """Copy the package to ``dest/banditrepro`` (without byte-code caches) and plant the mutant in the copy;
    returns the copy's folder. ``dest`` is replaced if it exists."""
    dest = Path(dest)
    mutated = patched_source(mutant, package_dir)
    if dest.exists():
        shutil.rmtree(dest)
    copy = dest / PACKAGE
    shutil.copytree(package_dir, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (copy / mutant.file).write_text(mutated, encoding="utf-8")
    (dest / "mutant.json").write_text(json.dumps(mutant.patch_fields(), indent=1, sort_keys=True) + "\n",
                                      encoding="utf-8")
    return copy


def _mentions(entry_id: str, entry: dict, algorithm: str) -> bool:
    """Whether an experiment's algorithm entry runs ``algorithm``: its id, or a string parameter naming it."""
    return entry_id == algorithm or any(isinstance(v, str) and v == algorithm for v in entry.values())


def mutated_algorithms(spec, mutant: Mutant, experiment: str) -> list[str]:
    """The algorithms of ``experiment`` that run the mutated algorithm or one sharing the mutated line, in the
    experiment's order: a mutant job reruns these and takes every other algorithm's runs from the main build's
    shard (each algorithm's runs depend only on its own keys, experiments/runner.py)."""
    return [a for a, entry in spec.experiments[experiment].config["algorithms"].items()
            if any(_mentions(a, entry, name) for name in mutant.runs_in)]


def mutated_experiments(spec, mutant: Mutant, experiments: Iterable[str]) -> list[str]:
    """The experiments of ``experiments`` that run the mutated algorithm or one sharing the mutated line (so
    must be rerun), in order."""
    return [e for e in experiments if mutated_algorithms(spec, mutant, e)]


def mutant_figures(spec) -> list[str]:
    """Figures with a headline or sanity claim, in order of their first claim: what a mutant rebuilds."""
    out: list[str] = []
    for claim in spec.claims:
        if claim["kind"] in MUTANT_CLAIM_KINDS and claim["figure"] not in out:
            out.append(claim["figure"])
    return out


def check_mutants(spec, package_dir: Path | str = PACKAGE_DIR) -> list[Mutant]:
    """A paper's mutants, each checked: a unique id, a patch that applies exactly once, and an algorithm
    that some experiment of the rebuilt figures runs (else the mutant would rebuild nothing)."""
    from .report.claims import claim_dependencies

    mutants = mutants_of(spec)
    seen: set[str] = set()
    experiments: list[str] = []
    for fig in mutant_figures(spec):
        experiments += [e for e in claim_dependencies(spec, fig)[1] if e not in experiments]
    for m in mutants:
        if m.id in seen:
            raise MutantError(f"{spec.paper}: mutant id {m.id!r} is declared twice")
        seen.add(m.id)
        patched_source(m, package_dir)
        if not mutated_experiments(spec, m, experiments):
            raise MutantError(f"mutant {m.id} ({spec.paper}): no experiment of a headline or sanity figure runs "
                              f"algorithm {m.algorithm!r}")
    return mutants


# ------------------------------------------------------------------------------------------- mutant jobs


class _Named(list):
    """A Snakemake-like named list (``x[0]`` and ``x.name``) built from a dict or a list."""

    def __init__(self, value):
        if isinstance(value, dict):
            super().__init__(v for v in value.values())
            for k, v in value.items():
                setattr(self, k, v)
        else:
            super().__init__(value)
        self._names = list(value) if isinstance(value, dict) else []

    def get(self, name, default=None):
        """``x.get(name, default)``, as Snakemake's named lists offer (workflow/scripts/claims.py reads its
        optional ``sequential`` input so)."""
        return getattr(self, name) if name in self._names else default

    def keys(self):
        return list(self._names)


class JobContext:
    """What a workflow script reads of its ``snakemake`` object, rebuilt from a job description."""

    def __init__(self, job: dict, script: Path):
        self.wildcards = _Named(job.get("wildcards", {}))
        self.params = _Named(job.get("params", {}))
        self.input = _Named(job.get("input", {}))
        self.output = _Named(job.get("output", {}))
        self.log = _Named(job.get("log", []))
        self.scriptdir = str(script.parent)


def run_job(package: Path | str, job: dict) -> None:
    """Run one workflow script (``job["script"]``, a path under workflow/scripts) as its rule would, under the
    scratch copy in ``package``: the copy must be the ``banditrepro`` this process imported (the job's
    shell put it first on PYTHONPATH), else the job stops before computing anything."""
    copy = (Path(package) / PACKAGE).resolve()
    if copy != PACKAGE_DIR:
        raise MutantError(f"a mutant job must run the scratch copy {copy}, but imported {PACKAGE} from {PACKAGE_DIR} "
                          "(put the copy's folder first on PYTHONPATH)")
    script = Path(job["script"]).resolve()
    if str(script.parent) not in sys.path:  # as Snakemake runs a local script: its folder importable
        sys.path.append(str(script.parent))
    runpy.run_path(str(script), init_globals={"snakemake": JobContext(job, script)}, run_name="__main__")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m banditrepro.mutation", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    job = sub.add_parser("job", help="run one workflow script under a mutant's scratch copy of the package")
    job.add_argument("package", help="the folder holding the scratch copy banditrepro/ (first on PYTHONPATH)")
    job.add_argument("job", help="the job as JSON: script, wildcards, params, input, output, log")
    args = parser.parse_args(argv)
    run_job(args.package, json.loads(args.job))


if __name__ == "__main__":
    main(sys.argv[1:])
