"""Claim checks C1-C5 of the spec (§3.5). Each reads the figure summaries (mean, s.e. per t)."""

from __future__ import annotations

import math

import numpy as np

from ...report.checks import ClaimResult, compare_greater, fmt
from ...registry import claim_check


def _value_at(curve, t):
    """(mean, se) at the recorded t closest to ``t`` from above."""
    i = min(int(np.searchsorted(curve.t.values, t)), len(curve) - 1)
    return float(curve["mean"].iloc[i]), float(curve["se"].iloc[i]), int(curve.t.iloc[i])


def _final(ctx, figure, panel, algorithm):
    c = ctx.curve(figure, panel, algorithm)
    row = c.iloc[-1]
    return float(row["mean"]), float(row["se"]), int(row["n"])


def _panels(ctx, figure, panels):
    return panels if panels else [p["id"] for p in ctx.spec.figures[figure]["panels"]]


@claim_check("composite_log_growth")
def log_growth_ratio(ctx, figure, algorithm, panels=None, max_ratio=1.5, figures=None):
    """C1: [R(T) - R(T/10)] / [R(T/10) - R(T/100)] ≤ max_ratio in every listed panel (log-linear: ratio ≈ 1)."""
    ratios = []
    for fig in (figures or [figure]):
        for panel in _panels(ctx, fig, panels if fig == figure else None):
            c = ctx.curve(fig, panel, algorithm)
            T = int(c.t.iloc[-1])
            r_T = float(c["mean"].iloc[-1])
            r_10, _, _ = _value_at(c, T // 10)
            r_100, _, _ = _value_at(c, T // 100)
            ratios.append((f"{fig}/{panel}", (r_T - r_10) / max(r_10 - r_100, 1e-12)))
    worst = max(r for _, r in ratios)
    text = ", ".join(f"{name}: {fmt(r)}" for name, r in ratios)
    return ClaimResult(measured=f"max ratio {fmt(worst)} ({text})", threshold=f"<= {max_ratio} in every panel",
                       verdict="reproduced" if worst <= max_ratio else "not_reproduced")


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
            mb, sb, _ = _final(ctx, fig, panel["id"], base)
            ma, sa, _ = _final(ctx, fig, panel["id"], algorithm)
            verdicts.append(compare_greater(mb - ma, math.hypot(sa, sb), z))
            parts.append(f"{fig}/{panel['id']}: {fmt(ma)} vs {fmt(mb)}")
            for algo in panel.get("algorithms", []):
                if algo == base or not algo.startswith("ars"):
                    continue
                mv, sv, _ = _final(ctx, fig, panel["id"], algo)
                variants_all += 1
                variants_win += compare_greater(mb - mv, math.hypot(sv, sb), z) == "reproduced"
    n_ok = sum(v == "reproduced" for v in verdicts)
    verdict = ("reproduced" if n_ok == len(verdicts) else
               "not_reproduced" if any(v == "not_reproduced" for v in verdicts) else "inconclusive")
    return ClaimResult(measured=f"{n_ok}/{len(verdicts)} panels significantly lower; ARS-UCB variants beating the "
                                f"baseline: {variants_win}/{variants_all} ({'; '.join(parts)})",
                       threshold=f"final mean + {z} s.e. separation in every panel", verdict=verdict)


@claim_check("composite_default_best")
def default_best(ctx, figure, algorithm, figures=None, within=0.10, sd_rank_fraction=0.5):
    """C3: the default (α=4, f=k²) is best or within 10 % of the best ARS-UCB final regret in a majority of
    panels, and its across-run s.d. is in the smallest half of the panel's ARS-UCB variants in a majority."""
    close, small_sd, total, parts = 0, 0, 0, []
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            algos = [a for a in panel.get("algorithms", []) if a.startswith("ars")]
            if algorithm not in algos:
                continue
            finals = {a: _final(ctx, fig, panel["id"], a) for a in algos}
            means = {a: v[0] for a, v in finals.items()}
            sds = {a: v[1] * math.sqrt(v[2]) for a, v in finals.items()}
            best = min(means.values())
            total += 1
            is_close = means[algorithm] <= (1 + within) * best
            rank = sorted(sds.values()).index(sds[algorithm])
            is_small = rank < math.ceil(sd_rank_fraction * len(sds))
            close += is_close
            small_sd += is_small
            parts.append(f"{fig}/{panel['id']}: {fmt(means[algorithm])} vs best {fmt(best)}, sd rank {rank + 1}/{len(sds)}")
    ok = close > total / 2 and small_sd > total / 2
    return ClaimResult(measured=f"within {within:.0%} of best in {close}/{total} panels; sd in smallest half in "
                                f"{small_sd}/{total} ({'; '.join(parts)})",
                       threshold="majority of panels for both", verdict="reproduced" if ok else "not_reproduced")


def _slopes(curve):
    T = int(curve.t.iloc[-1])
    half, _, _ = _value_at(curve, T // 2)
    final = float(curve["mean"].iloc[-1])
    return half / (T // 2), (final - half) / (T - T // 2)


@claim_check("composite_linear_vs_sublinear")
def linear_vs_sublinear(ctx, figure, panels, linear, sublinear, min_slope_ratio=0.5, z=2.0):
    """C4: the baseline's second-half regret slope is ≥ 0.5 × its first-half slope (linear growth), the ARS
    curve's second-half slope is below its first-half slope (sub-linear) and it ends below the baseline."""
    ok, parts = True, []
    verdicts = []
    for panel in panels:
        lin = ctx.curve(figure, panel, linear)
        sub = ctx.curve(figure, panel, sublinear)
        l1, l2 = _slopes(lin)
        s1, s2 = _slopes(sub)
        ml, sl, _ = _final(ctx, figure, panel, linear)
        ms, ss, _ = _final(ctx, figure, panel, sublinear)
        lin_ok = l1 > 0 and l2 >= min_slope_ratio * l1
        sub_ok = s2 < s1
        below = compare_greater(ml - ms, math.hypot(sl, ss), z)
        verdicts.append("reproduced" if (lin_ok and sub_ok and below == "reproduced") else
                        "inconclusive" if (lin_ok and sub_ok and below == "inconclusive") else "not_reproduced")
        parts.append(f"{panel}: CLW slopes {fmt(l1)}→{fmt(l2)}, ARS-EXP3 slopes {fmt(s1)}→{fmt(s2)}, "
                     f"final {fmt(ms)} vs CLW {fmt(ml)}")
    verdict = ("reproduced" if all(v == "reproduced" for v in verdicts) else
               "not_reproduced" if any(v == "not_reproduced" for v in verdicts) else "inconclusive")
    return ClaimResult(measured="; ".join(parts),
                       threshold=f"CLW 2nd-half slope >= {min_slope_ratio} x 1st-half; ARS-EXP3 2nd < 1st; ARS-EXP3 final "
                                 f"below CLW beyond {z} s.e.", verdict=verdict)


@claim_check("composite_clw_slightly_better")
def clw_slightly_better(ctx, figure, panels, ars, clw_exact, clw_misspecified, max_margin=0.25, z=2.0):
    """C5: CLW(d̂ = d) ends at or below ARS-EXP3 by at most ``max_margin`` of ARS-EXP3's regret ("only slightly
    better"), and at least one misspecified CLW ends above ARS-EXP3 (beyond z s.e.)."""
    verdicts, parts = [], []
    for panel in panels:
        ma, sa, _ = _final(ctx, figure, panel, ars)
        mc, sc, _ = _final(ctx, figure, panel, clw_exact)
        not_worse = compare_greater(ma - mc, math.hypot(sa, sc), z) != "not_reproduced"
        slight = mc >= (1 - max_margin) * ma
        worse_any = []
        for algo in clw_misspecified:
            mm, sm, _ = _final(ctx, figure, panel, algo)
            worse_any.append(compare_greater(mm - ma, math.hypot(sm, sa), z))
        mis = ("reproduced" if "reproduced" in worse_any else
               "inconclusive" if "inconclusive" in worse_any else "not_reproduced")
        verdicts.append("reproduced" if (not_worse and slight and mis == "reproduced") else
                        "not_reproduced" if (not not_worse or not slight or mis == "not_reproduced") else "inconclusive")
        parts.append(f"{panel}: ARS-EXP3 {fmt(ma)}, CLW(d) {fmt(mc)}, misspecified "
                     + ", ".join(f"{a}={fmt(_final(ctx, figure, panel, a)[0])}" for a in clw_misspecified))
    verdict = ("reproduced" if all(v == "reproduced" for v in verdicts) else
               "not_reproduced" if any(v == "not_reproduced" for v in verdicts) else "inconclusive")
    return ClaimResult(measured="; ".join(parts),
                       threshold=f"(1-{max_margin}) ARS <= CLW(d) <= ARS (+{z} s.e.); some misspecified CLW > ARS",
                       verdict=verdict)
