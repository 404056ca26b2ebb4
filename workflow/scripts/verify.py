"""Snakemake script of rule verify: compare the built result CSVs with the committed locks (and, at paper
scale, claims with config/locks/verdicts.paper.csv). Fails (exit code 1) naming every difference; files
that differ only by platform rounding (banditrepro.lock.PLATFORM_REL_TOL) are named without failing and
without inviting a re-lock. A paper whose results (or the shards they were made from) record other package
sources, another config (the config hash they record is not the one the current config gives them) or other
workflow scripts than the tree's is not compared: verify fails naming them, what differs, and the command that
rebuilds them (with the user's --config, papers= included)."""

from pathlib import Path

from banditrepro import layout
from banditrepro.lock import (
    MEASURED_REL_TOL,
    PLATFORM_ROUNDING,
    VERDICTS_FILE,
    config_words,
    read_lock,
    read_verdicts,
    rounding_lines,
    stale_by_paper,
    stale_lines,
    stale_what,
    verify_paper,
    verify_verdicts,
    version_differences,
)
from banditrepro.workflow_io import ScriptError, run, tell


def lock_command(scale: str, papers: list[str], overrides: dict | None = None) -> str:
    """The command that (re)writes the locks of ``papers`` and of no other paper (the user's other --config kept)."""
    return f"snakemake --cores 2 lock {config_words(scale, overrides, papers)}"


def no_lock_text(root: Path, scale: str, papers: list[str], overrides: dict | None = None) -> str:
    """verify with nothing to compare: which lock files are missing and how to make them (nothing differs)."""
    missing = [str(layout.lock_path(root, p, scale).relative_to(root)) for p in papers]
    return (f"verify FAILED at scale {scale}: no lock to compare with (nothing was compared); missing "
            f"{', '.join(missing)}.\nAfter checking the results, make the lock with "
            f"`{lock_command(scale, papers, overrides)}` and commit config/locks/ (docs/locks.md).\n")


def main(snakemake) -> None:
    root = Path(snakemake.params.repo_root)
    scale = snakemake.params.scale
    checked = list(snakemake.params.files) + [p for p in snakemake.params.verdict_papers
                                              if p not in snakemake.params.files]
    overrides = snakemake.params.config_args  # the user's --config: every command suggested here keeps it
    if not checked:
        raise ScriptError(no_lock_text(root, scale, list(snakemake.params.papers), overrides), heading="banditrepro ")
    problems, notes, version_notes, rounding = [], [], {}, []
    differing = []  # papers with a problem: the re-lock command names only these
    sources = snakemake.params.sources  # {paper: the tree's sources}
    # results (and the shards they were made from) of other sources, another config or other workflow scripts
    # than the tree's are not compared: a match with the lock would say nothing about the current tree
    stale = stale_by_paper(root, {p: [*snakemake.params.files.get(p, {}), layout.claims_file(p), *snakemake.params.shards[p]]
                                  for p in dict.fromkeys([*snakemake.params.files, *snakemake.params.verdict_papers])},
                           sources, snakemake.params.configs, snakemake.params.scripts)
    for paper, files in snakemake.params.files.items():
        if paper in stale:
            continue
        lock = read_lock(root, paper, scale)
        # a measured-time figure here (ames_forest: recompute) is compared as little as one not built here
        left_out = set(snakemake.params.not_built[paper]) | set(snakemake.params.measured_time[paper])
        for diff in verify_paper(root, lock, files, left_out):
            if diff.problem == PLATFORM_ROUNDING:
                rounding.append(diff)
                continue
            problems.append(f"{diff.path}: {diff.problem}")
            problems += [f"    {row}" for row in diff.rows]
            if paper not in differing:
                differing.append(paper)
        for fig, why in lock.get("not_built", {}).items():
            if fig not in snakemake.params.not_built[paper]:
                notes.append(f"{paper} {fig}: not checked, built here but not where the lock was made ({why})")
        for fig, why in snakemake.params.not_built[paper].items():
            notes.append(f"{paper} {fig}: not checked, not built on this machine: {why}")
        for fig, why in snakemake.params.measured_time[paper].items():
            notes.append(f"{paper} {fig}: not checked, {why}")
        for fig, why in lock.get("measured_time", {}).items():
            if fig not in snakemake.params.measured_time[paper]:
                notes.append(f"{paper} {fig}: not checked, the lock was made with it {why}")
        for line in version_differences(lock["versions"]):
            version_notes.setdefault(line, []).append(paper)
    verdict_rows = read_verdicts(root / VERDICTS_FILE)
    for paper in snakemake.params.verdict_papers:
        if paper in stale:
            continue
        verdict_problems = verify_verdicts(verdict_rows, paper, root / layout.claims_file(paper))
        problems += verdict_problems
        if verdict_problems and paper not in differing:
            differing.append(paper)
    unlocked = [p for p in snakemake.params.papers if p not in checked]

    lines = []
    if stale or problems:
        reasons = ([f"results built from {stale_what(stale)} than this tree's"] if stale else []) + \
            (["results differ from the committed lock"] if problems else [])
        lines.append(f"verify FAILED at scale {scale}: " + "; ".join(reasons))
        lines += stale_lines(stale, sources, scale, f"`snakemake --cores 2 verify {config_words(scale, overrides)}`",
                             overrides)
        lines += problems
        if problems and version_notes:
            lines.append("installed versions differ from the lock's (a likely cause): "
                         + "; ".join(version_notes))
        if problems:
            lines.append(f"If the change is intended: `{lock_command(scale, differing, overrides)}` "
                         "and commit config/locks/ with it.")
        lines += rounding_lines(rounding)
    else:
        what = [f"{p} ({len(f)} files)" for p, f in snakemake.params.files.items()]
        if snakemake.params.verdict_papers:
            what.append(f"verdicts of {', '.join(snakemake.params.verdict_papers)} "
                        f"(measured within {MEASURED_REL_TOL:g} relative)")
        lines.append(f"verify OK at scale {scale}: " + "; ".join(what))
        lines += rounding_lines(rounding)
        if version_notes:
            lines.append("note: installed versions differ from the lock's: " + "; ".join(version_notes))
    lines += notes
    if unlocked:
        lines.append(f"no lock at scale {scale} for: {', '.join(unlocked)} (not compared; make one with "
                     f"`{lock_command(scale, unlocked, overrides)}`)")
    text = "\n".join(lines) + "\n"
    if stale or problems:
        raise ScriptError(text, heading="banditrepro ")
    tell(text, heading="banditrepro ")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
