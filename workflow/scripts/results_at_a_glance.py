"""Snakemake script of rule results_at_a_glance: the README table (per paper: headline verdict counts and
the first sentence of the paper report's "## Findings") from config/locks/verdicts.paper.csv.

The finding is read from results/<paper>/report.md when that report was built at paper scale; otherwise
the README's current finding is kept, or a sentence from the counts is used."""

import json
import sys
from pathlib import Path

from banditrepro.lock import (
    first_finding,
    glance_table,
    read_verdicts,
    readme_findings,
    replace_glance,
)


def paper_scale_finding(root: Path, paper: str) -> str | None:
    report = root / "results" / paper / "report.md"
    claims_prov = root / "results" / paper / "claims.csv.provenance.json"
    if not report.exists() or not claims_prov.exists():
        return None
    if json.loads(claims_prov.read_text()).get("config", {}).get("scale") != "paper":
        return None
    return first_finding(report.read_text())


def main(snakemake) -> int:
    root = Path(snakemake.params.repo_root)
    readme_path = Path(snakemake.params.readme)
    readme = readme_path.read_text()
    rows = read_verdicts(snakemake.input.verdicts)
    # a README finding is kept only when it came from a report (a generated count sentence is redone)
    findings = {p: f for p, f in readme_findings(readme).items() if 'headline claims reproduced at paper scale' not in f}
    for paper in dict.fromkeys(r["paper"] for r in rows):
        found = paper_scale_finding(root, paper)
        if found:
            findings[paper] = found
    table = glance_table(rows, findings)
    new = replace_glance(readme, table)
    if new != readme:
        readme_path.write_text(new)
    msg = f"README.md results at a glance ({'rewritten' if new != readme else 'unchanged'}):\n{table}\n"
    Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
    Path(snakemake.log[0]).write_text(msg)
    sys.stderr.write(msg)
    return 0


sys.exit(main(snakemake))  # noqa: F821 - injected by Snakemake
