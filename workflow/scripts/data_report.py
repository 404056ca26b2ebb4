"""Snakemake script of rule datasets: one line per dataset (available, stand-in, or what is missing and why)."""

from pathlib import Path

from banditrepro.data import DATASET_NAMES, dataset_statuses
from banditrepro.workflow_io import run, tell


def main(snakemake) -> None:
    statuses = dataset_statuses(DATASET_NAMES, snakemake.params.config, Path(snakemake.params.repo_root))
    lines = [status.line() for status in statuses.values()]
    tell("\n".join(lines) + "\n", heading="banditrepro datasets:\n")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
