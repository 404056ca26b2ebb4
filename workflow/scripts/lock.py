"""Snakemake script of rule lock: rewrite config/locks/<paper>.<scale>.lock.json (+ content) for every
configured paper; at paper scale also the papers' rows of config/locks/verdicts.paper.csv, and the first form
of every claim that enters a paper-scale lock for the first time (config/locks/claims.first.yaml, which only
grows: report/deviations.py). Results built from other package sources, another config or other workflow
scripts than the tree's are refused (nothing is written): a lock records the current tree's results."""

from pathlib import Path

from banditrepro import layout, provenance
from banditrepro.codegraph import paper_claim_code
from banditrepro.experiments.spec import expand_claim_cells, paper_config_path, read_paper_yaml
from banditrepro.lock import (
    VERDICTS_FILE,
    config_words,
    make_lock,
    stale_by_paper,
    stale_lines,
    stale_what,
    write_lock,
    write_verdicts,
)
from banditrepro.report.claims import read_claims
from banditrepro.report.deviations import (
    CODE_FILE,
    FIRST_FORMS_FILE,
    dump_code,
    dump_first_forms,
    is_headline,
    read_code,
    read_first_forms,
    record_code,
    record_first_forms,
)
from banditrepro.workflow_io import ScriptError, run, tell


def main(snakemake) -> None:
    root = Path(snakemake.params.repo_root)
    scale = snakemake.params.scale
    sources = snakemake.params.sources
    overrides = snakemake.params.config_args  # the user's --config, kept in the commands suggested
    stale = stale_by_paper(root, {p: [*files, *snakemake.params.shards[p]] for p, files in snakemake.params.files.items()},
                           sources, snakemake.params.configs, snakemake.params.scripts)
    if stale:
        raise ScriptError("\n".join([f"lock REFUSED at scale {scale}: results built from {stale_what(stale)} "
                                      "than this tree's; no lock was written"]
                                     + stale_lines(stale, sources, scale,
                                                   f"`snakemake --cores 2 lock {config_words(scale, overrides)}`",
                                                   overrides))
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
        first, code = read_first_forms(root / FIRST_FORMS_FILE), read_code(root / CODE_FILE)
        commit = provenance.git_commit(root)[:7]  # the tree the lock was made in (the lock's own commit follows it)
        for paper, path in claims.items():
            config = paper_config_path(root, paper)
            raw = expand_claim_cells(read_paper_yaml(config), config)["claims"]
            added = record_first_forms(first, paper, raw, read_claims(path), f"lock of {commit}")
            if added:
                lines.append(f"{FIRST_FORMS_FILE}: first forms of {paper}'s {', '.join(added)} recorded")
            # with a headline claim's first form, the code its checks run (report/deviations.py, issue 53)
            headline = [c for c in added if is_headline(first[paper][c].form)]
            if record_code(code, paper, paper_claim_code(raw, root / "src" / "banditrepro") if headline
                           else {}, headline, commit):
                lines.append(f"{CODE_FILE}: code of {paper}'s {', '.join(headline)} recorded")
        (root / FIRST_FORMS_FILE).write_text(dump_first_forms(first), encoding="utf-8")
        (root / CODE_FILE).write_text(dump_code(code), encoding="utf-8")
    tell("\n".join(lines) + "\n", heading="banditrepro lock:\n")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
