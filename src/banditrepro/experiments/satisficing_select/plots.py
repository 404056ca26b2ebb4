"""Special panel: the distribution of the number of SELECT rounds started by the horizon."""

from __future__ import annotations

import re

import numpy as np

from ...registry import panel_plotter

_INDICATOR = re.compile(r"rounds_started_eq_(\d+)$")


@panel_plotter("select_rounds_distribution")
def rounds_distribution(ax, ctx, figure, panel, style):
    """Grouped bars: share of replications (± s.e.) that started exactly k rounds by T.

    Reads the indicator finals ``rounds_started_eq_<k>`` listed in the panel's ``extra_metrics``.
    """
    summary = ctx.summary(figure)
    d = summary[summary.panel == panel["id"]]
    algorithms = panel.get("algorithms") or sorted(d.algorithm.unique())
    width = 0.8 / max(len(algorithms), 1)
    for j, algo in enumerate(algorithms):
        rows = d[d.algorithm == algo]
        ks, means, ses = [], [], []
        for _, r in rows.iterrows():
            m = _INDICATOR.match(r.metric)
            if m:
                ks.append(int(m.group(1)))
                means.append(r["mean"])
                ses.append(r["se"])
        order = np.argsort(ks)
        ks = np.array(ks)[order]
        means = np.array(means)[order]
        ses = np.array(ses)[order]
        ax.bar(ks + (j - (len(algorithms) - 1) / 2) * width, means, width=width, yerr=ses,
               color=style.colors.get(algo, "0.5"), label=style.labels.get(algo, algo), capsize=1.5)
    ax.set_ylim(0, 1.05)
    ax.xaxis.get_major_locator().set_params(integer=True)
