"""Claim checks C1-C5 of the spec (§3.5). Each reads the figure summaries (mean, s.e. per t) through
``ctx.point``; C1 also reads the per-replication curves (shards) for its standard error and median."""

from __future__ import annotations

import math

import numpy as np

from ...registry import claim_check
from ...report import statistics_reference as ref
from ...report.checks import (
    SUBLINEAR_MAX_RATIO,
    ClaimResult,
    any_verdict,
    combine_verdicts,
    compare_greater,
    compare_threshold,
    fmt,
    jackknife_se,
    mean_se,
    per_replication,
    sublinear_verdict,
    verdict_from,
)
from ...report.statistics_guard import statistic_probe
from ...report.vocabulary import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from ..reference import check_against_reference


def _panels(ctx, figure, panels):
    return panels if panels else [p["id"] for p in ctx.spec.figures[figure]["panels"]]


def increment_ratio(curves: np.ndarray, checkpoints: np.ndarray, T: int) -> tuple[float, float]:
    """C1's [R(T) - R(T/10)] / [R(T/10) - R(T/100)] of the mean curve, from per-replication curves (R, C),
    and its delta-method standard error over replications. Each point is the first checkpoint >= the
    time, as ``ctx.point`` reads the summary."""
    idx = [min(int(np.searchsorted(checkpoints, t)), len(checkpoints) - 1) for t in (T, T // 10, T // 100)]
    r_T, r_10, r_100 = (curves[:, i].astype(np.float64) for i in idx)
    a, b = r_T - r_10, r_10 - r_100
    ratio = float(a.mean() / max(b.mean(), 1e-12))
    n = len(a)
    se = float(np.std(a - ratio * b, ddof=1) / math.sqrt(n) / abs(b.mean())) if n > 1 and b.mean() > 0 else math.nan
    return ratio, se


def final_spread(finals: np.ndarray) -> str:
    """Mean beside median of the per-replication final regrets, and how many runs end above twice the
    median: a mean carried by a few runs that lock in on a suboptimal arm shows here. (A median *curve*
    says nothing about growth: per-run regret rises in steps at round boundaries, so the median curve is
    a staircase.)"""
    median = float(np.median(finals))
    heavy = int(np.sum(finals > 2 * median))
    return (f"final regret mean {fmt(float(finals.mean()))} vs median {fmt(median)}, "
            f"{heavy}/{len(finals)} runs above twice the median (max {fmt(float(finals.max()))})")


@claim_check("composite_log_growth")
def log_growth_ratio(ctx, figure, algorithm, panels=None, max_ratio=1.5, figures=None, z=2.0):
    """C1: [R(T) - R(T/10)] / [R(T/10) - R(T/100)] <= max_ratio in every listed panel (log-linear: ratio ≈ 1).

    The verdict is on the mean curve, with a ``z``-s.e. inconclusive band (s.e. of the ratio over
    replications, delta method). A panel that does not pass is reported with the mean beside the median
    final regret (:func:`final_spread`): a mean driven by a few lock-in runs shows as a median far below it."""
    ratios, verdicts, failing, undecided = [], [], [], []
    for fig in (figures or [figure]):
        for panel in _panels(ctx, fig, panels if fig == figure else None):
            spec_panel = ctx.panel(fig, panel)
            out = ctx.replications(spec_panel["experiment"])[algorithm]
            curves = out.curves[spec_panel.get("metric", "regret")]
            T = ctx.point(fig, panel, algorithm).t
            ratio, se = increment_ratio(curves, out.checkpoints, T)
            verdict = compare_threshold(ratio, se, max_ratio, below=True, z=z)
            verdicts.append(verdict)
            if verdict == "inconclusive" and spec_panel["experiment"] not in undecided:
                undecided.append(spec_panel["experiment"])
            ratios.append((f"{fig}/{panel}", ratio))
            if verdict != "reproduced":
                finals = curves[:, min(int(np.searchsorted(out.checkpoints, T)), len(out.checkpoints) - 1)]
                failing.append(f"{fig}/{panel}: ratio {fmt(ratio)} ± {fmt(se)} ({verdict.replace('_', ' ')}), "
                               + final_spread(finals))
    worst = max(r for _, r in ratios)
    text = ", ".join(f"{name}: {fmt(r)}" for name, r in ratios)
    lead = f"max ratio {fmt(worst)}"
    if failing:
        lead += " [" + "; ".join(failing) + "]"
    return ClaimResult(measured=f"{lead} ({text})", threshold=f"<= {max_ratio} in every panel (by > {z} s.e.)",
                       verdict=combine_verdicts(verdicts), undecided=tuple(undecided))


@claim_check("composite_beats_baseline")
def beats_baseline(ctx, figure, algorithm, baselines: dict, figures=None, z=2.0):
    """C2: in every panel the algorithm's final mean regret is below the baseline's beyond z s.e. (paired-free:
    s.e. of the difference from the two s.e.s); also counts the other algorithms of the panel that beat it."""
    verdicts, parts, variants_win, variants_all = [], [], 0, 0
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            base = baselines.get(panel["experiment"])
            if base is None:
                continue
            mb, sb, _, _ = ctx.point(fig, panel["id"], base)
            ma, sa, _, _ = ctx.point(fig, panel["id"], algorithm)
            verdicts.append(compare_greater(mb - ma, math.hypot(sa, sb), z))
            parts.append(f"{fig}/{panel['id']}: {fmt(ma)} vs {fmt(mb)}")
            for algo in panel.get("algorithms", []):
                if algo == base or not algo.startswith("ars"):
                    continue
                mv, sv, _, _ = ctx.point(fig, panel["id"], algo)
                variants_all += 1
                variants_win += compare_greater(mb - mv, math.hypot(sv, sb), z) == "reproduced"
    n_ok = sum(v == "reproduced" for v in verdicts)
    verdict = combine_verdicts(verdicts)
    return ClaimResult(measured=f"{n_ok}/{len(verdicts)} panels significantly lower; ARS-UCB variants beating the "
                                f"baseline: {variants_win}/{variants_all} ({'; '.join(parts)})",
                       threshold=f"final mean + {z} s.e. separation in every panel", verdict=verdict)


def sd_margin(finals: dict[str, np.ndarray], algorithm: str, sd_rank_fraction: float) -> tuple[float, float]:
    """C3's "among the smallest across-run s.d.": the default's s.d. (ddof=1) is in the smallest
    ``sd_rank_fraction`` of the panel's variants, i.e. below the m-th smallest s.d. of the other variants
    (m = ceil(fraction x variants)). Returns (that m-th smallest s.d. minus the default's, its jackknife s.e. over
    the replications, which every variant of a panel shares); (inf, nan) when fewer than m others are compared."""
    others = [a for a in finals if a != algorithm]
    m = math.ceil(sd_rank_fraction * len(finals))
    if m > len(others):
        return math.inf, math.nan

    def margin(keep):
        sds = sorted(float(np.std(finals[a][keep], ddof=1)) for a in others)
        return sds[m - 1] - float(np.std(finals[algorithm][keep], ddof=1))

    n = len(finals[algorithm])
    return margin(np.ones(n, dtype=bool)), jackknife_se(margin, n)


@claim_check("composite_default_best")
def default_best(ctx, figure, algorithm, sweep, figures=None, within=0.10, sd_rank_fraction=0.5, z=2.0,
                 compare=None):
    """C3: the default (α=4, f=k²) is best or within ``within`` of the best ARS-UCB final regret in a majority
    of the panels of one sweep, and its across-run s.d. is in the smallest half of the panel's variants in a
    majority. ``sweep`` names the ARS-UCB variants of the sweep (the α-sweep or the f-sweep); only panels
    plotting exactly these are used, so the two sweeps get their own verdicts (an f-sweep panel cannot
    contain α = 2). ``compare`` (default: the whole sweep) restricts the best and the s.d. ranking to some of
    the sweep's variants, e.g. the α values Theorem 1 covers.

    Per panel, both halves are judged with standard errors: the default is close if (1 + within)·best − default
    exceeds ``z`` s.e., far if it is below −z s.e., undecided otherwise; its s.d. is small if the m-th smallest
    s.d. of the other variants minus its own exceeds ``z`` jackknife s.e. (:func:`sd_margin`, from the
    per-replication final regrets), large if below −z s.e., undecided otherwise (before the band test, issue 53,
    the raw s.d. rank decided). The claim is inconclusive while the undecided panels could still tip either
    majority."""
    sweep = set(sweep)
    close, far, small_sd, large_sd, total, parts = 0, 0, 0, 0, 0, []
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            algos = [a for a in panel.get("algorithms", []) if a.startswith("ars")]
            if set(algos) != sweep or algorithm not in algos:
                continue
            if compare is not None:
                algos = [a for a in algos if a in compare]
            finals = {a: ctx.point(fig, panel["id"], a) for a in algos}
            sds = {a: p.se * math.sqrt(p.n) for a, p in finals.items()}
            best_algo = min(finals, key=lambda a: finals[a].mean)
            best, mine = finals[best_algo], finals[algorithm]
            total += 1
            if best_algo == algorithm:
                verdict = "reproduced"
            else:
                verdict = compare_greater((1 + within) * best.mean - mine.mean,
                                          math.hypot((1 + within) * best.se, mine.se), z)
            close += verdict == "reproduced"
            far += verdict == "not_reproduced"
            runs = {a: per_replication(ctx, fig, panel["id"], a)[1][:, -1] for a in algos}
            margin, margin_se = sd_margin(runs, algorithm, sd_rank_fraction)
            sd_verdict = compare_greater(margin, margin_se, z)
            small_sd += sd_verdict == "reproduced"
            large_sd += sd_verdict == "not_reproduced"
            rank = sorted(sds.values()).index(sds[algorithm])
            excess = mine.mean / best.mean - 1.0
            parts.append(f"{fig}/{panel['id']}: {fmt(mine.mean)} vs best {best_algo} {fmt(best.mean)} "
                         f"(+{100 * excess:.0f} %), sd rank {rank + 1}/{len(sds)} (margin {fmt(margin)} ± "
                         f"{fmt(margin_se)})")
    if total == 0:
        raise KeyError(f"no panel of {figures or [figure]} plots exactly the sweep {sorted(sweep)}")
    majority = total / 2
    if close > majority and small_sd > majority:
        verdict = "reproduced"
    elif total - far <= majority or total - large_sd <= majority:
        verdict = "not_reproduced"
    else:
        verdict = "inconclusive"
    undecided = total - close - far
    sd_undecided = total - small_sd - large_sd
    return ClaimResult(measured=f"within {within:.0%} of best in {close}/{total} panels"
                                + (f" ({undecided} within noise)" if undecided else "")
                                + f"; sd in smallest half in {small_sd}/{total}"
                                + (f" ({sd_undecided} within noise)" if sd_undecided else "")
                                + f" ({'; '.join(parts)})",
                       threshold=f"majority of panels for both (within {within:.0%}, sd below the "
                                 f"{sd_rank_fraction:.0%} rank, each by > {z} s.e.)", verdict=verdict)


def half_slopes(ctx, figure, panel, algorithm) -> tuple[np.ndarray, np.ndarray]:
    """Per replication, the mean regret slope over [0, T/2] and over [T/2, T] (T/2: the first checkpoint at or
    after it), from the per-replication curves."""
    steps, curves = per_replication(ctx, figure, panel, algorithm)
    T = steps[-1]
    j = min(int(np.searchsorted(steps, T // 2)), len(steps) - 1)
    half = steps[j]
    return curves[:, j] / half, (curves[:, -1] - curves[:, j]) / (T - half)


@claim_check("composite_linear_vs_sublinear")
def linear_vs_sublinear(ctx, figure, panels, linear, sublinear, min_slope_ratio=0.5, z=2.0):
    """C4: the baseline's second-half regret slope is >= ``min_slope_ratio`` x its first-half slope (linear
    growth), the ARS curve's second-half slope is at most 0.8 x its first-half slope (sub-linear, the project's
    one rule: report.checks.sublinear_verdict) and it ends below the baseline; each part judged with ``z``
    s.e. (paired per replication within a curve), the panel's verdict the combination of the three."""
    parts, verdicts = [], []
    for panel in panels:
        l1, l2 = half_slopes(ctx, figure, panel, linear)
        s1, s2 = half_slopes(ctx, figure, panel, sublinear)
        lin = compare_greater(*mean_se(l2 - min_slope_ratio * l1), z)
        sub, _ = sublinear_verdict(s1, s2, z)
        ml, sl, _, _ = ctx.point(figure, panel, linear)
        ms, ss, _, _ = ctx.point(figure, panel, sublinear)
        below = compare_greater(ml - ms, math.hypot(sl, ss), z)
        verdicts.append(combine_verdicts([lin, sub, below]))
        parts.append(f"{panel}: CLW slopes {fmt(float(l1.mean()))}→{fmt(float(l2.mean()))} ({lin.replace('_', ' ')}), "
                     f"ARS-EXP3 slopes {fmt(float(s1.mean()))}→{fmt(float(s2.mean()))} ({sub.replace('_', ' ')}), "
                     f"final {fmt(ms)} vs CLW {fmt(ml)}")
    return ClaimResult(measured="; ".join(parts),
                       threshold=f"CLW 2nd-half slope >= {min_slope_ratio} x 1st-half; ARS-EXP3 2nd <= "
                                 f"{SUBLINEAR_MAX_RATIO} x 1st; ARS-EXP3 final below CLW; each by > {z} s.e.",
                       verdict=combine_verdicts(verdicts))


@claim_check("composite_clw_slightly_better")
def clw_slightly_better(ctx, figure, panels, ars, clw_exact, clw_misspecified, max_margin=0.25, z=2.0):
    """C5: CLW(d̂ = d) ends below ARS-EXP3 ("better", beyond ``z`` s.e.) by at most ``max_margin`` of ARS-EXP3's
    regret ("only slightly", judged with ``z`` s.e.), and at least one misspecified CLW ends above ARS-EXP3 (beyond
    ``z`` s.e.). Each comparison within ``z`` s.e. of its threshold is inconclusive (a CLW(d) level with ARS-EXP3
    within the noise does not show "better"; before the band test, issue 53, it counted as reproduced)."""
    verdicts, parts = [], []
    for panel in panels:
        ma, sa, _, _ = ctx.point(figure, panel, ars)
        mc, sc, _, _ = ctx.point(figure, panel, clw_exact)
        better = compare_greater(ma - mc, math.hypot(sa, sc), z)
        slight = compare_greater(mc - (1 - max_margin) * ma, math.hypot(sc, (1 - max_margin) * sa), z)
        worse_any = []
        for algo in clw_misspecified:
            mm, sm, _, _ = ctx.point(figure, panel, algo)
            worse_any.append(compare_greater(mm - ma, math.hypot(sm, sa), z))
        mis = any_verdict(worse_any)
        verdicts.append(combine_verdicts([better, slight, mis]))
        parts.append(f"{panel}: ARS-EXP3 {fmt(ma)}, CLW(d) {fmt(mc)}, misspecified "
                     + ", ".join(f"{a}={fmt(ctx.point(figure, panel, a).mean)}" for a in clw_misspecified))
    verdict = combine_verdicts(verdicts)
    return ClaimResult(measured="; ".join(parts),
                       threshold=f"(1-{max_margin}) ARS <= CLW(d) < ARS (each by > {z} s.e.); some misspecified CLW "
                                 f"> ARS (by > {z} s.e.)",
                       verdict=verdict)


@claim_check("composite_matches_reference")
def matches_reference(ctx, experiments, algorithms, replications=10):
    """The reference guard (issue 39): the first ``replications`` runs of each (experiment, algorithm) pair rerun by
    the end-to-end reference (reference.py of this package: its own instances, draws-to-feedback, ARS-UCB / ODAAF
    loops and regret) equal the build's runs exactly (experiments/reference.py, docs/mutants.md)."""
    from . import reference

    res = check_against_reference(ctx, reference.REFERENCE, experiments, algorithms, replications)
    return ClaimResult(res.measured, res.threshold, verdict_from(res.passed))


# --- issue 39: what the statistics guard (report/statistics_guard.py, claim STATS_reference) compares for each
# headline check of this paper: the production helpers on the claim's data against report/statistics_reference.py.


def _final(ctx, figure, panel, algorithm) -> tuple[float, float, int]:
    """The reference (mean, s.e., n) of a curve at T, from the shards (the summary's points are audited with it)."""
    return ref.mean_se(ref.panel_values(ctx, figure, panel, algorithm)[1][:, -1])


@statistic_probe("composite_log_growth")
def _probe_log_growth_ratio(ctx, audit, result, figure, algorithm, panels=None, max_ratio=1.5, figures=None, z=2.0):
    verdicts = []
    for fig in (figures or [figure]):
        for panel in _panels(ctx, fig, panels if fig == figure else None):
            spec_panel = ctx.panel(fig, panel)
            steps, values = ref.panel_values(ctx, fig, panel, algorithm, spec_panel.get("metric", "regret"))
            T = int(steps[-1])
            r_T, r_10, r_100 = (values[:, ref.first_at_or_after(steps, t)] for t in (T, T // 10, T // 100))
            a, b = r_T - r_10, r_10 - r_100
            mean_a, mean_b = ref.mean_se(a)[0], ref.mean_se(b)[0]
            ratio = mean_a / max(mean_b, 1e-12)
            # the delta method for a ratio of paired means: the s.e. of the linearisation (a - ratio b) / mean(b)
            se = ref.mean_se((a - ratio * b) / abs(mean_b))[1] if mean_b > 0 else math.nan
            out = ctx.replications(spec_panel["experiment"])[algorithm]
            prod = increment_ratio(out.curves[spec_panel.get("metric", "regret")], out.checkpoints, T)
            scale = (float(np.max(np.abs(a))) + abs(ratio) * float(np.max(np.abs(b)))) / max(abs(mean_b), 1e-12)
            audit.close("paired ratios", f"{fig}/{panel} increment ratio", prod[0], ratio, scale)
            audit.close("paired ratios", f"{fig}/{panel} increment ratio s.e.", prod[1], se,
                        scale / math.sqrt(a.size))
            verdicts.append(ref.band_threshold(ratio, se, max_ratio, below=True, z=z))
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


@statistic_probe("composite_beats_baseline")
def _probe_beats_baseline(ctx, audit, result, figure, algorithm, baselines: dict, figures=None, z=2.0):
    verdicts = []
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            base = baselines.get(panel["experiment"])
            if base is None:
                continue
            mb, sb, _ = _final(ctx, fig, panel["id"], base)
            ma, sa, _ = _final(ctx, fig, panel["id"], algorithm)
            verdicts.append(ref.band(mb - ma, math.hypot(sa, sb), z))
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


def _sd(x) -> float:
    """The sample s.d. (n - 1) as a plain sum of squares (the reference's own, not np.std)."""
    mean = math.fsum(x) / len(x)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in x) / (len(x) - 1))


@statistic_probe("composite_default_best")
def _probe_default_best(ctx, audit, result, figure, algorithm, sweep, figures=None, within=0.10,
                        sd_rank_fraction=0.5, z=2.0, compare=None):
    close = far = small_sd = large_sd = total = 0
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            algos = [a for a in panel.get("algorithms", []) if a.startswith("ars")]
            if set(algos) != set(sweep) or algorithm not in algos:
                continue
            algos = [a for a in algos if compare is None or a in compare]
            finals = {a: _final(ctx, fig, panel["id"], a) for a in algos}
            sds = {a: se * math.sqrt(n) for a, (_, se, n) in finals.items()}
            best = min(finals, key=lambda a: finals[a][0])
            (mb, sb, _), (mm, sm, _) = finals[best], finals[algorithm]
            verdict = REPRODUCED if best == algorithm else ref.band((1 + within) * mb - mm,
                                                                    math.hypot((1 + within) * sb, sm), z)
            rank = sorted(sds.values()).index(sds[algorithm])
            audit.contains(f"{fig}/{panel['id']} sd rank", result.measured,
                           f"{fig}/{panel['id']}: {fmt(mm)} vs best {best} {fmt(mb)}")
            audit.contains(f"{fig}/{panel['id']} sd rank", result.measured, f"sd rank {rank + 1}/{len(sds)}")
            # the s.d. half: the m-th smallest s.d. of the others minus the default's, jackknifed over replications
            runs = {a: ref.panel_values(ctx, fig, panel["id"], a)[1][:, -1] for a in algos}
            m = math.ceil(sd_rank_fraction * len(algos))
            others = [a for a in algos if a != algorithm]
            if m > len(others):
                sd_verdict = REPRODUCED
            else:
                def margin(keep, runs=runs, others=others, m=m):
                    spread = sorted(_sd(runs[a][keep]) for a in others)
                    return spread[m - 1] - _sd(runs[algorithm][keep])
                n = len(runs[algorithm])
                sd_verdict = ref.band(margin(np.ones(n, dtype=bool)), ref.jackknife_se(margin, n), z)
            total += 1
            close += verdict == REPRODUCED
            far += verdict == NOT_REPRODUCED
            small_sd += sd_verdict == REPRODUCED
            large_sd += sd_verdict == NOT_REPRODUCED
    majority = total / 2
    expected = (REPRODUCED if close > majority and small_sd > majority else
                NOT_REPRODUCED if total - far <= majority or total - large_sd <= majority else INCONCLUSIVE)
    audit.verdict("claim", result.verdict, expected)
