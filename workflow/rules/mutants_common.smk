# Helper functions of the mutant rules (workflow/rules/mutants.smk); no rules here.
from banditrepro.data import processed_root
from banditrepro.mutation import (
    POLICY,
    MutantError,
    check_mutants,
    figures_experiments,
    mutant_figures,
    mutated_algorithms,
    mutated_experiments,
    paper_code,
)
from banditrepro.report.claim_inputs import claim_figures


@cache
def paper_mutants(paper):
    """The paper's mutants ({id: (Mutant, Reach)}), checked while the DAG is built: a patch that does not
    apply, or that lies where no job of the paper the mutants rebuild can run it, stops `snakemake -n`."""
    try:
        return {m.id: (m, reach) for m, reach in check_mutants(paper_spec(paper))}
    except MutantError as err:
        raise WorkflowError(str(err)) from None


@cache
def all_mutants():
    """{mutant id: (Mutant, Reach)} over the selected papers; an id is unique across papers (it keys the paths)."""
    found = {}
    for paper in available_papers():
        for mid, entry in paper_mutants(paper).items():
            if mid in found:
                raise WorkflowError(f"mutant id {mid!r} is declared by {found[mid][0].paper} and {paper}")
            found[mid] = entry
    return found


def mutant_entry(mutant_id):
    try:
        return all_mutants()[mutant_id]
    except KeyError:
        raise WorkflowError(f"no mutant {mutant_id!r} in the selected papers") from None


def mutant_of(wildcards):
    return mutant_entry(wildcards.mutant)[0]


def mutant_reach(mutant_id):
    return mutant_entry(mutant_id)[1]


def mutant_built_figures(paper):
    """The figures a mutant rebuilds: those with a headline or sanity claim that this machine builds."""
    return [fig for fig in mutant_figures(paper_spec(paper)) if fig in built_figures(paper)]


@cache
def mutant_experiments(paper):
    """The experiments the claims of the rebuilt figures read, whose data this machine has."""
    spec = paper_spec(paper)
    return [e for e in figures_experiments(spec, mutant_built_figures(paper))
            if all(dataset_state(d).available for d in spec.experiments[e].data)]


@cache
def mutant_reruns(mutant_id):
    """The experiments a mutant reruns (some algorithm of theirs runs the patched code)."""
    m, reach = mutant_entry(mutant_id)
    return mutated_experiments(paper_spec(m.paper), reach, mutant_experiments(m.paper))


@cache
def mutant_preprocessed(mutant_id):
    """The data sets a mutant preprocesses itself: those of its experiments whose preprocessing job imports
    the patched module (a shared patch); the others are the main build's."""
    m, reach = mutant_entry(mutant_id)
    spec = paper_spec(m.paper)
    names = dict.fromkeys(d for e in mutant_reruns(mutant_id) for d in spec.experiments[e].data)
    return [d for d in names if paper_code(m.paper).preprocessing_reached(m, reach, d)]


def mutant_processed_outputs(mutant_id):
    """fn(dataset) -> the processed files a mutant's simulations read (its own, or the main build's)."""
    from banditrepro.data import processed_outputs

    def files(name):
        main = processed_outputs(name, config)
        if name not in mutant_preprocessed(mutant_id):
            return main
        return [layout.mutant_data_path(mutant_id, f) for f in main]

    return files


def mutant_tree_links(mutant_id):
    """{path in the scratch copy: target} besides its configs and data: the data sets the mutant preprocesses
    and the paper's precomputed inputs (`requires:`, read from the main build)."""
    spec = paper_spec(mutant_entry(mutant_id)[0].paper)
    links = {}
    for name in mutant_preprocessed(mutant_id):
        folder = str(processed_root(name, config, REPO_ROOT))
        links[folder] = str(REPO_ROOT / layout.mutant_data_path(mutant_id, folder))
    for exp in mutant_experiments(spec.paper):
        for path in spec.experiments[exp].requires:
            for f in (path, layout.sidecar(path)):
                links[f] = str(REPO_ROOT / f)
    return links


def mutant_experiment_shards(mutant_id, paper, experiment):
    """A mutant's shards of an experiment: its own when it reruns the experiment, else the main build's."""
    if experiment not in mutant_reruns(mutant_id):
        return experiment_shards(paper, experiment)
    exp = paper_spec(paper).experiments[experiment]
    return [layout.mutant_shard_file(mutant_id, paper, experiment, shard_name(a, b))
            for a, b in exp.job_shards(config["shard_size"])]


def mutant_figure_shards(wildcards):
    spec = paper_spec(wildcards.paper)
    return {exp: mutant_experiment_shards(wildcards.mutant, wildcards.paper, exp)
            for exp in spec.figure_experiments(wildcards.figure)}


def mutant_results(mutant_id, paper, main):
    """``main`` (common.smk ResultFiles) with the mutant's summaries, shards and per-figure claims."""
    return ResultFiles(
        {fig: layout.mutant_figure_csv(mutant_id, paper, fig, "summary") for fig in main.summaries},
        {fig: layout.mutant_figure_csv(mutant_id, paper, fig, "reference") for fig in main.references},
        {exp: mutant_experiment_shards(mutant_id, paper, exp) for exp in main.shards},
        {fig: layout.mutant_figure_claims_file(mutant_id, paper, fig) for fig in main.claims},
    )


def mutant_claim_results(wildcards):
    """claim_figure_results (common.smk) with the mutant's summaries and shards."""
    return mutant_results(wildcards.mutant, wildcards.paper, claim_figure_results(wildcards))


def mutant_table_results(wildcards):
    return mutant_results(wildcards.mutant, wildcards.paper, table_results(wildcards))


def mutant_look_results(wildcards):
    """Look 0 of a sequential claim under a mutant: the paper's replications of its experiments, the
    mutant's shards (sequential_look_results at look 0)."""
    spec = paper_spec(wildcards.paper)
    claim = sequential_claim(wildcards.paper, wildcards.claim)
    counts = {e: spec.experiments[e].replications for e in claim_experiments(spec, claim)}
    return {"replications": counts,
            "shards": {e: mutant_experiment_shards(wildcards.mutant, wildcards.paper, e) for e in counts}}


def mutant_looks(mutant_id, paper, figure):
    """Look 0 of every sequential claim of a rebuilt figure, under the mutant."""
    return [layout.mutant_sequential_look_file(mutant_id, paper, c["id"])
            for c in sequential_claims_measured(paper, figure)]


def mutant_job(script, wildcards, params, output, log, inputs=None, extra_wildcards=None):
    """The job `python -m banditrepro.mutation job` runs (JSON, one shell argument): the scratch copy's
    ``script`` with ``params``, the twin rule's params ({name: value or fn(wildcards)}) evaluated for the
    mutant's wildcards; ``log``: the rule's log pattern (its path for these wildcards)."""
    named = dict(wildcards.items())
    values = {k: v(wildcards) if callable(v) else v for k, v in params.items()}
    return json.dumps({"script": script, "wildcards": {**named, **(extra_wildcards or {})}, "params": values,
                       "input": inputs or {}, "output": output, "log": [log.format(**named)]})


def mutant_preprocess_log(mutant, dataset, out):
    """The log of a mutant's preprocessing of ``dataset`` into ``out`` (its processed folder)."""
    return layout.mutant_log(mutant, "data", f"preprocess_{dataset}{'_standin' if 'standin' in out else ''}.log")


def mutant_simulation_job(wildcards, input, output):
    """A mutant's shard: the copy's simulate_shard.py for a shared patch (every algorithm); for a policy
    patch mutant_simulate_shard.py, which reruns the algorithms that run the patched policy and copies the
    others from the main build's shard of the same replications."""
    log = layout.MUTANT_SIMULATE_LOG_PATTERN
    if mutant_reach(wildcards.mutant).where != POLICY:
        return mutant_job("simulate_shard.py", wildcards, simulate_shard_params(), list(output), log)
    params = {**simulate_shard_params(), "algorithms": lambda w: mutant_rerun_algorithms(w)}
    return mutant_job("mutant_simulate_shard.py", wildcards, params, list(output), log, {"main": input.main[0]})


def mutant_main_shard(wildcards):
    """The main build's shard of the same replications, which a policy mutant's shard copies from."""
    if mutant_reach(wildcards.mutant).where != POLICY:
        return []
    return [layout.shard_file(wildcards.paper, wildcards.experiment, wildcards.shard)]


def mutant_rerun_algorithms(wildcards):
    """The algorithms of the experiment a mutant shard reruns."""
    m, reach = mutant_entry(wildcards.mutant)
    return mutated_algorithms(paper_spec(m.paper), reach, wildcards.experiment)


def mutant_rerun_text(mutant_id):
    """What a mutant reruns, for mutants.csv: "every algorithm", or the algorithms running its policies."""
    m, reach = mutant_entry(mutant_id)
    if reach.where != POLICY:
        return "every algorithm"
    spec = paper_spec(m.paper)
    rerun = dict.fromkeys(a for e in mutant_reruns(mutant_id) for a in mutated_algorithms(spec, reach, e))
    return " ".join(rerun)


def mutant_claim_files(paper, mutant_id):
    return [layout.mutant_figure_claims_file(mutant_id, paper, fig) for fig in mutant_built_figures(paper)]


def mutant_merged_claim_files(wildcards):
    """The per-figure claims a mutant's claims.csv merges: its own for the rebuilt figures, the main build's
    for the others (they hold no headline or sanity claim)."""
    rebuilt = set(mutant_built_figures(wildcards.paper))
    return [layout.mutant_figure_claims_file(wildcards.mutant, wildcards.paper, fig) if fig in rebuilt
            else layout.figure_claims_file(wildcards.paper, fig) for fig in claim_figures(paper_spec(wildcards.paper))]


@cache
def mutant_tables(paper):
    """The tables a mutant rebuilds and compares: those that read only the rebuilt figures and their
    experiments, and show no claim decided by sequential looks (a mutant's claims stop at look 0)."""
    spec = paper_spec(paper)
    rebuilt, experiments = set(mutant_built_figures(paper)), set(mutant_experiments(paper))
    out = []
    for table in table_ids(paper):
        figures, table_experiments = table_dependencies(spec, table)
        shown = spec.tables[table].get("claims", [])
        if (set(figures) | set(shown)) <= rebuilt and set(table_experiments) <= experiments and not any(
                sequential_claims_measured(paper, fig) for fig in shown):
            out.append(table)
    return out


def mutant_outputs(paper, mutant_id):
    """Everything a mutant rebuilds that mutants.csv compares: claims, readings, tables."""
    return {"claims": mutant_claim_files(paper, mutant_id),
            "readings": layout.mutant_readings_file(mutant_id, paper),
            "tables": [layout.mutant_table_file(mutant_id, paper, t, "csv") for t in mutant_tables(paper)]}


def mutants_inputs(wildcards):
    """The main build's claims and tables, look 0 of its sequential claims (a mutant's claims are evaluated
    at the paper's replications, so they are compared with the main build's verdicts at that count), and
    every mutant's rebuilt claims, readings and tables."""
    paper = wildcards.paper
    inputs = {"main": layout.claims_file(paper),
              "main_tables": [layout.table_file(paper, t, "csv") for t in mutant_tables(paper)],
              "first_looks": [layout.sequential_look_file(paper, c["id"], 0)
                              for fig in mutant_built_figures(paper) for c in sequential_claims_measured(paper, fig)]}
    for mid in paper_mutants(paper):
        outputs = mutant_outputs(paper, mid)
        inputs[mid] = outputs["claims"] + [outputs["readings"]] + outputs["tables"]
    return inputs


def mutants_in_report(paper):
    """The reports show a paper's mutation score once its mutants.csv exists or is being built."""
    targets = set(workflow.dag_settings.targets)
    requested = bool(targets & {"mutants", f"mutants_{paper}", layout.mutants_file(paper)})
    return requested or Path(layout.mutants_file(paper)).exists()
