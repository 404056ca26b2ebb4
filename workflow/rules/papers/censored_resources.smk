# censored_resources: AmesHousing random-forest surrogate table (digest §4).
# One job per (run k, mtry value): it fits one forest of the largest num.trees per
# (min.node.size, sample.fraction) and times every num.trees prefix. The merged table is the
# `requires:` file of the `ames` experiment; it is rebuilt only when its inputs change.


def _censored_forest(scale):
    # the grid of the scale named in the path, so a smoke table never overwrites the paper one
    spec = paper_spec("censored_resources") if scale == config["scale"] else load_paper(
        "censored_resources", scale, REPO_ROOT
    )
    return spec.experiments["ames"].params["forest"]


def _censored_forest_chunks(wildcards):
    f = _censored_forest(wildcards.fscale)
    return [
        f"results/censored_resources/forest/{wildcards.fscale}/chunks/run{k:02d}_mtry{m}.csv"
        for k in range(int(f["runs"]))
        for m in f["mtry"]
    ]


def _censored_ames_table():
    from banditrepro.data import processed_outputs

    return processed_outputs("ameshousing", config)[0]


rule censored_resources_forest_chunk:
    input:
        table=_censored_ames_table(),
    output:
        "results/censored_resources/forest/{fscale}/chunks/run{run}_mtry{mtry}.csv",
    params:
        trees=lambda w: " ".join(str(v) for v in _censored_forest(w.fscale)["num_trees"]),
        nodes=lambda w: " ".join(str(v) for v in _censored_forest(w.fscale)["min_node_size"]),
        fractions=lambda w: " ".join(str(v) for v in _censored_forest(w.fscale)["sample_fraction"]),
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
        _censored_forest_chunks,
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
