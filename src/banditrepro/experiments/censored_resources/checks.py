"""Claim checks of the censored-resources paper (digest §3.4, §4).

Every comparison of a measured mean with a tolerance or with another mean carries the mean's standard
error over repetitions (paired by repetition where the algorithms share common random numbers), and a
value within ``z`` s.e. of its threshold is ``inconclusive`` (report.checks.compare_threshold /
compare_greater): noise, not the paper, would decide it."""

from __future__ import annotations

import math

import numpy as np

from ...registry import SIMULATION_BUILDERS, claim_check
from ...report import statistics_reference as ref
from ...report.checks import (
    SUBLINEAR_MAX_RATIO,
    ClaimResult,
    any_verdict,
    compare_greater,
    compare_threshold,
    fmt,
    sublinear_verdict,
    verdict_from,
)
from ...report.checks import combine_verdicts as _combine
from ...report.statistics_guard import statistic_probe
from ...report.vocabulary import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED


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


def _se(x: np.ndarray) -> float:
    """Standard error of the mean of ``x`` (nan for fewer than two values)."""
    return float(np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan


@claim_check("censored_cell")
def censored_cell(ctx, experiment, algorithm, paper, tolerance, paper_sd=None, center=None, z=2.0):
    """A table cell: mean censored proportion within ``tolerance`` of the paper's value (or of ``center``);
    inconclusive when |mean - target| is within ``z`` s.e. of the tolerance."""
    x = censored_proportions(ctx, experiment, algorithm)
    mean, sd = _mean_sd(x)
    se = _se(x)
    target = paper if center is None else center
    ref = f"paper {paper}" + (f" [sd {paper_sd}]" if paper_sd is not None else "")
    return ClaimResult(measured=f"{fmt(mean)} ± {fmt(se)} s.e. [sd {fmt(sd)}] ({ref})",
                       threshold=f"|measured - {target}| <= {tolerance} (by > {z} s.e.)",
                       verdict=compare_threshold(abs(mean - target), se, tolerance, below=True, z=z))


@claim_check("censored_at_most")
def censored_at_most(ctx, experiment, algorithm, paper, limit, z=2.0):
    x = censored_proportions(ctx, experiment, algorithm)
    mean, sd = _mean_sd(x)
    se = _se(x)
    return ClaimResult(measured=f"{fmt(mean)} ± {fmt(se)} s.e. [sd {fmt(sd)}] (paper {paper})",
                       threshold=f"<= {limit} (by > {z} s.e.)",
                       verdict=compare_threshold(mean, se, limit, below=True, z=z))


@claim_check("censored_close")
def censored_close(ctx, experiment, a, b, tolerance, z=2.0):
    """|mean(a) - mean(b)| <= tolerance, the difference paired by repetition (common random numbers)."""
    xa = censored_proportions(ctx, experiment, a)
    xb = censored_proportions(ctx, experiment, b)
    d = xa - xb
    diff, se = float(d.mean()), _se(d)
    return ClaimResult(measured=f"{a}: {fmt(float(xa.mean()))}, {b}: {fmt(float(xb.mean()))}, "
                                f"|diff| = {fmt(abs(diff))} ± {fmt(se)} (paired s.e.)",
                       threshold=f"<= {tolerance} (by > {z} s.e.)",
                       verdict=compare_threshold(abs(diff), se, tolerance, below=True, z=z))


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
def near_truth(ctx, experiment, algorithm, tolerance, z=2.0):
    truth, _ = truth_of(ctx, experiment)
    x = censored_proportions(ctx, experiment, algorithm)
    mean, se = float(np.mean(x)), _se(x)
    return ClaimResult(measured=f"{algorithm}: {fmt(mean)} ± {fmt(se)} vs 1 - P* = {fmt(truth.censor_prob_star)}",
                       threshold=f"|diff| <= {tolerance} (by > {z} s.e.)",
                       verdict=compare_threshold(abs(mean - truth.censor_prob_star), se, tolerance, below=True, z=z))


@claim_check("all_near_truth")
def all_near_truth(ctx, experiment, algorithms, tolerance, z=2.0):
    truth, _ = truth_of(ctx, experiment)
    parts, verdicts = [], []
    for a in algorithms:
        x = censored_proportions(ctx, experiment, a)
        mean, se = float(np.mean(x)), _se(x)
        verdicts.append(compare_threshold(abs(mean - truth.censor_prob_star), se, tolerance, below=True, z=z))
        parts.append(f"{a}: {fmt(mean)} ± {fmt(se)}")
    return ClaimResult(measured="; ".join(parts) + f" vs 1 - P* = {fmt(truth.censor_prob_star)}",
                       threshold=f"each within {tolerance} (by > {z} s.e.)", verdict=_combine(verdicts))


def relative_gap(a: np.ndarray, runner_up: np.ndarray) -> tuple[float, float]:
    """(runner-up - a)/runner-up of the mean final regrets, and its delta-method standard error from the
    per-repetition finals (paired by repetition: the algorithms share common random numbers)."""
    ma, mb = float(np.mean(a)), float(np.mean(runner_up))
    gap = (mb - ma) / mb
    # gap = 1 - ma/mb; the per-repetition linearisation of ma/mb is (a_r - (ma/mb) b_r) / mb
    se = _se((a - (ma / mb) * runner_up) / mb) if mb != 0 else math.nan
    return gap, se


def _gap_of_experiment(ctx, experiment, algorithm, others) -> tuple[float, float]:
    a = final_regrets(ctx, experiment, algorithm)
    runner_up = min(others, key=lambda o: float(np.mean(final_regrets(ctx, experiment, o))))
    return relative_gap(a, final_regrets(ctx, experiment, runner_up))


def _gap_larger(big: tuple[float, float], small: tuple[float, float], z: float) -> str:
    """Verdict for 'big gap > small gap' (independent experiments). The sign of a gap (whether the
    algorithm leads at all) is what the statement takes for granted: the claim's premise, the 'lowest
    regret' claims (report/claims.py gates the claim by it)."""
    return compare_greater(big[0] - small[0], math.hypot(big[1], small[1]), z)


@claim_check("relative_gap_larger")
def relative_gap_larger(ctx, figure, larger_panels, smaller_panel, algorithm, others, z=2.0):
    """(runner-up - algorithm)/runner-up at T is larger on each of ``larger_panels`` than on
    ``smaller_panel``, each difference judged with ``z`` standard errors (Sec. 5.1: "the relative gap
    ... is larger for the correlated problem settings than for the uncorrelated one"; that RCUCB leads
    at all is the claim's premise, Fig. 4's 'lowest regret' claims)."""
    def gap(panel):
        return _gap_of_experiment(ctx, ctx.panel(figure, panel)["experiment"], algorithm, others)

    small = gap(smaller_panel)
    big = {p: gap(p) for p in larger_panels}
    verdict = _combine([_gap_larger(v, small, z) for v in big.values()])
    return ClaimResult(measured="relative gap (runner-up - algorithm)/runner-up: "
                                + ", ".join(f"{p}: {fmt(v[0])} ± {fmt(v[1])}" for p, v in big.items())
                                + f"; {smaller_panel}: {fmt(small[0])} ± {fmt(small[1])}",
                       threshold=f"each > {smaller_panel}'s (by > {z} s.e.)", verdict=verdict)


@claim_check("advantage_grows")
def advantage_grows(ctx, small_experiment, large_experiment, algorithm, others, z=2.0):
    """The relative regret gap to the best competitor is larger on ``large_experiment`` (F.1: "the
    superiority of RCUCB is more distinct, the larger the number of elements"); the trend, while the
    superiority itself on both grids is the claim's premise (Figs. 6 and 7's 'lowest regret' claims)."""
    small = _gap_of_experiment(ctx, small_experiment, algorithm, others)
    large = _gap_of_experiment(ctx, large_experiment, algorithm, others)
    return ClaimResult(measured=f"relative regret gap to the best competitor: {small_experiment} {fmt(small[0])} ± "
                                f"{fmt(small[1])}, {large_experiment} {fmt(large[0])} ± {fmt(large[1])}",
                       threshold=f"larger grid > smaller grid (by > {z} s.e.)",
                       verdict=_gap_larger(large, small, z))


def brown_forsythe_greater(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """One-sided Brown-Forsythe test of 'x spreads more than y': the pooled two-sample t-test on the absolute
    deviations from each sample's median (for two samples, Levene's test with the median as centre is this
    t-test squared). Robust to the heavy tails of final regrets, where the F-test of variances is not.
    Returns (p-value of 'x spreads more', p-value of 'x spreads less')."""
    from scipy import stats

    dx = np.abs(x - np.median(x))
    dy = np.abs(y - np.median(y))
    res = stats.ttest_ind(dx, dy, equal_var=True)
    t, df = float(res.statistic), len(x) + len(y) - 2
    if not math.isfinite(t):  # both samples constant
        return 1.0, 1.0
    return float(stats.t.sf(t, df)), float(stats.t.cdf(t, df))


@claim_check("spread_larger")
def spread_larger(ctx, experiment, larger, smaller, level=0.01):
    """The final regret of ``larger`` spreads more over repetitions than that of each of ``smaller``:
    one-sided Brown-Forsythe test at ``level`` (the opposite one-sided test at ``level`` refutes; neither
    is inconclusive). The sd is reported; the test compares mean absolute deviations from the median."""
    x = final_regrets(ctx, experiment, larger)
    verdicts, parts = [], [f"{larger}: {fmt(float(np.std(x, ddof=1)))}"]
    for s in smaller:
        y = final_regrets(ctx, experiment, s)
        p_greater, p_less = brown_forsythe_greater(x, y)
        parts.append(f"{s}: {fmt(float(np.std(y, ddof=1)))} (p = {fmt(p_greater)})")
        verdicts.append("reproduced" if p_greater < level else "not_reproduced" if p_less < level else "inconclusive")
    return ClaimResult(measured="sd of final regret: " + ", ".join(parts),
                       threshold=f"{larger} spreads more (one-sided Brown-Forsythe test, {level:g})",
                       verdict=_combine(verdicts))


@claim_check("censored_above_truth")
def censored_above_truth(ctx, experiment, algorithms, margin, z=2.0):
    """Each algorithm's mean censored proportion exceeds 1 - P* of the simulated environment by more
    than ``margin`` (Sec. 5.1: "much higher than the actual ground truth probability"), by ``z`` s.e."""
    truth, _ = truth_of(ctx, experiment)
    parts, verdicts = [], []
    for a in algorithms:
        x = censored_proportions(ctx, experiment, a)
        excess = float(np.mean(x)) - truth.censor_prob_star
        verdicts.append(compare_threshold(excess, _se(x), margin, below=False, z=z))
        parts.append(f"{a}: {fmt(excess)} ± {fmt(_se(x))}")
    return ClaimResult(measured="censored proportion - (1 - P*): " + "; ".join(parts)
                                + f" (1 - P* = {fmt(truth.censor_prob_star)})",
                       threshold=f"each > {margin} (by > {z} s.e.)", verdict=_combine(verdicts))


def _regret_beside_one(ctx, experiment, algorithm, others, z, below: bool) -> ClaimResult:
    """``algorithm``'s mean final regret below (``below``) or above that of at least one of ``others``, each
    difference paired by repetition and judged with ``z`` paired s.e. (any part reproduced: reproduced; every
    part against: not reproduced)."""
    x = final_regrets(ctx, experiment, algorithm)
    verdicts, parts = [], [f"{algorithm}: {fmt(float(np.mean(x)))}"]
    for o in others:
        d = final_regrets(ctx, experiment, o) - x
        verdicts.append(compare_greater(float(np.mean(d)) if below else -float(np.mean(d)), _se(d), z))
        parts.append(f"{o}: {fmt(float(np.mean(x + d)))} (difference {fmt(float(np.mean(d)))} ± {fmt(_se(d))})")
    side = "below" if below else "above"
    return ClaimResult(measured="mean final regret " + "; ".join(parts),
                       threshold=f"{algorithm} {side} at least one of {', '.join(others)} (by > {z} paired s.e.)",
                       verdict=any_verdict(verdicts))


@claim_check("regret_not_worst")
def regret_not_worst(ctx, experiment, algorithm, others, z=2.0):
    """``algorithm``'s mean final regret is below that of at least one of ``others`` (paired by repetition):
    reproduced when some other is above it by ``z`` paired s.e., refuted when every other is below it by
    ``z`` paired s.e."""
    return _regret_beside_one(ctx, experiment, algorithm, others, z, below=True)


@claim_check("regret_not_best")
def regret_not_best(ctx, experiment, algorithm, others, z=2.0):
    """``algorithm``'s mean final regret is above that of at least one of ``others`` (paired by repetition; F.1's
    'much worse average performance' read against the competitors, as the M1 half 'performs well' is)."""
    return _regret_beside_one(ctx, experiment, algorithm, others, z, below=False)


def regret_increments(out) -> tuple[np.ndarray, np.ndarray, int]:
    """Per repetition, the regret accrued over [0, T/2] and over (T/2, T], and T/2 (a checkpoint)."""
    steps = np.asarray(out.checkpoints)
    horizon = int(steps[-1])
    half = int(np.searchsorted(steps, horizon // 2))
    if half >= steps.size or int(steps[half]) != horizon // 2:
        raise ValueError(f"T/2 = {horizon // 2} is not a checkpoint")
    regret = np.asarray(out.curves["regret"], dtype=float)
    return regret[:, half], regret[:, -1] - regret[:, half], horizon // 2


@claim_check("regret_sublinear")
def regret_sublinear(ctx, experiments, algorithm, z=2.0, max_ratio=SUBLINEAR_MAX_RATIO):
    """Sub-linear regret on each experiment, as the algorithm's own theory says (RCUCB: Theorem 1's
    log T bound; UCB and TS on the n·m virtual arms: their logarithmic bounds): the regret accrued over
    (T/2, T] is at most ``max_ratio`` (0.8, issue 38) x that over [0, T/2], by ``z`` paired s.e.
    (report.checks.sublinear_verdict). A linear-regret algorithm (a broken index, a state that never
    updates) has the two about equal. The measured text names the experiments that fail."""
    parts, verdicts, failing = [], [], []
    for e in experiments:
        early, late, _ = regret_increments(ctx.replications(e)[algorithm])
        verdict, ratio = sublinear_verdict(early, late, z, max_ratio)
        verdicts.append(verdict)
        if verdict != "reproduced":
            failing.append(f"{e} ({verdict.replace('_', ' ')})")
        parts.append(f"{e}: {fmt(ratio)}")
    lead = f"not sub-linear on {', '.join(failing)}; " if failing else ""
    return ClaimResult(measured=lead + f"{algorithm}, regret over (T/2, T] / over [0, T/2]: " + ", ".join(parts),
                       threshold=f"<= {max_ratio} on each (by > {z} paired s.e.)", verdict=_combine(verdicts))


@claim_check("above_throughout")
def above_throughout(ctx, figure, panel, algorithm, others, t_min_fraction=0.0, z=2.0):
    """The mean curve of ``algorithm`` is above every other at every recorded t >= t_min_fraction * T, each
    difference judged with ``z`` standard errors of the difference (the two curves' s.e., as independent: hypot):
    reproduced when it is clearly above at every such t, refuted when it is clearly below at some t, inconclusive
    otherwise (issue 53: a raw 'above at every t' refuted a curve within noise of the other)."""
    c = ctx.curve(figure, panel, algorithm)
    T = int(c.t.iloc[-1])
    parts, verdicts = [], []
    for o in others:
        d = c.merge(ctx.curve(figure, panel, o), on="t", suffixes=("", "_o"))
        d = d[d.t >= t_min_fraction * T]
        diff = (d["mean"] - d["mean_o"]).to_numpy(dtype=float)
        se = np.hypot(d["se"].to_numpy(dtype=float), d["se_o"].to_numpy(dtype=float))
        verdicts.append(_combine([compare_greater(float(x), float(s), z) for x, s in zip(diff, se)]))
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(se > 0, diff / se, np.where(diff > 0, math.inf, -math.inf))
        low, worst, end = int(np.argmin(diff)), int(np.argmin(score)), d.iloc[-1]
        parts.append(f"min over t of {algorithm} - {o} = {fmt(float(diff[low]))} (t={int(d.t.iloc[low])}); smallest "
                     f"difference / s.e. = {fmt(float(score[worst]))} (t={int(d.t.iloc[worst])}); at T: "
                     f"{fmt(float(end['mean']))} vs {fmt(float(end['mean_o']))}")
    return ClaimResult(measured="; ".join(parts),
                       threshold=f"> 0 for all t >= {t_min_fraction} T (by > {z} s.e. at each)",
                       verdict=_combine(verdicts))


@claim_check("paired_relative_difference_below")
def paired_relative_difference_below(ctx, figure, panel, a, b, max_relative, z=2.0):
    """|mean(a) - mean(b)| / |mean(b)| at T below ``max_relative``, the difference paired by repetition
    (per-repetition values of the panel's metric at T, from the shards); within ``z`` s.e. is inconclusive."""
    p = ctx.panel(figure, panel)
    out = ctx.replications(p["experiment"])
    T = ctx.point(figure, panel, a).t
    j = int(np.searchsorted(out[a].checkpoints, T))
    xa, xb = out[a].curves[p["metric"]][:, j], out[b].curves[p["metric"]][:, j]
    mb = float(np.mean(xb))
    d = float(np.mean(xa - xb))
    rel, se = abs(d) / abs(mb), _se(xa - xb) / abs(mb)
    side = "below" if d < 0 else "above"
    return ClaimResult(measured=f"|{a} - {b}| / |{b}| at T={T} = {fmt(rel)} ± {fmt(se)} ({a} {side})",
                       threshold=f"< {max_relative} (by > {z} s.e.)",
                       verdict=compare_threshold(rel, se, max_relative, below=True, z=z))


@claim_check("printed_censored_cells")
def printed_censored_cells(ctx, cells, tolerance, z=2.0):
    """How close one algorithm's censored proportions come to a column of the paper's printed table cells
    (a reading's closeness, config ``readings: cells:``). ``cells``: ``{cell: label, experiment, algorithm,
    paper}`` each. A cell holds when |mean - paper| <= ``tolerance`` (inconclusive within ``z`` s.e.); the
    claim holds when every cell does. Measured: how many cells hold, the mean |measured - paper| and the
    largest."""
    diffs, verdicts = [], []
    for cell in cells:
        x = censored_proportions(ctx, cell["experiment"], cell["algorithm"])
        diff = abs(float(np.mean(x)) - float(cell["paper"]))
        diffs.append((diff, cell["cell"]))
        verdicts.append(compare_threshold(diff, _se(x), float(tolerance), below=True, z=z))
    if not diffs:
        raise ValueError("printed_censored_cells needs at least one cell")
    worst = max(diffs)
    mean_diff = sum(d for d, _ in diffs) / len(diffs)  # a plain sequential sum: no CPU-dependent rounding
    held = sum(v == "reproduced" for v in verdicts)
    return ClaimResult(measured=f"{held} of {len(diffs)} cells within {fmt(float(tolerance))}; mean |measured - paper| "
                                f"{fmt(mean_diff)}, largest {fmt(worst[0])} ({worst[1]})",
                       threshold=f"every cell within {fmt(float(tolerance))} (by > {z} s.e.)",
                       verdict=_combine(verdicts))


@claim_check("censored_matches_reference")
def matches_reference(ctx, experiments, algorithms, replications=10):
    """The reference guards S_reference_fig4 and S_reference_fig5: the first ``replications`` runs of each
    algorithm in each experiment, rerun end to end by reference.py of this package (the paper's instances, draws,
    ground truth, RCUCB / UCB / TS and metrics written apart), equal the build's runs (every curve exactly; the
    regret, which sums a ground truth computed by another route, to 1e-9 relative). True by construction for a
    correct build; a bug in an instance, the sampler, the ground truth, a kernel or the loop breaks it even where
    no statement of the paper can (docs/mutants.md, "Guards")."""
    from ..reference import check_against_reference
    from . import reference

    res = check_against_reference(ctx, reference.REFERENCE, experiments, algorithms, replications)
    return ClaimResult(measured=res.measured, threshold=res.threshold, verdict=verdict_from(res.passed))


# --- issue 39: what the statistics guard (report/statistics_guard.py, claim STATS_reference) compares for each
# headline check of this paper: the production helpers on the claim's data against report/statistics_reference.py.


def _shard_finals(ctx, experiment: str, algorithm: str, name: str) -> np.ndarray:
    """One final of each repetition, read from the shards apart from the helpers above."""
    return np.asarray(ctx.replications(experiment)[algorithm].finals[name], dtype=np.float64)


def _audit_proportions(ctx, audit, experiment, algorithm) -> tuple[float, float]:
    """censored_proportions, _mean_sd and _se against the reference; returns the reference (mean, s.e.)."""
    x = censored_proportions(ctx, experiment, algorithm)
    ref_x = _shard_finals(ctx, experiment, algorithm, "censored_proportion")
    audit.equal("means and s.e.", f"{experiment}/{algorithm} censored proportions", np.asarray(x), ref_x)
    mean, sd = _mean_sd(x)
    audit.mean_se(f"{experiment}/{algorithm} censored proportion", (mean, _se(x)), ref_x)
    audit.close("means and s.e.", f"{experiment}/{algorithm} censored proportion sd", sd,
                ref.mean_se(ref_x)[1] * math.sqrt(ref_x.size), float(np.max(np.abs(ref_x))))
    return ref.mean_se(ref_x)[:2]


def _audit_paired(ctx, audit, experiment, lower, higher, z=2.0) -> str:
    """The paired difference of two algorithms' censored proportions (_paired_less) against the reference;
    returns the reference verdict of lower < higher."""
    d = _shard_finals(ctx, experiment, higher, "censored_proportion") - _shard_finals(ctx, experiment, lower,
                                                                                       "censored_proportion")
    audit.mean_se(f"{experiment} {higher} - {lower}", (float(np.mean(d)), _se(d)), d)
    mean, se, _ = ref.mean_se(d)
    verdict = ref.band(mean, se, z)
    audit.verdict(f"{experiment} {lower} < {higher}", _paired_less(ctx, experiment, lower, higher, z)[0], verdict)
    return verdict


@statistic_probe("censored_cell")
def _probe_cell(ctx, audit, result, experiment, algorithm, paper, tolerance, paper_sd=None, center=None, z=2.0):
    mean, se = _audit_proportions(ctx, audit, experiment, algorithm)
    target = paper if center is None else center
    audit.verdict("claim", result.verdict, ref.band_threshold(abs(mean - target), se, tolerance, below=True, z=z))


@statistic_probe("censored_at_most")
def _probe_at_most(ctx, audit, result, experiment, algorithm, paper, limit, z=2.0):
    mean, se = _audit_proportions(ctx, audit, experiment, algorithm)
    audit.verdict("claim", result.verdict, ref.band_threshold(mean, se, limit, below=True, z=z))


@statistic_probe("censored_lowest")
def _probe_lowest(ctx, audit, result, experiment, algorithm, others, z=2.0):
    audit.verdict("claim", result.verdict,
                  ref.all_hold([_audit_paired(ctx, audit, experiment, algorithm, o, z) for o in others]))


@statistic_probe("censored_order")
def _probe_order(ctx, audit, result, experiment, order, z=2.0):
    audit.verdict("claim", result.verdict,
                  ref.all_hold([_audit_paired(ctx, audit, experiment, lo, hi, z) for lo, hi in zip(order, order[1:])]))


def _judged_against_truth(ctx, audit, experiment, algorithms, judge) -> list[str]:
    """Each algorithm's censored proportion audited, then judged by ``judge(mean, s.e., truth)`` (reference
    verdicts); the truth is the environment's exact value: an input, not a statistic."""
    truth = truth_of(ctx, experiment)[0].censor_prob_star
    return [judge(*_audit_proportions(ctx, audit, experiment, a), truth) for a in algorithms]


@statistic_probe("near_truth")
def _probe_near_truth(ctx, audit, result, experiment, algorithm, tolerance, z=2.0):
    (verdict,) = _judged_against_truth(ctx, audit, experiment, [algorithm], lambda mean, se, truth: ref.band_threshold(
        abs(mean - truth), se, tolerance, below=True, z=z))
    audit.verdict("claim", result.verdict, verdict)


@statistic_probe("all_near_truth")
def _probe_all_near_truth(ctx, audit, result, experiment, algorithms, tolerance, z=2.0):
    audit.verdict("claim", result.verdict, ref.all_hold(_judged_against_truth(
        ctx, audit, experiment, algorithms,
        lambda mean, se, truth: ref.band_threshold(abs(mean - truth), se, tolerance, below=True, z=z))))


@statistic_probe("censored_above_truth")
def _probe_above_truth(ctx, audit, result, experiment, algorithms, margin, z=2.0):
    audit.verdict("claim", result.verdict, ref.all_hold(_judged_against_truth(
        ctx, audit, experiment, algorithms,
        lambda mean, se, truth: ref.band_threshold(mean - truth, se, margin, below=False, z=z))))


def _audit_gap(ctx, audit, experiment, algorithm, others) -> tuple[float, float]:
    """_gap_of_experiment (the runner-up's relative regret gap, delta-method s.e.) against the reference; returns
    the reference (gap, s.e.)."""
    a = _shard_finals(ctx, experiment, algorithm, "final_regret")
    runner_up = min(others, key=lambda o: ref.mean_se(_shard_finals(ctx, experiment, o, "final_regret"))[0])
    b = _shard_finals(ctx, experiment, runner_up, "final_regret")
    gap, se = _gap_of_experiment(ctx, experiment, algorithm, others)
    audit.ratio(f"{experiment} {algorithm}/{runner_up} (1 - relative gap)", (1.0 - gap, se), a, b)
    ratio, ref_se, _ = ref.ratio_se(a, b)
    return 1.0 - ratio, ref_se


@statistic_probe("relative_gap_larger")
def _probe_gap_larger(ctx, audit, result, figure, larger_panels, smaller_panel, algorithm, others, z=2.0):
    def gap(panel):
        return _audit_gap(ctx, audit, ctx.panel(figure, panel)["experiment"], algorithm, others)

    small = gap(smaller_panel)
    verdicts = [ref.band(big[0] - small[0], math.hypot(big[1], small[1]), z) for big in map(gap, larger_panels)]
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


@statistic_probe("advantage_grows")
def _probe_advantage_grows(ctx, audit, result, small_experiment, large_experiment, algorithm, others, z=2.0):
    small = _audit_gap(ctx, audit, small_experiment, algorithm, others)
    large = _audit_gap(ctx, audit, large_experiment, algorithm, others)
    audit.verdict("claim", result.verdict, ref.band(large[0] - small[0], math.hypot(large[1], small[1]), z))


@statistic_probe("spread_larger")
def _probe_spread_larger(ctx, audit, result, experiment, larger, smaller, level=0.01):
    x = _shard_finals(ctx, experiment, larger, "final_regret")
    verdicts = []
    for s in smaller:
        y = _shard_finals(ctx, experiment, s, "final_regret")
        p_more, p_less = ref.brown_forsythe(x, y)
        audit.close("Brown-Forsythe p-values", f"{experiment} {larger} vs {s}",
                    brown_forsythe_greater(final_regrets(ctx, experiment, larger), final_regrets(ctx, experiment, s)),
                    [p_more, p_less], rtol=ref.P_RTOL)
        audit.printed(f"{s} sd", result.measured, ref.mean_se(y)[1] * math.sqrt(y.size))
        verdicts.append(REPRODUCED if p_more < level else NOT_REPRODUCED if p_less < level else INCONCLUSIVE)
    audit.printed(f"{larger} sd", result.measured, ref.mean_se(x)[1] * math.sqrt(x.size))
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


@statistic_probe("regret_not_worst")
def _probe_not_worst(ctx, audit, result, experiment, algorithm, others, z=2.0):
    x = _shard_finals(ctx, experiment, algorithm, "final_regret")
    verdicts = []
    for o in others:
        d = _shard_finals(ctx, experiment, o, "final_regret") - x
        audit.mean_se(f"{experiment} {o} - {algorithm}", (float(np.mean(d)), _se(d)), d)
        mean, se, _ = ref.mean_se(d)
        verdicts.append(ref.band(mean, se, z))
    audit.verdict("claim", result.verdict, ref.any_holds(verdicts))
