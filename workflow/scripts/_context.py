"""Build a ResultsContext from a rule's inputs."""

from __future__ import annotations

from pathlib import Path

from banditrepro.report.context import ResultsContext


def context_from_inputs(spec, summaries, shards, standin=()) -> ResultsContext:
    sums = {Path(p).parent.name: Path(p) for p in summaries}
    refs = {fig: p.with_name("reference.csv") for fig, p in sums.items()}
    by_exp: dict[str, list[Path]] = {}
    for p in shards:
        by_exp.setdefault(Path(p).parent.name, []).append(Path(p))
    return ResultsContext(spec, sums, refs, by_exp, set(standin))
