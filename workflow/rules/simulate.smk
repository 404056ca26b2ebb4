# Simulation: one job per (paper, experiment, block of replications); every algorithm of the
# experiment runs in the job so that they share common random numbers.


def simulate_shard_params():
    """The params of a simulation job ({name: value or fn(wildcards)}): simulate_shard's, and a mutant's
    (mutants.smk) evaluated for its wildcards."""
    return {
        "seed": run_seed,  # the configured root seed, or a robustness seed (common.smk)
        "scale": config["scale"],
        # the resolved experiment config: editing it reruns exactly the affected shards
        "experiment": lambda w: paper_spec(w.paper).experiments[w.experiment].config,
    }


def summarize_figure_params(shards=None):
    """The params of a summary job; ``shards``: fn(wildcards) -> {experiment: shard files} (figure_shards)."""
    return {
        "seed": run_seed,
        "scale": config["scale"],
        "figure": lambda w: paper_spec(w.paper).figures[w.figure],
        "shards": shards or figure_shards,
    }


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
