# Claims, tables and the replication report.
#
# Claims are evaluated per figure (results/<paper>/claims/<figure>.csv), each job waiting only for
# the results its claims read (report.claims.claim_dependencies), then merged in config order: a
# paper's synthetic-figure claims never wait for another figure's shards (e.g. the Ames table).
# A table likewise waits only for its declared figures and the experiments its args name.
rule claims_figure:
    input:
        unpack(claim_figure_inputs),
    output:
        layout.FIGURE_CLAIMS_PATTERN,
    params:
        seed=run_seed,
        scale=config["scale"],
        claims=lambda w: [c for c in paper_spec(w.paper).claims if c["figure"] == w.figure],
        unavailable=lambda w: figure_availability(w.paper).missing,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
        results=lambda w: claim_figure_results(w)._asdict(),
    log:
        layout.FIGURE_CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"


rule claims:
    input:
        lambda w: claim_figure_files(w.paper),
    output:
        report(
            layout.CLAIMS_PATTERN,
            category="{paper}",
            subcategory="claims",
            labels={"item": "claims", "file": "claims.csv"},
            caption="../../report/claims.rst",
        ),
    params:
        seed=config["seed"],
        scale=config["scale"],
    log:
        layout.CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_merge.py"


rule table:
    input:
        unpack(table_inputs),
    output:
        csv=report(
            layout.TABLE_CSV_PATTERN,
            category="{paper}",
            subcategory="tables",
            labels={"item": "table {table}", "file": "{table}.csv"},
            caption="../../report/table.rst",
        ),
        md=layout.TABLE_MD_PATTERN,
    params:
        seed=run_seed,
        scale=config["scale"],
        table=lambda w: paper_spec(w.paper).tables[w.table],
        results=lambda w: table_results(w)._asdict(),
    log:
        layout.TABLE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/table.py"


rule paper_report:
    input:
        unpack(paper_report_inputs),
    output:
        report(
            layout.PAPER_REPORT_PATTERN,
            category="{paper}",
            subcategory="report",
            labels={"item": "findings, verdicts and claims", "file": "report.md"},
            caption="../../report/paper_report.rst",
        ),
    params:
        seed=config["seed"],
        scale=config["scale"],
        unavailable=lambda w: figure_availability(w.paper).missing,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
        findings=lambda w: paper_findings(w.paper),
        figures=lambda w: paper_figures(w.paper),  # {figure: [png, pdf]}
        tables=lambda w: {t: layout.table_file(w.paper, t, "md") for t in table_ids(w.paper)},
    log:
        layout.PAPER_REPORT_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/paper_report.py"


rule report:
    input:
        claims=[layout.claims_file(p) for p in available_papers()],
        reports=[layout.paper_report_file(p) for p in available_papers()],
        robustness=lambda w: [layout.robustness_file(p) for p in available_papers() if robustness_in_report(p)],
        mutants=lambda w: [layout.mutants_file(p) for p in available_papers() if mutants_in_report(p)],
    output:
        layout.REPORT_FILE,
    params:
        seed=config["seed"],
        scale=config["scale"],
        not_built=lambda w: not_built(),  # datasets and figures this machine cannot build, and why (common.smk)
        papers=available_papers(),
        # papers whose robustness.csv is an input (robustness_common.smk)
        robustness_papers=lambda w: [p for p in available_papers() if robustness_in_report(p)],
        # papers whose mutants.csv is an input (mutants_common.smk)
        mutants_papers=lambda w: [p for p in available_papers() if mutants_in_report(p)],
    log:
        layout.REPORT_LOG,
    conda:
        "../../environment.yml"
    script:
        "../scripts/report.py"
