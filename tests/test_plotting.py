"""Figures: seaborn's theme and palette, one colour per algorithm across a paper, byte-stable files."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
import seaborn as sns

from banditrepro.experiments.spec import discover_papers, load_paper
from banditrepro.plotting import Style, plot_figure, save_figure
from banditrepro.plotting.figures import PALETTE, SEABORN_WHITEGRID_PAPER_RC, theme, theme_rc
from banditrepro.report.context import ResultsContext

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = discover_papers(REPO_ROOT)  # config/papers/*.yaml: a new paper's colours are checked too


def panel_algorithms(spec, panel) -> list[str]:
    if panel.get("algorithms"):
        return list(panel["algorithms"])
    algos = []
    for exp in spec.panel_experiments(panel):
        algos += [a for a in spec.experiments[exp].algorithms if a not in algos]
    return algos


def test_palette_is_seaborns_and_distinct():
    seaborn_colours = set(sns.color_palette("colorblind").as_hex()) | set(sns.color_palette("dark").as_hex())
    assert len(PALETTE) == len(set(PALETTE)) == 12
    assert set(PALETTE) <= seaborn_colours
    assert not {"#ece133", "#fbafe4"} & set(PALETTE)  # pale yellow and pink: unreadable thin lines


def test_written_out_palette_and_theme_are_seaborns():
    """The plot jobs do not import seaborn (issue 27: 1.2 s a job); the colours and the theme they write out
    must be what seaborn computes, value for value, or every figure's bytes would drift from seaborn's look."""
    colorblind, dark = sns.color_palette("colorblind").as_hex(), sns.color_palette("dark").as_hex()
    assert ([colorblind[i] for i in (0, 1, 2, 4, 9)] + [dark[4]] + [colorblind[i] for i in (3, 7, 5)]
                       + [dark[i] for i in (9, 7, 5)]) == PALETTE
    seaborn_rc = {**sns.axes_style("whitegrid"), **sns.plotting_context("paper", font_scale=1.1)}
    assert seaborn_rc.pop("image.cmap") == "rocket"  # registered by seaborn's import; no figure draws an image
    assert seaborn_rc == SEABORN_WHITEGRID_PAPER_RC
    assert all(type(SEABORN_WHITEGRID_PAPER_RC[k]) is type(v) for k, v in seaborn_rc.items())


def test_plotting_does_not_import_seaborn_or_numba():
    """A plot job's start-up (issue 27): matplotlib only, no seaborn/scipy.stats, no numba."""
    import subprocess
    import sys

    code = ("import sys, banditrepro.plotting, banditrepro.report.context; "
            "print(sorted(m for m in ('seaborn', 'scipy.stats', 'numba') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_figure_draws_without_seaborn_imported(tmp_path):
    """The theme's rc must be valid for matplotlib alone (seaborn's "rocket" colormap is not, without seaborn)."""
    import subprocess
    import sys

    code = ("import sys, matplotlib.pyplot as plt; from banditrepro.plotting.figures import theme\n"
            "with theme():\n    fig, ax = plt.subplots(); ax.fill_between([0, 1], [0, 1], [1, 2], color='#0173b2')\n"
            f"    fig.savefig({str(tmp_path / 'f.png')!r})\n"
            "assert 'seaborn' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert (tmp_path / "f.png").stat().st_size > 0


@pytest.mark.parametrize("paper", PAPERS)
def test_one_colour_per_algorithm_and_distinct_within_every_panel(paper, repo_root):
    spec = load_paper(paper, "paper", repo_root)
    style = Style.for_paper(spec)
    order = spec.algorithm_order()
    assert set(style.colors) == set(order)
    # the first 12 algorithms of a paper get 12 different colours, in palette order
    assert [style.colors[a] for a in order[:12]] == PALETTE[: len(order[:12])]
    for fig_id, fig in spec.figures.items():
        for panel in fig["panels"]:
            if panel.get("kind", "curve") != "curve":
                continue
            looks = [(style.colors[a], str(style.linestyles[a])) for a in panel_algorithms(spec, panel)]
            assert len(set(looks)) == len(looks), (paper, fig_id, panel["id"])
            colours = [c for c, _ in looks]
            if len(colours) <= len(PALETTE):
                assert len(set(colours)) == len(colours), (paper, fig_id, panel["id"])


@pytest.fixture
def toy_context(tmp_path, repo_root):
    """satisficing_ucl's fig1 with synthetic curves (the plotting reads only the summary)."""
    spec = load_paper("satisficing_ucl", "smoke", repo_root)
    t = np.arange(1, 51)
    rows = []
    for panel in spec.figures["fig1"]["panels"]:
        for k, algo in enumerate(panel_algorithms(spec, panel)):
            for metric in [panel["metric"], *panel.get("extra_metrics", [])]:
                rows += [dict(panel=panel["id"], algorithm=algo, metric=metric, t=int(s),
                              mean=(k + 1) * np.log1p(s), se=0.2, n=10) for s in t]
    summary = tmp_path / "summary.csv"
    pd.DataFrame(rows).to_csv(summary, index=False)
    return ResultsContext(spec, {"fig1": summary}, {})


def test_figure_uses_the_theme_without_leaking_it(toy_context, tmp_path):
    before = dict(matplotlib.rcParams)
    fig = plot_figure(toy_context, "fig1")
    assert dict(matplotlib.rcParams) == before  # the theme is scoped to drawing and saving
    rc = theme_rc()
    ax = fig.axes[0]
    with theme():  # ticks are made lazily, at draw time, which save_figure also wraps in the theme
        assert all(line.get_visible() for line in ax.xaxis.get_gridlines())
        assert ax.xaxis.get_ticklabels()[0].get_fontfamily() == ["sans-serif"]
    assert matplotlib.colors.to_hex(ax.get_facecolor()) == "#ffffff"
    assert ax.spines["left"].get_edgecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb(rc["axes.edgecolor"]))
    style = Style.for_paper(toy_context.spec)
    line_colours = {line.get_label(): matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()}
    for algo in panel_algorithms(toy_context.spec, toy_context.spec.figures["fig1"]["panels"][0]):
        assert line_colours[style.labels[algo]] == style.colors[algo]
    save_figure(fig, tmp_path / "a.png", tmp_path / "a.pdf")
    assert dict(matplotlib.rcParams) == before


def test_figures_are_byte_stable(toy_context, tmp_path):
    prov = {"package_version": "0.1.0", "git_commit": "abc", "seed": 1, "config_sha256": "0" * 64}
    files = []
    for run in ("a", "b"):
        save_figure(plot_figure(toy_context, "fig1"), tmp_path / f"{run}.png", tmp_path / f"{run}.pdf", prov)
        files.append(((tmp_path / f"{run}.png").read_bytes(), (tmp_path / f"{run}.pdf").read_bytes()))
    assert files[0] == files[1]
    assert files[0][0][:8] == b"\x89PNG\r\n\x1a\n" and files[0][1][:5] == b"%PDF-"


@pytest.fixture
def wide_context(tmp_path, repo_root):
    """penalized_fairness' fig1 (six panels, three columns) with synthetic curves."""
    spec = load_paper("penalized_fairness", "smoke", repo_root)
    rows = []
    for panel in spec.figures["fig1"]["panels"]:
        for k, algo in enumerate(panel_algorithms(spec, panel)):
            rows += [dict(panel=panel["id"], algorithm=algo, metric=panel["metric"], t=int(s),
                          mean=(k + 1) * np.log1p(s), se=0.2, n=10) for s in range(1, 51)]
    summary = tmp_path / "summary.csv"
    pd.DataFrame(rows).to_csv(summary, index=False)
    return ResultsContext(spec, {"fig1": summary}, {})


def test_a_wide_figure_has_larger_text_and_one_legend_below_its_panels(wide_context, toy_context, tmp_path):
    """Shown at about half size in a report pane, a figure of three panel columns draws its text larger and its
    legend once, below the panels; a narrow figure keeps a legend per panel at the base size."""
    base = theme_rc()
    fig = plot_figure(wide_context, "fig1")
    assert [ax.get_legend() for ax in fig.axes] == [None] * len(fig.axes) and len(fig.legends) == 1
    legend = fig.legends[0]
    panels_bottom = min(ax.get_position().y0 for ax in fig.axes)
    assert legend.get_window_extent().y1 / fig.bbox.height <= panels_bottom  # below every panel
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == [h.get_label() for h in fig.axes[0].get_lines()]  # each algorithm once, as drawn
    assert legend.get_texts()[0].get_fontsize() == pytest.approx(1.5 * base["legend.fontsize"])
    assert fig.axes[0].xaxis.get_ticklabels()[0].get_fontsize() == pytest.approx(1.5 * base["xtick.labelsize"])
    save_figure(fig, tmp_path / "wide.png", tmp_path / "wide.pdf")
    narrow = plot_figure(toy_context, "fig1")
    assert not narrow.legends and all(ax.get_legend() is not None for ax in narrow.axes if ax.get_lines())
    assert narrow.axes[0].get_legend().get_texts()[0].get_fontsize() == pytest.approx(base["legend.fontsize"])


def test_the_shared_legend_is_refused_where_it_would_mislead():
    from banditrepro.plotting.figures import _shared_legend

    def axes(*panels):  # each panel: [(label, colour, linestyle)]
        fig, axs = matplotlib.pyplot.subplots(1, len(panels), squeeze=False)
        for ax, lines in zip(axs.flat, panels):
            for label, colour, ls in lines:
                ax.plot([0, 1], [0, 1], color=colour, ls=ls, label=label)
        return list(axs.flat)

    a, b, c = ("A", "#0173b2", "-"), ("B", "#de8f05", "-"), ("C", "#029e73", "-")
    handles, labels = _shared_legend(axes([a, b], [a, c]))  # different sets, each label drawn alike: the union
    assert labels == ["A", "B", "C"] and len(handles) == 3
    assert _shared_legend(axes([a], [("A", "#de8f05", "-")])) is None  # one label, two looks
    assert _shared_legend(axes([("fit: slope 2", "0.3", "--")], [("fit: slope 3", "0.3", "--")])) is None  # alike
    matplotlib.pyplot.close("all")
