"""Write a paper's alternative-readings table (results/<paper>/readings.csv) from its config and claims."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

import pandas as pd

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import read_claims
from banditrepro.report.diagnosis import READING_COLUMNS, readings_table
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    rows = readings_table(spec.config, read_claims(snakemake.input.claims))
    pd.DataFrame(rows, columns=READING_COLUMNS).to_csv(snakemake.output[0], index=False, lineterminator="\n")
    prov = provenance.record({"readings": snakemake.params.readings, "scale": snakemake.params.scale},
                             snakemake.params.seed, root, snakemake.params.sources, paper=w.paper)
    provenance.write_sidecar(snakemake.output[0], prov)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
