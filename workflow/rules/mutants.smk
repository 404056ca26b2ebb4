# Mutation testing of the claims (library: banditrepro.mutation, banditrepro.codegraph, banditrepro.report.mutants;
# doc: docs/mutants.md).
#   snakemake --cores 2 mutants_satisficing_ucl   one paper      snakemake --cores 2 mutants   every paper
# Each mutant a paper declares (config/papers/<paper>.yaml `mutants:`) is planted in a scratch copy of the
# project (results/mutants/<mutant>/package: the package and the workflow scripts, links to the configs and
# the data). Its jobs run the copy's workflow scripts (PYTHONPATH; `python -m banditrepro.mutation job` checks
# that the copy is what it imported), with the params of their twin rules (simulate.smk, report.smk,
# sequential.smk, data.smk) evaluated for the mutant's wildcards. What they rerun follows from where the patch
# lies (mutants_common.smk, banditrepro.mutation.PaperCode): a policy patch reruns the runs of the algorithms
# that run the policy (the main build's shards give the others); a shared patch reruns every experiment of
# the figures with a headline or sanity claim, and the preprocessing of their data sets when it imports the
# patched module. Summaries, look 0 of the sequential claims, claims, readings and tables are always rebuilt,
# under results/mutants/<mutant>/<paper>/, and results/<paper>/mutants.csv says what each mutant did.

# the interpreter running Snakemake (it has the copy's dependencies), with the copy's package first on its path
MUTANT_SHELL = f"PYTHONPATH={{input.tree:q}}/src {sys.executable} -m banditrepro.mutation job {{input.tree:q}} {{params.job:q}}"


rule mutant_package:
    input:
        # every source of the package and every workflow script: an edit makes fresh copies (and reruns the mutants)
        lambda w: sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "src" / "banditrepro").rglob("*.py")),
        lambda w: sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "workflow" / "scripts").glob("*.py")),
    output:
        directory(layout.MUTANT_PACKAGE_PATTERN),
    params:
        patch=lambda w: mutant_of(w).patch_fields(),
        links=lambda w: mutant_tree_links(w.mutant),
    log:
        layout.MUTANT_PACKAGE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/mutant_package.py"


# The preprocessing of a data set under a mutant whose patch its job imports (mutant_preprocessed), into
# results/mutants/<mutant>/data/...; the raw files (fetched or stand-in) are the main build's.
for _dataset, _standin, _raw, _out in preprocess_variants():

    rule:
        name:
            f"mutant_data_preprocess_{_dataset}{'_standin' if _standin else ''}"
        input:
            tree=layout.MUTANT_PACKAGE_PATTERN,
            record=f"{_raw}/{_dataset}/fetch_record.json",
        output:
            *[layout.mutant_data_path("{mutant}", f"{_out}/{_file}") for _file in PROCESSED_FILES[_dataset]],
            provenance=layout.mutant_data_path("{mutant}", f"{_out}/{_dataset}.provenance.json"),
        params:
            job=lambda w, input, output, name=_dataset, out=_out: mutant_job(
                "data_preprocess.py",
                w,
                preprocess_params(name, layout.mutant_data_path(w.mutant, out)),
                {**{f"file{i}": f for i, f in enumerate(output[:-1])}, "provenance": output.provenance},
                mutant_preprocess_log(w.mutant, name, out),
                {"record": input.record},
            ),
        log:
            mutant_preprocess_log("{mutant}", _dataset, _out),
        conda:
            "../../environment.yml"
        shell:
            MUTANT_SHELL


rule mutant_simulate_shard:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        main=mutant_main_shard,
        data=lambda w: experiment_inputs(w, mutant_processed_outputs(w.mutant)),
    output:
        layout.MUTANT_SHARD_PATTERN,
    params:
        job=mutant_simulation_job,
    log:
        layout.MUTANT_SIMULATE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_summarize_figure:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        shards=lambda w: [f for files in mutant_figure_shards(w).values() for f in files],
    output:
        summary=layout.MUTANT_SUMMARY_PATTERN,
        reference=layout.MUTANT_REFERENCE_PATTERN,
    params:
        job=lambda w, output: mutant_job(
            "summarize_figure.py",
            w,
            summarize_figure_params(mutant_figure_shards),
            {"summary": output.summary, "reference": output.reference},
            layout.MUTANT_SUMMARIZE_LOG_PATTERN,
        ),
    log:
        layout.MUTANT_SUMMARIZE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_sequential_look:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        shards=lambda w: [f for files in mutant_look_results(w)["shards"].values() for f in files],
    output:
        layout.MUTANT_SEQUENTIAL_LOOK_PATTERN,
    params:
        job=lambda w, output: mutant_job(
            "sequential_look.py",
            w,
            sequential_look_params(mutant_look_results),
            list(output),
            layout.MUTANT_SEQUENTIAL_LOOK_LOG_PATTERN,
            extra_wildcards={"look": "0"},
        ),
    log:
        layout.MUTANT_SEQUENTIAL_LOOK_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_claims_figure:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        summaries=lambda w: list(mutant_claim_results(w).summaries.values()),
        shards=lambda w: mutant_claim_results(w).inputs()["shards"],
        sequential=lambda w: mutant_looks(w.mutant, w.paper, w.figure),
    output:
        layout.MUTANT_FIGURE_CLAIMS_PATTERN,
    params:
        job=lambda w, input, output: mutant_job(
            "claims.py",
            w,
            claims_figure_params(mutant_claim_results),
            list(output),
            layout.MUTANT_FIGURE_CLAIMS_LOG_PATTERN,
            {"sequential": list(input.sequential)},
        ),
    log:
        layout.MUTANT_FIGURE_CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_claims:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        claims=mutant_merged_claim_files,
    output:
        layout.MUTANT_CLAIMS_PATTERN,
    params:
        job=lambda w, input, output: mutant_job(
            "claims_merge.py",
            w,
            claims_params(),
            list(output),
            layout.MUTANT_CLAIMS_LOG_PATTERN,
            {f"part{i}": f for i, f in enumerate(input.claims)},
        ),
    log:
        layout.MUTANT_CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_readings:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        claims=layout.MUTANT_CLAIMS_PATTERN,
    output:
        layout.MUTANT_READINGS_PATTERN,
    params:
        job=lambda w, input, output: mutant_job(
            "readings.py",
            w,
            readings_params(),
            list(output),
            layout.MUTANT_READINGS_LOG_PATTERN,
            {"claims": input.claims},
        ),
    log:
        layout.MUTANT_READINGS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutant_table:
    input:
        tree=layout.MUTANT_PACKAGE_PATTERN,
        results=lambda w: [f for files in mutant_table_results(w).inputs().values() for f in files],
        files=lambda w: table_inputs(w)["files"],
    output:
        csv=layout.MUTANT_TABLE_CSV_PATTERN,
        md=layout.MUTANT_TABLE_MD_PATTERN,
    params:
        job=lambda w, output: mutant_job(
            "table.py",
            w,
            table_params(mutant_table_results),
            {"csv": output.csv, "md": output.md},
            layout.MUTANT_TABLE_LOG_PATTERN,
        ),
    log:
        layout.MUTANT_TABLE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        MUTANT_SHELL


rule mutants_csv:
    input:
        unpack(mutants_inputs),
    output:
        layout.MUTANTS_PATTERN,
    params:
        **claims_params(),
        mutants=lambda w: [{**m.as_dict(), "where": reach.where, "reruns": mutant_rerun_text(m.id)}
                           for m, reach in paper_mutants(w.paper).values()],
        outputs=lambda w: {mid: mutant_outputs(w.paper, mid) for mid in paper_mutants(w.paper)},
        tables=lambda w: {t: layout.table_file(w.paper, t, "csv") for t in mutant_tables(w.paper)},
    log:
        layout.MUTANTS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/mutants.py"


for _paper in available_papers():

    rule:
        name:
            f"mutants_{_paper}"
        input:
            layout.mutants_file(_paper),
            layout.paper_report_file(_paper),


rule mutants:
    input:
        [layout.mutants_file(p) for p in available_papers()],
        [layout.paper_report_file(p) for p in available_papers()],
        layout.REPORT_FILE,
