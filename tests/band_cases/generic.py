"""Band cases of the generic claim checks (``report/checks.py``)."""

from __future__ import annotations

import numpy as np

from banditrepro.simulation_output import SimulationOutput

from . import band_case, centred_noise, context, curve_rows, panel_of, write_shards, write_summary

#: replications of a synthetic experiment
N = 20
#: the standard error every synthetic curve point (or paired difference) has
SE = 1.0


def _as_list(x) -> list[str]:
    return [x] if isinstance(x, str) else list(x)


@band_case("below")
def below_case(spec, claim, check, k, tmp):
    """Every lower curve at 0 and every higher curve at k s.e. of the difference above it, at one checkpoint
    (at='final') or three (at='every'); paired: per-replication curves whose difference has mean k and s.e. 1."""
    figure = claim["figure"]
    panel = check["panel"]
    hfig, hpanel = check.get("higher_figure") or figure, check.get("higher_panel") or panel
    lowers, highers = _as_list(check["lower"]), _as_list(check["higher"])
    metric = check.get("metric") or panel_of(spec, figure, panel)["metric"]
    hmetric = check.get("metric") or panel_of(spec, hfig, hpanel)["metric"]
    ts = np.array([100] if check.get("at", "final") == "final" else [10, 50, 100])
    if check.get("paired"):
        # the difference higher - lower has mean k*SE and s.e. SE; each curve alone has s.e. of a few SE
        base = 5.0 * SE * np.sqrt(N) * centred_noise(N, seed=1)
        diff = k * SE + SE * np.sqrt(N) * centred_noise(N, seed=2)
        low = np.repeat(base[:, None], ts.size, axis=1)
        high = np.repeat((base + diff)[:, None], ts.size, axis=1)
        outs = {a: SimulationOutput(ts, {metric: low.copy()}) for a in lowers}
        outs.update({a: SimulationOutput(ts, {hmetric: high.copy()}) for a in highers})
        experiment = panel_of(spec, figure, panel)["experiment"]
        shards = {experiment: write_shards(tmp, experiment, outs)}
        rows = {figure: [], hfig: []}
        for a in lowers:
            rows[figure] += curve_rows(panel, a, metric, ts, low.mean(0), low.std(0, ddof=1) / np.sqrt(N), N)
        for a in highers:
            rows[hfig] += curve_rows(hpanel, a, hmetric, ts, high.mean(0), high.std(0, ddof=1) / np.sqrt(N), N)
    else:
        shards = {}
        rows = {figure: [], hfig: []}
        for a in lowers:
            rows[figure] += curve_rows(panel, a, metric, ts, 0.0, SE / np.sqrt(2), N)
        for a in highers:  # the difference's s.e. is hypot(SE/sqrt2, SE/sqrt2) = SE
            rows[hfig] += curve_rows(hpanel, a, hmetric, ts, k * SE, SE / np.sqrt(2), N)
    summaries = {fig: write_summary(tmp, fig, r) for fig, r in rows.items() if r}
    return context(spec, summaries, shards)
