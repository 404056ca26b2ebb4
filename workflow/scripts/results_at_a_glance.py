"""Snakemake script of rule results_at_a_glance: the README table (per paper: headline verdict counts and
the sentence that opens its report's findings) computed from config/locks/verdicts.paper.csv alone."""

import sys
from pathlib import Path

from banditrepro.lock import read_verdicts
from banditrepro.report.glance import glance_table, replace_glance


def main(snakemake) -> int:
    readme_path = Path(snakemake.params.readme)
    readme = readme_path.read_text()
    table = glance_table(read_verdicts(snakemake.input.verdicts))
    new = replace_glance(readme, table)
    if new != readme:
        readme_path.write_text(new)
    msg = f"README.md results at a glance ({'rewritten' if new != readme else 'unchanged'}):\n{table}\n"
    Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
    Path(snakemake.log[0]).write_text(msg)
    sys.stderr.write(msg)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
