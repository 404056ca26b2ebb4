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
        **claims_figure_params(),
        # the claims that take sequential looks (sequential.smk): a change reruns the job, whose input function
        # then walks the looks (Snakemake does not rerun an existing output for a pending checkpoint alone)
        sequential=lambda w: [c["id"] for c in sequential_claims_measured(w.paper, w.figure)] if set(w.keys()) == {"paper", "figure"} else [],
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
        layout.CLAIMS_PATTERN,
    params:
        **claims_params(),
    log:
        layout.CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_merge.py"


# The alternative readings of a paper (config `readings:`) against the headline claims they flip, read from
# claims.csv alone (report.diagnosis.readings_table); a paper without readings gets the header only.
rule readings:
    input:
        claims=layout.CLAIMS_PATTERN,
    output:
        layout.READINGS_PATTERN,
    params:
        **readings_params(),
    log:
        layout.READINGS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/readings.py"


rule table:
    input:
        unpack(table_inputs),
    output:
        csv=layout.TABLE_CSV_PATTERN,
        md=layout.TABLE_MD_PATTERN,
    params:
        **table_params(),
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
        layout.PAPER_REPORT_PATTERN,
    params:
        **job_params(),
        not_built=lambda w: figure_availability(w.paper).not_built,
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


# The paper report as one HTML page for Snakemake's HTML report (`snakemake --report results/report.html`):
# the report shows an HTML result in a frame, but a CSV or Markdown one only as a link that a browser opens
# blank, so the findings, the claims table and the tables reach it rendered here (each figure has its own
# page, plot.smk). The glance row feeds the report's main page (report/workflow.rst).
rule paper_page:
    input:
        report=layout.PAPER_REPORT_PATTERN,
        claims=layout.CLAIMS_PATTERN,
    output:
        page=report(
            layout.PAPER_PAGE_PATTERN,
            category="{paper}",
            subcategory="1. report",
            labels={"item": "findings, claims and tables", "file": "report.html"},
            caption="../../report/paper_report.rst",
        ),
        glance=layout.PAPER_GLANCE_PATTERN,
    params:
        **job_params(),
        standin=lambda w: sorted(figure_availability(w.paper).standin),
        figures=lambda w: list(paper_figures(w.paper)),  # the built figures, in config order
    log:
        layout.PAPER_PAGE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/paper_page.py"


rule report:
    input:
        claims=[layout.claims_file(p) for p in available_papers()],
        reports=[layout.paper_report_file(p) for p in available_papers()],
        robustness=lambda w: [layout.robustness_file(p) for p in available_papers() if robustness_in_report(p)],
        mutants=lambda w: [layout.mutants_file(p) for p in available_papers() if mutants_in_report(p)],
        deviations=str(DEVIATIONS_FILE),  # counted per paper (report/deviations.py)
        first_forms=str(FIRST_FORMS_FILE),  # the claims added after each paper's first lock
    output:
        layout.REPORT_FILE,
    params:
        **job_params(sources=lambda w: all_papers_sources()),  # it loads every paper
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
