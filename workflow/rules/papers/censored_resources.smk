# censored_resources: the AmesHousing random-forest surrogate table (digest §4), the `requires:`
# file of the `ames` experiment (forest.ACTIVE_TABLE). Config `ames_forest` picks its source:
#   cached     (default) the paper-scale table shipped in data/ames_forest/, sha256-checked, then copied:
#              seconds, no forest job. Smoke scale replays it too, so smoke results are deterministic.
#   recompute  one job per (run k, mtry value) on this machine (60 jobs, about 80 CPU-minutes): each fits
#              one forest of the largest num.trees per (min.node.size, sample.fraction) and times every
#              num.trees prefix; the merged table's provenance names the machine that measured the times.
#   off        no Ames figure, tables or claims (one notice); everything else is built.
from banditrepro.experiments.censored_resources.forest import (
    ACTIVE_TABLE,
    SHIPPED_TABLE,
    chunk_paths,
    grid_argument,
)

AMES_FOREST = config["ames_forest"] or "off"  # YAML reads an unquoted `off` as false

if AMES_FOREST == "off":
    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: "ames_forest=off (the AmesHousing forest table is switched off)"


if AMES_FOREST == "cached":

    rule censored_resources_forest_cached:
        input:
            table=SHIPPED_TABLE,
            provenance=f"{SHIPPED_TABLE}.provenance.json",
        output:
            table=ACTIVE_TABLE,
            provenance=f"{ACTIVE_TABLE}.provenance.json",
        params:
            python=sys.executable,  # the interpreter running Snakemake (has banditrepro installed)
        log:
            "logs/censored_resources/forest/active.log",
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest install --source cached "
            "--table {input.table} --out {output.table} 2> {log}"


if AMES_FOREST == "recompute":
    from banditrepro.data import processed_outputs

    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: dataset_missing_reason(["ameshousing"])

    rule censored_resources_forest_chunk:
        input:
            table=processed_outputs("ameshousing", config)[0],
        output:
            "results/censored_resources/forest/paper/chunks/run{run}_mtry{mtry}.csv",
        params:
            trees=grid_argument(REPO_ROOT, "num_trees"),
            nodes=grid_argument(REPO_ROOT, "min_node_size"),
            fractions=grid_argument(REPO_ROOT, "sample_fraction"),
            seed=config["seed"],
            python=sys.executable,
        wildcard_constraints:
            run=r"\d+",
            mtry=r"\d+",
        log:
            "logs/censored_resources/forest/paper/run{run}_mtry{mtry}.log",
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest chunk --table {input.table} "
            "--run {wildcards.run} --mtry {wildcards.mtry} --trees {params.trees} --node-sizes {params.nodes} "
            "--fractions {params.fractions} --seed {params.seed} --out {output} 2> {log}"

    rule censored_resources_forest_table:
        input:
            chunk_paths(REPO_ROOT),
        output:
            table="results/censored_resources/forest/paper/surrogate_table.csv",
            provenance="results/censored_resources/forest/paper/surrogate_table.csv.provenance.json",
        params:
            seed=config["seed"],
            python=sys.executable,
        log:
            "logs/censored_resources/forest/paper/merge.log",
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest merge {input} "
            "--seed {params.seed} --out {output.table} 2> {log}"

    rule censored_resources_forest_recomputed:
        input:
            table="results/censored_resources/forest/paper/surrogate_table.csv",
            provenance="results/censored_resources/forest/paper/surrogate_table.csv.provenance.json",
        output:
            table=ACTIVE_TABLE,
            provenance=f"{ACTIVE_TABLE}.provenance.json",
        params:
            python=sys.executable,
        log:
            "logs/censored_resources/forest/active.log",
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest export --source recompute "
            "--table {input.table} --out {output.table} 2> {log}"
