"""Render one figure (PNG and PDF) from its summary."""

import json
import sys
from pathlib import Path

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged, repo_root  # noqa: E402

from banditrepro.experiments.spec import load_paper  # noqa: E402
from banditrepro.plotting import plot_figure, save_figure  # noqa: E402
from banditrepro.report.context import ResultsContext  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root())
    ctx = ResultsContext(spec, {w.figure: Path(snakemake.input.summary)}, {w.figure: Path(snakemake.input.reference)},
                         standin_figures={w.figure} if snakemake.params.standin else set())
    fig = plot_figure(ctx, w.figure, standin=bool(snakemake.params.standin))
    sidecar = Path(snakemake.input.summary + ".provenance.json")
    prov = json.loads(sidecar.read_text()) if sidecar.exists() else None
    save_figure(fig, snakemake.output.png, snakemake.output.pdf, provenance=prov)
