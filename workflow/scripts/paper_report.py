"""Write a paper's replication report (Markdown)."""

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged, repo_root  # noqa: E402

from banditrepro import provenance  # noqa: E402
from banditrepro.experiments.spec import load_paper  # noqa: E402
from banditrepro.report.report import paper_report  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root())
    claims = pd.read_csv(snakemake.input.claims)
    figures: dict[str, list[Path]] = {}
    for p in snakemake.input.figures:
        figures.setdefault(Path(p).stem, []).append(Path(p))
    tables = {Path(p).stem: Path(p) for p in snakemake.input.tables if str(p).endswith(".md")}
    prov = provenance.record({"paper": spec.config, "scale": snakemake.params.scale}, snakemake.params.seed,
                             repo_root(), paper=w.paper)
    paper_report(spec, claims, figures, tables, dict(snakemake.params.unavailable), set(snakemake.params.standin),
                 prov, Path(snakemake.output[0]))
    provenance.write_sidecar(snakemake.output[0], prov)
