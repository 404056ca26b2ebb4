"""Snakemake script of rule lock: rewrite config/locks/<paper>.<scale>.lock.json (+ content) for every
configured paper; at paper scale also the papers' rows of config/locks/verdicts.paper.csv."""

from pathlib import Path

from banditrepro import layout
from banditrepro.lock import VERDICTS_FILE, make_lock, write_lock, write_verdicts
from banditrepro.workflow_io import run, tell


def main(snakemake) -> None:
    root = Path(snakemake.params.repo_root)
    lines = []
    for paper, files in snakemake.params.files.items():
        lock, content = make_lock(root, paper, snakemake.params.scale, files, dict(snakemake.params.not_built[paper]),
                                  snakemake.params.seed, dict(snakemake.params.measured_time[paper]))
        written = write_lock(root, lock, content)
        sizes = ", ".join(f"{p.relative_to(root)} ({p.stat().st_size} bytes)" for p in written)
        lines.append(f"{paper}: {len(files)} files locked -> {sizes}")
        for fig, why in {**lock["not_built"], **lock["measured_time"]}.items():
            lines.append(f"  not locked: {fig} ({why})")
    if snakemake.params.scale == "paper":
        claims = {p: root / layout.claims_file(p) for p in snakemake.params.files}
        write_verdicts(root / VERDICTS_FILE, claims, list(snakemake.params.papers))
        lines.append(f"{VERDICTS_FILE}: rows of {', '.join(claims)} rewritten; "
                     "refresh the README table with `snakemake --cores 1 results_at_a_glance`")
    tell("\n".join(lines) + "\n", heading="banditrepro lock:\n")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
