# censored_resources: AmesHousing random-forest surrogate table (digest §4).
# One job per (run k, mtry value): it fits one forest of the largest num.trees per
# (min.node.size, sample.fraction) and times every num.trees prefix. The merged table is the
# `requires:` file of the `ames` experiment; it is rebuilt only when its inputs change. The grid
# is read from the paper config at the scale named in the path, so a smoke table never
# overwrites the paper one.
from banditrepro.data import processed_outputs
from banditrepro.experiments.censored_resources.forest import chunk_paths, grid_argument


rule censored_resources_forest_chunk:
    input:
        table=processed_outputs("ameshousing", config)[0],
    output:
        "results/censored_resources/forest/{fscale}/chunks/run{run}_mtry{mtry}.csv",
    params:
        trees=lambda w: grid_argument(w.fscale, REPO_ROOT, "num_trees"),
        nodes=lambda w: grid_argument(w.fscale, REPO_ROOT, "min_node_size"),
        fractions=lambda w: grid_argument(w.fscale, REPO_ROOT, "sample_fraction"),
        seed=config["seed"],
        python=sys.executable,  # the interpreter running Snakemake (has banditrepro installed)
    wildcard_constraints:
        fscale=r"paper|smoke",
        run=r"\d+",
        mtry=r"\d+",
    log:
        "logs/censored_resources/forest/{fscale}/run{run}_mtry{mtry}.log",
    conda:
        "../../../environment.yml"
    shell:
        "{params.python} -m banditrepro.experiments.censored_resources.forest chunk --table {input.table} "
        "--run {wildcards.run} --mtry {wildcards.mtry} --trees {params.trees} --node-sizes {params.nodes} "
        "--fractions {params.fractions} --seed {params.seed} --out {output} 2> {log}"


rule censored_resources_forest_table:
    input:
        lambda w: chunk_paths(w.fscale, REPO_ROOT),
    output:
        "results/censored_resources/forest/{fscale}/surrogate_table.csv",
    params:
        python=sys.executable,
    wildcard_constraints:
        fscale=r"paper|smoke",
    log:
        "logs/censored_resources/forest/{fscale}/merge.log",
    conda:
        "../../../environment.yml"
    shell:
        "{params.python} -m banditrepro.experiments.censored_resources.forest merge {input} --out {output} 2> {log}"


# The experiment's `requires:` path is scale-free; it is a copy of the active scale's table, so
# switching scale re-copies (cheap) and never recomputes or overwrites the other scale's table.
rule censored_resources_forest_active:
    input:
        f"results/censored_resources/forest/{config['scale']}/surrogate_table.csv",
    output:
        "results/censored_resources/forest/surrogate_table.csv",
    log:
        "logs/censored_resources/forest/active.log",
    conda:
        "../../../environment.yml"
    shell:
        "cp {input} {output} 2> {log}"
