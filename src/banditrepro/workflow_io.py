"""What the workflow scripts (workflow/scripts/*.py) share: log redirection, the repository root,
and a results context built from a rule's inputs. Only the scripts use this module; environments,
policies and the report code never know about Snakemake."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from .report.context import ResultsContext


@contextmanager
def logged(snakemake):
    """Send stdout and stderr of the script to the rule's log file."""
    if not snakemake.log:
        yield
        return
    log_path = Path(snakemake.log[0])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        old_out, old_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = log
        try:
            yield
        finally:
            sys.stdout, sys.stderr = old_out, old_err


def repo_root(snakemake) -> Path:
    """The project root: the scripts live in <root>/workflow/scripts (Snakemake passes their directory)."""
    return Path(snakemake.scriptdir).resolve().parents[1]


def context_from_inputs(spec, summaries: Iterable, shards: Iterable, standin: Iterable[str] = ()) -> ResultsContext:
    """A ResultsContext over the summary files (results/<paper>/<figure>/summary.csv, with their
    reference.csv beside them) and shard files (results/<paper>/shards/<experiment>/*.npz) a rule was given."""
    sums = {Path(p).parent.name: Path(p) for p in summaries}
    refs = {fig: p.with_name("reference.csv") for fig, p in sums.items()}
    by_exp: dict[str, list[Path]] = {}
    for p in shards:
        by_exp.setdefault(Path(p).parent.name, []).append(Path(p))
    return ResultsContext(spec, sums, refs, by_exp, set(standin))
