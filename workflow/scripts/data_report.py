"""Snakemake script of rule datasets: one line per dataset (available, stand-in, or what is missing and why)."""

import sys
from pathlib import Path

from banditrepro.data import DATASET_NAMES, dataset_status


def main(snakemake) -> int:
    lines = [dataset_status(name, snakemake.params.config, Path(snakemake.params.repo_root)).line() for name in DATASET_NAMES]
    text = "\n".join(lines) + "\n"
    log_path = Path(snakemake.log[0])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(text, encoding="utf-8")
    sys.stderr.write("banditrepro datasets:\n" + text)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
