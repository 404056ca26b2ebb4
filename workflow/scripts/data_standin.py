"""Snakemake script of rule data_standin: synthetic raw files with the real Kaggle schema (labelled STAND-IN)."""

from pathlib import Path

from banditrepro.data.standin import write_standin
from banditrepro.workflow_io import run


def main(snakemake) -> None:
    write_standin(snakemake.wildcards.dataset, Path(snakemake.params.raw_dir), seed=snakemake.params.seed,
                  size=snakemake.params.size)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
