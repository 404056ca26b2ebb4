# censored_resources: the AmesHousing random-forest surrogate table (digest §4), the `requires:`
# file of the `ames` experiment (forest.ACTIVE_TABLE). Config `ames_forest` picks its source:
#   cached     (default) the table shipped in data/ames_forest/, sha256-checked, then copied: seconds, no
#              forest job. It serves every scale whose configured forest grid it is (its provenance names
#              the grid); at another, the Ames parts are skipped with a notice.
#   recompute  one job per (run k, mtry value) of the active scale's grid, on this machine: each fits one
#              forest of the largest num.trees per (min.node.size, sample.fraction) and times every
#              num.trees prefix; the merged table's provenance names the machine that measured the times.
#              Tables of different scales live apart (forest/<scale>/), so none overwrites another.
#   off        no Ames figure, tables or claims (one notice); everything else is built.
from banditrepro.experiments.censored_resources.forest import (
    ACTIVE_TABLE,
    SHIPPED_TABLE,
    chunk_path,
    chunk_paths,
    forest_log,
    grid_argument,
    scale_table,
    shipped_table_problem,
)

AMES_FOREST = config["ames_forest"] or "off"  # YAML reads an unquoted `off` as false
FOREST_SCALE = config["scale"]

if AMES_FOREST == "off":
    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: "ames_forest=off (the AmesHousing forest table is switched off)"


if AMES_FOREST == "cached":
    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: shipped_table_problem(FOREST_SCALE, REPO_ROOT)

    rule censored_resources_forest_cached:
        input:
            table=SHIPPED_TABLE,
            provenance=layout.sidecar(SHIPPED_TABLE),
        output:
            table=ACTIVE_TABLE,
            provenance=layout.sidecar(ACTIVE_TABLE),
        params:
            python=sys.executable,  # the interpreter running Snakemake (has banditrepro installed)
        log:
            forest_log("active.log"),
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
            chunk_path(FOREST_SCALE, "{run}", "{mtry}"),
        params:
            trees=grid_argument(FOREST_SCALE, REPO_ROOT, "num_trees"),
            nodes=grid_argument(FOREST_SCALE, REPO_ROOT, "min_node_size"),
            fractions=grid_argument(FOREST_SCALE, REPO_ROOT, "sample_fraction"),
            seed=config["seed"],
            python=sys.executable,
        wildcard_constraints:
            run=r"\d+",
            mtry=r"\d+",
        log:
            forest_log(FOREST_SCALE, "run{run}_mtry{mtry}.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest chunk --table {input.table} "
            "--run {wildcards.run} --mtry {wildcards.mtry} --trees {params.trees} --node-sizes {params.nodes} "
            "--fractions {params.fractions} --seed {params.seed} --out {output} 2> {log}"

    rule censored_resources_forest_table:
        input:
            chunk_paths(FOREST_SCALE, REPO_ROOT),
        output:
            table=scale_table(FOREST_SCALE),
            provenance=layout.sidecar(scale_table(FOREST_SCALE)),
        params:
            seed=config["seed"],
            python=sys.executable,
        log:
            forest_log(FOREST_SCALE, "merge.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest merge {input} "
            "--seed {params.seed} --out {output.table} 2> {log}"

    # The experiment's `requires:` path is scale-free: the active scale's table is exported to it
    # (switching scale re-exports, cheap; it never recomputes or overwrites another scale's table).
    rule censored_resources_forest_recomputed:
        input:
            table=scale_table(FOREST_SCALE),
            provenance=layout.sidecar(scale_table(FOREST_SCALE)),
        output:
            table=ACTIVE_TABLE,
            provenance=layout.sidecar(ACTIVE_TABLE),
        params:
            python=sys.executable,
        log:
            forest_log("active.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.python} -m banditrepro.experiments.censored_resources.forest export --source recompute "
            "--table {input.table} --out {output.table} 2> {log}"
