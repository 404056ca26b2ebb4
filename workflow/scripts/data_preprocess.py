"""Snakemake script of the data_preprocess_* rules: raw files (fetch record) -> processed tables."""

import logging
import sys
from pathlib import Path

from banditrepro.data.__main__ import preprocessor
from banditrepro.data.integrity import DataError
from banditrepro.data.logsetup import log_to


def main(snakemake) -> int:
    log_to(snakemake.log[0])
    kwargs = dict(snakemake.params.options)
    try:
        outputs = preprocessor(snakemake.params.dataset)(Path(snakemake.input.record), Path(snakemake.params.out_dir), **kwargs)
    except DataError as exc:
        logging.getLogger("banditrepro.data").error("%s", exc)
        return 1
    missing = sorted(set(map(str, snakemake.output)) - {str(p) for p in outputs} - {str(snakemake.output.provenance)})
    if missing:
        logging.getLogger("banditrepro.data").error("preprocessing did not write %s", missing)
        return 1
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
