"""Write the overall replication report: headline tallies and findings of every paper."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from pathlib import Path

from banditrepro import layout, provenance
from banditrepro.experiments.spec import expand_claim_cells, load_paper, paper_config_path, read_paper_yaml
from banditrepro.report.claims import read_claims
from banditrepro.report.deviations import (
    DEVIATIONS_FILE,
    FIRST_FORMS_FILE,
    added_rows,
    deviation_count,
    read_deviations,
    read_first_forms,
)
from banditrepro.report.diagnosis import causes_of
from banditrepro.report.findings import render_findings
from banditrepro.report.report import overall_report
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    root = repo_root(snakemake)
    papers = snakemake.params.papers
    claims = {paper: Path(layout.claims_file(paper)) for paper in papers}
    reports = {paper: Path(layout.paper_report_file(paper)) for paper in papers}
    specs = {paper: load_paper(paper, snakemake.params.scale, root) for paper in papers}
    findings = {paper: render_findings(specs[paper], read_claims(path)) for paper, path in claims.items()}
    causes = {paper: causes_of(spec.config) for paper, spec in specs.items()}
    robustness = {paper: Path(layout.robustness_file(paper)) for paper in snakemake.params.robustness_papers}
    mutants = {paper: Path(layout.mutants_file(paper)) for paper in snakemake.params.mutants_papers}
    prov = provenance.record({"papers": list(claims), "scale": snakemake.params.scale}, snakemake.params.seed,
                             root, snakemake.params.sources)
    deviations, first = read_deviations(root / DEVIATIONS_FILE), read_first_forms(root / FIRST_FORMS_FILE)
    added = {}
    for paper in papers:  # the headline claims added after the paper's first lock (report/deviations.py)
        config = paper_config_path(root, paper)
        added[paper] = len(added_rows(paper, first, expand_claim_cells(read_paper_yaml(config), config)["claims"]))
    overall_report(claims, reports, Path(snakemake.output[0]), prov, findings, robustness,
                   snakemake.params.not_built, causes, mutants,
                   {paper: deviation_count(paper, deviations) for paper in papers}, added)
    provenance.write_sidecar(snakemake.output[0], prov)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
