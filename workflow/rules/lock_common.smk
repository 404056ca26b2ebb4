# Helper functions of the lock rules (workflow/rules/lock.smk); no rules here.
from banditrepro.lock import VERDICTS_FILE, lock_path, read_verdicts


def locked_outputs(paper):
    """Result CSVs of a paper that a lock covers: built figures' curves, table CSVs, claims."""
    files = []
    for fig in built_figures(paper):
        files += [f"results/{paper}/{fig}/summary.csv", f"results/{paper}/{fig}/reference.csv"]
    files += [f"results/{paper}/tables/{t}.csv" for t in table_ids(paper)]
    return files + [f"results/{paper}/claims.csv"]


def locked_papers():
    """Configured papers with a lock at the current scale."""
    return [p for p in available_papers() if lock_path(REPO_ROOT, p, config["scale"]).exists()]


def verdict_papers():
    """Configured papers with rows in the paper-scale verdicts file (compared at paper scale only)."""
    if config["scale"] != "paper":
        return []
    listed = {r["paper"] for r in read_verdicts(REPO_ROOT / VERDICTS_FILE)}
    return [p for p in available_papers() if p in listed]
