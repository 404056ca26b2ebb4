"""Band cases of satisficing_select's checks (``experiments/satisficing_select/checks.py``).

Every statistic here is paired per replication (one experiment's algorithms share their noise): the cases write
per-replication curves (:func:`generic.curves_context`) built so that the statistic's mean and its paired s.e. are
exact: a difference ``x - y`` whose replications are a constant plus ``S sqrt(n)`` x centred noise has s.e. ``S``;
a ratio ``mean(a) / mean(b)`` with ``a = rho b + e`` and ``mean(e) = 0`` has the delta-method s.e.
``se(e) / mean(b)`` (the covariance terms cancel), so ``e`` of s.e. ``S mean(b)`` puts the ratio's s.e. at ``S``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from . import band_case, centred_noise
from .generic import N, curves_context, sample

#: s.e. of every synthetic ratio (small, so that the comparisons that must pass safely do)
S_RATIO = 0.002
#: s.e. of every synthetic regret difference
S_DIFF = 1.0


def _as_list(x) -> list[str]:
    return [x] if isinstance(x, str) else list(x)


def _horizon(spec, figure, panel) -> int:
    from .generic import panel_of
    return int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)


def _ratio_pair(rho: float, base_mean: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) per replication with mean(a) / mean(b) = rho exactly and delta-method s.e. S_RATIO."""
    b = base_mean * (1.0 + 0.2 * centred_noise(N, seed=seed))
    e = S_RATIO * base_mean * math.sqrt(N) * centred_noise(N, seed=seed + 1000)
    return rho * b + e, b


def _late_growth_curves(T: int, t_from: int, excess: float, seed: int) -> np.ndarray:
    """(R, 2) curves at (t_from, T) whose regret added over [t_from, T] exceeds the pure-log prediction
    R(T) ln(T / t_from) / ln T by ``excess`` on average, with s.e. S_DIFF (the spec's "constant" statistic)."""
    share = math.log(T / t_from) / math.log(T)
    end = 100.0 + 10.0 * centred_noise(N, seed=seed)
    added = share * end + sample(excess, S_DIFF, N, seed + 1)
    return np.stack([end - added, end], axis=1)


@band_case("select_flat")
def flat_case(spec, claim, check, k, tmp):
    """Every algorithm's excess over the pure-log prediction at -k s.e. (flat) or +k s.e. (growing)."""
    if check.get("after_initial_sweep"):
        raise ValueError("select_flat's band case writes no initial grid sweep; add it for after_initial_sweep")
    figure, panel, t_from = claim["figure"], check["panel"], int(check["t_from"])
    T = _horizon(spec, figure, panel)
    sign = 1.0 if check.get("growing") else -1.0
    algos = {a: _late_growth_curves(T, t_from, sign * k * S_DIFF, seed=10 * i)
             for i, a in enumerate(_as_list(check["algorithms"]))}
    return curves_context(spec, tmp, [t_from, T], {(figure, panel): algos})


@band_case("select_growth_ratio")
def growth_ratio_case(spec, claim, check, k, tmp):
    """Every algorithm's R(T) / R(t_from) k s.e. beyond the limit (above min_ratio, below max_ratio)."""
    figure, panel, t_from = claim["figure"], check["panel"], int(check["t_from"])
    T = _horizon(spec, figure, panel)
    if check.get("min_ratio") is not None:
        rho = float(check["min_ratio"]) + k * S_RATIO
    else:
        rho = float(check["max_ratio"]) - k * S_RATIO
    algos = {}
    for i, a in enumerate(_as_list(check["algorithms"])):
        end, start = _ratio_pair(rho, 50.0, seed=10 * i)
        algos[a] = np.stack([start, end], axis=1)
    return curves_context(spec, tmp, [t_from, T], {(figure, panel): algos})


@band_case("select_comparable")
def comparable_case(spec, claim, check, k, tmp):
    """a / b = 1 + tolerance - k s.e. at T (at='final') or at every recorded T."""
    figure, panel = claim["figure"], check["panel"]
    T = _horizon(spec, figure, panel)
    ts = [T // 5, T // 2, T]
    rho = 1.0 + float(check.get("tolerance", 0.25)) - k * S_RATIO
    cols = [_ratio_pair(rho, 20.0 * (j + 1), seed=7 * j) for j in range(len(ts))]
    algos = {check["a"]: np.stack([c[0] for c in cols], axis=1), check["b"]: np.stack([c[1] for c in cols], axis=1)}
    return curves_context(spec, tmp, ts, {(figure, panel): algos})


@band_case("select_pairwise_comparable")
def pairwise_comparable_case(spec, claim, check, k, tmp):
    """The first and the last algorithm k s.e. from max/min - 1 = tolerance at T; the ones between them at
    evenly spaced ratios in between, so that every other pair is far inside the tolerance (>= 6 s.e.)."""
    figure, panel = claim["figure"], check["panel"]
    T = _horizon(spec, figure, panel)
    algorithms = list(check["algorithms"])
    tol = float(check.get("tolerance", 0.25))
    base = 40.0 * (1.0 + 0.2 * centred_noise(N, seed=3))
    top = 1.0 + tol - k * S_RATIO
    finals = {}
    for i, a in enumerate(algorithms):
        rho = 1.0 + (top - 1.0) * i / (len(algorithms) - 1)
        e = 0.0 if i == 0 else S_RATIO * base.mean() * math.sqrt(N) * centred_noise(N, seed=50 + i)
        finals[a] = rho * base + e
    for x, y in itertools.combinations(algorithms, 2):  # the case's own promise: only the extreme pair is close
        if {x, y} != {algorithms[0], algorithms[-1]}:
            hi, lo = sorted((finals[x].mean(), finals[y].mean()), reverse=True)
            assert tol - (hi / lo - 1.0) > 6 * 3 * S_RATIO, (x, y)
    algos = {a: np.stack([0.5 * f, f], axis=1) for a, f in finals.items()}
    return curves_context(spec, tmp, [T // 2, T], {(figure, panel): algos})


@band_case("select_not_above_max")
def not_above_max_case(spec, claim, check, k, tmp):
    """The algorithm k paired s.e. below the largest of ``others`` at T; the other baselines far below that one."""
    figure, panel = claim["figure"], check["panel"]
    T = _horizon(spec, figure, panel)
    others = list(check["others"])
    top = 200.0 + 20.0 * centred_noise(N, seed=5)
    finals = {check["algorithm"]: top - sample(k * S_DIFF, S_DIFF, N, seed=6), others[0]: top}
    for i, o in enumerate(others[1:]):
        finals[o] = 0.5 * top - 10.0 * (i + 1)
    algos = {a: np.stack([0.5 * f, f], axis=1) for a, f in finals.items()}
    return curves_context(spec, tmp, [T // 2, T], {(figure, panel): algos})


@band_case("select_spread_at_every_t")
def spread_at_every_t_case(spec, claim, check, k, tmp):
    """In every panel and at every recorded T the largest / smallest mean k s.e. below max_ratio; the algorithms
    between them at ratios in between (never the largest or the smallest)."""
    figure = claim["figure"]
    algorithms = list(check["algorithms"])
    rho = float(check.get("max_ratio", 1.5)) - k * S_RATIO
    cells = {}
    for p, panel in enumerate(check["panels"]):
        T = _horizon(spec, figure, panel)
        ts = [T // 5, T // 2, T]
        cols = {a: [] for a in algorithms}
        for j in range(len(ts)):
            high, low = _ratio_pair(rho, 30.0 * (j + 1), seed=100 * p + 10 * j)
            cols[algorithms[0]].append(low)
            cols[algorithms[-1]].append(high)
            for i, a in enumerate(algorithms[1:-1], start=1):
                cols[a].append(low * (1.0 + (rho - 1.0) * i / (len(algorithms) - 1)))
        cells[(figure, panel)] = {a: np.stack(c, axis=1) for a, c in cols.items()}
    return curves_context(spec, tmp, ts, cells)


def _concave_sweep(params: dict, t: int) -> float:
    """The satisficing regret of one pull of every cell centre of the uniform grid of horizon ``t`` (the paper's
    discretization, M = ceil((L t)^(1/(d+2))) cells per axis, d = 1) on r(x) = top - curvature (x - centre)^2."""
    env = params["environment"]
    if env["kind"] != "concave_quadratic":
        raise ValueError(f"the band case computes the initial sweep of concave_quadratic only, not {env['kind']}")
    top, curv, centre = float(env["top"]), float(env["curvature"]), float(env["centre"])
    lipschitz = 2.0 * curv * max(centre, 1.0 - centre)
    cells = math.ceil(round((lipschitz * t) ** (1.0 / 3.0), 9))
    x = (np.arange(cells) + 0.5) / cells
    return float(np.maximum(float(params["level"]) - (top - curv * (x - centre) ** 2), 0.0).sum())


@band_case("select_beyond_sweep")
def beyond_sweep_case(spec, claim, check, k, tmp):
    """Each algorithm's regret over [t_from, T] beyond the grid's deterministic sweep k s.e. above min_share x
    its rise. Per replication the compared difference is beyond - min_share rise = (1 - min_share) added - swept,
    whose s.e. is (1 - min_share) se(added): rise = (swept + k (1 - min_share) S) / (1 - min_share)."""
    from .generic import panel_of
    figure, panel, t_from = claim["figure"], check["panel"], int(check["t_from"])
    p = panel_of(spec, figure, panel)
    if p["metric"] != "satisficing_regret":
        raise ValueError("the band case computes the satisficing regret's sweep only")
    exp = spec.experiments[p["experiment"]]
    T = int(exp.horizon)
    swept = _concave_sweep(exp.params, T) - _concave_sweep(exp.params, t_from)
    keep = 1.0 - float(check["min_share"])
    rise = (swept + k * keep * S_DIFF) / keep
    algos = {}
    for i, a in enumerate(_as_list(check["algorithms"])):
        start = 80.0 + 10.0 * centred_noise(N, seed=20 + i)
        algos[a] = np.stack([start, start + sample(rise, S_DIFF, N, seed=30 + i)], axis=1)
    return curves_context(spec, tmp, [t_from, T], {(figure, panel): algos})
