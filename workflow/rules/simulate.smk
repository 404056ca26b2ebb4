# Simulation: one job per (paper, experiment, block of replications); every algorithm of the
# experiment runs in the job so that they share common random numbers.


rule simulate_shard:
    input:
        experiment_inputs,
    output:
        "results/{paper}/shards/{experiment}/{shard}.npz",
    params:
        seed=run_seed,  # the configured root seed, or a robustness seed (common.smk)
        scale=config["scale"],
        # the resolved experiment config: editing it reruns exactly the affected shards
        experiment=lambda w: paper_spec(w.paper).experiments[w.experiment].config,
    log:
        "logs/{paper}/simulate/{experiment}/{shard}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/simulate_shard.py"


rule summarize_figure:
    input:
        figure_shards,
    output:
        summary="results/{paper}/{figure}/summary.csv",
        reference="results/{paper}/{figure}/reference.csv",
    params:
        seed=run_seed,
        scale=config["scale"],
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
    log:
        "logs/{paper}/summarize/{figure}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/summarize_figure.py"
