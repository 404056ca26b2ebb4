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
        "results/{paper}/claims/{figure}.csv",
    params:
        seed=run_seed,
        scale=config["scale"],
        claims=lambda w: [c for c in paper_spec(w.paper).claims if c["figure"] == w.figure],
        unavailable=lambda w: figure_availability(w.paper).missing,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
    log:
        "logs/{paper}/claims/{figure}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"


rule claims:
    input:
        lambda w: claim_figure_files(w.paper),
    output:
        report(
            "results/{paper}/claims.csv",
            category="{paper}",
            subcategory="claims",
            labels={"item": "claims", "file": "claims.csv"},
            caption="../../report/claims.rst",
        ),
    params:
        seed=config["seed"],
        scale=config["scale"],
    log:
        "logs/{paper}/claims.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims_merge.py"


rule table:
    input:
        unpack(table_inputs),
    output:
        csv=report(
            "results/{paper}/tables/{table}.csv",
            category="{paper}",
            subcategory="tables",
            labels={"item": "table {table}", "file": "{table}.csv"},
            caption="../../report/table.rst",
        ),
        md="results/{paper}/tables/{table}.md",
    params:
        seed=run_seed,
        scale=config["scale"],
        table=lambda w: paper_spec(w.paper).tables[w.table],
    log:
        "logs/{paper}/tables/{table}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/table.py"


rule paper_report:
    input:
        unpack(paper_report_inputs),
    output:
        report(
            "results/{paper}/report.md",
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
    log:
        "logs/{paper}/report.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/paper_report.py"


rule report:
    input:
        claims=expand("results/{paper}/claims.csv", paper=available_papers()),
        reports=expand("results/{paper}/report.md", paper=available_papers()),
        robustness=lambda w: [robustness_file(p) for p in available_papers() if robustness_in_report(p)],
    output:
        "results/report.md",
    params:
        seed=config["seed"],
        scale=config["scale"],
        not_built=lambda w: not_built(),  # datasets and figures this machine cannot build, and why (common.smk)
    log:
        "logs/report.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/report.py"
