"""Snakemake script of rule data_fetch: fetch and verify one dataset's raw files (banditrepro.data.fetch)."""

import logging
import sys
from pathlib import Path

from banditrepro.data.fetch import fetch_dataset
from banditrepro.data.integrity import DataError
from banditrepro.data.logsetup import log_to


def main(snakemake) -> int:
    log_to(snakemake.log[0])
    mirror = Path(snakemake.params.mirror) if snakemake.params.mirror else None
    try:
        fetch_dataset(snakemake.wildcards.dataset, Path(snakemake.params.raw_dir), mirror)
    except DataError as exc:
        logging.getLogger("banditrepro.data").error("%s", exc)
        return 1
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
