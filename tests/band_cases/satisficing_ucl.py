"""Band cases of satisficing_ucl's headline checks (``experiments/satisficing_ucl/checks.py``).

Each case builds per-replication curves whose decisive statistic sits ``k`` of its own standard errors from the
claim's threshold, computing the statistic and its s.e. from the paper's definition with numpy here (a least-squares
R² as a squared correlation, a jackknife written out, a paired ratio's linearisation), never through the check.
"""

from __future__ import annotations

import numpy as np

from banditrepro.simulation_output import SimulationOutput

from . import band_case, centred_noise, context, curve_rows, panel_of, write_shards, write_summary

#: replications of a synthetic experiment
N = 20


def _noise(se: float, seed: int) -> np.ndarray:
    """Per-replication noise of mean exactly 0 whose mean has s.e. exactly ``se``."""
    return se * np.sqrt(N) * centred_noise(N, seed=seed)


def _summary_rows(panel: str, algorithm: str, metric: str, ts, runs: np.ndarray) -> list[tuple]:
    return curve_rows(panel, algorithm, metric, ts, runs.mean(axis=0), runs.std(axis=0, ddof=1) / np.sqrt(N), N)


def _write(spec, tmp, figure: str, panel: str, ts, runs: dict[str, np.ndarray], metric: str | None = None,
           pulls: dict[str, np.ndarray] | None = None):
    """Shards of the panel's experiment and the figure's summary from per-replication curves (algorithm -> (N, C))."""
    p = panel_of(spec, figure, panel)
    metric = metric or p["metric"]
    outs = {a: SimulationOutput(np.asarray(ts), {metric: r}, pulls=(pulls or {}).get(a)) for a, r in runs.items()}
    shards = {p["experiment"]: write_shards(tmp, p["experiment"], outs)}
    rows = [row for a, r in runs.items() for row in _summary_rows(panel, a, metric, ts, r)]
    return context(spec, {figure: write_summary(tmp, figure, rows)}, shards)


def _grid(horizon: int, *must) -> np.ndarray:
    """About 40 log-spaced steps up to ``horizon`` and the steps ``must``."""
    pts = np.round(np.geomspace(1, horizon, 40)).astype(np.int64)
    return np.unique(np.concatenate([pts, np.asarray(must, dtype=np.int64), [horizon]]))


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    """R² of the least-squares line of y on x: the squared correlation."""
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def _jackknife(values: np.ndarray) -> float:
    """The jackknife s.e. from leave-one-out values: sqrt((n-1)/n sum (v_i - mean v)^2)."""
    n = values.size
    return float(np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2)))


@band_case("ucl_log_growth")
def log_growth_case(spec, claim, check, k, tmp):
    """Regret curves (a + f_r) ln t + (d + e_r) g(t): g a fixed shape orthogonal (over the fitted steps t >= t_min)
    to 1, ln t and to the difference of the steps T and T/2, so the fit's slope is a + f_r and the rise
    R(T) - R(T/2) is (a + f_r) ln(T / (T/2)) whatever d. The rise is 3 x min_increase and the slope far above 0
    (their s.e. 1 % of a: both pass at > +60 s.e.); the decisive statistic is R² of the mean curve, put at
    r2_min + k jackknife s.e. by solving for d (the mean weight of the shape g) with the noise e_r fixed."""
    figure, panel, algorithm = claim["figure"], check["panel"], check["algorithm"]
    t_min, r2_min = check.get("t_min", 50), check.get("r2_min", 0.9)
    min_increase = check.get("min_increase", 1.0)
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    ts = _grid(horizon, t_min, horizon // 2)
    fit = ts >= t_min
    x = np.log(ts[fit].astype(float))
    u = (ts[fit] == horizon).astype(float) - (ts[fit] == horizon // 2).astype(float)
    basis = np.stack([np.ones_like(x), x, u], axis=1)
    h = np.sin(3.0 * x)
    g = h - basis @ np.linalg.lstsq(basis, h, rcond=None)[0]
    g /= g.std()
    a = 3.0 * min_increase / np.log(horizon / (horizon // 2))
    f = _noise(a / 100.0, seed=1)
    e_unit = centred_noise(N, seed=2)

    def curves(d, se_e):
        shape = np.zeros(ts.size)
        shape[fit] = g
        return (a + f)[:, None] * np.log(ts)[None, :] + (d + se_e * np.sqrt(N) * e_unit)[:, None] * shape[None, :]

    def r2_and_se(d, se_e):
        runs = curves(d, se_e)[:, fit]
        loo = np.array([_r2(x, np.delete(runs, i, axis=0).mean(axis=0)) for i in range(N)])
        return _r2(x, runs.mean(axis=0)), _jackknife(loo)

    se_target = min(0.01, (1.0 - r2_min) / 8, r2_min / 8)
    d0 = a * np.sqrt(x.var() * (1.0 / r2_min - 1.0))  # R² = a² var x / (a² var x + d² var g), var g = 1
    se_e = d0 * se_target / (2 * r2_min * (1 - r2_min))  # dR²/dd = -2 R²(1 - R²)/d at d0
    lo, hi = 0.2 * d0, 5.0 * d0  # R² falls with d: bisect r2(d) - r2_min - k se(d)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        r2, se = r2_and_se(mid, se_e)
        lo, hi = (mid, hi) if r2 - r2_min - k * se > 0 else (lo, mid)
    r2, se = r2_and_se(lo, se_e)
    assert abs((r2 - r2_min) / se - k) < 1e-6, (r2, se, k)
    return _write(spec, tmp, figure, panel, ts, {algorithm: curves(lo, se_e)})


def _rise_case(spec, figure, panel, t_from, max_increase, k, ts_extra=()):
    """Curves flat at 5 up to ``t_from`` that rise by max_increase - k s.e. (s.e. max_increase / 10) to T."""
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    ts = _grid(horizon, t_from, *ts_extra)
    se = max_increase / 10.0
    rise = (max_increase - k * se) + _noise(se, seed=3)
    runs = np.full((N, ts.size), 5.0)
    runs[:, ts >= horizon] += rise[:, None]
    runs[:, ts < t_from] = np.linspace(0.0, 5.0, int((ts < t_from).sum()))[None, :]
    return ts, runs


@band_case("ucl_plateau")
def plateau_case(spec, claim, check, k, tmp):
    """The rise from t_from to T at max_increase - k paired s.e. (below the threshold reproduces)."""
    figure, panel, algorithm = claim["figure"], check["panel"], check["algorithm"]
    ts, runs = _rise_case(spec, figure, panel, check["t_from"], check["max_increase"], k)
    return _write(spec, tmp, figure, panel, ts, {algorithm: runs})


@band_case("plateau_or_single_lock_in")
def lock_in_case(spec, claim, check, k, tmp):
    """The regret's rise from T/2 to T at max_increase - k paired s.e., no run locked on ``lock_arm`` (it is never
    pulled), so the fallback to the unlocked runs reads the same runs."""
    figure, panel, algorithm = claim["figure"], check["panel"], check["algorithm"]
    experiment, lock_arm, window = check["experiment"], check["lock_arm"], check["window"]
    horizon = int(spec.experiments[experiment].horizon)
    ts, runs = _rise_case(spec, figure, panel, horizon // 2, check["max_increase"], k,
                          ts_extra=(horizon - window,))
    pulls = np.zeros((N, ts.size, lock_arm + 2))
    pulls[:, :, 0] = ts[None, :]  # every pull on arm 1
    return _write(spec, tmp, figure, panel, ts, {algorithm: runs}, metric="regret", pulls={algorithm: pulls})


def _paired_final(den_level: float, ratio: float, se: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) per-replication values at T: den = den_level + noise, num = ratio den + noise', so
    mean(num)/mean(den) = ratio exactly and its paired delta-method s.e. sd(num - ratio den)/(sqrt(N) mean(den)) =
    ``se`` exactly."""
    den = den_level + _noise(den_level / 20.0, seed=seed)
    num = ratio * den + _noise(se * den_level, seed=seed + 1)
    return num, den


def _final_curves(ts, final: np.ndarray) -> np.ndarray:
    """Curves rising linearly to ``final`` at T."""
    return final[:, None] * (ts / ts[-1])[None, :]


@band_case("ucl_relative_difference_below")
def relative_difference_case(spec, claim, check, k, tmp):
    """a(T)/b(T) = 1 + max_relative - k s.e. (paired delta-method s.e. max_relative / 10): |ratio - 1| below
    max_relative reproduces."""
    figure, panel = claim["figure"], check["panel"]
    max_relative = check["max_relative"]
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    ts = _grid(horizon)
    se = max_relative / 10.0
    num, den = _paired_final(1000.0, 1.0 + max_relative - k * se, se, seed=4)
    return _write(spec, tmp, figure, panel, ts, {check["a"]: _final_curves(ts, num),
                                                 check["b"]: _final_curves(ts, den)})


@band_case("ucl_ratio_in_range")
def ratio_in_range_case(spec, claim, check, k, tmp):
    """numerator(T)/denominator(T) = high - k s.e. with s.e. (high - low)/20: the upper end decides, the lower end
    passes by >= 17 s.e."""
    figure, panel = claim["figure"], check["panel"]
    low, high = check["low"], check["high"]
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    ts = _grid(horizon)
    se = (high - low) / 20.0
    num, den = _paired_final(100.0, high - k * se, se, seed=6)
    return _write(spec, tmp, figure, panel, ts, {check["numerator"]: _final_curves(ts, num),
                                                 check["denominator"]: _final_curves(ts, den)})


@band_case("approaches_baseline")
def approaches_baseline_case(spec, claim, check, k, tmp):
    """(candidate - baseline)/(reference - baseline) at T = max_ratio - k paired delta-method s.e. (s.e.
    max_ratio / 10), built on the per-replication differences over a noisy baseline."""
    figure, panel = claim["figure"], check["panel"]
    max_ratio = check["max_ratio"]
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    ts = _grid(horizon)
    se = max_ratio / 10.0
    num, den = _paired_final(30.0, max_ratio - k * se, se, seed=8)
    base = 10.0 + _noise(1.0, seed=10)
    return _write(spec, tmp, figure, panel, ts, {check["baseline"]: _final_curves(ts, base),
                                                 check["candidate"]: _final_curves(ts, base + num),
                                                 check["reference"]: _final_curves(ts, base + den)})


@band_case("exceeds_by_fraction_of_horizon")
def exceeds_case(spec, claim, check, k, tmp):
    """Summary rows at T: the baseline at 0, each of ``better`` at fraction T + k s.e. of the difference (each
    curve's s.e. 1/sqrt 2, so the independent difference has s.e. 1): every comparison at k."""
    figure, panel = claim["figure"], check["panel"]
    horizon = int(spec.experiments[panel_of(spec, figure, panel)["experiment"]].horizon)
    metric = panel_of(spec, figure, panel)["metric"]
    rows = curve_rows(panel, check["baseline"], metric, [horizon], 0.0, 1 / np.sqrt(2), N)
    for a in check["better"]:
        rows += curve_rows(panel, a, metric, [horizon], check["fraction"] * horizon + k, 1 / np.sqrt(2), N)
    return context(spec, {figure: write_summary(tmp, figure, rows)})
