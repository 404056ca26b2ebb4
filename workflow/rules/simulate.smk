# Simulation: one job per (paper, experiment, block of replications); every algorithm of the
# experiment runs in the job so that they share common random numbers.


rule simulate_shard:
    input:
        experiment_inputs,
    output:
        layout.SHARD_PATTERN,
    params:
        **simulate_shard_params(),
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
        **summarize_figure_params(),
    log:
        layout.SUMMARIZE_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/summarize_figure.py"
