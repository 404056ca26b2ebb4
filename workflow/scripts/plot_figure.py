"""Render one figure (PNG and PDF) from its summary, and its page with its caption for the HTML report."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

import json
from pathlib import Path

from banditrepro.experiments.spec import load_paper
from banditrepro.plotting import plot_figure, save_figure
from banditrepro.report.context import ResultsContext
from banditrepro.report.html import figure_page
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root(snakemake))
    ctx = ResultsContext(spec, {w.figure: Path(snakemake.input.summary)},
                         {w.figure: Path(snakemake.input.reference)},
                         standin_figures={w.figure} if snakemake.params.standin else set())
    fig = plot_figure(ctx, w.figure, standin=bool(snakemake.params.standin))
    sidecar = Path(snakemake.input.summary + ".provenance.json")
    prov = json.loads(sidecar.read_text()) if sidecar.exists() else None
    save_figure(fig, snakemake.output.png, snakemake.output.pdf, provenance=prov)
    fig_spec = snakemake.params.figure
    Path(snakemake.output.html).write_text(
        figure_page(w.figure, fig_spec["title"], fig_spec.get("caption") or "", Path(snakemake.output.png),
                    bool(snakemake.params.standin)), encoding="utf-8")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
