"""Where every file the workflow writes lives: each kind of path is defined once, here.

A function per kind of file returns its path (relative to the repository root) from the keys that identify
it (paper, figure, experiment, shard, table, seed); called with Snakemake wildcards (``"{paper}"``) instead of
values it returns the rule's pattern, so the rules (workflow/rules/*.smk) and the code that lists a rule's
inputs use the same definition. The module constants ``*_PATTERN`` are those patterns. Keys travel as
wildcards and params: nothing reads a key back out of a path.

Layout (``<root>`` = ``results`` for the main build, ``results/robustness/seed<S>`` for an extra root seed of
the robustness targets; logs likewise under ``logs`` or ``logs/robustness/seed<S>``)::

    <root>/<paper>/shards/<experiment>/<shard>.npz    one block of replications of one experiment
    <root>/<paper>/<figure>/summary.csv                a figure's curves (reference.csv beside it)
    <root>/<paper>/claims/<figure>.csv                 the claims of one figure
    results/<paper>/claims.csv                         a paper's claims, merged in config order
    results/<paper>/readings.csv                       alternative readings x the headline claims they flip
    results/<paper>/tables/<table>.{csv,md}            a table
    results/<paper>/report.md                          a paper's replication report
    results/<paper>/robustness.csv                     headline verdicts under the extra root seeds
    results/<paper>/mutants.csv                        each planted bug's effect on the verdicts
    results/mutants/<mutant>/package/                  the scratch copy of the project with one bug planted
    results/mutants/<mutant>/<paper>/...               shards, summaries, claims, tables built by that copy
    results/mutants/<mutant>/data/...                  data sets preprocessed by that copy
    results/<paper>/<name>/...                         files private to a paper's own rules (paper_file)
    results/report.md                                  the overall report
    figures/<paper>/<figure>.{png,pdf}                 a figure
    config/locks/<paper>.<scale>.lock.json             the committed lock (content.json.gz beside it)
    config/locks/verdicts.paper.csv                    paper-scale verdicts
"""

from __future__ import annotations

from pathlib import Path

RESULTS = "results"
FIGURES = "figures"
LOGS = "logs"
LOCK_DIR = Path("config") / "locks"
VERDICTS_FILE = LOCK_DIR / "verdicts.paper.csv"

#: a paper id (the stem of config/papers/<paper>.yaml): lower-case letters and underscores. The one definition:
#: the workflow's {paper} wildcard below and experiments.spec.check_paper_id (every config load) read it.
PAPER_ID = r"[a-z_]+"

#: what each wildcard of the patterns matches (common.smk declares them for every rule)
WILDCARD_CONSTRAINTS = {
    "paper": PAPER_ID,
    "experiment": r"[A-Za-z0-9_]+",
    "figure": r"[A-Za-z0-9_]+",
    "table": r"[A-Za-z0-9_]+",
    "shard": r"r\d{6}-\d{6}",
    "seed": r"\d+",
    "claim": r"[A-Za-z0-9_.]+",
    "look": r"\d+",
    "mutant": r"[a-z0-9_]+",
}

#: result CSVs of a figure (each locked and compared by `verify`)
FIGURE_CSVS = ("summary", "reference")
FIGURE_FORMATS = ("png", "pdf")
TABLE_FORMATS = ("csv", "md")


# ------------------------------------------------------------------------------------------ shard names


def shard_name(start: int, stop: int) -> str:
    """The shard key of replications [start, stop): ``r000000-000250``."""
    return f"r{start:06d}-{stop:06d}"


def parse_shard_name(name: str) -> tuple[int, int]:
    """(start, stop) of a shard key (the {shard} wildcard), the inverse of :func:`shard_name`."""
    a, b = name[1:].split("-")
    return int(a), int(b)


# ----------------------------------------------------------------------------------------------- roots


def results_root(seed=None) -> str:
    """``results`` for the main build; ``results/robustness/seed<S>`` for an extra root seed."""
    return RESULTS if seed is None else f"{RESULTS}/robustness/seed{seed}"


def logs_root(seed=None) -> str:
    return LOGS if seed is None else f"{LOGS}/robustness/seed{seed}"


# ------------------------------------------------------------------------ results (main build or a seed)


def paper_results_dir(paper, seed=None) -> str:
    """The folder holding one paper's results (of the main build, or of an extra root seed)."""
    return f"{results_root(seed)}/{paper}"


def shard_file(paper, experiment, shard, seed=None) -> str:
    return f"{results_root(seed)}/{paper}/shards/{experiment}/{shard}.npz"


def figure_csv(paper, figure, kind, seed=None) -> str:
    """A figure's ``summary`` or ``reference`` CSV."""
    return f"{results_root(seed)}/{paper}/{figure}/{kind}.csv"


def summary_file(paper, figure, seed=None) -> str:
    return figure_csv(paper, figure, "summary", seed)


def reference_file(paper, figure, seed=None) -> str:
    return figure_csv(paper, figure, "reference", seed)


def figure_claims_file(paper, figure, seed=None) -> str:
    return f"{results_root(seed)}/{paper}/claims/{figure}.csv"


# ------------------------------------------------------------------------------- results (main build)


def claims_file(paper) -> str:
    return f"{RESULTS}/{paper}/claims.csv"


def readings_file(paper) -> str:
    return f"{RESULTS}/{paper}/readings.csv"


def table_file(paper, table, ext) -> str:
    return f"{RESULTS}/{paper}/tables/{table}.{ext}"


def paper_report_file(paper) -> str:
    return f"{RESULTS}/{paper}/report.md"


def robustness_file(paper) -> str:
    return f"{RESULTS}/{paper}/robustness.csv"


def paper_page_file(paper) -> str:
    """The paper report as one HTML page (figures embedded), for Snakemake's HTML report."""
    return f"{RESULTS}/{paper}/report.html"


def paper_glance_file(paper) -> str:
    """The paper's row of the HTML report's results-at-a-glance table (an HTML fragment)."""
    return f"{RESULTS}/{paper}/glance.html"
def sequential_look_file(paper, claim, look) -> str:
    """One look of a claim's sequential replications (report/sequential.py)."""
    return f"{RESULTS}/{paper}/sequential/{claim}/look{look}.json"


REPORT_FILE = f"{RESULTS}/report.md"


def mutants_file(paper) -> str:
    """Each planted bug (mutant) of a paper with what it did to the verdicts (workflow/rules/mutants.smk)."""
    return f"{RESULTS}/{paper}/mutants.csv"


# ------------------------------------------------------- mutants (results built by a scratch copy of the package)


def mutant_root(mutant) -> str:
    """``results/mutants/<mutant>``: everything built with one planted bug."""
    return f"{RESULTS}/mutants/{mutant}"


def mutant_package_dir(mutant) -> str:
    """The scratch copy of the project a mutant's jobs run: ``src/banditrepro`` (put on PYTHONPATH) and
    ``workflow/scripts`` with the bug planted, links to the configs and the data."""
    return f"{mutant_root(mutant)}/package"


def mutant_data_path(mutant, path) -> str:
    """A data file or folder the main build has at ``path`` (relative to the root), as the mutant's
    preprocessing writes it."""
    return f"{mutant_root(mutant)}/{path}"


def mutant_shard_file(mutant, paper, experiment, shard) -> str:
    return f"{mutant_root(mutant)}/{paper}/shards/{experiment}/{shard}.npz"


def mutant_figure_csv(mutant, paper, figure, kind) -> str:
    return f"{mutant_root(mutant)}/{paper}/{figure}/{kind}.csv"


def mutant_figure_claims_file(mutant, paper, figure) -> str:
    return f"{mutant_root(mutant)}/{paper}/claims/{figure}.csv"


def mutant_sequential_look_file(mutant, paper, claim) -> str:
    """Look 0 of a sequential claim (the paper's replications) under a mutant."""
    return f"{mutant_root(mutant)}/{paper}/sequential/{claim}/look0.json"


def mutant_claims_file(mutant, paper) -> str:
    return f"{mutant_root(mutant)}/{paper}/claims.csv"


def mutant_readings_file(mutant, paper) -> str:
    return f"{mutant_root(mutant)}/{paper}/readings.csv"


def mutant_table_file(mutant, paper, table, ext) -> str:
    return f"{mutant_root(mutant)}/{paper}/tables/{table}.{ext}"


def mutant_log(mutant, *parts) -> str:
    """A log of a mutant's jobs: logs/mutants/<mutant>/<parts...>."""
    return "/".join([LOGS, "mutants", str(mutant), *map(str, parts)])


def paper_file(paper, *parts) -> str:
    """A file private to a paper's own rules (workflow/rules/papers/<paper>.smk): results/<paper>/<parts...>."""
    return "/".join([RESULTS, str(paper), *map(str, parts)])


def sidecar(path) -> str:
    """The provenance record beside a result file (banditrepro.provenance.write_sidecar writes it)."""
    return f"{path}.provenance.json"


def figure_file(paper, figure, ext) -> str:
    return f"{FIGURES}/{paper}/{figure}.{ext}"


def result_csvs(paper, figures, tables) -> dict[str, str]:
    """The result CSVs of a paper that a lock covers, each with what it holds: ``{path: figure id, "table
    <id>" or "claims"}`` (the lock names a differing row by it)."""
    files = {figure_csv(paper, fig, kind): fig for fig in figures for kind in FIGURE_CSVS}
    files.update({table_file(paper, t, "csv"): f"table {t}" for t in tables})
    files[claims_file(paper)] = "claims"
    return files


# ------------------------------------------------------------------------------------------------ logs


def simulate_log(paper, experiment, shard, seed=None) -> str:
    return f"{logs_root(seed)}/{paper}/simulate/{experiment}/{shard}.log"


def summarize_log(paper, figure, seed=None) -> str:
    return f"{logs_root(seed)}/{paper}/summarize/{figure}.log"


def figure_claims_log(paper, figure, seed=None) -> str:
    return f"{logs_root(seed)}/{paper}/claims/{figure}.log"


def plot_log(paper, figure) -> str:
    return f"{LOGS}/{paper}/plot/{figure}.log"


def claims_log(paper) -> str:
    return f"{LOGS}/{paper}/claims.log"


def readings_log(paper) -> str:
    return f"{LOGS}/{paper}/readings.log"


def table_log(paper, table) -> str:
    return f"{LOGS}/{paper}/tables/{table}.log"


def paper_report_log(paper) -> str:
    return f"{LOGS}/{paper}/report.log"


def robustness_log(paper) -> str:
    return f"{LOGS}/{paper}/robustness.log"


def paper_page_log(paper) -> str:
    return f"{LOGS}/{paper}/report_html.log"


REPORT_LOG = f"{LOGS}/report.log"


def paper_log(paper, *parts) -> str:
    """A log of a paper's own rules: logs/<paper>/<parts...>."""
    return "/".join([LOGS, str(paper), *map(str, parts)])


def lock_log(action, scale) -> str:
    """Log of `snakemake lock` or `snakemake verify` (``action``) at ``scale``."""
    return f"{LOGS}/lock/{action}_{scale}.log"


GLANCE_LOG = f"{LOGS}/lock/results_at_a_glance.log"


def data_log(step, dataset="") -> str:
    """Log of a data step: ``fetch``/``standin``/``preprocess`` of one dataset, or ``datasets``."""
    return f"{LOGS}/data/{step}_{dataset}.log" if dataset else f"{LOGS}/data/{step}.log"


# ----------------------------------------------------------------------------------------------- locks


def lock_path(root: Path | str, paper: str, scale: str) -> Path:
    return Path(root) / LOCK_DIR / f"{paper}.{scale}.lock.json"


def content_path(root: Path | str, paper: str, scale: str) -> Path:
    return Path(root) / LOCK_DIR / f"{paper}.{scale}.content.json.gz"


# -------------------------------------------------------------------------------- Snakemake patterns

_P, _E, _F, _T, _S, _SEED = "{paper}", "{experiment}", "{figure}", "{table}", "{shard}", "{seed}"

SHARD_PATTERN = shard_file(_P, _E, _S)
SUMMARY_PATTERN = summary_file(_P, _F)
REFERENCE_PATTERN = reference_file(_P, _F)
FIGURE_CLAIMS_PATTERN = figure_claims_file(_P, _F)
CLAIMS_PATTERN = claims_file(_P)
READINGS_PATTERN = readings_file(_P)
TABLE_CSV_PATTERN = table_file(_P, _T, "csv")
TABLE_MD_PATTERN = table_file(_P, _T, "md")
PAPER_REPORT_PATTERN = paper_report_file(_P)
PAPER_PAGE_PATTERN = paper_page_file(_P)
PAPER_GLANCE_PATTERN = paper_glance_file(_P)
ROBUSTNESS_PATTERN = robustness_file(_P)
FIGURE_PNG_PATTERN = figure_file(_P, _F, "png")
FIGURE_PDF_PATTERN = figure_file(_P, _F, "pdf")
FIGURE_HTML_PATTERN = figure_file(_P, _F, "html")  # the figure's page in Snakemake's HTML report
# the same results under an extra root seed (robustness.smk)
SEED_SHARD_PATTERN = shard_file(_P, _E, _S, seed=_SEED)
SEED_SUMMARY_PATTERN = summary_file(_P, _F, seed=_SEED)
SEED_REFERENCE_PATTERN = reference_file(_P, _F, seed=_SEED)
SEED_FIGURE_CLAIMS_PATTERN = figure_claims_file(_P, _F, seed=_SEED)
# the same results built by a mutant's scratch copy of the package (mutants.smk)
_M = "{mutant}"
MUTANTS_PATTERN = mutants_file(_P)
MUTANT_PACKAGE_PATTERN = mutant_package_dir(_M)
MUTANT_SHARD_PATTERN = mutant_shard_file(_M, _P, _E, _S)
MUTANT_SUMMARY_PATTERN = mutant_figure_csv(_M, _P, _F, "summary")
MUTANT_REFERENCE_PATTERN = mutant_figure_csv(_M, _P, _F, "reference")
MUTANT_FIGURE_CLAIMS_PATTERN = mutant_figure_claims_file(_M, _P, _F)
MUTANT_SEQUENTIAL_LOOK_PATTERN = mutant_sequential_look_file(_M, _P, "{claim}")
MUTANT_CLAIMS_PATTERN = mutant_claims_file(_M, _P)
MUTANT_READINGS_PATTERN = mutant_readings_file(_M, _P)
MUTANT_TABLE_CSV_PATTERN = mutant_table_file(_M, _P, _T, "csv")
MUTANT_TABLE_MD_PATTERN = mutant_table_file(_M, _P, _T, "md")
MUTANT_PACKAGE_LOG_PATTERN = mutant_log(_M, "package.log")
MUTANT_SIMULATE_LOG_PATTERN = mutant_log(_M, _P, "simulate", _E, f"{_S}.log")
MUTANT_SUMMARIZE_LOG_PATTERN = mutant_log(_M, _P, "summarize", f"{_F}.log")
MUTANT_SEQUENTIAL_LOOK_LOG_PATTERN = mutant_log(_M, _P, "sequential", "{claim}.log")
MUTANT_FIGURE_CLAIMS_LOG_PATTERN = mutant_log(_M, _P, "claims", f"{_F}.log")
MUTANT_CLAIMS_LOG_PATTERN = mutant_log(_M, _P, "claims.log")
MUTANT_READINGS_LOG_PATTERN = mutant_log(_M, _P, "readings.log")
MUTANT_TABLE_LOG_PATTERN = mutant_log(_M, _P, "tables", f"{_T}.log")
MUTANTS_LOG_PATTERN = paper_log(_P, "mutants.log")

SIMULATE_LOG_PATTERN = simulate_log(_P, _E, _S)
SUMMARIZE_LOG_PATTERN = summarize_log(_P, _F)
FIGURE_CLAIMS_LOG_PATTERN = figure_claims_log(_P, _F)
SEQUENTIAL_LOOK_PATTERN = sequential_look_file(_P, "{claim}", "{look}")
SEQUENTIAL_LOOK_LOG_PATTERN = f"{LOGS}/{_P}/sequential/{{claim}}/look{{look}}.log"
PLOT_LOG_PATTERN = plot_log(_P, _F)
CLAIMS_LOG_PATTERN = claims_log(_P)
READINGS_LOG_PATTERN = readings_log(_P)
TABLE_LOG_PATTERN = table_log(_P, _T)
PAPER_REPORT_LOG_PATTERN = paper_report_log(_P)
PAPER_PAGE_LOG_PATTERN = paper_page_log(_P)
ROBUSTNESS_LOG_PATTERN = robustness_log(_P)
SEED_SIMULATE_LOG_PATTERN = simulate_log(_P, _E, _S, seed=_SEED)
SEED_SUMMARIZE_LOG_PATTERN = summarize_log(_P, _F, seed=_SEED)
SEED_FIGURE_CLAIMS_LOG_PATTERN = figure_claims_log(_P, _F, seed=_SEED)
