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


def sample(mean: float, se: float, n: int = N, seed: int = 0):
    """``n`` per-replication values whose sample mean is exactly ``mean`` and whose s.e. of the mean (ddof=1) is
    exactly ``se`` (the mean's definition, not a check's helper)."""
    return mean + se * np.sqrt(n) * centred_noise(n, seed=seed)


@band_case("final_ordering")
def final_ordering_case(spec, claim, check, k, tmp):
    """order[0] > order[1] > ... at T, each adjacent gap k s.e. of the difference: order[i] at (len - 1 - i) k,
    every curve's s.e. SE/sqrt(2), so each adjacent difference has s.e. hypot(SE/sqrt2, SE/sqrt2) = SE."""
    figure, panel, order = claim["figure"], check["panel"], list(check["order"])
    metric = check.get("metric") or panel_of(spec, figure, panel)["metric"]
    rows = []
    for i, a in enumerate(order):
        rows += curve_rows(panel, a, metric, [50, 100], (len(order) - 1 - i) * k * SE, SE / np.sqrt(2), N)
    return context(spec, {figure: write_summary(tmp, figure, rows)})


def curves_context(spec, tmp, ts, cells, **extra_args):
    """The :class:`BandContext` of per-replication curves: ``cells`` maps (figure, panel) to {algorithm: (R, C)
    array over checkpoints ``ts``} (the panel's metric). One shard per experiment holds every algorithm of its
    panels (an algorithm plotted in two panels of one experiment must be given the same curves); each figure's
    summary rows are those curves' means and s.e. (ddof=1)."""
    ts = np.asarray(ts, dtype=np.int64)
    outs: dict[str, dict[str, SimulationOutput]] = {}
    rows: dict[str, list] = {}
    for (figure, panel), algos in cells.items():
        p = panel_of(spec, figure, panel)
        exp, metric = p["experiment"], p["metric"]
        for algo, arr in algos.items():
            arr = np.asarray(arr, dtype=float)
            have = outs.setdefault(exp, {}).get(algo)
            if have is None:
                outs[exp][algo] = SimulationOutput(ts, {metric: arr})
            elif metric in have.curves and not np.array_equal(have.curves[metric], arr):
                raise ValueError(f"{exp}/{algo}: two panels give different {metric} curves")
            else:
                have.curves[metric] = arr
            rows.setdefault(figure, []).extend(
                curve_rows(panel, algo, metric, ts, arr.mean(0), arr.std(0, ddof=1) / np.sqrt(arr.shape[0]),
                           arr.shape[0]))
    shards = {exp: write_shards(tmp, exp, o) for exp, o in outs.items()}
    summaries = {fig: write_summary(tmp, fig, r) for fig, r in rows.items()}
    return context(spec, summaries, shards, **extra_args)
