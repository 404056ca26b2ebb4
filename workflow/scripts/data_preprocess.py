"""Snakemake script of the data_preprocess_* rules: raw files (fetch record) -> processed tables."""

from pathlib import Path

from banditrepro.data.__main__ import preprocessor
from banditrepro.data.integrity import DataError
from banditrepro.workflow_io import ScriptError, run


def main(snakemake) -> None:
    kwargs = dict(snakemake.params.options)
    try:
        outputs = preprocessor(snakemake.params.dataset)(Path(snakemake.input.record), Path(snakemake.params.out_dir),
                                                          **kwargs)
    except DataError as exc:
        raise ScriptError(str(exc)) from exc
    missing = sorted(set(map(str, snakemake.output)) - {str(p) for p in outputs} - {str(snakemake.output.provenance)})
    if missing:
        raise ScriptError(f"preprocessing did not write {missing}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
