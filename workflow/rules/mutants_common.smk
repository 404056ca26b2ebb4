# Helper functions of the mutant rules (workflow/rules/mutants.smk); no rules here.
from banditrepro.mutation import MutantError, check_mutants, mutant_figures, mutated_algorithms, mutated_experiments


@cache
def paper_mutants(paper):
    """The paper's mutants ({id: Mutant}), checked while the DAG is built (a patch that does not apply
    exactly once stops `snakemake -n`)."""
    try:
        return {m.id: m for m in check_mutants(paper_spec(paper))}
    except MutantError as err:
        raise WorkflowError(str(err)) from None


@cache
def all_mutants():
    """{mutant id: Mutant} over the selected papers; an id must be unique across papers (it keys the paths)."""
    found = {}
    for paper in available_papers():
        for mid, m in paper_mutants(paper).items():
            if mid in found:
                raise WorkflowError(f"mutant id {mid!r} is declared by {found[mid].paper} and {paper}")
            found[mid] = m
    return found


def mutant_of(wildcards):
    try:
        return all_mutants()[wildcards.mutant]
    except KeyError:
        raise WorkflowError(f"no mutant {wildcards.mutant!r} in the selected papers") from None


def mutant_built_figures(paper):
    """The figures a mutant rebuilds: those with a headline or sanity claim that this machine builds."""
    return [fig for fig in mutant_figures(paper_spec(paper)) if fig in built_figures(paper)]


@cache
def mutant_reruns(mutant_id):
    """The experiments a mutant reruns: those of its rebuilt figures' claims that run the mutated algorithm."""
    m = all_mutants()[mutant_id]
    spec = paper_spec(m.paper)
    experiments = []
    for fig in mutant_built_figures(m.paper):
        experiments += [e for e in claim_dependencies(spec, fig)[1] if e not in experiments]
    return mutated_experiments(spec, m, experiments)


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


def mutant_claim_results(wildcards):
    """claim_figure_results (common.smk) with the mutant's summaries and shards."""
    paper, mid = wildcards.paper, wildcards.mutant
    if wildcards.figure not in built_figures(paper):
        return ResultFiles({}, {}, {}, {})
    main = claim_figure_results(wildcards)
    return ResultFiles(
        {fig: layout.mutant_figure_csv(mid, paper, fig, "summary") for fig in main.summaries},
        {fig: layout.mutant_figure_csv(mid, paper, fig, "reference") for fig in main.references},
        {exp: mutant_experiment_shards(mid, paper, exp) for exp in main.shards},
        {},
    )


def mutant_job(script, wildcards, params, output, log, inputs=None):
    """The job description `python -m banditrepro.mutation job` runs (JSON, one shell argument)."""
    return json.dumps({"script": str(REPO_ROOT / "workflow" / "scripts" / script),
                       "wildcards": dict(wildcards.items()), "params": params, "input": inputs or {},
                       "output": output, "log": [log]})


def mutant_rerun_algorithms(wildcards):
    """The algorithms of the experiment a mutant shard reruns (the rest come from the main build's shard)."""
    m = mutant_of(wildcards)
    return mutated_algorithms(paper_spec(m.paper), m, wildcards.experiment)


def mutant_claim_files(paper, mutant_id):
    return [layout.mutant_figure_claims_file(mutant_id, paper, fig) for fig in mutant_built_figures(paper)]


def mutants_inputs(wildcards):
    """The main build's claims, look 0 of its sequential claims (a mutant's claims are evaluated at the
    paper's replications, so they are compared with the main build's verdicts at that count), and every
    mutant's rebuilt claims."""
    paper = wildcards.paper
    inputs = {"main": layout.claims_file(paper),
              "first_looks": [layout.sequential_look_file(paper, c["id"], 0)
                              for fig in mutant_built_figures(paper) for c in sequential_claims_measured(paper, fig)]}
    for mid in paper_mutants(wildcards.paper):
        inputs[mid] = mutant_claim_files(wildcards.paper, mid)
    return inputs


def mutants_in_report(paper):
    """The reports show a paper's mutation score once its mutants.csv exists or is being built."""
    targets = set(workflow.dag_settings.targets)
    requested = bool(targets & {"mutants", f"mutants_{paper}", layout.mutants_file(paper)})
    return requested or Path(layout.mutants_file(paper)).exists()
