"""Snakemake script of rule data_fetch: fetch and verify one dataset's raw files (banditrepro.data.fetch)."""

import logging
import sys
from pathlib import Path

from banditrepro.data.fetch import fetch_dataset
from banditrepro.data.integrity import DataError
from banditrepro.data.logsetup import log_to


def main(smk) -> int:
    log_to(smk.log[0])
    mirror = Path(smk.params.mirror) if smk.params.mirror else None
    record = Path(smk.output.record)
    try:
        fetch_dataset(smk.wildcards.dataset, record.parent.parent, mirror)
    except DataError as exc:
        logging.getLogger("banditrepro.data").error("%s", exc)
        return 1
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
