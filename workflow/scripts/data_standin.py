"""Snakemake script of rule data_standin: synthetic raw files with the real Kaggle schema (labelled STAND-IN)."""

import sys
from pathlib import Path

from banditrepro.data.logsetup import log_to
from banditrepro.data.standin import write_standin


def main(snakemake) -> int:
    log_to(snakemake.log[0])
    write_standin(snakemake.wildcards.dataset, Path(snakemake.params.raw_dir), seed=snakemake.params.seed,
                  size=snakemake.params.size)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
