"""An independent second computation of the statistics that verdicts rest on (issue 39).

Every number a headline verdict reads passes through shared code: the summary of a figure (``summary.csv``'s mean,
standard error and replication count at each checkpoint), the checkpoint grid, the point of a curve at a step, the
paired differences and ratios with their delta-method standard errors, the Brown-Forsythe test, the log-growth
fits, the 2-s.e. band and the sequential looks' rule. A slip there (an s.e. over the wrong axis, n for n - 1, a
checkpoint one step off, a covariance term left out) moves every implementation that shares it, so no reference
implementation of a paper's policies can see it. This module computes the same quantities a second time, from the
raw shards and the papers' stated definitions, with pandas and scipy and its own code: it imports nothing of the
package's statistics (``report.checks``, ``report.context``, ``simulation_output``, ``portable``,
``report.sequential``; tests/test_statistics_reference.py checks its imports). :mod:`.statistics_guard` compares
the production numbers with these in each paper's ``STATS_reference`` sanity claim.

The definitions it restates (each is what the production code documents):

* summary: per (panel, algorithm, metric, step) the mean over replications and its standard error with the n - 1
  sample standard deviation, s.e. = sd / sqrt(n), nan for one replication; curves at the shard's checkpoints,
  finals (one number per replication) at the experiment's horizon, ``pulls:<arm>`` the arm's pull counts;
* checkpoints: ``{every: k}`` gives k, 2k, ...; ``{points: n, spacing: linear|log}`` the rounded n-point grid from
  1 to the horizon; ``{at: [...]}`` the listed steps; only steps in [1, horizon], always the horizon, sorted, unique;
* the point of a curve at step t: the first recorded step >= t (the last step for "at T");
* a ratio of paired means mean(a) / mean(b): its delta-method s.e. is the s.e. of the per-replication
  linearisation (a_r - ratio b_r) / mean(b) (here by pandas' ``sem``; production expands the variance into
  var_a, var_b and their covariance);
* Brown-Forsythe, "x spreads more than y": Levene's test with the median as centre (scipy), its two-sided p
  halved on the side the mean absolute deviations point to;
* a log-growth fit a ln t + b: scipy's least-squares line on ln t, R^2 = r^2;
* the band: a difference beyond z s.e. in the claimed direction reproduces, beyond them against refutes, within
  is inconclusive; no usable s.e.: the sign decides;
* sequential looks: L = log2(max_factor) + 1 looks, alpha_0 = 2 (1 - Phi(z_0)), each extra look at
  Phi^-1(1 - alpha_0 / (2 (L - 1))) rounded up to three decimals, replications doubled per look up to
  max_factor x n_0, extra shards cut at each doubling and at the shard size (docs/sequential.md).

Agreement. Counts, steps, indices and verdicts must be equal. A mean or a standard error summed in another order
agrees to :data:`RTOL` = 1e-12 relative to the size of what was summed (the production sums in NumPy's order or
pairwise, ``portable``; pandas in its own), a delta-method variance to 1e-12 of the size of its terms (they cancel
when the pair is strongly correlated), a p-value to :data:`P_RTOL` = 1e-9 relative (a tail probability magnifies
the rounding of its statistic). Every plausible slip moves a number by far more: n for n - 1 by 1/(2n) of the s.e.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .vocabulary import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

# scipy.stats (about a second to import) is imported by the functions that use it: every paper's checks import
# this module, and Snakemake imports the paper packages while it plans the DAG (tests/test_planning_imports.py)

#: relative agreement of a mean, a standard error or a fit computed in another order (see the module docstring)
RTOL = 1e-12
#: relative agreement of a p-value
P_RTOL = 1e-9


def agree(production, reference, scale=0.0, rtol: float = RTOL) -> np.ndarray:
    """Whether two computations of a number (element-wise over arrays) agree: both nan, the same infinity, or within
    ``rtol`` of the larger of |reference| and ``scale`` (the size of what was summed: a value near 0 is a
    difference of large terms, whose rounding is relative to them)."""
    p, r = np.asarray(production, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    bound = rtol * np.maximum(np.abs(r), np.asarray(scale, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        finite = np.abs(p - r) <= bound
    nan = np.isnan(p) | np.isnan(r)
    inf = ~nan & (np.isinf(p) | np.isinf(r))
    return np.where(nan, np.isnan(p) & np.isnan(r), np.where(inf, p == r, finite))


def printed(x: float) -> str:
    """A number as the claims print it (four significant digits)."""
    return format(float(x), ".4g")


# --- reading the shards -------------------------------------------------------------------------------------------


def first_at_or_after(steps, t: int | None) -> int:
    """Index of the first recorded step >= t (the last step for None); an error past the last."""
    steps = [int(s) for s in steps]
    if t is None:
        return len(steps) - 1
    for i, s in enumerate(steps):
        if s >= t:
            return i
    raise KeyError(f"no recorded step at or after t={t} (last is {steps[-1]})")


def panel_of(spec, figure: str, panel: str) -> dict:
    (found,) = [p for p in spec.figures[figure]["panels"] if p["id"] == panel]
    return found


def panel_metrics(panel: dict) -> list[str]:
    """The metrics a panel's summary holds: its ``metric``, then its ``extra_metrics`` not already named."""
    out = [panel["metric"]] if "metric" in panel else []
    return out + [m for m in panel.get("extra_metrics", []) if m not in out]


def experiments_of(panel: dict) -> list[str]:
    return [panel["experiment"]] if "experiment" in panel else list(panel.get("experiments", []))


def metric_values(out, metric: str, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """(steps, per-replication values (R, C)) of one metric of one (experiment, algorithm) cell's shards."""
    if metric in out.curves:
        return np.asarray(out.checkpoints, dtype=np.int64), np.asarray(out.curves[metric], dtype=np.float64)
    if metric in out.finals:
        return np.array([horizon], dtype=np.int64), np.asarray(out.finals[metric], dtype=np.float64)[:, None]
    if metric.startswith("pulls:") and out.pulls is not None:
        arm = int(metric.split(":", 1)[1])
        return np.asarray(out.checkpoints, dtype=np.int64), np.asarray(out.pulls[:, :, arm], dtype=np.float64)
    raise KeyError(f"no metric {metric!r}")


def panel_values(ctx, figure: str, panel: str, algorithm: str, metric: str | None = None):
    """(steps, values (R, C)) of an algorithm's curve on a panel, read from the shards (metric: the panel's)."""
    p = panel_of(ctx.spec, figure, panel)
    (experiment,) = experiments_of(p)
    out = ctx.replications(experiment)[algorithm]
    return metric_values(out, metric or p["metric"], ctx.spec.experiments[experiment].horizon)


# --- the summary --------------------------------------------------------------------------------------------------


def mean_se(values) -> tuple[float, float, int]:
    """(mean, standard error with the n - 1 sd, n) of one sample (pandas)."""
    s = pd.Series(np.asarray(values, dtype=np.float64))
    return float(s.mean()), float(s.sem(ddof=1)), int(s.count())


def column_summary(values: np.ndarray) -> pd.DataFrame:
    """Per column of (R, C) values: mean, s.e. (n - 1 sd) and n, by pandas (rows are replications)."""
    df = pd.DataFrame(np.asarray(values, dtype=np.float64))
    return pd.DataFrame({"mean": df.mean(axis=0).to_numpy(), "se": df.sem(axis=0, ddof=1).to_numpy(),
                         "n": df.count(axis=0).to_numpy(), "scale": df.abs().max(axis=0).to_numpy()})


def figure_summary(ctx, figure: str) -> pd.DataFrame:
    """The summary of ``figure`` from its shards: rows (panel, algorithm, metric, t, mean, se, n, scale), scale
    being the largest |value| summed (the size a rounding difference is relative to)."""
    frames = []
    for panel in ctx.spec.figures[figure]["panels"]:
        for experiment in experiments_of(panel):
            exp = ctx.spec.experiments[experiment]
            outs = ctx.replications(experiment)
            for algorithm in panel.get("algorithms") or list(exp.algorithms):
                for metric in panel_metrics(panel):
                    steps, values = metric_values(outs[algorithm], metric, exp.horizon)
                    part = column_summary(values)
                    part.insert(0, "t", steps)
                    part.insert(0, "metric", metric)
                    part.insert(0, "algorithm", algorithm)
                    part.insert(0, "panel", panel["id"])
                    frames.append(part)
    return pd.concat(frames, ignore_index=True)


def checkpoints(horizon: int, grid: dict | None) -> np.ndarray:
    """The steps at which an experiment records its curves, from its ``checkpoints:`` entry (module docstring)."""
    grid = grid or {"every": 1}
    if "at" in grid:
        steps = [int(s) for s in grid["at"]]
    elif "every" in grid:
        k = int(grid["every"])
        steps = list(range(k, horizon + 1, k))
    else:
        n = int(grid.get("points", 200))
        if grid.get("spacing", "linear") == "log":  # 10 ** (n exponents from 0 to log10 T), the ends exact
            values = [math.pow(10.0, e) for e in np.linspace(0.0, math.log10(horizon), n)]
            values[0], values[-1] = 1.0, float(horizon)
        else:
            values = list(np.linspace(1, horizon, n))
        steps = [int(v) for v in np.round(np.asarray(values))]
    return np.array(sorted({s for s in steps if 1 <= s <= horizon} | {horizon}), dtype=np.int64)


# --- paired statistics --------------------------------------------------------------------------------------------


def ratio_se(a, b) -> tuple[float, float, float]:
    """(mean(a) / mean(b), its delta-method s.e. from the paired replications, the size of the delta-method
    variance's terms ratio^2 (var_a / mean_a^2 + var_b / mean_b^2) / n): the s.e. of the linearisation
    (a_r - ratio b_r) / mean(b). nan s.e. for fewer than two pairs; an infinite ratio and nan s.e. when
    mean(b) = 0."""
    a, b = pd.Series(np.asarray(a, dtype=np.float64)), pd.Series(np.asarray(b, dtype=np.float64))
    ma, mb, n = float(a.mean()), float(b.mean()), int(a.count())
    if mb == 0:
        return math.inf, math.nan, math.nan
    ratio = ma / mb
    if n < 2:
        return ratio, math.nan, math.nan
    se = float(((a - ratio * b) / mb).sem(ddof=1))
    terms = ((float(a.var(ddof=1)) / ma**2 if ma != 0 else 0.0) + float(b.var(ddof=1)) / mb**2) * ratio**2 / n
    return ratio, abs(se), terms


def brown_forsythe(x, y) -> tuple[float, float]:
    """One-sided Brown-Forsythe test of "x spreads more than y": (p of 'more', p of 'less'), from scipy's Levene
    test with the median as centre; (1, 1) when both samples are constant (no test)."""
    from scipy import stats
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dev_x, dev_y = np.abs(x - np.median(x)), np.abs(y - np.median(y))
    if np.ptp(dev_x) == 0 and np.ptp(dev_y) == 0:
        return 1.0, 1.0
    p_two = float(stats.levene(x, y, center="median").pvalue)
    if dev_x.mean() > dev_y.mean():
        return p_two / 2, 1.0 - p_two / 2
    return 1.0 - p_two / 2, p_two / 2


def line_fit(x, y) -> tuple[float, float, float]:
    """(slope, intercept, R^2) of the least-squares line of y on x (scipy)."""
    from scipy import stats
    fit = stats.linregress(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    r2 = float(fit.rvalue) ** 2 if np.ptp(np.asarray(y)) > 0 else 0.0
    return float(fit.slope), float(fit.intercept), r2


def jackknife_se(statistic, n: int) -> float:
    """The jackknife s.e. of ``statistic(keep)`` (``keep``: a boolean mask over the n replications) from its
    pseudo-values n theta - (n - 1) theta_(i), as their sample sd over sqrt(n) (Efron & Tibshirani 1993, ch. 11):
    the number of the leave-one-out formula, computed another way. nan for fewer than two replications."""
    if n < 2:
        return math.nan
    everyone = np.ones(n, dtype=bool)
    theta = float(statistic(everyone))
    left_out = pd.Series([float(statistic(np.arange(n) != i)) for i in range(n)])
    pseudo = n * theta - (n - 1) * left_out
    return float(pseudo.std(ddof=1)) / math.sqrt(n)


def log_fit(t, y) -> tuple[float, float, float]:
    """(a, b, R^2) of the least-squares fit a ln t + b (scipy)."""
    return line_fit(np.log(np.asarray(t, dtype=np.float64)), y)


def slope_scale(x, y) -> float:
    """The natural size of a fitted slope, sd(y) / sd(x): a slope near 0 is compared relative to it."""
    sx = float(np.std(np.asarray(x, dtype=np.float64)))
    return float(np.std(np.asarray(y, dtype=np.float64))) / sx if sx > 0 else 0.0


# --- the band and the verdicts ------------------------------------------------------------------------------------


def band(diff: float, se: float, z: float = 2.0) -> str:
    """'diff > 0' judged with its standard error: beyond z s.e. reproduced, beyond -z s.e. not reproduced, in
    between inconclusive; without a usable s.e. (nan, inf or 0) the sign decides."""
    if not (math.isfinite(se) and se > 0):
        return REPRODUCED if diff > 0 else NOT_REPRODUCED
    if diff > z * se:
        return REPRODUCED
    if diff < -z * se:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def band_threshold(value: float, se: float, threshold: float, below: bool = True, z: float = 2.0) -> str:
    """'value < threshold' (below) or 'value > threshold' judged with the value's s.e. (:func:`band`)."""
    return band(threshold - value if below else value - threshold, se, z)


def all_hold(verdicts) -> str:
    """A claim of several parts: every part reproduced -> reproduced, any refuted -> not reproduced, else (also
    for no parts) inconclusive."""
    verdicts = list(verdicts)
    if verdicts and set(verdicts) == {REPRODUCED}:
        return REPRODUCED
    return NOT_REPRODUCED if NOT_REPRODUCED in verdicts else INCONCLUSIVE


def any_holds(verdicts) -> str:
    """'At least one part holds': any reproduced -> reproduced, all refuted -> not reproduced, else inconclusive."""
    verdicts = list(verdicts)
    if REPRODUCED in verdicts:
        return REPRODUCED
    return NOT_REPRODUCED if verdicts and set(verdicts) == {NOT_REPRODUCED} else INCONCLUSIVE


# --- sequential looks ---------------------------------------------------------------------------------------------


def sequential_band(max_factor: int, z_first: float = 2.0) -> tuple[int, float, float]:
    """(looks L, alpha_0 of look 0, z of every extra look) of the doubling rule up to ``max_factor``."""
    from scipy import stats
    looks = max_factor.bit_length()  # max_factor = 2^(L - 1)
    alpha = 2.0 * float(stats.norm.sf(z_first))
    if looks == 1:
        return looks, alpha, z_first
    # rounded up to three decimals; 1000 z first to 1e-6, so that a z of exactly 2 (L = 2) stays 2.0
    return looks, alpha, math.ceil(round(1000 * float(stats.norm.isf(alpha / (2 * (looks - 1)))), 6)) / 1000


def look_replications(n0: int, max_factor: int) -> list[int]:
    """The replication count of each look of one experiment that stays undecided: n0, 2 n0, ... max_factor n0."""
    return [n0 << k for k in range(max_factor.bit_length())]


def extra_blocks(n0: int, n: int, shard_size: int) -> list[tuple[int, int]]:
    """The shard blocks [start, stop) of replications n0 <= r < n: cut at every doubling of n0, then into pieces
    of at most ``shard_size``."""
    cuts = [n0]
    while cuts[-1] < n:
        cuts.append(min(2 * cuts[-1], n))
    return [(s, min(s + shard_size, hi)) for lo, hi in zip(cuts, cuts[1:]) for s in range(lo, hi, shard_size)]
