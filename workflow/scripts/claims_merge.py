"""Merge a paper's per-figure claims into results/<paper>/claims.csv, in config order."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import merge_claims, read_claims, write_claims
from banditrepro.report.findings import verdict_line
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    claims = merge_claims(spec, [read_claims(p) for p in snakemake.input])
    write_claims(claims, snakemake.output[0])
    prov = provenance.record({"claims": spec.claims, "scale": snakemake.params.scale}, snakemake.params.seed,
                             root, snakemake.params.sources, paper=w.paper)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(verdict_line(claims))


run(main, snakemake)  # noqa: F821 - injected by Snakemake
