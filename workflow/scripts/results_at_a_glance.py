"""Snakemake script of rule results_at_a_glance: the README table (per paper: headline verdict counts and
the sentence that opens its report's findings) computed from config/locks/verdicts.paper.csv, each failure
counted under the cause its paper's config declares."""

from pathlib import Path

from banditrepro.experiments.spec import load_paper
from banditrepro.lock import read_verdicts
from banditrepro.report.glance import glance_table, replace_glance, rows_by_paper
from banditrepro.workflow_io import repo_root, run, tell


def main(snakemake) -> None:
    readme_path = Path(snakemake.params.readme)
    readme = readme_path.read_text()
    rows = read_verdicts(snakemake.input.verdicts)
    configs = {paper: load_paper(paper, "paper", repo_root(snakemake)).config for paper in rows_by_paper(rows)}
    table = glance_table(rows, configs)
    new = replace_glance(readme, table)
    if new != readme:
        readme_path.write_text(new)
    tell(f"README.md results at a glance ({'rewritten' if new != readme else 'unchanged'}):\n{table}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
