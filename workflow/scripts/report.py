"""Write the overall replication report: headline tallies and findings of every paper."""

from pathlib import Path

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import read_claims
from banditrepro.report.findings import render_findings
from banditrepro.report.report import overall_report
from banditrepro.workflow_io import logged, repo_root


def main(snakemake) -> None:
    with logged(snakemake):
        root = repo_root(snakemake)
        claims = {Path(p).parent.name: Path(p) for p in snakemake.input.claims}
        reports = {Path(p).parent.name: Path(p) for p in snakemake.input.reports}
        findings = {paper: render_findings(load_paper(paper, snakemake.params.scale, root), read_claims(path))
                    for paper, path in claims.items()}
        robustness = {Path(p).parent.name: Path(p) for p in snakemake.input.robustness}
        prov = provenance.record({"papers": list(claims), "scale": snakemake.params.scale}, snakemake.params.seed,
                                 root)
        overall_report(claims, reports, Path(snakemake.output[0]), prov, findings, robustness,
                       snakemake.params.not_built)
        provenance.write_sidecar(snakemake.output[0], prov)


main(snakemake)  # noqa: F821 - injected by Snakemake
