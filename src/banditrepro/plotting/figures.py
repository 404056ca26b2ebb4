"""Render a paper figure from its summary and reference curves."""

from __future__ import annotations

import os
import textwrap
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..registry import PANEL_PLOTTERS, lookup  # noqa: E402

if TYPE_CHECKING:  # the plotting side reads a spec it is handed; it never loads one
    from ..experiments.spec import PaperSpec

# seaborn's colour-blind palette without its pale yellow and pale pink (unreadable as thin lines on
# white), plus four of its "dark" colours (purple, teal, charcoal, brown): 12 colours, so no panel
# (at most 9 algorithms) repeats one; past 12 algorithms a paper cycles them with dashes. Ordered so
# that the first ones differ most (the colour-blind orange and vermilion are far apart in the list).
# The colours and the theme below are seaborn 0.13's, written out so that a plot job does not import
# seaborn (and scipy.stats through it), 1.2 s of each job's start-up (issue 27); tests/test_plotting.py
# derives both from seaborn and requires these values.
PALETTE = ["#0173b2", "#de8f05", "#029e73", "#cc78bc", "#56b4e9",  # colorblind 0, 1, 2, 4, 9
           "#591e71",  # dark 4
           "#d55e00", "#949494", "#ca9161",  # colorblind 3, 7, 5
           "#006374", "#3c3c3c", "#592f0d"]  # dark 9, 7, 5
REF_STYLES = ["--", ":", "-.", (0, (5, 1, 1, 1))]


LINESTYLES = ["-", (0, (6, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2))]


# seaborn.axes_style("whitegrid") merged with seaborn.plotting_context("paper", font_scale=1.1), float for float,
# less its "image.cmap": "rocket", a colormap that exists only once seaborn is imported (no figure draws an image)
SEABORN_WHITEGRID_PAPER_RC = {
    "axes.axisbelow": True, "axes.edgecolor": ".8", "axes.facecolor": "white", "axes.grid": True,
    "axes.labelcolor": ".15", "axes.labelsize": 10.560000000000002, "axes.linewidth": 1.0,
    "axes.spines.bottom": True, "axes.spines.left": True, "axes.spines.right": True, "axes.spines.top": True,
    "axes.titlesize": 10.560000000000002, "figure.facecolor": "white", "font.family": ["sans-serif"],
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans", "sans-serif"],
    "font.size": 10.560000000000002, "grid.color": ".8", "grid.linestyle": "-", "grid.linewidth": 0.8,
    "legend.fontsize": 9.680000000000001, "legend.title_fontsize": 10.560000000000002,
    "lines.linewidth": 1.2000000000000002, "lines.markersize": 4.800000000000001, "lines.solid_capstyle": "round",
    "patch.edgecolor": "w", "patch.force_edgecolor": True, "patch.linewidth": 0.8, "text.color": ".15",
    "xtick.bottom": False, "xtick.color": ".15", "xtick.direction": "out", "xtick.labelsize": 9.680000000000001,
    "xtick.major.size": 4.800000000000001, "xtick.major.width": 1.0, "xtick.minor.size": 3.2,
    "xtick.minor.width": 0.8, "xtick.top": False, "ytick.color": ".15", "ytick.direction": "out",
    "ytick.labelsize": 9.680000000000001, "ytick.left": False, "ytick.major.size": 4.800000000000001,
    "ytick.major.width": 1.0, "ytick.minor.size": 3.2, "ytick.minor.width": 0.8, "ytick.right": False,
}


def base_theme_rc() -> dict:
    """Matplotlib settings of the figures: seaborn's whitegrid style and paper context.

    The font is pinned to DejaVu Sans (shipped with matplotlib; seaborn asks for Arial first) so that
    the bytes of a figure do not depend on the fonts a machine happens to have installed.
    """
    rc = {key: list(value) if isinstance(value, list) else value for key, value in SEABORN_WHITEGRID_PAPER_RC.items()}
    rc.update({"font.family": ["sans-serif"], "font.sans-serif": ["DejaVu Sans"], "axes.titlesize": 10,
               "legend.fontsize": 8, "legend.framealpha": 0.85, "legend.edgecolor": "0.85",
               "xtick.bottom": True, "ytick.left": True, "xtick.color": ".3", "ytick.color": ".3",
               "grid.color": ".9", "axes.edgecolor": ".7"})
    return rc


#: a figure this many panel columns wide is shown at about half its size in a report pane (Snakemake's HTML
#: report, a Markdown viewer): its text is drawn larger and its legend once, below the panels
WIDE_COLUMNS = 3
#: how much larger the text of a wide figure is drawn
WIDE_FONT_SCALE = 1.5
FONT_KEYS = ("font.size", "axes.labelsize", "axes.titlesize", "xtick.labelsize", "ytick.labelsize", "legend.fontsize",
             "legend.title_fontsize", "figure.titlesize")


def theme_rc(font_scale: float = 1.0) -> dict:
    """:func:`base_theme_rc` with every font size multiplied by ``font_scale``."""
    rc = base_theme_rc()
    for key in FONT_KEYS:
        if isinstance(rc.get(key), (int, float)):
            rc[key] = rc[key] * font_scale
    return rc


@contextmanager
def theme(font_scale: float = 1.0):
    """The figures' theme for the duration of a block (drawing and saving: ticks are made at draw time)."""
    with plt.rc_context(theme_rc(font_scale)):
        yield


@dataclass
class Style:
    """One colour (and, past the palette's length, one dash pattern) per algorithm of a paper,
    so an algorithm looks the same in every figure of the paper."""

    colors: dict[str, str]
    labels: dict[str, str]
    linestyles: dict[str, object]

    @classmethod
    def for_paper(cls, spec: PaperSpec) -> Style:
        order = spec.algorithm_order()
        colors = {a: PALETTE[i % len(PALETTE)] for i, a in enumerate(order)}
        linestyles = {a: LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)] for i, a in enumerate(order)}
        labels = {}
        for exp in spec.experiments.values():
            for a in exp.algorithms:
                labels.setdefault(a, exp.label(a))
        return cls(colors=colors, labels=labels, linestyles=linestyles)


def _curve_panel(ax, ctx, figure: str, panel: dict, style: Style) -> None:
    summary = ctx.summary(figure)
    refs = ctx.references(figure)
    metric = panel["metric"]
    algorithms = panel.get("algorithms")
    if not algorithms:
        algorithms = []
        for exp in ctx.spec.panel_experiments(panel):
            algorithms += [a for a in ctx.spec.experiments[exp].algorithms if a not in algorithms]
    for algo in algorithms:
        d = summary[(summary.panel == panel["id"]) & (summary.algorithm == algo) & (summary.metric == metric)]
        d = d.sort_values("t")
        color = style.colors.get(algo, "black")
        ax.plot(d.t, d["mean"], color=color, ls=style.linestyles.get(algo, "-"), lw=1.6,
                label=style.labels.get(algo, algo))
        band = panel.get("band", "se")  # shaded ±1 standard error (default) or ±1 standard deviation
        if band != "none" and len(d) > 1 and d.se.notna().any():
            width = d.se * np.sqrt(d.n) if band == "sd" else d.se
            ax.fill_between(d.t, d["mean"] - width, d["mean"] + width, color=color, alpha=0.2, lw=0)
    panel_refs = refs[refs.panel == panel["id"]]
    for i, (_curve, d) in enumerate(panel_refs.groupby("curve", sort=False)):
        d = d.sort_values("t")
        ax.plot(d.t, d.value, color="0.25", ls=REF_STYLES[i % len(REF_STYLES)], lw=1.2, label=d.label.iloc[0])


def font_scale_of(fig_spec: dict) -> float:
    """The font scale of a figure: larger text for a figure of :data:`WIDE_COLUMNS` or more panel columns."""
    rows, cols = fig_spec.get("layout", [1, len(fig_spec["panels"])])
    return WIDE_FONT_SCALE if cols >= WIDE_COLUMNS else 1.0


def plot_figure(ctx, figure: str, standin: bool = False):
    with theme(font_scale_of(ctx.spec.figures[figure])):
        return _plot_figure(ctx, figure, standin)


def _look(handle) -> tuple:
    """How a legend entry is drawn (a line's or a patch's colour, style and marker)."""
    def get(name):
        return str(getattr(handle, f"get_{name}", lambda: None)())

    return tuple(get(name) for name in ("color", "facecolor", "linestyle", "marker"))


def _shared_legend(axes_with_legend) -> tuple[list, list] | None:
    """One legend for the panels (handles, labels; each label once, in the order first drawn), or None when
    it would mislead: a label drawn differently in two panels, or two labels drawn alike (e.g. one fit line
    per panel, each labelled with its own slope). Each panel then keeps its own legend."""
    entries = {}  # label -> (look, handle)
    for ax in axes_with_legend:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label in entries and entries[label][0] != _look(handle):
                return None
            entries.setdefault(label, (_look(handle), handle))
    if not entries or len({look for look, _ in entries.values()}) != len(entries):
        return None
    return [handle for _, handle in entries.values()], list(entries)


def _plot_figure(ctx, figure: str, standin: bool):
    spec: PaperSpec = ctx.spec
    fig_spec = spec.figures[figure]
    panels = fig_spec["panels"]
    rows, cols = fig_spec.get("layout", [1, len(panels)])
    width, height = fig_spec.get("size", [4.5 * cols, 3.4 * rows])
    style = Style.for_paper(spec)
    wide = cols >= WIDE_COLUMNS
    title_size = plt.rcParams["axes.titlesize"]
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False, sharex=fig_spec.get("sharex", False))
    with_legend = []
    for ax, panel in zip(axes.flat, panels):
        if "band" in fig_spec:
            panel = {"band": fig_spec["band"], **panel}
        kind = panel.get("kind", "curve")
        if kind == "curve":
            _curve_panel(ax, ctx, figure, panel, style)
        else:
            lookup(PANEL_PLOTTERS, "panel plotter", kind)(ax, ctx, figure, panel, style)
        if panel.get("title"):
            ax.set_title(panel["title"], fontsize=title_size)
        ax.set_xlabel(panel.get("xlabel", "t"))
        ax.set_ylabel(panel.get("ylabel", panel.get("metric", "")))
        ax.set_xscale(panel.get("xscale", "linear"))
        ax.set_yscale(panel.get("yscale", "linear"))
        if panel.get("legend", True) and ax.get_legend_handles_labels()[0]:
            with_legend.append(ax)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    if wide:  # tick labels are made at draw time, when save_figure's theme (scale 1) is in force: fix their size
        for ax in axes.flat:
            ax.tick_params(labelsize=plt.rcParams["xtick.labelsize"])
    shared = _shared_legend(with_legend) if wide else None
    if shared is None:
        # legends inside the panels keep the base size, so that they cover no more of the curves than before
        legend_size = plt.rcParams["legend.fontsize"] / font_scale_of(fig_spec)
        for ax in with_legend:
            ax.legend(fontsize=legend_size)
    title = fig_spec["title"]
    if spec.scale != "paper":
        title += f"  [scale: {spec.scale}]"
    fig.suptitle(textwrap.fill(title, width=max(40, int(width * 11 / font_scale_of(fig_spec)))), fontsize=title_size)
    if standin:
        fig.text(0.5, 0.5, "STAND-IN DATA", fontsize=40, color="red", alpha=0.25, ha="center", va="center",
                 rotation=25, transform=fig.transFigure)
    if shared is None:
        fig.tight_layout()
    else:
        # one legend below the panels, as wide as the figure allows; the panels fill the space above it
        handles, labels = shared
        for ncol in range(min(len(labels), 2 * cols), 0, -1):  # as many columns as fit the figure's width
            legend = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
                                frameon=False)
            fig.canvas.draw()
            if ncol == 1 or legend.get_window_extent().width <= 0.98 * fig.bbox.width:
                break
            legend.remove()
        bottom = legend.get_window_extent().height / fig.bbox.height
        fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def provenance_note(prov: dict | None) -> str:
    """One line of provenance for figure metadata (no timestamps: rebuilds stay byte-identical)."""
    if not prov:
        return "banditrepro"
    return (f"banditrepro {prov.get('package_version')}; commit {prov.get('git_commit')}; seed {prov.get('seed')}; "
            f"config sha256 {prov.get('config_sha256')}")


def save_figure(fig, png: Path | str, pdf: Path | str, provenance: dict | None = None) -> None:
    """PNG and PDF whose metadata holds the provenance of the data but no timestamps or
    library versions, so rebuilding from the same inputs gives the same bytes."""
    for path in (png, pdf):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    note = provenance_note(provenance)
    with theme():
        fig.savefig(png, dpi=150, metadata={"Software": None, "Comment": note})
        fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None,
                                   "Subject": note})
    plt.close(fig)
