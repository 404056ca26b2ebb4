"""Write the overall replication report."""

import sys
from pathlib import Path

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged  # noqa: E402

from banditrepro.report.report import overall_report  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    claims = {Path(p).parent.name: Path(p) for p in snakemake.input.claims}
    reports = {Path(p).parent.name: Path(p) for p in snakemake.input.reports}
    overall_report(claims, reports, Path(snakemake.output[0]))
