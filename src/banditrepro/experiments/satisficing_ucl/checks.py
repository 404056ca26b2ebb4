"""Claim checks specific to the satisficing UCL paper (spec §4)."""

from __future__ import annotations

import numpy as np

from ...report.checks import ClaimResult, combine_verdicts, compare_greater, fmt, verdict_from
from ...registry import claim_check
from .bounds import thm7_pull_bounds
from .instance import GaussianInstance


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
def plateau_or_single_lock_in(ctx, figure, panel, algorithm, experiment, max_increase, lock_arm, window):
    """Fig 2(b) for P3: R(T) - R(T/2) < max_increase, or the increase is explained by at most one
    run locked on ``lock_arm`` (its last ``window`` choices all that arm): without the locked runs
    the mean increase is below max_increase."""
    out = ctx.replications(experiment)[algorithm]
    cp = out.checkpoints
    T = int(cp[-1])
    j_half = int(np.searchsorted(cp, T // 2))
    inc_per_run = out.curves["regret"][:, -1] - out.curves["regret"][:, j_half]
    j_start = int(np.searchsorted(cp, T - window))
    pulls_in_window = out.pulls[:, -1, lock_arm] - out.pulls[:, j_start, lock_arm]
    locked = pulls_in_window >= cp[-1] - cp[j_start]
    inc = float(inc_per_run.mean())
    inc_unlocked = float(inc_per_run[~locked].mean()) if (~locked).any() else float("nan")
    ok = inc < max_increase or (int(locked.sum()) <= 1 and inc_unlocked < max_increase)
    return ClaimResult(measured=f"R({T}) - R({cp[j_half]}) = {fmt(inc)}; runs locked on arm {lock_arm + 1}: "
                                f"{int(locked.sum())}; increase without them = {fmt(inc_unlocked)}",
                       threshold=f"< {max_increase}, or at most 1 locked run explaining the rise",
                       verdict=verdict_from(ok))


@claim_check("exceeds_by_fraction_of_horizon")
def exceeds_by_fraction_of_horizon(ctx, figure, panel, better, baseline, fraction, z=2.0):
    """Each of ``better`` exceeds ``baseline`` at T by more than fraction * T."""
    base = ctx.curve(figure, panel, baseline).iloc[-1]
    T = int(base.t)
    parts, verdicts = [], []
    for algo in better:
        row = ctx.curve(figure, panel, algo).iloc[-1]
        excess = float(row["mean"] - base["mean"]) - fraction * T
        verdicts.append(compare_greater(excess, float(np.hypot(row.se, base.se)), z))
        parts.append(f"{algo} - {baseline} = {fmt(float(row['mean'] - base['mean']))}")
    verdict = combine_verdicts(verdicts)
    return ClaimResult(measured="; ".join(parts) + f" at T={T}", threshold=f"> {fraction} T = {fmt(fraction * T)}",
                       verdict=verdict)


@claim_check("approaches_baseline")
def approaches_baseline(ctx, figure, panel, candidate, reference, baseline, max_ratio):
    """(candidate - baseline) < max_ratio * (reference - baseline) at T (Fig 5(c): P7 approaches P1)."""
    c = ctx.curve(figure, panel, candidate).iloc[-1]["mean"]
    r = ctx.curve(figure, panel, reference).iloc[-1]["mean"]
    b = ctx.curve(figure, panel, baseline).iloc[-1]["mean"]
    ratio = (c - b) / (r - b) if r != b else np.inf
    return ClaimResult(measured=f"({candidate} - {baseline}) / ({reference} - {baseline}) = {fmt(ratio)}",
                       threshold=f"< {max_ratio}", verdict=verdict_from(ratio < max_ratio))
