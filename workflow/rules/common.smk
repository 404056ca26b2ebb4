# Helper functions shared by the rules (no rules here).
import json
import sys
from functools import cache
from typing import NamedTuple

from snakemake.exceptions import WorkflowError

from banditrepro import layout
from banditrepro.experiments.spec import ConfigError, load_paper_cached, select_papers
from banditrepro.layout import shard_name
from banditrepro.report.claim_inputs import claim_dependencies, claim_figures, claims_of_figure, table_dependencies
from banditrepro.report.deviations import CODE_FILE, DEVIATIONS_FILE, FIRST_FORMS_FILE
from banditrepro.report.findings import FindingsError, check_findings
from banditrepro.sources import planned_paper_modules, sources_record


wildcard_constraints:
    **layout.WILDCARD_CONSTRAINTS,


# The same rules build the main results (results/<paper>/...) and, for the robustness targets
# (robustness.smk), the results under an extra root seed (results/robustness/seed<S>/<paper>/...): a job
# whose output path has a {seed} wildcard reads its inputs from, and seeds its streams with, that seed.
def run_seed(wildcards):
    """The root seed of a job: the {seed} of a robustness path, else the configured root seed."""
    return int(wildcards.seed) if hasattr(wildcards, "seed") else config["seed"]


def extra_seed(wildcards):
    """The {seed} of a robustness job (the key of its results root, banditrepro.layout), else None."""
    return wildcards.seed if hasattr(wildcards, "seed") else None


# The package sources a paper's jobs run with (banditrepro.sources: the paper's package and the generic modules
# the workflow loads, closed under their imports): their digest is a param of every job that builds a result of
# the paper, and Snakemake reruns a job whose params changed, so an edit to a module the paper imports reruns
# that paper's results (and no other paper's). The job records the digest in its provenance; `verify` refuses
# results whose recorded digest is not the tree's (lock.smk). Computed once per run, while the DAG is built.
@cache
def paper_source_files(paper):
    """The package files the jobs of ``paper`` may read (banditrepro.sources.paper_modules), found once per run
    (and kept between runs while the sources stay as they are)."""
    return planned_paper_modules(paper)


@cache
def paper_sources(paper):
    """{"sha256", "files"} of the sources the jobs of ``paper`` run with."""
    return sources_record(paper_source_files(paper))


@cache
def all_papers_sources():
    """The sources of a job that loads every selected paper (the overall report)."""
    return sources_record({f for paper in available_papers() for f in paper_source_files(paper)})


def job_params(**params):
    """The params every job that builds a result has: the root seed (a robustness job's own, run_seed), the
    scale and the sources of its paper; then the rule's own ``params`` (a key given there wins)."""
    return {"seed": run_seed, "scale": config["scale"], "sources": lambda w: paper_sources(w.paper), **params}


@cache
def available_papers():
    """The papers: config/papers/*.yaml (sorted), or the optional config `papers:` selection, checked against them."""
    try:
        return select_papers(REPO_ROOT, config.get("papers"))
    except ConfigError as err:
        raise WorkflowError(str(err)) from None


def paper_rule_files():
    """Paper-specific rule files (precomputations), included when they exist."""
    return [
        f"workflow/rules/papers/{p}.smk"
        for p in available_papers()
        if (REPO_ROOT / "workflow" / "rules" / "papers" / f"{p}.smk").exists()
    ]


@cache
def paper_spec(paper):
    return load_paper_cached(paper, config["scale"], REPO_ROOT)


# What the claims of a figure read and evaluate, asked by many jobs' input functions and params (report.claims
# checks every premise of the paper on each call): computed once per figure.
@cache
def figure_claim_dependencies(paper, figure):
    """report.claims.claim_dependencies of the figure: (figures, experiments) its claims may read."""
    return claim_dependencies(paper_spec(paper), figure)


@cache
def figure_claims(paper, figure):
    """report.claims.claims_of_figure: the figure's claims and the claims their premises rest on."""
    return claims_of_figure(paper_spec(paper), figure)


@cache
def dataset_states():
    """Every dataset the selected papers' figures need, decided once, up front, while the Snakefile is read: a
    dataset whose files are not on this machine counts as available only if its download host answers a
    bounded probe (banditrepro.data.network, at most 3 s in all). Its figures are skipped, so that a machine
    with no network and no mirror builds what it can (exit 0) instead of failing at a download job. Nothing is
    printed here: announce_not_built says so when this run's targets need a skipped figure."""
    from banditrepro.data import dataset_statuses

    needed = {}
    for paper in available_papers():
        spec = paper_spec(paper)
        for fig in spec.figures:
            needed.update(dict.fromkeys(spec.figure_datasets(fig)))
    return dataset_statuses(needed, config, REPO_ROOT)


@cache
def dataset_state(name):
    """Status of a dataset (see dataset_states)."""
    if name in dataset_states():
        return dataset_states()[name]
    from banditrepro.data import dataset_status

    return dataset_status(name, config, REPO_ROOT)


@cache
def announce_dataset(name):
    """One line on stderr, once per run: the dataset cannot be had here, what is missing and how to provide it."""
    print(f"banditrepro: dataset {name} unavailable: {dataset_state(name).reason}", file=sys.stderr)


@cache
def announce_not_built(paper):
    """Say, once per run, which of ``paper``'s figures are skipped and why: first a line for each unavailable
    dataset they need (each dataset once), then one line per figure. Called from the input functions of the jobs
    that would read those figures' results (the paper's claims, the claims of a skipped figure, a simulation on
    unavailable data), so only a run whose targets reach such a job prints them (`snakemake -n <paper>`
    says nothing of the Kaggle data another paper's figure needs); a job process reading the Snakefile
    again prints nothing."""
    if not workflow.is_main_process:
        return
    skipped = figure_availability(paper).not_built
    for why in skipped.values():
        for reason, names in REASON_DATASETS.items():
            if reason in why:
                for name in names:
                    announce_dataset(name)
    for fig, why in skipped.items():
        print(f"banditrepro: {paper} {fig} skipped: {why}", file=sys.stderr)


def not_built():
    """What this run does not build and why, for the report: {"datasets": {name: reason}, "figures":
    {paper: {figure: reason}}} (the datasets the selected papers need that cannot be had here)."""
    return {
        "datasets": {name: st.reason for name, st in dataset_states().items() if not st.available},
        "figures": {p: dict(figure_availability(p).not_built) for p in available_papers() if figure_availability(p).not_built},
    }


if not workflow.is_main_process:
    # a job process (cluster/group job) re-reads the Snakefile: availability was decided by the main process,
    # whose DAG scheduled this job; a compute node without internet must not drop what the job needs
    from banditrepro.data import network as _data_network

    _data_network.skip_probes()

# decided now, before the other rule files are read (the probe's wait comes first); announced by announce_not_built
dataset_states()


# Precomputed inputs (an experiment's `requires:` paths) that a paper rule file may switch off or
# make depend on data: {path: function returning why it cannot be built, or None}; e.g. a table that
# one of the paper's options (config/papers/<paper>.yaml `options:`) switches off.
REQUIREMENT_STATUS = {}
# {reason not_built_reason gave: the unavailable datasets it names}, so that announce_not_built announces the
# datasets behind a skipped figure whatever asked (the figure's `data:` or a REQUIREMENT_STATUS entry)
REASON_DATASETS = {}


def not_built_reason(names):
    """Why figures needing the datasets ``names`` are not built here (None when every one is available)."""
    unavailable = [name for name in names if not dataset_state(name).available]
    if unavailable:
        reason = f"needs {', '.join(unavailable)} (unavailable; see `snakemake datasets`)"
        REASON_DATASETS[reason] = unavailable  # for announce_not_built
        return reason
    return None


class FigureAvailability(NamedTuple):
    built: list  # figures to build, in config order
    not_built: dict  # {figure: one-line reason it is not built here}
    standin: set  # built figures that use stand-in data


@cache
def figure_availability(paper):
    """Which figures of ``paper`` are built, which are not (and why), which use stand-in data."""
    spec = paper_spec(paper)
    built, not_built, standin = [], {}, set()
    for fig in spec.figures:
        datasets = spec.figure_datasets(fig)
        reasons = [not_built_reason(datasets)]
        for exp in spec.figure_experiments(fig):
            for path in spec.experiments[exp].requires:
                if path in REQUIREMENT_STATUS:
                    reasons.append(REQUIREMENT_STATUS[path]())
        reasons = list(dict.fromkeys(r for r in reasons if r))
        if reasons:
            not_built[fig] = "; ".join(reasons)
        else:
            built.append(fig)
            if any(dataset_state(name).standin for name in datasets):
                standin.add(fig)
    return FigureAvailability(built, not_built, standin)


def experiment_shards(paper, experiment, seed=None):
    exp = paper_spec(paper).experiments[experiment]
    return [
        layout.shard_file(paper, experiment, shard_name(a, b), seed)
        for a, b in exp.job_shards(config["shard_size"])
    ]


def experiment_inputs(wildcards, processed=None):
    """Processed data and precomputed files an experiment needs; ``processed``: fn(dataset) -> its processed
    files, when they are not the main build's (a mutant's, mutants.smk)."""
    from banditrepro.data import processed_outputs

    exp = paper_spec(wildcards.paper).experiments[wildcards.experiment]
    if not all(dataset_state(name).available for name in exp.data):
        announce_not_built(wildcards.paper)  # asked for by name (a skipped figure as target): its fetch will fail
    files = list(exp.requires)
    for name in exp.data:
        files += processed(name) if processed else processed_outputs(name, config)
    return files


def figure_shards(wildcards):
    """{experiment: shard files} of one figure."""
    spec = paper_spec(wildcards.paper)
    return {
        exp: experiment_shards(wildcards.paper, exp, extra_seed(wildcards))
        for exp in spec.figure_experiments(wildcards.figure)
    }


def built_figures(paper):
    return figure_availability(paper).built


def table_ids(paper):
    """Tables whose figures are all built."""
    spec = paper_spec(paper)
    built = set(built_figures(paper))
    return [t for t, tspec in spec.tables.items() if set(tspec.get("figures", [])) <= built]


def paper_figures(paper):
    """{figure: [png, pdf]} of the built figures."""
    return {fig: [layout.figure_file(paper, fig, ext) for ext in layout.FIGURE_FORMATS] for fig in built_figures(paper)}


def paper_figure_files(paper):
    return [f for files in paper_figures(paper).values() for f in files]


def paper_table_files(paper):
    return [layout.table_file(paper, t, ext) for t in table_ids(paper) for ext in layout.TABLE_FORMATS]


def paper_result_files(paper):
    """The summaries, references and shards the paper's built figures, claims and tables read. They are
    targets too because Snakemake does not rebuild a missing intermediate file while what was made from it
    is present: after a damaged shard was deleted as its error message advises (the failed summarize job
    having removed its summary.csv and reference.csv), the paper target said "Nothing to be done"."""
    spec, built = paper_spec(paper), built_figures(paper)
    experiments = {exp: None for fig in built for exp in spec.figure_experiments(fig)}
    for fig in claim_figures(spec):
        if fig in built:
            experiments.update(dict.fromkeys(figure_claim_dependencies(paper, fig)[1]))
    for table in table_ids(paper):
        experiments.update(dict.fromkeys(table_dependencies(spec, table)[1]))
    files = _result_files(paper, built, list(experiments))
    return files.inputs()["summaries"] + list(files.references.values()) + files.inputs()["shards"]


def paper_targets(paper):
    return (
        paper_figure_files(paper)
        + paper_table_files(paper)
        + [layout.claims_file(paper), layout.paper_report_file(paper)]
        + [layout.paper_page_file(paper), layout.paper_glance_file(paper)]  # for `snakemake --report`
        + [layout.figure_file(paper, fig, "html") for fig in paper_figures(paper)]
        + paper_result_files(paper)
    )


# Claims per figure and the reports (rules in report.smk).
class ResultFiles(NamedTuple):
    """The results a claim or table job reads, keyed by what they are (the job's params; their files are its inputs)."""
    summaries: dict  # {figure: summary.csv}
    references: dict  # {figure: reference.csv} (written with the summary)
    shards: dict  # {experiment: [shard files]}
    claims: dict  # {figure: claims/<figure>.csv} a table shows (its `claims:`)

    def inputs(self):
        return {
            "summaries": list(self.summaries.values()),
            "shards": [f for fs in self.shards.values() for f in fs],
            "claims": list(self.claims.values()),
        }


def _result_files(paper, figures, experiments, seed=None, claims=()):
    """Summaries of the built figures and shards of the experiments whose data are available."""
    spec, built = paper_spec(paper), built_figures(paper)
    # an experiment on unavailable data has no shards to wait for; its claims say "not measured"
    experiments = [e for e in experiments if all(dataset_state(d).available for d in spec.experiments[e].data)]
    figures = [fig for fig in figures if fig in built]
    return ResultFiles(
        {fig: layout.summary_file(paper, fig, seed) for fig in figures},
        {fig: layout.reference_file(paper, fig, seed) for fig in figures},
        {exp: experiment_shards(paper, exp, seed) for exp in experiments},
        {fig: layout.figure_claims_file(paper, fig, seed) for fig in claims},
    )


def claim_figure_results(wildcards):
    """The summaries and shards the claims of one figure read (none when the figure is not built)."""
    paper, figure = wildcards.paper, wildcards.figure
    if figure not in built_figures(paper):
        announce_not_built(paper)
        return ResultFiles({}, {}, {}, {})
    return _result_files(paper, *figure_claim_dependencies(paper, figure), extra_seed(wildcards))


def claim_figure_inputs(wildcards):
    inputs = claim_figure_results(wildcards).inputs()
    inputs["sequential"] = sequential_final_looks(wildcards)  # sequential.smk: the last look of each claim that has looks
    return inputs


def table_results(wildcards):
    """The summaries and shards one table reads (its declared figures and what its args name) and the
    per-figure claims it shows (its `claims:`)."""
    spec = paper_spec(wildcards.paper)
    claims = spec.tables[wildcards.table].get("claims", [])
    return _result_files(wildcards.paper, *table_dependencies(spec, wildcards.table), extra_seed(wildcards), claims)


def table_inputs(wildcards):
    """table_results' files and those of the table's declared repository ``files`` that exist."""
    spec = paper_spec(wildcards.paper)
    inputs = table_results(wildcards).inputs()
    # a declared file may be absent (the table says so); once it appears, the changed input set reruns the table
    inputs["files"] = [f for f in spec.tables[wildcards.table].get("files", []) if (REPO_ROOT / f).exists()]
    return inputs


def claim_figure_files(paper):
    """The per-figure claims a paper's claims.csv merges, those of its skipped figures included (announced here)."""
    announce_not_built(paper)
    return [layout.figure_claims_file(paper, fig) for fig in claim_figures(paper_spec(paper))]


@cache
def paper_findings(paper):
    """The paper's findings entries, checked while the DAG is built: an unknown claim stops `snakemake -n`."""
    try:
        return check_findings(paper_spec(paper))
    except FindingsError as err:
        raise WorkflowError(str(err)) from None


def paper_report_inputs(wildcards):
    inputs = {
        "claims": layout.claims_file(wildcards.paper),
        "readings": layout.readings_file(wildcards.paper),
        "figures": paper_figure_files(wildcards.paper),
        "tables": paper_table_files(wildcards.paper),
        # the frozen first forms and code of the claims and their recorded changes (report/deviations.py)
        "claim_forms": [str(FIRST_FORMS_FILE), str(CODE_FILE), str(DEVIATIONS_FILE)],
    }
    if robustness_in_report(wildcards.paper):  # robustness_common.smk
        inputs["robustness"] = layout.robustness_file(wildcards.paper)
    if mutants_in_report(wildcards.paper):  # mutants_common.smk
        inputs["mutants"] = layout.mutants_file(wildcards.paper)
    return inputs


# ------------------------------------------------------------------------------------- params of each job kind
# The params of each kind of job ({name: value or fn(wildcards)}): its rule's (`params: **simulate_shard_params()`)
# and a mutant's twin job's (mutants.smk), which evaluates them for its wildcards with its own result files.


def simulate_shard_params():
    """The params of a simulation job ({name: value or fn(wildcards)}): simulate_shard's, and a mutant's
    (mutants.smk) evaluated for its wildcards."""
    return job_params(
        # the resolved experiment config: editing it reruns exactly the affected shards
        experiment=lambda w: paper_spec(w.paper).experiments[w.experiment].config,
    )


def summarize_figure_params(shards=None):
    """The params of a summary job; ``shards``: fn(wildcards) -> {experiment: shard files} (figure_shards)."""
    return job_params(
        figure=lambda w: paper_spec(w.paper).figures[w.figure],
        shards=shards or figure_shards,
    )


def claims_figure_params(results=None):
    """``results``: fn(wildcards) -> ResultFiles (claim_figure_results)."""
    results = results or claim_figure_results
    return job_params(
        claims=lambda w: figure_claims(w.paper, w.figure),  # with the premises they rest on
        not_built=lambda w: figure_availability(w.paper).not_built,
        standin=lambda w: sorted(figure_availability(w.paper).standin),
        results=lambda w: results(w)._asdict(),
    )


def claims_params():
    return job_params()


def readings_params():
    return {**claims_params(), "readings": lambda w: paper_spec(w.paper).config.get("readings", [])}


def table_params(results=None):
    """``results``: fn(wildcards) -> ResultFiles (table_results)."""
    results = results or table_results
    return job_params(
        table=lambda w: paper_spec(w.paper).tables[w.table],
        results=lambda w: results(w)._asdict(),
    )


# ------------------------------------------------------------------------------------------- scale guard
# results/ holds one scale at a time (the paths do not name it): a smoke build must not silently replace
# paper-scale results (hours of CPU), nor a paper build smoke ones. The scale of existing results is read
# from their provenance sidecars; the check runs when the build starts (the onstart handler below, so not
# for -n, --lint or --report) and looks only at the papers whose results this run would write.
def results_scales(folder):
    """{scale: one file showing it} of the results already under ``folder`` (a paper's results folder)."""
    found = {}
    for sidecar in sorted((REPO_ROOT / folder).glob("*/*.csv.provenance.json")):
        try:
            scale = json.loads(sidecar.read_text(encoding="utf-8"))["config"]["scale"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a result sidecar, or one that records no scale
        found.setdefault(scale, str(sidecar.relative_to(REPO_ROOT)).removesuffix(".provenance.json"))
    return found


def check_results_scale(jobs):
    """Stop (one message) when ``jobs`` would write results of a paper whose results are at another scale."""
    if str(config.get("replace_results", False)).lower() == "true":  # --config gives the string "true"
        return
    written = set()  # the paper results folders this run writes into, from the jobs' own keys
    for job in jobs:
        paper = job.wildcards_dict.get("paper")
        if paper in available_papers():
            written.add(layout.paper_results_dir(paper, job.wildcards_dict.get("seed")))
    conflicts = {}  # results folder -> (its other scale, a file showing it)
    for folder in sorted(written):
        for scale, example in results_scales(folder).items():
            if scale != config["scale"]:
                conflicts[folder] = (scale, example)
    if conflicts:
        other = "/".join(sorted({scale for scale, _ in conflicts.values()}))
        examples = ", ".join(example for _, example in list(conflicts.values())[:3])
        raise WorkflowError(
            f"results/ holds {other}-scale results ({examples}{', ...' if len(conflicts) > 3 else ''}) that this "
            f"build at scale {config['scale']} would replace; nothing was run. To replace them, add "
            f"replace_results=true to --config (--config scale={config['scale']} replace_results=true); to keep "
            "them, move results/ and figures/ away first (mv results results.old && mv figures figures.old)."
        )


def jobs_with_work(jobs):
    """The jobs that run a script or a shell command (not the target rules, which only gather their inputs)."""
    return [job for job in jobs if job.rule.script is not None or job.rule.shellcmd is not None]


onstart:
    planned_jobs = list(workflow.dag.needrun_jobs())  # computed once: each call walks the whole DAG
    check_results_scale(planned_jobs)
    # a run of a few jobs goes without (banditrepro.workflow_worker.MIN_JOBS); the Snakefile stops the worker
    workflow_worker.start(Path.cwd(), REPO_ROOT, workflow.local_exec, jobs=len(jobs_with_work(planned_jobs)))
