"""Snakemake script of rule data_standin: synthetic raw files with the real Kaggle schema (labelled STAND-IN)."""

import sys
from pathlib import Path

from banditrepro.data.logsetup import log_to
from banditrepro.data.standin import write_standin


def main(smk) -> int:
    log_to(smk.log[0])
    record = Path(smk.output.record)
    write_standin(smk.wildcards.dataset, record.parent.parent, seed=smk.params.seed, size=smk.params.size)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
