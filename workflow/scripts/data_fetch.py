"""Snakemake script of rule data_fetch: fetch and verify one dataset's raw files (banditrepro.data.fetch)."""

from pathlib import Path

from banditrepro.data.fetch import fetch_dataset
from banditrepro.data.integrity import DataError
from banditrepro.workflow_io import ScriptError, run


def main(snakemake) -> None:
    mirror = Path(snakemake.params.mirror) if snakemake.params.mirror else None
    try:
        fetch_dataset(snakemake.wildcards.dataset, Path(snakemake.params.raw_dir), mirror)
    except DataError as exc:
        raise ScriptError(str(exc)) from exc


run(main, snakemake)  # noqa: F821 - injected by Snakemake
