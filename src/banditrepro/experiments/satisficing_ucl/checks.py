"""Claim checks specific to the satisficing UCL paper (spec §4)."""

from __future__ import annotations

import math

import numpy as np

from ... import portable
from ...registry import claim_check
from ...report import statistics_reference as ref
from ...report.checks import (
    ClaimResult,
    combine_verdicts,
    compare_greater,
    compare_threshold,
    fmt,
    jackknife_se,
    mean_se,
    paired_ratio_se,
    per_replication,
    verdict_from,
)
from ...report.statistics_guard import audit_per_replication, statistic_probe
from ...report.vocabulary import REPRODUCED
from .bounds import sufficing_pull_bounds, thm7_pull_bounds
from .builders import GaussianInstance


@claim_check("ucl_thm7_pull_counts")
def thm7_pull_counts(ctx, experiment, algorithm):
    """Fig 1(c): E[n_i^T] of each suboptimal arm is below its Theorem 7 bound."""
    exp = ctx.spec.experiments[experiment]
    inst = GaussianInstance.from_params(exp.params)
    gaps = inst.gaps(False, None)
    bounds = thm7_pull_bounds(gaps, float(inst.sigma[0]), exp.horizon)
    out = ctx.replications(experiment)[algorithm]
    pulls = out.pulls[:, -1, :].mean(axis=0)[gaps > 0]
    ok = bool(np.all(pulls < bounds))
    return ClaimResult(measured="E[n_i^T] = " + ", ".join(fmt(p) for p in pulls),
                       threshold="< Thm 7 bounds " + ", ".join(fmt(b) for b in bounds), verdict=verdict_from(ok))


@claim_check("plateau_or_single_lock_in")
def plateau_or_single_lock_in(ctx, figure, panel, algorithm, experiment, max_increase, lock_arm, window, z=2.0):
    """Fig 2(b) for P3: R(T) - R(T/2) < max_increase, or the increase is explained by at most one
    run locked on ``lock_arm`` (its last ``window`` choices all that arm): without the locked runs
    the mean increase is below max_increase; each judged with ``z`` s.e."""
    out = ctx.replications(experiment)[algorithm]
    cp = out.checkpoints
    T = int(cp[-1])
    j_half = int(np.searchsorted(cp, T // 2))
    inc_per_run = out.curves["regret"][:, -1] - out.curves["regret"][:, j_half]
    j_start = int(np.searchsorted(cp, T - window))
    pulls_in_window = out.pulls[:, -1, lock_arm] - out.pulls[:, j_start, lock_arm]
    locked = pulls_in_window >= cp[-1] - cp[j_start]
    inc, se = mean_se(inc_per_run)
    verdict = compare_threshold(inc, se, max_increase, below=True, z=z)
    inc_unlocked, se_unlocked = mean_se(inc_per_run[~locked]) if (~locked).any() else (math.nan, math.nan)
    if verdict != "reproduced" and int(locked.sum()) <= 1 and (~locked).any():
        verdict = compare_threshold(inc_unlocked, se_unlocked, max_increase, below=True, z=z)
    return ClaimResult(measured=f"R({T}) - R({cp[j_half]}) = {fmt(inc)} ± {fmt(se)}; runs locked on arm {lock_arm + 1}: "
                                f"{int(locked.sum())}; increase without them = {fmt(inc_unlocked)}",
                       threshold=f"< {max_increase} by > {z} s.e., or at most 1 locked run explaining the rise",
                       verdict=verdict)


@claim_check("exceeds_by_fraction_of_horizon")
def exceeds_by_fraction_of_horizon(ctx, figure, panel, better, baseline, fraction, z=2.0):
    """Each of ``better`` exceeds ``baseline`` at T by more than fraction * T."""
    base = ctx.point(figure, panel, baseline)
    parts, verdicts = [], []
    for algo in better:
        row = ctx.point(figure, panel, algo)
        excess = row.mean - base.mean - fraction * base.t
        verdicts.append(compare_greater(excess, float(np.hypot(row.se, base.se)), z))
        parts.append(f"{algo} - {baseline} = {fmt(row.mean - base.mean)}")
    return ClaimResult(measured="; ".join(parts) + f" at T={base.t}",
                       threshold=f"> {fraction} T = {fmt(fraction * base.t)} by > {z} s.e.",
                       verdict=combine_verdicts(verdicts))


@claim_check("approaches_baseline")
def approaches_baseline(ctx, figure, panel, candidate, reference, baseline, max_ratio, z=2.0):
    """(candidate - baseline) < max_ratio * (reference - baseline) at T (Fig 5(c): P7 approaches P1),
    the ratio's s.e. by the delta method from the paired replications."""
    _, c = per_replication(ctx, figure, panel, candidate)
    _, r = per_replication(ctx, figure, panel, reference)
    _, b = per_replication(ctx, figure, panel, baseline)
    ratio, se = paired_ratio_se(c[:, -1] - b[:, -1], r[:, -1] - b[:, -1])
    return ClaimResult(measured=f"({candidate} - {baseline}) / ({reference} - {baseline}) = {fmt(ratio)} ± {fmt(se)}",
                       threshold=f"< {max_ratio} by > {z} s.e.",
                       verdict=compare_threshold(ratio, se, max_ratio, below=True, z=z))


# --- issue #10: every headline comparison carries a standard error from the paired replications
# (all algorithms of an experiment see the same reward sequences), and a value within z s.e. of
# its threshold is inconclusive (report.checks.compare_threshold / compare_greater).


def _increment(ctx, figure, panel, algorithm, t_from, metric=None):
    """Per-replication rise of a curve between t_from and T: (mean, s.e., T)."""
    ts, curve = per_replication(ctx, figure, panel, algorithm, metric)
    j = int(np.searchsorted(ts, t_from))
    m, se = mean_se(curve[:, -1] - curve[:, j])
    return m, se, ts[-1], ts[j]


@claim_check("ucl_bound_margin")
def bound_margin(ctx, figure, panel, algorithm, reference, t_min=1):
    """The mean curve stays below an analytic bound at every t >= t_min; the measured value says by
    what factor (bound / mean), which is what 'significantly below' means in the paper."""
    c = ctx.curve(figure, panel, algorithm).merge(ctx.reference(figure, panel, reference), on="t")
    c = c[c.t >= t_min]
    below = bool((c["mean"] <= c["value"]).all())
    factor = (c["value"] / c["mean"]).replace([np.inf], np.nan)
    end = c.iloc[-1]
    return ClaimResult(measured=f"bound/mean >= {fmt(float(factor.min()))} for t >= {t_min} "
                                f"({fmt(float(end['value']))} vs {fmt(float(end['mean']))} at T={int(end.t)})",
                       threshold="mean <= bound at every t", verdict=verdict_from(below))


def _log_fit(x, y) -> tuple[float, float, float]:
    """(a, b, R^2) of the least-squares line a x + b through (x, y) (x = ln t)."""
    a, b = portable.linear_fit(x, y)  # not np.polyfit: LAPACK rounds differently by CPU
    resid = y - (a * x + b)
    r2 = 1.0 - resid.var() / y.var() if y.var() > 0 else 0.0
    return float(a), float(b), float(r2)


def _fitted_runs(ctx, figure, panel, algorithm, t) -> np.ndarray:
    """Per-replication values of the panel's curve at the steps ``t`` of its summary curve, (R, len(t))."""
    steps, curve = per_replication(ctx, figure, panel, algorithm)
    cols = np.searchsorted(steps, t)
    if np.any(cols >= len(steps)) or not np.array_equal(np.asarray(steps)[cols], np.asarray(t)):
        raise KeyError(f"{figure}/{panel}/{algorithm}: the summary's steps are not the replications' checkpoints")
    return curve[:, cols]


@claim_check("ucl_log_growth")
def log_growth_with_se(ctx, figure, panel, algorithm, t_min=50, r2_min=0.9, min_increase=1.0, z=2.0):
    """a ln t + b fits the mean curve (a > 0, R^2 > r2_min) and R(T) - R(T/2) > min_increase. The rise is
    judged with its paired s.e.; the slope and R^2, statistics of the whole mean curve, with their jackknife
    s.e. over replications (report.checks.jackknife_se, as fair_pulls_regression): within ``z`` s.e. of its
    threshold a part is inconclusive."""
    c = ctx.curve(figure, panel, algorithm)
    c = c[c.t >= t_min]
    x, y = portable.log(c.t.values), c["mean"].values  # not np.log: CPU-dependent rounding
    a, _, r2 = _log_fit(x, y)
    runs = _fitted_runs(ctx, figure, panel, algorithm, c.t.values)
    se_a = jackknife_se(lambda keep: _log_fit(x, runs[keep].mean(axis=0))[0], runs.shape[0])
    se_r2 = jackknife_se(lambda keep: _log_fit(x, runs[keep].mean(axis=0))[2], runs.shape[0])
    T = int(c.t.values[-1])
    inc, se, _, t_half = _increment(ctx, figure, panel, algorithm, T // 2)
    verdict = combine_verdicts([compare_greater(a, se_a, z),
                                compare_threshold(r2, se_r2, r2_min, below=False, z=z),
                                compare_threshold(inc, se, min_increase, below=False, z=z)])
    return ClaimResult(measured=f"a = {fmt(a)} ± {fmt(se_a)}, R^2 = {fmt(r2)} ± {fmt(se_r2)}, "
                                f"R({T})-R({t_half}) = {fmt(inc)} ± {fmt(se)}",
                       threshold=f"a > 0, R^2 > {r2_min}, increase > {min_increase} (each by > {z} s.e.)",
                       verdict=verdict)


@claim_check("ucl_plateau")
def plateau_with_se(ctx, figure, panel, algorithm, t_from, max_increase, z=2.0):
    """The curve rises by less than max_increase between t_from and T (paired s.e.; within z s.e.:
    inconclusive)."""
    inc, se, T, t0 = _increment(ctx, figure, panel, algorithm, t_from)
    name = ctx.panel(figure, panel)["metric"]
    return ClaimResult(measured=f"{name}({T}) - {name}({t0}) = {fmt(inc)} ± {fmt(se)}",
                       threshold=f"< {max_increase} by > {z} s.e.",
                       verdict=compare_threshold(inc, se, max_increase, below=True, z=z))


@claim_check("ucl_relative_difference_below")
def relative_difference_below(ctx, figure, panel, a, b, max_relative, z=2.0):
    """|a(T) - b(T)| / |b(T)| < max_relative, with the paired delta-method s.e. (no direction)."""
    _, ca = per_replication(ctx, figure, panel, a)
    _, cb = per_replication(ctx, figure, panel, b)
    ratio, se = paired_ratio_se(ca[:, -1], cb[:, -1])
    rel = abs(ratio - 1.0)
    T = ctx.point(figure, panel, a).t
    return ClaimResult(measured=f"|{a} - {b}| / |{b}| at T={T} = {fmt(rel)} ± {fmt(se)}",
                       threshold=f"< {max_relative} by > {z} s.e.",
                       verdict=compare_threshold(rel, se, max_relative, below=True, z=z))


@claim_check("ucl_ratio_in_range")
def ratio_in_range(ctx, figure, panel, numerator, denominator, low, high, z=2.0):
    """low <= numerator(T)/denominator(T) <= high, each end judged with the delta-method s.e."""
    _, cn = per_replication(ctx, figure, panel, numerator)
    _, cd = per_replication(ctx, figure, panel, denominator)
    ratio, se = paired_ratio_se(cn[:, -1], cd[:, -1])
    verdict = combine_verdicts([compare_threshold(ratio, se, low, below=False, z=z),
                                compare_threshold(ratio, se, high, below=True, z=z)])
    return ClaimResult(measured=f"{numerator}/{denominator} at T={ctx.point(figure, panel, numerator).t} = "
                                f"{fmt(ratio)} ± {fmt(se)}",
                       threshold=f"in [{low}, {high}] by > {z} s.e.", verdict=verdict)


@claim_check("ucl_sufficing_pull_counts")
def sufficing_pull_counts(ctx, experiment, algorithm, delta, divisor, threshold=None):
    """Theorems 10 (divisor 2, A3) and 11 (divisor 3, A4): E[n_i^T] of each non-satisfying arm is below
    4 sigma^2 Phi^-1(1 - delta/divisor)^2 / Delta_i^2 + 1."""
    exp = ctx.spec.experiments[experiment]
    inst = GaussianInstance.from_params(exp.params)
    gaps = inst.gaps(False, threshold)
    bounds = sufficing_pull_bounds(gaps, float(inst.sigma[0]), delta, divisor)
    out = ctx.replications(experiment)[algorithm]
    pulls = out.pulls[:, -1, :].mean(axis=0)[gaps > 0]
    theorem = {2: "Thm 10", 3: "Thm 11"}[int(divisor)]
    return ClaimResult(measured="E[n_i^T] = " + ", ".join(fmt(p) for p in pulls),
                       threshold=f"< {theorem} bounds " + ", ".join(fmt(b) for b in bounds),
                       verdict=verdict_from(bool(np.all(pulls < bounds))))


@claim_check("ucl_lemma5_equivalence")
def lemma5_equivalence(ctx, experiment, robust, standardised):
    """Lemma 5, exactly: the robust variant ``robust`` on (m, sigma) and the raw-reward variant
    ``standardised`` on the standardised instance (x, 1), fed the same draws, make the same choice at every
    step of every replication, so their pull counts agree at every checkpoint and the robust run's x-unit
    regret equals the standardised run's regret."""
    outs = ctx.replications(experiment)
    a, b = outs[robust], outs[standardised]
    same = np.all(a.pulls == b.pulls, axis=(1, 2))
    regret_gap = float(np.max(np.abs(a.curves["regret_x"] - b.curves["regret"])))
    return ClaimResult(measured=f"identical choices in {int(same.sum())} of {len(same)} replications; "
                                f"max |regret_x({robust}) - regret({standardised})| = {fmt(regret_gap)}",
                       threshold="every replication identical, regrets equal within 1e-9",
                       verdict=verdict_from(bool(same.all()) and regret_gap < 1e-9))


@claim_check("ucl_printed_standardised_means")
def printed_standardised_means(ctx, experiment, printed_x, printed_best):
    """The instance's standardised means x_i = (m_i - M)/sigma_i (eq 20) against the paper's printed x and
    optimal arm (Sec. VII: 'x = [-1 0 1 2/3] and i* = 3'; ``printed_best`` 0-based)."""
    inst = GaussianInstance.from_params(ctx.spec.experiments[experiment].params)
    printed = np.asarray(printed_x, dtype=np.float64)
    gap = float(np.max(np.abs(inst.x - printed)))
    best = int(np.argmax(inst.x))
    return ClaimResult(measured=f"x = [{', '.join(fmt(v) for v in inst.x)}], i* = {best + 1}; "
                                f"max |x - printed x| = {fmt(gap)}",
                       threshold=f"x = [{', '.join(fmt(v) for v in printed)}] and i* = {int(printed_best) + 1}",
                       verdict=verdict_from(gap < 1e-9 and best == int(printed_best)))


@claim_check("ucl_matches_reference")
def matches_reference(ctx, experiments, algorithms, replications=10):
    """The reference guard (F1_reference, F4_reference): the first ``replications`` runs of each algorithm in each
    experiment, rerun end to end by reference.py of this package (the paper's instances, reward draws, A1-A8 and
    metrics written apart), equal the build's runs exactly (every curve and pull count). True by construction for
    a correct build; a bug in the builder, the reward law, the UCL kernel, the loop or a metric breaks it even
    where no statement of the paper can (docs/mutants.md, "Guards")."""
    from ..reference import check_against_reference
    from . import reference

    res = check_against_reference(ctx, reference.REFERENCE, experiments, algorithms, replications)
    return ClaimResult(measured=res.measured, threshold=res.threshold, verdict=verdict_from(res.passed))



# --- issue 39: what the statistics guard (report/statistics_guard.py, claim STATS_reference) compares for each
# headline check of this paper: the production helpers on the claim's data against report/statistics_reference.py.


def _audit_increment(ctx, audit, figure, panel, algorithm, t_from) -> tuple[float, float]:
    """:func:`_increment` against the reference (the rise from the first checkpoint >= t_from to T, paired per
    replication); returns the reference (mean, s.e.)."""
    steps, values = ref.panel_values(ctx, figure, panel, algorithm)
    m, se, T, t0 = _increment(ctx, figure, panel, algorithm, t_from)
    j = ref.first_at_or_after(steps, t_from)
    audit.equal("points", f"{algorithm} rise from t={t_from}: steps", (T, t0), (int(steps[-1]), int(steps[j])))
    audit.mean_se(f"{algorithm} rise from t={t_from}", (m, se), values[:, -1] - values[:, j])
    return ref.mean_se(values[:, -1] - values[:, j])[:2]


def _audit_final_ratio(ctx, audit, figure, panel, num: np.ndarray, den: np.ndarray, label) -> tuple[float, float]:
    """paired_ratio_se of per-replication finals against the reference; returns the reference (ratio, s.e.)."""
    audit.ratio(label, paired_ratio_se(num, den), num, den, nan_when_numerator_zero=True)
    ratio, se, _ = ref.ratio_se(num, den)
    return ratio, (math.nan if float(np.mean(num)) == 0 else se)


@statistic_probe("ucl_log_growth")
def _probe_log_growth(ctx, audit, result, figure, panel, algorithm, t_min=50, r2_min=0.9, min_increase=1.0, z=2.0):
    steps, values = ref.panel_values(ctx, figure, panel, algorithm)
    keep = steps >= t_min
    t, y = steps[keep], ref.column_summary(values)["mean"].to_numpy()[keep]
    a, b, r2 = ref.log_fit(t, y)
    pa, pb = portable.linear_fit(portable.log(t), y)
    log_t = np.log(t)
    audit.close("fits", "slope on ln t", pa, a, ref.slope_scale(log_t, y))
    audit.close("fits", "intercept", pb, b, float(np.max(np.abs(y)) + abs(a) * np.max(np.abs(log_t))))
    audit.printed("a", result.measured, a)
    audit.printed("R^2", result.measured, r2)
    # the jackknife s.e. that band the slope and R^2 (report.checks.jackknife_se), against the reference's
    # pseudo-values over the same replications, each leave-one-out fit by scipy
    runs = values[:, keep]
    x = portable.log(t)
    se = {}
    for name, index, size in (("slope", 0, abs(a)), ("R^2", 2, 1.0)):
        se[name] = ref.jackknife_se(lambda k, i=index: ref.log_fit(t, runs[k].mean(axis=0))[i], runs.shape[0])
        production = jackknife_se(lambda k, i=index: _log_fit(x, runs[k].mean(axis=0))[i], runs.shape[0])
        audit.close("fits", f"jackknife s.e. of the {name}", production, se[name], size)
        audit.printed(f"jackknife s.e. of the {name}", result.measured, se[name])
    inc, se_inc = _audit_increment(ctx, audit, figure, panel, algorithm, int(t[-1]) // 2)
    audit.verdict("claim", result.verdict,
                  ref.all_hold([ref.band(a, se["slope"], z), ref.band_threshold(r2, se["R^2"], r2_min, below=False, z=z),
                                ref.band_threshold(inc, se_inc, min_increase, below=False, z=z)]))


@statistic_probe("ucl_plateau")
def _probe_plateau(ctx, audit, result, figure, panel, algorithm, t_from, max_increase, z=2.0):
    inc, se = _audit_increment(ctx, audit, figure, panel, algorithm, t_from)
    audit.verdict("claim", result.verdict, ref.band_threshold(inc, se, max_increase, below=True, z=z))


def _final_columns(ctx, audit, figure, panel, algorithms):
    """Per algorithm, the production and the reference per-replication values at T (per_replication audited)."""
    out = {}
    for a in algorithms:
        _, values = audit_per_replication(ctx, audit, figure, panel, a)
        out[a] = (per_replication(ctx, figure, panel, a)[1][:, -1], values[:, -1])
    return out


@statistic_probe("ucl_relative_difference_below")
def _probe_relative_difference(ctx, audit, result, figure, panel, a, b, max_relative, z=2.0):
    f = _final_columns(ctx, audit, figure, panel, [a, b])
    _audit_final_ratio(ctx, audit, figure, panel, f[a][0], f[b][0], f"{a}/{b}")
    ratio, se = ref.ratio_se(f[a][1], f[b][1])[:2]
    audit.verdict("claim", result.verdict, ref.band_threshold(abs(ratio - 1.0), se, max_relative, below=True, z=z))


@statistic_probe("ucl_ratio_in_range")
def _probe_ratio_in_range(ctx, audit, result, figure, panel, numerator, denominator, low, high, z=2.0):
    f = _final_columns(ctx, audit, figure, panel, [numerator, denominator])
    _audit_final_ratio(ctx, audit, figure, panel, f[numerator][0], f[denominator][0], f"{numerator}/{denominator}")
    ratio, se = ref.ratio_se(f[numerator][1], f[denominator][1])[:2]
    audit.verdict("claim", result.verdict, ref.all_hold([ref.band_threshold(ratio, se, low, below=False, z=z),
                                                         ref.band_threshold(ratio, se, high, below=True, z=z)]))


@statistic_probe("approaches_baseline")
def _probe_approaches_baseline(ctx, audit, result, figure, panel, candidate, reference, baseline, max_ratio, z=2.0):
    f = _final_columns(ctx, audit, figure, panel, [candidate, reference, baseline])
    num, den = f[candidate][0] - f[baseline][0], f[reference][0] - f[baseline][0]
    _audit_final_ratio(ctx, audit, figure, panel, num, den, f"({candidate} - {baseline})/({reference} - {baseline})")
    ratio, se = ref.ratio_se(f[candidate][1] - f[baseline][1], f[reference][1] - f[baseline][1])[:2]
    audit.verdict("claim", result.verdict, ref.band_threshold(ratio, se, max_ratio, below=True, z=z))


@statistic_probe("exceeds_by_fraction_of_horizon")
def _probe_exceeds(ctx, audit, result, figure, panel, better, baseline, fraction, z=2.0):
    finals = {a: ref.mean_se(ref.panel_values(ctx, figure, panel, a)[1][:, -1]) for a in [baseline, *better]}
    T = int(ref.panel_values(ctx, figure, panel, baseline)[0][-1])
    base = finals[baseline]
    for a in better:
        audit.printed(f"{a} - {baseline} at T", result.measured, finals[a][0] - base[0])
    audit.verdict("claim", result.verdict, ref.all_hold(
        ref.band(finals[a][0] - base[0] - fraction * T, math.hypot(finals[a][1], base[1]), z) for a in better))


@statistic_probe("plateau_or_single_lock_in")
def _probe_lock_in(ctx, audit, result, figure, panel, algorithm, experiment, max_increase, lock_arm, window):
    out = ctx.replications(experiment)[algorithm]
    steps = [int(s) for s in out.checkpoints]
    T = steps[-1]
    half, start = ref.first_at_or_after(steps, T // 2), ref.first_at_or_after(steps, T - window)
    regret = np.asarray(out.curves["regret"], dtype=np.float64)
    rise = regret[:, -1] - regret[:, half]
    locked = out.pulls[:, -1, lock_arm] - out.pulls[:, start, lock_arm] >= T - steps[start]
    inc, se, _ = ref.mean_se(rise)
    audit.printed("R(T) - R(T/2)", result.measured, inc)
    audit.printed("its s.e.", result.measured, se)
    audit.contains("locked runs", result.measured, f"runs locked on arm {lock_arm + 1}: {int(locked.sum())};")
    verdict = ref.band_threshold(inc, se, max_increase, below=True)
    if verdict != REPRODUCED and int(locked.sum()) <= 1 and (~locked).any():
        inc_u, se_u, _ = ref.mean_se(rise[~locked])
        audit.printed("increase without the locked runs", result.measured, inc_u)
        verdict = ref.band_threshold(inc_u, se_u, max_increase, below=True)
    audit.verdict("claim", result.verdict, verdict)
