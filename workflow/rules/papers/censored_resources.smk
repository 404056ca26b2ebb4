# censored_resources: the AmesHousing random-forest surrogate table (digest §4), the `requires:`
# file of the `ames` experiment (forest_model.ACTIVE_TABLE). The paper's option `ames_forest`
# (config/papers/censored_resources.yaml `options:`, checked by the Snakefile) picks its source:
#   cached     (default) the table shipped in data/ames_forest/, sha256-checked, then copied: seconds, no
#              forest job. It serves every scale whose configured forest grid it is (its provenance names
#              the grid); at another, the Ames parts are skipped with a notice.
#   recompute  one job per (run k, mtry value) of the active scale's grid, on this machine: each fits one
#              forest of the largest num.trees per (min.node.size, sample.fraction) and times every
#              num.trees prefix; the merged table's provenance names the machine that measured the times.
#              Tables of different scales live apart (forest/<scale>/), so none overwrites another.
#   off        no Ames figure, tables or claims (one notice); everything else is built.
from banditrepro.experiments.censored_resources.forest_dag import (
    chunk_path,
    chunk_paths,
    forest_grid,
    forest_log,
    grid_argument,
    scale_table,
    shipped_table_problem,
)
from banditrepro.experiments.censored_resources.forest_model import ACTIVE_TABLE, PAPER, SHIPPED_TABLE

AMES_FOREST = config["ames_forest"]  # resolved by the Snakefile: one of the values the paper declares
FOREST_SCALE = config["scale"]
FOREST_CLI = f"{sys.executable} -m banditrepro.experiments.censored_resources.forest_cli"
# the active scale's forest grid, from the paper spec the workflow loaded (common.smk paper_spec)
AMES_FOREST_GRID = forest_grid(paper_spec(PAPER))


if AMES_FOREST == "off":
    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: "ames_forest=off (the AmesHousing forest table is switched off)"


if AMES_FOREST == "cached":
    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: shipped_table_problem(AMES_FOREST_GRID, FOREST_SCALE, REPO_ROOT)

    rule censored_resources_forest_cached:
        input:
            table=SHIPPED_TABLE,
            provenance=layout.sidecar(SHIPPED_TABLE),
        output:
            table=ACTIVE_TABLE,
            provenance=layout.sidecar(ACTIVE_TABLE),
        params:
            cli=FOREST_CLI,  # the interpreter running Snakemake (has banditrepro installed)
        log:
            forest_log("active.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.cli} install --source cached "
            "--table {input.table} --out {output.table} 2> {log}"


if AMES_FOREST == "recompute":
    from banditrepro.data import processed_outputs

    REQUIREMENT_STATUS[ACTIVE_TABLE] = lambda: not_built_reason(["ameshousing"])

    rule censored_resources_forest_chunk:
        input:
            table=processed_outputs("ameshousing", config)[0],
        output:
            chunk_path(FOREST_SCALE, "{run}", "{mtry}"),
        params:
            trees=grid_argument(AMES_FOREST_GRID, "num_trees"),
            nodes=grid_argument(AMES_FOREST_GRID, "min_node_size"),
            fractions=grid_argument(AMES_FOREST_GRID, "sample_fraction"),
            seed=config["seed"],
            cli=FOREST_CLI,
        wildcard_constraints:
            run=r"\d+",
            mtry=r"\d+",
        log:
            forest_log(FOREST_SCALE, "run{run}_mtry{mtry}.log"),
        resources:
            runtime=60,  # minutes (cluster profiles): one AmesHousing forest run x mtry, minutes of one core
        conda:
            "../../../environment.yml"
        shell:
            "{params.cli} chunk --table {input.table} "
            "--run {wildcards.run} --mtry {wildcards.mtry} --trees {params.trees} --node-sizes {params.nodes} "
            "--fractions {params.fractions} --seed {params.seed} --out {output} 2> {log}"

    rule censored_resources_forest_table:
        input:
            chunk_paths(AMES_FOREST_GRID, FOREST_SCALE),
        output:
            table=scale_table(FOREST_SCALE),
            provenance=layout.sidecar(scale_table(FOREST_SCALE)),
        params:
            seed=config["seed"],
            cli=FOREST_CLI,
        log:
            forest_log(FOREST_SCALE, "merge.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.cli} merge {input} "
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
            cli=FOREST_CLI,
        log:
            forest_log("active.log"),
        conda:
            "../../../environment.yml"
        shell:
            "{params.cli} export --source recompute "
            "--table {input.table} --out {output.table} 2> {log}"
