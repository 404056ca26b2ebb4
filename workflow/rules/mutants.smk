# Mutation testing of the claims (library: banditrepro.mutation, banditrepro.report.mutants; doc: docs/mutants.md).
#   snakemake --cores 2 mutants_satisficing_ucl   one paper      snakemake --cores 2 mutants   every paper
# Each mutant a paper declares (config/papers/<paper>.yaml `mutants:`) is planted in a scratch copy of the
# package (results/mutants/<mutant>/package/banditrepro); its jobs run the normal workflow scripts under that
# copy (PYTHONPATH; `python -m banditrepro.mutation job` checks that the copy is what it imported). It rebuilds
# the figures with a headline or sanity claim under results/mutants/<mutant>/<paper>/, rerunning only the
# runs of the mutated algorithm (the main build's shards serve every other algorithm and experiment), and
# results/<paper>/mutants.csv says what each mutant did to the verdicts.


rule mutant_package:
    input:
        # every source of the package: an edited source makes fresh copies (and reruns the mutants)
        lambda w: sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "src" / "banditrepro").rglob("*.py")),
    output:
        directory(layout.MUTANT_PACKAGE_PATTERN),
    params:
        patch=lambda w: mutant_of(w).patch_fields(),
    log:
        layout.MUTANT_PACKAGE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/mutant_package.py"


rule mutant_simulate_shard:
    input:
        package=layout.MUTANT_PACKAGE_PATTERN,
        # the main build's shard of the same replications: the algorithms the mutant does not run are copied
        main=lambda w: layout.shard_file(w.paper, w.experiment, w.shard),
        data=experiment_inputs,
    output:
        layout.MUTANT_SHARD_PATTERN,
    params:
        job=lambda w, input, output: mutant_job(
            "mutant_simulate_shard.py",
            w,
            {"seed": config["seed"], "scale": config["scale"], "algorithms": mutant_rerun_algorithms(w)},
            list(output),
            layout.mutant_log(w.mutant, w.paper, "simulate", w.experiment, f"{w.shard}.log"),
            {"main": input.main},
        ),
        # the resolved experiment config: editing it reruns exactly the affected shards
        experiment=lambda w: paper_spec(w.paper).experiments[w.experiment].config,
    log:
        layout.MUTANT_SIMULATE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        "PYTHONPATH={input.package:q} python -m banditrepro.mutation job {input.package:q} {params.job:q}"


rule mutant_summarize_figure:
    input:
        package=layout.MUTANT_PACKAGE_PATTERN,
        shards=lambda w: [f for files in mutant_figure_shards(w).values() for f in files],
    output:
        summary=layout.MUTANT_SUMMARY_PATTERN,
        reference=layout.MUTANT_REFERENCE_PATTERN,
    params:
        job=lambda w, output: mutant_job(
            "summarize_figure.py",
            w,
            {
                "seed": config["seed"],
                "scale": config["scale"],
                "figure": paper_spec(w.paper).figures[w.figure],
                "shards": mutant_figure_shards(w),
            },
            {"summary": output.summary, "reference": output.reference},
            layout.mutant_log(w.mutant, w.paper, "summarize", f"{w.figure}.log"),
        ),
    log:
        layout.MUTANT_SUMMARIZE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        "PYTHONPATH={input.package:q} python -m banditrepro.mutation job {input.package:q} {params.job:q}"


rule mutant_claims_figure:
    input:
        package=layout.MUTANT_PACKAGE_PATTERN,
        summaries=lambda w: list(mutant_claim_results(w).summaries.values()),
        shards=lambda w: mutant_claim_results(w).inputs()["shards"],
    output:
        layout.MUTANT_FIGURE_CLAIMS_PATTERN,
    params:
        job=lambda w, output: mutant_job(
            "claims.py",
            w,
            {
                "seed": config["seed"],
                "scale": config["scale"],
                "claims": [c for c in paper_spec(w.paper).claims if c["figure"] == w.figure],
                "not_built": figure_availability(w.paper).not_built,
                "standin": sorted(figure_availability(w.paper).standin),
                "results": mutant_claim_results(w)._asdict(),
            },
            list(output),
            layout.mutant_log(w.mutant, w.paper, "claims", f"{w.figure}.log"),
        ),
    log:
        layout.MUTANT_FIGURE_CLAIMS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    shell:
        "PYTHONPATH={input.package:q} python -m banditrepro.mutation job {input.package:q} {params.job:q}"


rule mutants_csv:
    input:
        unpack(mutants_inputs),
    output:
        layout.MUTANTS_PATTERN,
    params:
        seed=config["seed"],
        scale=config["scale"],
        mutants=lambda w: [m.as_dict() for m in paper_mutants(w.paper).values()],
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
