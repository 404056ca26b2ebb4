"""Snakemake script of the data_preprocess_* rules: raw files (fetch record) -> processed tables."""

import logging
import sys
from pathlib import Path

from banditrepro.data.__main__ import preprocessor
from banditrepro.data.integrity import DataError
from banditrepro.data.logsetup import log_to


def main(smk) -> int:
    log_to(smk.log[0])
    kwargs = dict(smk.params.options)
    try:
        outputs = preprocessor(smk.params.dataset)(Path(smk.input.record), Path(smk.output.provenance).parent, **kwargs)
    except DataError as exc:
        logging.getLogger("banditrepro.data").error("%s", exc)
        return 1
    missing = sorted(set(map(str, smk.output)) - {str(p) for p in outputs} - {str(smk.output.provenance)})
    if missing:
        logging.getLogger("banditrepro.data").error("preprocessing did not write %s", missing)
        return 1
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
