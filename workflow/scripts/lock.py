"""Snakemake script of rule lock: rewrite config/locks/<paper>.<scale>.lock.json (+ content) for every
configured paper; at paper scale also the papers' rows of config/locks/verdicts.paper.csv. Results built
from other package sources than the tree's are refused (nothing is written): a lock records the current
code's results."""

from pathlib import Path

from banditrepro import layout
from banditrepro.lock import VERDICTS_FILE, make_lock, stale_by_paper, stale_lines, write_lock, write_verdicts
from banditrepro.workflow_io import ScriptError, run, tell


def main(snakemake) -> None:
    root = Path(snakemake.params.repo_root)
    scale = snakemake.params.scale
    sources = snakemake.params.sources
    stale = stale_by_paper(root, {p: [*files, *snakemake.params.shards[p]] for p, files in snakemake.params.files.items()},
                           sources)
    if stale:
        raise ScriptError("\n".join([f"lock REFUSED at scale {scale}: results built from other package sources "
                                      "than this tree's; no lock was written"]
                                     + stale_lines(stale, sources, scale, f"`snakemake --cores 2 lock --config scale={scale}`"))
                          + "\n", heading="banditrepro ")
    lines = []
    for paper, files in snakemake.params.files.items():
        lock, content = make_lock(root, paper, scale, files, dict(snakemake.params.not_built[paper]),
                                  snakemake.params.seed, dict(snakemake.params.measured_time[paper]))
        written = write_lock(root, lock, content)
        sizes = ", ".join(f"{p.relative_to(root)} ({p.stat().st_size} bytes)" for p in written)
        lines.append(f"{paper}: {len(files)} files locked -> {sizes}")
        for fig, why in {**lock["not_built"], **lock["measured_time"]}.items():
            lines.append(f"  not locked: {fig} ({why})")
    if scale == "paper":
        claims = {p: root / layout.claims_file(p) for p in snakemake.params.files}
        write_verdicts(root / VERDICTS_FILE, claims, list(snakemake.params.papers))
        lines.append(f"{VERDICTS_FILE}: rows of {', '.join(claims)} rewritten; "
                     "refresh the README table with `snakemake --cores 1 results_at_a_glance`")
    tell("\n".join(lines) + "\n", heading="banditrepro lock:\n")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
