# Helper functions of the lock rules (workflow/rules/lock.smk); no rules here.
from banditrepro.lock import VERDICTS_FILE, lock_path, measured_time_figures, measured_time_files, read_verdicts


def result_csvs(paper):
    """Result CSVs of a paper: built figures' curves, table CSVs, claims."""
    files = []
    for fig in built_figures(paper):
        files += [f"results/{paper}/{fig}/summary.csv", f"results/{paper}/{fig}/reference.csv"]
    files += [f"results/{paper}/tables/{t}.csv" for t in table_ids(paper)]
    return files + [f"results/{paper}/claims.csv"]


def measured_time(paper):
    """{figure: why} of built figures that replay wall-clock measurements made on this machine (not locked):
    only with `ames_forest: recompute`; the shipped forest table (`cached`) is the same everywhere."""
    if config.get("ames_forest") != "recompute":
        return {}
    return measured_time_figures(paper_spec(paper), built_figures(paper))


def locked_outputs(paper):
    """Result CSVs a lock covers: all but those of measured-time figures."""
    files = result_csvs(paper)
    unpinned = set(measured_time_files(paper, paper_spec(paper), measured_time(paper), files))
    return [f for f in files if f not in unpinned]


def locked_papers():
    """Configured papers with a lock at the current scale."""
    return [p for p in available_papers() if lock_path(REPO_ROOT, p, config["scale"]).exists()]


def verdict_papers():
    """Configured papers with rows in the paper-scale verdicts file (compared at paper scale only)."""
    if config["scale"] != "paper":
        return []
    listed = {r["paper"] for r in read_verdicts(REPO_ROOT / VERDICTS_FILE)}
    return [p for p in available_papers() if p in listed]
