"""Panel plotters for Figures 2-5 (non-time x-axes). They read only the figure's summary.csv.

Eta sweeps store eta in the summary's ``t`` column in units of 1/1000 (see ``builders``).
"""

from __future__ import annotations

import numpy as np

from ...registry import panel_plotter
from .builders import ETA_UNITS
from .theory import arm_classes, fixed_instance

ARM_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F",
              "#8C564B", "#17BECF", "#BCBD22", "#9467BD"]


def _panel_rows(ctx, figure, panel, algorithm, metric):
    s = ctx.summary(figure)
    d = s[(s.panel == panel["id"]) & (s.algorithm == algorithm) & (s.metric == metric)]
    return d.sort_values("t")


def panel_metrics(panel) -> list[str]:
    return [panel["metric"]] + [m for m in panel.get("extra_metrics", []) if m != panel["metric"]]


@panel_plotter("unfairness_paths")
def unfairness_paths(ax, ctx, figure, panel, style):
    """Figure 2: mean u_k(eta) of every arm for one algorithm (metrics u1..uK of the panel)."""
    (algorithm,) = panel["algorithms"]
    for i, metric in enumerate(panel_metrics(panel)):
        d = _panel_rows(ctx, figure, panel, algorithm, metric)
        ax.plot(d.t / ETA_UNITS, d["mean"], color=ARM_COLORS[i % len(ARM_COLORS)], lw=1.3,
                label=f"arm {metric.split('_')[0][1:]}")
    ax.set_xlim(0, 1)


@panel_plotter("tradeoff")
def tradeoff(ax, ctx, figure, panel, style):
    """Figures 3 and 5: (mean U(eta), mean W(eta)) per algorithm, joined in order of eta.

    ``metric`` is the W metric and ``extra_metrics[0]`` the U metric of the panel.
    """
    w_metric = panel["metric"]
    u_metric = panel["extra_metrics"][0]
    for algorithm in panel["algorithms"]:
        w = _panel_rows(ctx, figure, panel, algorithm, w_metric)
        u = _panel_rows(ctx, figure, panel, algorithm, u_metric)
        m = w.merge(u, on="t", suffixes=("_w", "_u")).sort_values("t")
        color = style.colors.get(algorithm, "black")
        ax.plot(m.mean_u, m.mean_w, color=color, lw=1.3, marker="o", ms=2.2, label=style.labels.get(algorithm, algorithm))


@panel_plotter("pulls_vs_inverse_gap")
def pulls_vs_inverse_gap(ax, ctx, figure, panel, style):
    """Figure 4: mean N_k(T) +- 1 SD against 1/(Delta_k - A)^2 (non-critical arms) or 1/Delta_k^2
    (critical arms), the fairness level tau_k T, and the least-squares line through the arms that
    the claims regress (N < 0.95 tau T for non-critical, N > 1.05 tau T for critical arms)."""
    (algorithm,) = panel["algorithms"]
    inst = fixed_instance(ctx.spec.experiments[panel["experiment"]], algorithm)
    which = panel["args"]["arms"]
    arms = np.flatnonzero(arm_classes(inst.means, inst.penalty) == which)
    s = ctx.summary(figure)
    d = s[(s.panel == panel["id"]) & (s.algorithm == algorithm)]
    x, y, sd = [], [], []
    for arm in arms:
        row = d[d.metric == f"pulls:{arm}"].sort_values("t").iloc[-1]
        gap = inst.gaps[arm] - inst.penalty[arm] if which == "noncritical" else inst.gaps[arm]
        x.append(1.0 / gap**2)
        y.append(float(row["mean"]))
        sd.append(float(row.se) * np.sqrt(float(row.n)))
    x, y, sd = np.array(x), np.array(y), np.array(sd)
    ax.errorbar(x, y, yerr=sd, fmt="o", color=style.colors.get(algorithm, "black"), ms=4, capsize=3,
                label=style.labels.get(algorithm, algorithm) + " (±1 SD)")
    level = float(inst.tau[arms].mean() * inst.horizon)
    ax.axhline(level, color="#0072B2", lw=1.0, ls="-", label=r"$\tau_k T$")
    sel = (y < 0.95 * level) if which == "noncritical" else (y > 1.05 * level)
    if sel.sum() >= 2:
        slope, intercept = np.polyfit(x[sel], y[sel], 1)
        xs = np.linspace(0, x[sel].max() * 1.1, 50)  # only over the fitted arms' range
        ax.plot(xs, intercept + slope * xs, color="0.3", ls="--", lw=1.0, label=f"fit: slope {slope:.3g}")
    for xi, yi, arm in zip(x, y, arms):
        ax.annotate(f"{arm + 1}", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
