"""Snakemake script of rule datasets: one line per dataset (available, stand-in, or what is missing and why)."""

import sys
from pathlib import Path

from banditrepro.data import DATASET_NAMES, dataset_statuses


def main(snakemake) -> int:
    statuses = dataset_statuses(DATASET_NAMES, snakemake.params.config, Path(snakemake.params.repo_root))
    lines = [status.line() for status in statuses.values()]
    text = "\n".join(lines) + "\n"
    log_path = Path(snakemake.log[0])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(text, encoding="utf-8")
    sys.stderr.write("banditrepro datasets:\n" + text)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
