"""Write a paper's replication report (Markdown)."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from pathlib import Path

import pandas as pd

from banditrepro import provenance
from banditrepro.codegraph import paper_claim_code
from banditrepro.experiments.spec import expand_claim_cells, load_paper, paper_config_path, read_paper_yaml
from banditrepro.report.claims import read_claims
from banditrepro.report.deviations import (
    CODE_FILE,
    DEVIATIONS_FILE,
    FIRST_FORMS_FILE,
    added_rows,
    deviation_rows,
    form_problems,
    read_code,
    read_deviations,
    read_first_forms,
)
from banditrepro.report.mutants import read_mutants
from banditrepro.report.report import paper_report
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    claims = read_claims(snakemake.input.claims)
    figures = {fig: [Path(p) for p in files] for fig, files in snakemake.params.figures.items()}
    tables = {table: Path(p) for table, p in snakemake.params.tables.items()}
    prov = provenance.record({"paper": spec.config, "scale": snakemake.params.scale}, snakemake.params.seed,
                             root, snakemake.params.sources, paper=w.paper)
    # present when the paper's robustness was built or requested (common.smk: paper_report_inputs)
    robustness = pd.read_csv(snakemake.input.robustness, dtype=str, keep_default_na=False) if hasattr(
        snakemake.input, "robustness") else None
    readings = pd.read_csv(snakemake.input.readings, dtype=str, keep_default_na=False)
    # present when the paper's mutants were built or requested (mutants_common.smk: mutants_in_report)
    mutants = read_mutants(snakemake.input.mutants) if hasattr(snakemake.input, "mutants") else None
    # the changes to claims after their results were known: the frozen first forms and recorded code against the
    # config as written and the code its checks run now; the claims added after the paper's first lock
    first, deviations = read_first_forms(root / FIRST_FORMS_FILE), read_deviations(root / DEVIATIONS_FILE)
    path = paper_config_path(root, w.paper)
    raw_claims = expand_claim_cells(read_paper_yaml(path), path)["claims"]
    unrecorded = form_problems(w.paper, raw_claims, first, deviations, read_code(root / CODE_FILE),
                               paper_claim_code(raw_claims, root / "src" / "banditrepro"))
    paper_report(spec, claims, figures, tables, dict(snakemake.params.not_built), set(snakemake.params.standin),
                 prov, Path(snakemake.output[0]), robustness, readings, mutants,
                 deviation_rows(w.paper, first, deviations, claims), unrecorded,
                 added_rows(w.paper, first, raw_claims, claims))
    provenance.write_sidecar(snakemake.output[0], prov)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
