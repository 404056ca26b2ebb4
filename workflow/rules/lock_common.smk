# Helper functions of the lock rules (workflow/rules/lock.smk); no rules here.
from banditrepro.layout import VERDICTS_FILE, lock_path, result_csvs
from banditrepro.experiments.options import measured_time_experiments
from banditrepro.lock import measured_time_figures, measured_time_files, read_verdicts


def measured_time(paper):
    """{figure: why} of built figures that replay wall-clock measurements made on this machine (not locked):
    those of the experiments the paper's option values in force declare (`measured_time`, experiments/options.py)."""
    experiments = measured_time_experiments(PAPER_OPTIONS, paper, config)
    return measured_time_figures(paper_spec(paper), built_figures(paper), experiments) if experiments else {}


def locked_outputs(paper):
    """{result CSV: what it holds} a lock covers: built figures' curves, table CSVs and claims, but for those
    of measured-time figures."""
    files = result_csvs(paper, built_figures(paper), table_ids(paper))
    unpinned = set(measured_time_files(paper_spec(paper), measured_time(paper), files))
    return {f: what for f, what in files.items() if f not in unpinned}


def paper_shards(paper):
    """The shards the paper's locked results are made from (their provenance records their sources too)."""
    return [f for f in paper_result_files(paper) if f.endswith(".npz")]


def locked_papers():
    """Configured papers with a lock at the current scale."""
    return [p for p in available_papers() if lock_path(REPO_ROOT, p, config["scale"]).exists()]


def verdict_papers():
    """Configured papers with rows in the paper-scale verdicts file (compared at paper scale only)."""
    if config["scale"] != "paper":
        return []
    listed = {r["paper"] for r in read_verdicts(REPO_ROOT / VERDICTS_FILE)}
    return [p for p in available_papers() if p in listed]
