# Claims, tables and the replication report.


rule claims:
    input:
        summaries=paper_summaries,
        shards=paper_all_shards,
    output:
        "results/{paper}/claims.csv",
    params:
        seed=config["seed"],
        scale=config["scale"],
        claims=lambda w: paper_spec(w.paper).claims,
        unavailable=lambda w: figure_availability(w.paper).missing,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
    log:
        "logs/{paper}/claims.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/claims.py"


rule table:
    input:
        summaries=paper_summaries,
        shards=paper_all_shards,
    output:
        csv="results/{paper}/tables/{table}.csv",
        md="results/{paper}/tables/{table}.md",
    params:
        seed=config["seed"],
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
        claims="results/{paper}/claims.csv",
        figures=lambda w: paper_figure_files(w.paper),
        tables=lambda w: paper_table_files(w.paper),
    output:
        "results/{paper}/report.md",
    params:
        seed=config["seed"],
        scale=config["scale"],
        unavailable=lambda w: figure_availability(w.paper).missing,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
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
    output:
        "results/report.md",
    log:
        "logs/report.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/report.py"
