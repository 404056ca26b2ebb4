"""Claim checks of the censored-resources paper (digest §3.4, §4)."""

from __future__ import annotations

import math

import numpy as np

from ...report.checks import ClaimResult, compare_greater, fmt, verdict_from
from ...report.checks import combine_verdicts as _combine
from ...registry import SIMULATION_BUILDERS, claim_check


def censored_proportions(ctx, experiment: str, algorithm: str) -> np.ndarray:
    return ctx.replications(experiment)[algorithm].finals["censored_proportion"]


def final_regrets(ctx, experiment: str, algorithm: str) -> np.ndarray:
    return ctx.replications(experiment)[algorithm].finals["final_regret"]


def truth_of(ctx, experiment: str):
    """Exact ground truth of an experiment's environment (from its builder, any algorithm)."""
    exp = ctx.spec.experiments[experiment]
    sim = SIMULATION_BUILDERS[exp.builder](exp, next(iter(exp.algorithms)))
    return sim.truth, sim.taus


def _mean_sd(x: np.ndarray) -> tuple[float, float]:
    return float(np.mean(x)), float(np.std(x, ddof=1)) if len(x) > 1 else math.nan


@claim_check("censored_cell")
def censored_cell(ctx, experiment, algorithm, paper, tolerance, paper_sd=None, center=None):
    """A table cell: mean censored proportion within ``tolerance`` of the paper's value (or of ``center``)."""
    mean, sd = _mean_sd(censored_proportions(ctx, experiment, algorithm))
    target = paper if center is None else center
    ref = f"paper {paper}" + (f" [sd {paper_sd}]" if paper_sd is not None else "")
    return ClaimResult(measured=f"{fmt(mean)} [sd {fmt(sd)}] ({ref})", threshold=f"|measured - {target}| <= {tolerance}",
                       verdict=verdict_from(abs(mean - target) <= tolerance))


@claim_check("censored_at_most")
def censored_at_most(ctx, experiment, algorithm, paper, limit):
    mean, sd = _mean_sd(censored_proportions(ctx, experiment, algorithm))
    return ClaimResult(measured=f"{fmt(mean)} [sd {fmt(sd)}] (paper {paper})", threshold=f"<= {limit}",
                       verdict=verdict_from(mean <= limit))


@claim_check("censored_close")
def censored_close(ctx, experiment, a, b, tolerance):
    ma = float(np.mean(censored_proportions(ctx, experiment, a)))
    mb = float(np.mean(censored_proportions(ctx, experiment, b)))
    return ClaimResult(measured=f"{a}: {fmt(ma)}, {b}: {fmt(mb)}, |diff| = {fmt(abs(ma - mb))}",
                       threshold=f"<= {tolerance}", verdict=verdict_from(abs(ma - mb) <= tolerance))


def _paired_less(ctx, experiment, lower, higher, z=2.0) -> tuple[str, str]:
    """Verdict for mean(lower) < mean(higher) of censored proportions, paired by replication (CRN)."""
    a = censored_proportions(ctx, experiment, lower)
    b = censored_proportions(ctx, experiment, higher)
    d = b - a
    se = float(np.std(d, ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.nan
    return compare_greater(float(d.mean()), se, z), f"{lower} {fmt(float(a.mean()))} vs {higher} {fmt(float(b.mean()))}"


@claim_check("censored_lowest")
def censored_lowest(ctx, experiment, algorithm, others, z=2.0):
    results = [_paired_less(ctx, experiment, algorithm, o, z) for o in others]
    return ClaimResult(measured="; ".join(r[1] for r in results),
                       threshold=f"{algorithm} below each by > {z} paired s.e.", verdict=_combine([r[0] for r in results]))


@claim_check("censored_order")
def censored_order(ctx, experiment, order, z=2.0):
    results = [_paired_less(ctx, experiment, order[i], order[i + 1], z) for i in range(len(order) - 1)]
    return ClaimResult(measured="; ".join(r[1] for r in results), threshold=" < ".join(order),
                       verdict=_combine([r[0] for r in results]))


@claim_check("truth_cell")
def truth_cell(ctx, experiment, paper, tolerance):
    """The paper's 1 - P_{i*}(tau*) against the exact value of the simulated environment."""
    truth, taus = truth_of(ctx, experiment)
    value = truth.censor_prob_star
    return ClaimResult(measured=f"{fmt(value)} at (arm {truth.best_arm + 1}, tau* = {fmt(float(taus[truth.best_grid_index]))}) "
                                f"(paper {paper})",
                       threshold=f"|computed - {paper}| <= {tolerance}", verdict=verdict_from(abs(value - paper) <= tolerance))


@claim_check("near_truth")
def near_truth(ctx, experiment, algorithm, tolerance):
    truth, _ = truth_of(ctx, experiment)
    mean = float(np.mean(censored_proportions(ctx, experiment, algorithm)))
    return ClaimResult(measured=f"{algorithm}: {fmt(mean)} vs 1 - P* = {fmt(truth.censor_prob_star)}",
                       threshold=f"|diff| <= {tolerance}", verdict=verdict_from(abs(mean - truth.censor_prob_star) <= tolerance))


@claim_check("all_near_truth")
def all_near_truth(ctx, experiment, algorithms, tolerance):
    truth, _ = truth_of(ctx, experiment)
    parts, ok = [], True
    for a in algorithms:
        mean = float(np.mean(censored_proportions(ctx, experiment, a)))
        ok &= abs(mean - truth.censor_prob_star) <= tolerance
        parts.append(f"{a}: {fmt(mean)}")
    return ClaimResult(measured="; ".join(parts) + f" vs 1 - P* = {fmt(truth.censor_prob_star)}",
                       threshold=f"each within {tolerance}", verdict=verdict_from(ok))


def _final_curve(ctx, figure, panel, algorithm):
    row = ctx.curve(figure, panel, algorithm).iloc[-1]
    return float(row["mean"]), float(row["se"])


@claim_check("lowest_final")
def lowest_final(ctx, figure, panel, algorithm, others, z=2.0):
    """algorithm(T) below every other algorithm's mean final value, each judged with standard errors."""
    a, sa = _final_curve(ctx, figure, panel, algorithm)
    verdicts, parts = [], [f"{algorithm}: {fmt(a)} ± {fmt(sa)}"]
    for o in others:
        b, sb = _final_curve(ctx, figure, panel, o)
        verdicts.append(compare_greater(b - a, math.hypot(sa, sb), z))
        parts.append(f"{o}: {fmt(b)} ± {fmt(sb)}")
    return ClaimResult(measured=", ".join(parts), threshold=f"{algorithm} lowest by > {z} s.e.", verdict=_combine(verdicts))


def _relative_gap(ctx, figure, panel, algorithm, others) -> float:
    a, _ = _final_curve(ctx, figure, panel, algorithm)
    runner_up = min(_final_curve(ctx, figure, panel, o)[0] for o in others)
    return (runner_up - a) / runner_up


@claim_check("relative_gap_larger")
def relative_gap_larger(ctx, figure, larger_panels, smaller_panel, algorithm, others):
    """(runner-up - algorithm)/runner-up at T is positive (the algorithm leads) and larger on each of
    ``larger_panels`` than on ``smaller_panel``."""
    small = _relative_gap(ctx, figure, smaller_panel, algorithm, others)
    big = {p: _relative_gap(ctx, figure, p, algorithm, others) for p in larger_panels}
    ok = all(v > small and v > 0 for v in big.values())
    return ClaimResult(measured="relative gap (runner-up - algorithm)/runner-up: "
                                + ", ".join(f"{p}: {fmt(v)}" for p, v in big.items()) + f"; {smaller_panel}: {fmt(small)}",
                       threshold=f"each > 0 and > {smaller_panel}'s", verdict=verdict_from(ok))


def _relative_gap_experiment(ctx, experiment, algorithm, others) -> float:
    a = float(np.mean(final_regrets(ctx, experiment, algorithm)))
    runner_up = min(float(np.mean(final_regrets(ctx, experiment, o))) for o in others)
    return (runner_up - a) / runner_up


@claim_check("advantage_grows")
def advantage_grows(ctx, small_experiment, large_experiment, algorithm, others):
    small = _relative_gap_experiment(ctx, small_experiment, algorithm, others)
    large = _relative_gap_experiment(ctx, large_experiment, algorithm, others)
    return ClaimResult(measured=f"relative regret gap to the best competitor: {small_experiment} {fmt(small)}, "
                                f"{large_experiment} {fmt(large)}",
                       threshold="larger grid > smaller grid, and > 0", verdict=verdict_from(large > small and large > 0))


@claim_check("spread_larger")
def spread_larger(ctx, experiment, larger, smaller):
    """sd over repetitions of the final regret: ``larger`` above each of ``smaller`` (F-test at 1 %)."""
    from scipy import stats

    x = final_regrets(ctx, experiment, larger)
    sd_x = float(np.std(x, ddof=1))
    verdicts, parts = [], [f"{larger}: {fmt(sd_x)}"]
    for s in smaller:
        y = final_regrets(ctx, experiment, s)
        sd_y = float(np.std(y, ddof=1))
        parts.append(f"{s}: {fmt(sd_y)}")
        if sd_y == 0.0:
            verdicts.append(verdict_from(sd_x > 0))
            continue
        f = sd_x ** 2 / sd_y ** 2
        p_greater = stats.f.sf(f, len(x) - 1, len(y) - 1)
        p_less = stats.f.cdf(f, len(x) - 1, len(y) - 1)
        verdicts.append("reproduced" if p_greater < 0.01 else "not_reproduced" if p_less < 0.01 else "inconclusive")
    return ClaimResult(measured="sd of final regret: " + ", ".join(parts), threshold=f"{larger} larger (F-test, 1 %)",
                       verdict=_combine(verdicts))


@claim_check("above_throughout")
def above_throughout(ctx, figure, panel, algorithm, others, t_min_fraction=0.0, z=2.0):
    """The mean curve of ``algorithm`` is above every other at every recorded t >= t_min_fraction * T,
    and clearly above (z s.e.) at T."""
    c = ctx.curve(figure, panel, algorithm)
    T = int(c.t.iloc[-1])
    parts, verdicts = [], []
    for o in others:
        d = c.merge(ctx.curve(figure, panel, o), on="t", suffixes=("", "_o"))
        d = d[d.t >= t_min_fraction * T]
        diff = d["mean"] - d["mean_o"]
        worst = d.iloc[int(np.argmin(diff.values))]
        end = d.iloc[-1]
        final_v = compare_greater(float(end["mean"] - end["mean_o"]), float(math.hypot(end["se"], end["se_o"])), z)
        verdicts.append(final_v if bool((diff > 0).all()) else "not_reproduced")
        parts.append(f"min over t of {algorithm} - {o} = {fmt(float(diff.min()))} (t={int(worst.t)}); at T: "
                     f"{fmt(float(end['mean']))} vs {fmt(float(end['mean_o']))}")
    return ClaimResult(measured="; ".join(parts), threshold=f"> 0 for all t >= {t_min_fraction} T; > {z} s.e. at T",
                       verdict=_combine(verdicts))
