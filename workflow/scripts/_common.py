"""Shared set-up of the workflow scripts: log redirection and the paper spec."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path


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


def repo_root() -> Path:
    # scripts live in <repo>/workflow/scripts
    return Path(__file__).resolve().parents[2]
