# Simulation: one job per (paper, experiment, block of replications); every algorithm of the
# experiment runs in the job so that they share common random numbers.


rule simulate_shard:
    input:
        experiment_inputs,
    output:
        layout.SHARD_PATTERN,
    params:
        **job_params(),  # root seed (or a robustness seed), scale, the paper's sources (common.smk)
        # the resolved experiment config: editing it reruns exactly the affected shards
        experiment=lambda w: paper_spec(w.paper).experiments[w.experiment].config,
    log:
        layout.SIMULATE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/simulate_shard.py"


rule summarize_figure:
    input:
        lambda w: [f for files in figure_shards(w).values() for f in files],
    output:
        summary=layout.SUMMARY_PATTERN,
        reference=layout.REFERENCE_PATTERN,
    params:
        **job_params(),
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
        shards=figure_shards,
    log:
        layout.SUMMARIZE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/summarize_figure.py"
