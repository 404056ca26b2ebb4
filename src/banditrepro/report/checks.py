"""Generic claim checks. Each returns a :class:`ClaimResult`; papers register more in their package.

Comparisons between noisy means use their standard errors: a difference clearly beyond
``z`` standard errors in the claimed direction is ``reproduced``, clearly against it is
``not_reproduced``, and within the noise is ``inconclusive``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np

from .. import portable
from ..registry import CLAIM_CHECKS, claim_check, lookup
from .vocabulary import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, VERDICTS


@dataclass
class ClaimResult:
    measured: str
    threshold: str
    verdict: str
    #: experiments whose part of the claim is still within its band: the ones a sequential look
    #: (report/sequential.py) gives more replications (empty: all the claim reads)
    undecided: tuple[str, ...] = ()

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.4g}"
    return str(x)


def verdict_from(passed: bool) -> str:
    return REPRODUCED if passed else NOT_REPRODUCED


def combine_verdicts(verdicts) -> str:
    """All parts reproduced -> reproduced; any part against -> not_reproduced; else inconclusive.
    No parts at all tested nothing: inconclusive (never a vacuous 'reproduced')."""
    verdicts = list(verdicts)
    bad = [v for v in verdicts if v not in VERDICTS]
    if bad:
        raise ValueError(f"not a verdict: {bad[0]!r} (one of {VERDICTS})")
    if not verdicts:
        return INCONCLUSIVE
    if all(v == REPRODUCED for v in verdicts):
        return REPRODUCED
    if any(v == NOT_REPRODUCED for v in verdicts):
        return NOT_REPRODUCED
    return INCONCLUSIVE


def any_verdict(verdicts) -> str:
    """The verdict of "at least one part holds": any part reproduced -> reproduced; every part against ->
    not_reproduced; else inconclusive (the disjunction's twin of :func:`combine_verdicts`)."""
    verdicts = list(verdicts)
    if REPRODUCED in verdicts:
        return REPRODUCED
    if verdicts and all(v == NOT_REPRODUCED for v in verdicts):
        return NOT_REPRODUCED
    return INCONCLUSIVE


def compare_greater(diff: float, se: float, z: float = 2.0) -> str:
    """Verdict for the claim 'diff > 0' given its standard error."""
    if not math.isfinite(se) or se == 0.0:
        return verdict_from(diff > 0)
    if diff > z * se:
        return REPRODUCED
    if diff < -z * se:
        return NOT_REPRODUCED
    return INCONCLUSIVE


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
    x = portable.log(c.t.values)  # portable: np.log and np.polyfit (LAPACK) round differently by CPU
    y = c["mean"].values
    a, b = portable.linear_fit(x, y)
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


# --- per-replication statistics. All algorithms of an experiment see the same reward sequences (common
# random numbers), so a difference or ratio of two of its curves gets its standard error from the paired
# replications, not from the independent-sample formula.


def per_replication(ctx, figure, panel, algorithm, metric=None) -> tuple[list[int], np.ndarray]:
    """(checkpoints, (R, C) per-replication curve) of one algorithm of a panel (metric: the panel's)."""
    p = ctx.panel(figure, panel)
    out = ctx.replications(p["experiment"])[algorithm]
    return [int(t) for t in out.checkpoints], np.asarray(out.curves[metric or p["metric"]], dtype=float)


def mean_se(x: np.ndarray) -> tuple[float, float]:
    """Mean of ``x`` and its standard error (nan for fewer than two values)."""
    n = x.size
    return float(x.mean()), (float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan)


def paired_ratio_se(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """mean(a)/mean(b) and its delta-method standard error from paired replications."""
    ma, mb, n = float(a.mean()), float(b.mean()), a.size
    ratio = ma / mb if mb != 0 else math.inf
    if n < 2 or mb == 0 or ma == 0:
        return ratio, math.nan
    # sample covariances without np.cov, whose BLAS dot rounds differently by CPU
    var_a, var_b, cov_ab = portable.covariance(a, a), portable.covariance(b, b), portable.covariance(a, b)
    rel_var = (var_a / ma**2 + var_b / mb**2 - 2 * cov_ab / (ma * mb)) / n
    return ratio, abs(ratio) * math.sqrt(max(rel_var, 0.0))


def jackknife_se(statistic, n: int) -> float:
    """Jackknife standard error of ``statistic(keep)`` over n replications (``keep``: a boolean mask leaving one
    replication out at a time): the band for a statistic of many curves (a regression's R², a dominance
    shortfall) that has no closed-form s.e. Deterministic; nan for fewer than two replications."""
    if n < 2:
        return math.nan
    keep = np.ones(n, dtype=bool)
    values = []
    for r in range(n):
        keep[r] = False
        values.append(float(statistic(keep)))
        keep[r] = True
    v = np.asarray(values)
    return float(math.sqrt((n - 1) / n * float(np.sum((v - v.mean()) ** 2))))


def tri_state(x: np.ndarray, threshold, z: float = 2.0) -> np.ndarray:
    """Per cell, whether the mean over replications (axis 0 of ``x``) is clearly above ``threshold`` (+1),
    clearly below it (-1) or within ``z`` s.e. of it (0): a classification ('unfair', 'below the level') with the
    2-s.e. band."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    mean = x.mean(axis=0)
    se = x.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(mean.shape, np.nan)
    diff = mean - threshold
    out = np.where(diff > z * se, 1, np.where(diff < -z * se, -1, 0))
    return np.where(np.isfinite(se) & (se > 0), out, np.sign(diff)).astype(int)


def banded(holds, states: list[np.ndarray]) -> tuple[str, int]:
    """The verdict of a statement ``holds(*booleans)`` about tri-state classifications (:func:`tri_state`):
    it is decided on every way of reading each matrix's undecided cells as a block (all False, all True; 2^k
    readings for k matrices). Every reading holds: reproduced; none holds: not reproduced; else inconclusive
    (noise, not the paper, would decide it). Returns (verdict, undecided cells)."""
    import itertools

    undecided = int(sum(int((st == 0).sum()) for st in states))
    results = set()
    for reading in itertools.product((False, True), repeat=len(states)):
        results.add(bool(holds(*[(st > 0) | ((st == 0) & r) for st, r in zip(states, reading)])))
    if results == {True}:
        return REPRODUCED, undecided
    if results == {False}:
        return NOT_REPRODUCED, undecided
    return INCONCLUSIVE, undecided


@dataclass(frozen=True)
class Below:
    """One comparison 'lower < higher' of two curves at step t, judged with standard errors.

    ``se_diff``: the standard error of b - a from paired replications; None: the curves are taken as
    independent (sqrt(se_a^2 + se_b^2))."""

    lower: str
    higher: str
    t: int
    a: float
    se_a: float
    b: float
    se_b: float
    verdict: str
    se_diff: float | None = None

    @property
    def margin(self) -> float:
        """(b - a) in standard errors of the difference (±inf without a usable standard error)."""
        se = math.hypot(self.se_a, self.se_b) if self.se_diff is None else self.se_diff
        if not math.isfinite(se) or se == 0.0:
            return math.copysign(math.inf, self.b - self.a)
        return (self.b - self.a) / se


def compare_below(a: float, se_a: float, b: float, se_b: float, z: float = 2.0) -> str:
    """Verdict for 'a < b' from two independent means and their standard errors: the difference
    b - a beyond ``z`` standard errors of the difference (sqrt(se_a^2 + se_b^2)) reproduces the claim,
    beyond them the other way refutes it, within them is inconclusive."""
    return compare_greater(b - a, math.hypot(se_a, se_b), z)


def _as_list(x) -> list[str]:
    return [x] if isinstance(x, str) else list(x)


def below_comparisons(ctx, figure, panel, lower, higher, at="final", metric=None, higher_figure=None,
                      higher_panel=None, z=2.0, paired=False) -> list[Below]:
    """Every pair (l, h) of ``lower`` x ``higher`` compared at T (at='final') or at every recorded t of
    the first lower curve (at='every'); ``higher`` may be read on another figure/panel. ``paired``: the
    difference's standard error from the per-replication curves (both curves from the same experiment)."""
    if at not in ("final", "every"):
        raise ValueError(f"at must be 'final' or 'every', got {at!r}")
    hfig, hpanel = higher_figure or figure, higher_panel or panel
    if paired and ctx.panel(hfig, hpanel)["experiment"] != ctx.panel(figure, panel)["experiment"]:
        raise ValueError("a paired comparison needs both curves from the same experiment")
    lowers, highers = _as_list(lower), _as_list(higher)
    ts = [None] if at == "final" else ctx.curve(figure, panel, lowers[0], metric).t.tolist()
    if paired:  # per-replication curves read once, not per (t, pair)
        runs = {(figure, panel, a): per_replication(ctx, figure, panel, a, metric) for a in lowers}
        runs.update({(hfig, hpanel, a): per_replication(ctx, hfig, hpanel, a, metric) for a in highers})
    out = []
    for t in ts:
        for lo in lowers:
            pa = ctx.point(figure, panel, lo, t, metric)
            for hi in highers:
                pb = ctx.point(hfig, hpanel, hi, t, metric)
                if paired:
                    steps, ca = runs[(figure, panel, lo)]
                    cb = runs[(hfig, hpanel, hi)][1]
                    j = steps.index(int(pa.t))
                    diff, se_diff = mean_se(cb[:, j] - ca[:, j])
                    out.append(Below(lo, hi, pa.t, pa.mean, pa.se, pb.mean, pb.se,
                                     compare_greater(diff, se_diff, z), se_diff))
                else:
                    out.append(Below(lo, hi, pa.t, pa.mean, pa.se, pb.mean, pb.se,
                                     compare_below(pa.mean, pa.se, pb.mean, pb.se, z)))
    return out


@claim_check("below")
def below(ctx, figure, panel, lower, higher, at="final", metric=None, higher_figure=None, higher_panel=None,
          z=2.0, paired=False):
    """Each of ``lower`` below each of ``higher`` at T (at='final') or at every recorded t (at='every'),
    by more than ``z`` standard errors of the difference (``paired``: from the per-replication curves of
    one experiment; otherwise the two curves' s.e. as independent). The one 'A below B' check of the project."""
    comps = below_comparisons(ctx, figure, panel, lower, higher, at, metric, higher_figure, higher_panel, z, paired)
    worst = min(comps, key=lambda c: c.margin)
    pairs: dict[tuple[str, str], str] = {}
    for c in comps:  # each pair's worst verdict over the horizons
        pairs[(c.lower, c.higher)] = combine_verdicts([pairs.get((c.lower, c.higher), REPRODUCED), c.verdict])
    where = f"T={worst.t}" if at == "final" else f"worst of {len(comps) // len(pairs)} horizons: T={worst.t}"
    if paired:
        where += f"; difference {fmt(worst.b - worst.a)} ± {fmt(worst.se_diff)} paired"
    per_pair = "; ".join(f"{lo}<{hi}: {v}" for (lo, hi), v in pairs.items()) if len(pairs) > 1 else ""
    return ClaimResult(
        measured=f"tightest pair {worst.lower}: {fmt(worst.a)} ± {fmt(worst.se_a)} vs {worst.higher}: "
                 f"{fmt(worst.b)} ± {fmt(worst.se_b)} ({where}; margin {fmt(worst.margin)} s.e.)"
                 + (f" [{per_pair}]" if per_pair else ""),
        threshold=f"{', '.join(_as_list(lower))} < {', '.join(_as_list(higher))} by > {z} s.e."
                  + (" at every T" if at == "every" else ""),
        verdict=combine_verdicts(c.verdict for c in comps))


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


@claim_check("printed_cells")
def printed_cells(ctx, figure, cells, tolerance):
    """How close measured values come to the paper's printed table cells (an alternative reading's closeness,
    config ``readings: cells:``). ``cells``: a list of ``{cell: label, paper: printed value, panel,
    algorithm}`` with optional ``metric``, ``t`` and ``figure`` (default: the claim's). Each cell holds when
    ``|measured mean - printed value| < tolerance`` (inconclusive within 2 s.e.); the claim holds when every
    cell does. Measured: the mean and largest absolute difference, and the cell where it is largest."""
    diffs, verdicts = [], []
    for cell in cells:
        p = ctx.point(cell.get("figure", figure), cell["panel"], cell["algorithm"], cell.get("t"), cell.get("metric"))
        diff = abs(p.mean - float(cell["paper"]))
        diffs.append((diff, cell["cell"], p.mean, float(cell["paper"])))
        verdicts.append(compare_threshold(diff, p.se, float(tolerance), below=True))
    if not diffs:
        raise ValueError("printed_cells needs at least one cell")
    worst = max(diffs)
    mean_diff = sum(d[0] for d in diffs) / len(diffs)  # a plain sequential sum: no CPU-dependent rounding
    return ClaimResult(measured=f"mean |measured - paper| {fmt(mean_diff)} over {len(diffs)} cells; largest "
                                f"{fmt(worst[0])} at {worst[1]} ({fmt(worst[2])} vs {fmt(worst[3])})",
                       threshold=f"every cell within {fmt(float(tolerance))}", verdict=combine_verdicts(verdicts))


#: "sub-linear" (issue 38): the regret added over [T/2, T] is at most this share of the regret over [0, T/2].
#: sqrt(T) growth gives sqrt(2) - 1 = 0.41, log growth less, linear growth 1.0; a bare "second half below the
#: first" would pass a curve 2 % short of linear, so a sanity check could not see what it names.
SUBLINEAR_MAX_RATIO = 0.8


def sublinear_verdict(first: np.ndarray, second: np.ndarray, z: float = 2.0,
                      max_ratio: float = SUBLINEAR_MAX_RATIO) -> tuple[str, float]:
    """(verdict, second/first ratio of the means) for "sub-linear" from paired per-replication increments
    ``first`` (over [0, T/2]) and ``second`` (over [T/2, T]): max_ratio * first - second beyond ``z`` s.e.
    above 0 is sub-linear, beyond them below 0 is not, in between inconclusive."""
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    diff, se = mean_se(max_ratio * first - second)
    ratio = float(second.mean() / first.mean()) if first.mean() > 0 else math.inf
    return compare_greater(diff, se, z), ratio


@claim_check("sublinear_halves")
def sublinear_halves(ctx, figure, algorithms, figures=None, metric=None, z=2.0, max_ratio=SUBLINEAR_MAX_RATIO):
    """Sub-linear growth of each algorithm's curve in every experiment of ``figures`` that plots it: the
    increment over [T/2, T] is at most ``max_ratio`` (0.8) x the increment over [0, T/2], judged per
    replication (:func:`sublinear_verdict`). A sanity guard of an algorithm's own theory (a regret bound
    that is sub-linear in T): a bug that breaks a baseline or the paper's algorithm fails here instead of
    raising or lowering a comparison's verdict. Each (experiment, algorithm) is judged once, at the first
    checkpoint >= T/2."""
    seen, verdicts, parts, undecided = set(), [], [], []
    worst = None  # (second/first increment ratio, where)
    for fig in (figures or [figure]):
        for panel in ctx.spec.figures[fig]["panels"]:
            exp = panel["experiment"]
            for algo in algorithms:
                if algo not in panel.get("algorithms", ctx.spec.experiments[exp].algorithms) or (exp, algo) in seen:
                    continue
                seen.add((exp, algo))
                steps, curves = per_replication(ctx, fig, panel["id"], algo, metric)
                T = steps[-1]
                j = min(int(np.searchsorted(steps, T // 2)), len(steps) - 1)
                verdict, ratio = sublinear_verdict(curves[:, j], curves[:, -1] - curves[:, j], z, max_ratio)
                verdicts.append(verdict)
                if verdict == INCONCLUSIVE and exp not in undecided:
                    undecided.append(exp)
                if worst is None or ratio > worst[0]:
                    worst = (ratio, f"{exp}/{algo}")
                if verdict != REPRODUCED:
                    parts.append(f"{exp}/{algo}: second/first half {fmt(ratio)} ({verdict.replace('_', ' ')})")
    if worst is None:
        raise KeyError(f"no panel of {figures or [figure]} plots any of {algorithms}")
    n_ok = sum(v == REPRODUCED for v in verdicts)
    measured = (f"{n_ok}/{len(verdicts)} (experiment, algorithm) pairs sub-linear; largest second-half / first-half "
                f"increment {fmt(worst[0])} at {worst[1]}" + (" [" + "; ".join(parts) + "]" if parts else ""))
    return ClaimResult(measured=measured, threshold=f"R(T) - R(T/2) <= {max_ratio} R(T/2) by > {z} s.e. in every pair",
                       verdict=combine_verdicts(verdicts), undecided=tuple(undecided))


@claim_check("all_of")
def all_of(ctx, figure, parts):
    """A statement with several halves measured whole (issue 38: never only the half that passes): each of
    ``parts`` is a check ``{fn, label, ...args}`` (a check that takes a figure reads the claim's unless its
    args name another); the claim is reproduced only when every part is, not reproduced when any part is
    against it (:func:`combine_verdicts`). The measured text gives each part's verdict and measurement."""
    if not parts:
        raise ValueError("all_of needs at least one part")
    results = []
    for part in parts:
        label = str(part.get("label") or part["fn"])
        fn = lookup(CLAIM_CHECKS, "claim check", part["fn"])
        args = {k: v for k, v in part.items() if k not in ("fn", "label")}
        if "figure" in inspect.signature(fn).parameters:
            args.setdefault("figure", figure)
        results.append((label, fn(ctx, **args)))
    return ClaimResult(measured=" | ".join(f"[{label}: {r.verdict.replace('_', ' ')}] {r.measured}" for label, r in results),
                       threshold="; ".join(f"{label}: {r.threshold}" for label, r in results),
                       verdict=combine_verdicts(r.verdict for _, r in results),
                       undecided=tuple(dict.fromkeys(e for _, r in results for e in r.undecided)))
