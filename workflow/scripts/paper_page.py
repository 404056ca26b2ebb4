"""Write a paper's report as one HTML page and its results-at-a-glance row."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from pathlib import Path

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import read_claims
from banditrepro.report.diagnosis import causes_of
from banditrepro.report.html import glance_row, paper_page
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    page = paper_page(spec, Path(snakemake.input.report).read_text(encoding="utf-8"), list(snakemake.params.figures),
                      set(snakemake.params.standin))
    Path(snakemake.output.page).write_text(page, encoding="utf-8")
    glance = glance_row(w.paper, read_claims(snakemake.input.claims), causes_of(spec.config))
    Path(snakemake.output.glance).write_text(glance, encoding="utf-8")
    prov = provenance.record({"paper": spec.config, "scale": snakemake.params.scale}, snakemake.params.seed,
                             root, snakemake.params.sources, paper=w.paper)
    for out in (snakemake.output.page, snakemake.output.glance):
        provenance.write_sidecar(out, prov)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
