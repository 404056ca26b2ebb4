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


def context_from_results(spec, results: dict, standin: Iterable[str] = ()) -> ResultsContext:
    """A ResultsContext over the result files a claim or table job was given, keyed by what they are (the
    rule's ``results`` param, common.smk ``ResultFiles``): ``summaries`` and ``references`` {figure: path},
    ``shards`` {experiment: [paths]}."""
    return ResultsContext(spec, results["summaries"], results["references"], results["shards"], set(standin))
