"""Band cases of penalized_fairness' headline checks (``experiments/penalized_fairness/checks.py``).

Each case builds per-replication results whose decisive statistic sits ``k`` of its own standard errors from the
claim's threshold. The instance (arm means, tau_k, A_k, T) is read from the experiment's parameters here; the
arm classes (critical 0 < Delta <= A, non-critical Delta > A), the fairness line fraction x tau_k T, a paired
ratio's linearisation, a least-squares R² and the jackknife are written out with numpy, never taken from the
check or the helpers it calls. A classification check (unfair / fair / within 2 s.e. of the line, decided on every
reading of the undecided cells) gets its deciding cells at ``line ± k s.e.`` and every other cell 6 s.e. from it.
"""

from __future__ import annotations

import math

import numpy as np

from banditrepro.simulation_output import SimulationOutput

from . import band_case, centred_noise, context, curve_rows, panel_of, write_shards, write_summary

#: replications of a synthetic experiment
N = 20
#: summary t of an eta sweep: round(ETA * eta) (the paper's eta grid as checkpoints)
ETA = 1000
#: cells of a classification not meant to decide: this many s.e. from the line
CLEAR = 6.0


def _noise(se: float, seed: int) -> np.ndarray:
    """Per-replication noise of mean exactly 0 whose mean has s.e. exactly ``se``."""
    return se * math.sqrt(N) * centred_noise(N, seed=seed)


def _tau(params: dict, n_arms: int) -> np.ndarray:
    """tau_k: a number per arm, a list, or {total: tau} shared equally (the paper's Settings)."""
    tau = params["tau"]
    if isinstance(tau, dict):
        return np.full(n_arms, float(tau["total"]) / n_arms)
    return np.broadcast_to(np.asarray(tau, dtype=float), (n_arms,)).copy()


def _eta_grid(params: dict) -> np.ndarray:
    """The experiment's eta grid as summary steps (round(1000 eta))."""
    start, stop, step = params["etas"]["range"]
    etas = np.concatenate([np.arange(start, stop + step / 2, step), params["etas"].get("extra", [])])
    return np.unique(np.round(etas * ETA).astype(np.int64))


def _instance(spec, experiment: str, algorithm: str | None = None):
    """(means, gaps, tau, A (or None), T) of a fixed-instance experiment."""
    exp = spec.experiments[experiment]
    means = np.asarray(exp.params["means"], dtype=float)
    penalty = None
    if algorithm is not None:
        penalty = np.full(means.size, float(exp.algorithms[algorithm]["penalty"]))
    return means, means.max() - means, _tau(exp.params, means.size), penalty, int(exp.horizon)


def _as_list(x):
    return [x] if isinstance(x, str) else list(x)


# --- Setting 1 ------------------------------------------------------------------------------------


@band_case("fair_ht_lowest_at_T")
def ht_lowest_case(spec, claim, check, k, tmp):
    """In every panel HT's regret at T over the lowest baseline's at 1 - margin - k paired s.e. (s.e.
    (1 - margin)/20): the lowest baseline at 100, the others at 200; HT = ratio x lowest + noise, so the ratio of
    means is exact and its linearised s.e. sd(HT - ratio lowest)/(sqrt(N) mean lowest) is the s.e. exactly."""
    figure, ht, baselines = claim["figure"], check["ht"], _as_list(check["baselines"])
    threshold = 1.0 - check.get("margin", 0.10)
    se = threshold / 20.0
    ts = np.array([1000, 2000])
    curves: dict[str, dict[str, dict[str, np.ndarray]]] = {}  # experiment -> algorithm -> metric -> (N, 2)
    for i, panel in enumerate(check["panels"]):
        p = panel_of(spec, figure, panel)
        low = 100.0 + _noise(5.0, seed=10 + i)
        finals = {ht: (threshold - k * se) * low + _noise(se * 100.0, seed=40 + i), baselines[0]: low}
        finals.update({b: 200.0 + _noise(5.0, seed=70 + i) for b in baselines[1:]})
        for a, v in finals.items():
            curves.setdefault(p["experiment"], {}).setdefault(a, {})[p["metric"]] = np.stack([v / 2, v], axis=1)
    shards = {e: write_shards(tmp, e, {a: SimulationOutput(ts, c) for a, c in algos.items()}, seed=1)
              for e, algos in curves.items()}
    return context(spec, shards=shards)


# --- Setting 2: unfairness paths -------------------------------------------------------------------


def _paths(spec, experiment, decide, fraction, k):
    """Per-replication u_k curves (N, etas) of one algorithm: cell (eta, arm) at line + s x S where the line is
    fraction tau_k T, S = line / 20 its mean's s.e. and s = ``decide(etas, arm)`` (a number of s.e.)."""
    exp = spec.experiments[experiment]
    means = np.asarray(exp.params["means"], dtype=float)
    tau = _tau(exp.params, means.size)
    ts = _eta_grid(exp.params)
    etas = ts / ETA
    out = {}
    for arm in range(means.size):
        line = fraction * tau[arm] * exp.horizon
        se = line / 20.0
        s = np.asarray(decide(etas, arm), dtype=float) * np.ones_like(etas)
        out[f"u{arm + 1}"] = (line + s * se)[None, :] + _noise(se, seed=100 + arm)[:, None]
    return ts, out


def _paths_context(spec, tmp, experiments, algorithms_paths):
    """Shards of the sweep experiments: ``algorithms_paths(experiment) -> {algorithm: (ts, curves)}``."""
    shards = {}
    for exp_id in experiments:
        outs = {a: SimulationOutput(ts, c) for a, (ts, c) in algorithms_paths(exp_id).items()}
        shards[exp_id] = write_shards(tmp, exp_id, outs)
    return context(spec, shards=shards)


@band_case("fair_lasso_ordering")
def lasso_case(spec, claim, check, k, tmp):
    """Every arm clearly fair except the suboptimal arm of smallest gap, at line - k s.e. at every eta: unfair
    (k < 0) while every arm of larger gap is fair breaks the nesting at every eta (no isolated, excusable blip)."""
    fraction = check.get("fraction", 0.02)

    def paths(exp_id):
        means = np.asarray(spec.experiments[exp_id].params["means"], dtype=float)
        gaps = means.max() - means
        arm = int(np.argmin(np.where(gaps > 0, gaps, np.inf)))
        return {check["algorithm"]: _paths(spec, exp_id, lambda e, a: -k if a == arm else -CLEAR, fraction, k)}

    return _paths_context(spec, tmp, check["experiments"], paths)


@band_case("fair_critical_arms_fair")
def critical_arms_fair_case(spec, claim, check, k, tmp):
    """Every cell (every arm, every eta) at line - k s.e.: the critical arms' cells and every cell at eta >= 0.8
    all decide, on the fair side for k > 0."""
    fraction = check.get("fraction", 0.02)
    return _paths_context(spec, tmp, check["experiments"],
                          lambda e: {check["algorithm"]: _paths(spec, e, lambda etas, a: -k, fraction, k)})


@band_case("fair_lfg_mostly_unfair")
def lfg_mostly_unfair_case(spec, claim, check, k, tmp):
    """LFG's suboptimal arms at line + k s.e. at every eta of eta_range (unfair for k > 0), clearly fair elsewhere;
    with ``ht``, HT's cells at line - k s.e. in the range (fair for k > 0). Every deciding cell at k."""
    fraction = check.get("fraction", 0.02)
    lo, hi = check["eta_range"]

    def paths(exp_id):
        means = np.asarray(spec.experiments[exp_id].params["means"], dtype=float)
        sub = means < means.max()

        def lfg(etas, a):
            inside = (etas >= lo - 1e-12) & (etas <= hi + 1e-12)
            return np.where(inside & sub[a], k, -CLEAR)

        out = {check["lfg"]: _paths(spec, exp_id, lfg, fraction, k)}
        if check.get("ht"):
            out[check["ht"]] = _paths(spec, exp_id, lambda etas, a: np.where(
                (etas >= lo - 1e-12) & (etas <= hi + 1e-12), -k, -CLEAR), fraction, k)
        return out

    return _paths_context(spec, tmp, check["experiments"], paths)


@band_case("fair_transition_width")
def transition_width_case(spec, claim, check, k, tmp):
    """HT's suboptimal arms clearly unfair one by one (arm k for eta <= Delta_k / 2: a wide transition); each
    baseline's suboptimal arms all clearly unfair below sudden_from and at line + k s.e. for sudden_from <= eta <
    1, fair at eta = 1. For k > 0 a baseline's first unfair arm comes at the last eta below 1 (all at once: width
    0), for k < 0 below sudden_from: the decisive cells are the baselines' at the top of the grid."""
    fraction, sudden = check.get("fraction", 0.02), check.get("sudden_from", 0.95)

    def paths(exp_id):
        means = np.asarray(spec.experiments[exp_id].params["means"], dtype=float)
        gaps = means.max() - means

        def ht(etas, a):
            return np.where((gaps[a] > 0) & (etas <= gaps[a] / 2 + 1e-12), CLEAR, -CLEAR)

        def baseline(etas, a):
            if gaps[a] == 0:
                return -CLEAR
            return np.where(etas < sudden - 1e-12, CLEAR, np.where(etas < 1.0 - 1e-12, k, -CLEAR))

        out = {check["ht"]: _paths(spec, exp_id, ht, fraction, k)}
        out.update({b: _paths(spec, exp_id, baseline, fraction, k) for b in _as_list(check["baselines"])})
        return out

    return _paths_context(spec, tmp, check["experiments"], paths)


# --- Settings 3 and 5: trade-off curves ------------------------------------------------------------


@band_case("fair_tradeoff_dominance")
def tradeoff_case(spec, claim, check, k, tmp):
    """Per panel, HT's and each baseline's trade-off points at the same U (10 etas, U falling with eta, every
    replication alike); HT's W = 1000 at every point, each baseline's 900 except at one interior point (its own),
    where it is 1000 (1 + rel_tol - k S) + noise: HT's relative shortfall there is rel_tol - k S and its
    jackknife s.e. (a mean's: the noise's s.e. over 1000) is S = rel_tol / 10 exactly; the mean difference over
    the interior points stays near +90 (its s.e. about 0.01): far above 0."""
    figure, ht, baselines = claim["figure"], check["ht"], _as_list(check["baselines"])
    rel_tol = check.get("rel_tol", 0.001)
    se = rel_tol / 10.0
    ts = np.arange(1, 11) * 100
    u = (10.0 * (ts.size - np.arange(ts.size)) + 5.0)[None, :].repeat(N, axis=0)
    w_ht = np.full((N, ts.size), 1000.0)
    outs: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    rows: list[tuple] = []
    for i, panel in enumerate(check["panels"]):
        p = panel_of(spec, figure, panel)
        w_metric, u_metric = p["metric"], p["extra_metrics"][0]
        curves = {ht: w_ht}
        for j, b in enumerate(baselines):
            w_b = np.full((N, ts.size), 900.0)
            point = 2 + j  # interior (0 < U < max U) and distinct per baseline
            w_b[:, point] = 1000.0 * (1.0 + rel_tol - k * se) + _noise(1000.0 * se, seed=200 + 10 * i + j)
            curves[b] = w_b
        for a, w in curves.items():
            outs.setdefault(p["experiment"], {}).setdefault(a, {}).update({w_metric: w, u_metric: u})
            for metric, v in ((w_metric, w), (u_metric, u)):
                rows += curve_rows(panel, a, metric, ts, v.mean(axis=0), v.std(axis=0, ddof=1) / math.sqrt(N), N)
    shards = {e: write_shards(tmp, e, {a: SimulationOutput(ts, c) for a, c in algos.items()})
              for e, algos in outs.items()}
    return context(spec, {figure: write_summary(tmp, figure, rows)}, shards)


# --- Setting 4: pull counts at T -------------------------------------------------------------------


def _pulls_context(spec, tmp, algorithm, pulls_by_experiment: dict[str, np.ndarray]):
    """Shards of fixed-instance experiments from per-replication pull counts at T, (N, K) each."""
    shards = {}
    for exp_id, pulls in pulls_by_experiment.items():
        ts = np.array([int(spec.experiments[exp_id].horizon)])
        out = SimulationOutput(ts, {"regret": np.zeros((N, 1))}, pulls=pulls[:, None, :])
        shards[exp_id] = write_shards(tmp, exp_id, {algorithm: out})
    return context(spec, shards=shards)


@band_case("fair_noncritical_pulls")
def noncritical_pulls_case(spec, claim, check, k, tmp):
    """Non-critical arms (Delta > A) by increasing Delta - A at 500, 500 - k S, 500 - 2k S, ... with each
    consecutive paired difference of s.e. S = 0.5 exactly: every 'strictly decreasing' comparison at k; all far
    below 0.95 tau T (so none is capped) and below tau T + slack, and no rise near slack (at k = -3 a rise of
    1.5 against slack 5: 7 s.e.). The other arms share the rest of T."""
    se = 0.5
    pulls = {}
    for i, exp_id in enumerate(check["experiments"]):
        means, gaps, tau, penalty, horizon = _instance(spec, exp_id, check["algorithm"])
        noncritical = np.flatnonzero(gaps > penalty)
        order = noncritical[np.argsort(gaps[noncritical] - penalty[noncritical], kind="stable")]
        assert 500.0 + CLEAR * se * len(order) < 0.9 * float(tau[order].min()) * horizon
        n = np.zeros((N, means.size))
        level = 500.0 + _noise(20.0, seed=300 + i)
        for j, arm in enumerate(order):
            n[:, arm] = level
            level = level - k * se - _noise(se, seed=310 + 10 * i + j)
        others = np.setdiff1d(np.arange(means.size), order)
        n[:, others] = ((horizon - n.sum(axis=1)) / others.size)[:, None]
        pulls[exp_id] = n
    return _pulls_context(spec, tmp, check["algorithm"], pulls)


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    """R² of the least-squares line of y on x: the squared correlation."""
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def _jackknife(values: np.ndarray) -> float:
    """The jackknife s.e. from leave-one-out values: sqrt((n-1)/n sum (v_i - mean v)^2)."""
    n = values.size
    return float(np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2)))


@band_case("fair_pulls_regression")
def pulls_regression_case(spec, claim, check, k, tmp):
    """The ``arms`` class pooled over the experiments (x = 1/(Delta - A)^2 non-critical, 1/Delta^2 critical), every
    arm kept (mean N 300-650 below 0.95 tau T, or 1.25-1.6 tau T above 1.05 tau T): N_r = c + (b + f_r) x +
    (d + e_r) g with g a fixed shape orthogonal to 1 and x over the pooled arms, so the slope b + f_r (s.e. b/100:
    positive and below 8 ln T by far) and R² = b² var x / (b² var x + d² var g). R² decides: put at r2_min + k
    jackknife s.e. by solving for d with the noise e_r fixed."""
    arms, side = check["arms"], check["side"]
    r2_min = check.get("r2_min", 0.9)
    pooled = []  # (experiment, arm, x, level)
    for exp_id in check["experiments"]:
        means, gaps, tau, penalty, horizon = _instance(spec, exp_id, check["algorithm"])
        sel = np.flatnonzero((gaps > penalty) if arms == "noncritical" else ((gaps > 0) & (gaps <= penalty)))
        for a in sel:
            gap = gaps[a] - (penalty[a] if arms == "noncritical" else 0.0)
            pooled.append((exp_id, int(a), 1.0 / gap**2, float(tau[a]) * horizon))
    x = np.array([p[2] for p in pooled])
    levels = np.array([p[3] for p in pooled])
    lo, hi = (300.0, 650.0) if side == "below" else (1.25 * levels.max(), 1.6 * levels.min())
    assert lo < hi, (lo, hi)
    b = (hi - lo) / (x.max() - x.min())
    c = lo - b * x.min()
    basis = np.stack([np.ones_like(x), x], axis=1)
    h = np.cos(np.arange(x.size) * 1.7)
    g = h - basis @ np.linalg.lstsq(basis, h, rcond=None)[0]
    g /= g.std()
    f = _noise(b / 100.0, seed=400)
    e_unit = centred_noise(N, seed=401)

    def table(d, se_e):
        return c + (b + f)[:, None] * x[None, :] + (d + se_e * math.sqrt(N) * e_unit)[:, None] * g[None, :]

    def r2_and_se(d, se_e):
        y = table(d, se_e)
        loo = np.array([_r2(x, np.delete(y, i, axis=0).mean(axis=0)) for i in range(N)])
        return _r2(x, y.mean(axis=0)), _jackknife(loo)

    se_target = min(0.01, (1.0 - r2_min) / 8, r2_min / 8)
    d0 = b * x.std() * math.sqrt(1.0 / r2_min - 1.0)
    se_e = d0 * se_target / (2 * r2_min * (1 - r2_min))
    d_lo, d_hi = 0.2 * d0, 5.0 * d0
    for _ in range(80):
        mid = 0.5 * (d_lo + d_hi)
        r2, se = r2_and_se(mid, se_e)
        d_lo, d_hi = (mid, d_hi) if r2 - r2_min - k * se > 0 else (d_lo, mid)
    r2, se = r2_and_se(d_lo, se_e)
    assert abs((r2 - r2_min) / se - k) < 1e-6, (r2, se, k)
    y = table(d_lo, se_e)
    mean_y = y.mean(axis=0)
    kept = mean_y < 0.95 * levels if side == "below" else mean_y > 1.05 * levels
    assert kept.all(), (mean_y, levels)
    pulls = {}
    for exp_id in check["experiments"]:
        means, _, _, _, horizon = _instance(spec, exp_id)
        n = np.zeros((N, means.size))
        mine = [i for i, p in enumerate(pooled) if p[0] == exp_id]
        for i in mine:
            n[:, pooled[i][1]] = y[:, i]
        rest = np.setdiff1d(np.arange(means.size), [pooled[i][1] for i in mine])
        n[:, rest] = ((horizon - n.sum(axis=1)) / rest.size)[:, None]  # the other arms share what is left
        pulls[exp_id] = n
    return _pulls_context(spec, tmp, check["algorithm"], pulls)


@band_case("fair_critical_pulls")
def critical_pulls_case(spec, claim, check, k, tmp):
    """Every critical arm (0 < Delta <= A) at tau_k T - slack_below + k s.e. (s.e. 0.25 over replications): each
    lower comparison at k; with slack_above, each arm's upper bound max(8 ln T / Delta^2, tau T) + slack_above is
    >= 25 s.e. above."""
    se = 0.25
    slack_below = check.get("slack_below", 2.0)
    pulls = {}
    for i, exp_id in enumerate(check["experiments"]):
        means, gaps, tau, penalty, horizon = _instance(spec, exp_id, check["algorithm"])
        critical = np.flatnonzero((gaps > 0) & (gaps <= penalty))
        n = np.zeros((N, means.size))
        for j, a in enumerate(critical):
            level = tau[a] * horizon
            bound = max(8 * math.log(horizon) / gaps[a] ** 2, level) + (check.get("slack_above") or 0.0)
            if slack_below is not None:  # the lower side decides; the upper one (if any) passes by >= 25 s.e.
                target = level - slack_below + k * se
                assert check.get("slack_above") is None or bound - target >= 25 * se
            else:  # only the upper side: at bound - k s.e.
                target = bound - k * se
            n[:, a] = target + _noise(se, seed=500 + 10 * i + j)
        rest = np.setdiff1d(np.arange(means.size), critical)
        n[:, rest] = ((horizon - n.sum(axis=1)) / rest.size)[:, None]
        pulls[exp_id] = n
    return _pulls_context(spec, tmp, check["algorithm"], pulls)
