"""Generic claim checks. Each returns a :class:`ClaimResult`; papers register more in their package.

Comparisons between noisy means use their standard errors: a difference clearly beyond
``z`` standard errors in the claimed direction is ``reproduced``, clearly against it is
``not_reproduced``, and within the noise is ``inconclusive``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..registry import claim_check

VERDICTS = ("reproduced", "not_reproduced", "inconclusive")


@dataclass
class ClaimResult:
    measured: str
    threshold: str
    verdict: str

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.4g}"
    return str(x)


def verdict_from(passed: bool) -> str:
    return "reproduced" if passed else "not_reproduced"


def combine_verdicts(verdicts) -> str:
    """All parts reproduced -> reproduced; any part against -> not_reproduced; else inconclusive."""
    verdicts = list(verdicts)
    if all(v == "reproduced" for v in verdicts):
        return "reproduced"
    if any(v == "not_reproduced" for v in verdicts):
        return "not_reproduced"
    return "inconclusive"


def compare_greater(diff: float, se: float, z: float = 2.0) -> str:
    """Verdict for the claim 'diff > 0' given its standard error."""
    if not math.isfinite(se) or se == 0.0:
        return verdict_from(diff > 0)
    if diff > z * se:
        return "reproduced"
    if diff < -z * se:
        return "not_reproduced"
    return "inconclusive"


def compare_threshold(value: float, se: float, threshold: float, below: bool = True, z: float = 2.0) -> str:
    """Verdict for 'value < threshold' (``below``) or 'value > threshold', given the value's standard error.

    A value within ``z`` standard errors of the threshold is ``inconclusive``: noise, not the paper,
    would decide it. With no usable standard error the plain comparison decides.
    """
    diff = threshold - value if below else value - threshold
    return compare_greater(diff, se, z)


def _final(ctx, figure, panel, algorithm, metric=None):
    p = ctx.point(figure, panel, algorithm, metric=metric)
    return p.mean, p.se, p.t


def _at(ctx, figure, panel, algorithm, t, metric=None):
    p = ctx.point(figure, panel, algorithm, t, metric)
    return p.mean, p.se


@claim_check("below_reference")
def below_reference(ctx, figure, panel, algorithm, reference, metric=None, t_min=1):
    """The mean curve stays at or below an analytic bound at every recorded t >= t_min."""
    c = ctx.curve(figure, panel, algorithm, metric)
    r = ctx.reference(figure, panel, reference)
    m = c.merge(r, on="t")
    m = m[m.t >= t_min]
    margin = float((m["mean"] - m["value"]).max())
    worst = m.iloc[int(np.argmax((m["mean"] - m["value"]).values))]
    return ClaimResult(measured=f"max(mean - bound) = {fmt(margin)} (at t={int(worst.t)}: {fmt(worst['mean'])} vs "
                                f"{fmt(worst['value'])})",
                       threshold="<= 0 for all t", verdict=verdict_from(margin <= 0))


@claim_check("log_growth")
def log_growth(ctx, figure, panel, algorithm, metric=None, t_min=50, r2_min=0.9, min_increase=1.0):
    """Mean curve grows like a log t + b: slope a > 0, R^2 > r2_min, R(T) - R(T/2) > min_increase."""
    c = ctx.curve(figure, panel, algorithm, metric)
    c = c[c.t >= t_min]
    x = np.log(c.t.values.astype(float))
    y = c["mean"].values
    a, b = np.polyfit(x, y, 1)
    resid = y - (a * x + b)
    r2 = 1.0 - resid.var() / y.var() if y.var() > 0 else 0.0
    T = int(c.t.values[-1])
    inc = float(y[-1] - _at(ctx, figure, panel, algorithm, T // 2, metric)[0])
    ok = a > 0 and r2 > r2_min and inc > min_increase
    return ClaimResult(measured=f"a = {fmt(a)}, R^2 = {fmt(r2)}, R(T)-R(T/2) = {fmt(inc)}",
                       threshold=f"a > 0, R^2 > {r2_min}, increase > {min_increase}", verdict=verdict_from(ok))


@claim_check("plateau")
def plateau(ctx, figure, panel, algorithm, t_from, max_increase, metric=None):
    """The mean curve rises by less than max_increase between t_from and T."""
    end, _, T = _final(ctx, figure, panel, algorithm, metric)
    start, _ = _at(ctx, figure, panel, algorithm, t_from, metric)
    inc = end - start
    name = metric or ctx.panel(figure, panel)["metric"]
    return ClaimResult(measured=f"{name}({T}) - {name}({t_from}) = {fmt(inc)}", threshold=f"< {max_increase}",
                       verdict=verdict_from(inc < max_increase))


@claim_check("final_less")
def final_less(ctx, figure, panel, lower, higher, metric=None, higher_figure=None, higher_panel=None, z=2.0):
    """lower(T) < higher(T) (possibly on another figure/panel), judged with standard errors."""
    a, sa, T = _final(ctx, figure, panel, lower, metric)
    b, sb, _ = _final(ctx, higher_figure or figure, higher_panel or panel, higher, metric)
    diff = b - a
    return ClaimResult(measured=f"{lower}: {fmt(a)} ± {fmt(sa)}, {higher}: {fmt(b)} ± {fmt(sb)} at T={T}",
                       threshold=f"{lower} < {higher} by > {z} s.e.",
                       verdict=compare_greater(diff, math.hypot(sa, sb), z))


@claim_check("final_ratio_in_range")
def final_ratio_in_range(ctx, figure, panel, numerator, denominator, low, high, metric=None):
    a, _, T = _final(ctx, figure, panel, numerator, metric)
    b, _, _ = _final(ctx, figure, panel, denominator, metric)
    ratio = a / b if b != 0 else math.inf
    return ClaimResult(measured=f"{numerator}/{denominator} at T={T} = {fmt(ratio)}", threshold=f"in [{low}, {high}]",
                       verdict=verdict_from(low <= ratio <= high))


@claim_check("final_relative_difference_below")
def final_relative_difference_below(ctx, figure, panel, a, b, max_relative, metric=None):
    va, _, T = _final(ctx, figure, panel, a, metric)
    vb, _, _ = _final(ctx, figure, panel, b, metric)
    rel = abs(va - vb) / abs(vb)
    return ClaimResult(measured=f"|{a} - {b}| / |{b}| at T={T} = {fmt(rel)} ({a} {'below' if va < vb else 'above'})",
                       threshold=f"< {max_relative}", verdict=verdict_from(rel < max_relative))


@claim_check("final_ordering")
def final_ordering(ctx, figure, panel, order, metric=None, z=2.0):
    """order[0](T) > order[1](T) > ...; each adjacent gap judged with standard errors."""
    vals = [_final(ctx, figure, panel, a, metric) for a in order]
    verdicts = [compare_greater(vals[i][0] - vals[i + 1][0], math.hypot(vals[i][1], vals[i + 1][1]), z)
                for i in range(len(order) - 1)]
    verdict = combine_verdicts(verdicts)
    measured = ", ".join(f"{a}: {fmt(v[0])} ± {fmt(v[1])}" for a, v in zip(order, vals))
    return ClaimResult(measured=measured + f" at T={vals[0][2]}", threshold=" > ".join(order), verdict=verdict)


@claim_check("most_pulled_arm")
def most_pulled_arm(ctx, experiment, algorithm, arm):
    """The arm with the largest mean pull count at T is ``arm`` (0-based in the config, reported 1-based)."""
    out = ctx.replications(experiment)[algorithm]
    mean_pulls = out.pulls[:, -1, :].mean(axis=0)
    best = int(np.argmax(mean_pulls))
    return ClaimResult(measured=f"most pulled: arm {best + 1} (mean pulls of arms 1..{len(mean_pulls)}: "
                                f"{np.round(mean_pulls, 1).tolist()})",
                       threshold=f"arm {arm + 1}", verdict=verdict_from(best == arm))


@claim_check("pulls_below")
def pulls_below(ctx, experiment, algorithm, bounds):
    """Mean pull count of each arm at T is below its bound (``bounds``: {arm: bound})."""
    out = ctx.replications(experiment)[algorithm]
    mean_pulls = out.pulls[:, -1, :].mean(axis=0)
    parts, ok = [], True
    for arm, bound in sorted(bounds.items(), key=lambda kv: int(kv[0])):
        v = float(mean_pulls[int(arm)])
        ok &= v < float(bound)
        parts.append(f"arm {arm}: {fmt(v)} < {fmt(float(bound))}")
    return ClaimResult(measured="; ".join(parts), threshold="every arm below its bound", verdict=verdict_from(ok))
