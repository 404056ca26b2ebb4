"""Band cases of composite_anonymous' checks (``experiments/composite_anonymous/checks.py``, spec §3.5).

C2, C3 and C5 compare final means of independent curves: each curve's s.e. is ``SE / sqrt(2)`` (or a multiple
given in the case), so a difference of two has s.e. ``SE`` (``hypot``). C1 and C4 are per replication: the
curves are built so that the paired statistic's mean and s.e. are exact (see each case)."""

from __future__ import annotations

import math

import numpy as np

from . import band_case, centred_noise, context, curve_rows, write_summary
from .generic import SE, N, curves_context, sample

#: how far a comparison that must pass is put on its passing side, in s.e.
SAFE = 6.0


def _figure_panels(spec, check, figure, panels=None):
    """(figure, panel config) of every panel the check reads: ``figures`` (default the claim's), ``panels`` on
    the claim's own figure."""
    for fig in check.get("figures") or [figure]:
        for p in spec.figures[fig]["panels"]:
            if fig == figure and panels and p["id"] not in panels:
                continue
            yield fig, p


def _horizon(spec, p) -> int:
    return int(spec.experiments[p["experiment"]].horizon)


@band_case("composite_log_growth")
def log_growth_case(spec, claim, check, k, tmp):
    """C1's [R(T) - R(T/10)] / [R(T/10) - R(T/100)] = max_ratio - k s.e. in every panel. Per replication
    a = R(T) - R(T/10), b = R(T/10) - R(T/100); with a = rho b + e and mean(e) = 0 the ratio of the means is rho
    and its delta-method s.e. is se(e) / mean(b), so e of s.e. s mean(b) gives s.e. s."""
    s = 0.05
    rho = float(check.get("max_ratio", 1.5)) - k * s
    cells = {}
    ts = None
    for fig, p in _figure_panels(spec, check, claim["figure"], check.get("panels")):
        T = _horizon(spec, p)
        if ts is not None and ts[-1] != T:
            raise ValueError("the case writes one checkpoint grid: every panel needs the same horizon")
        ts = [T // 100, T // 10, T]
        b = 100.0 * (1.0 + 0.3 * centred_noise(N, seed=1))
        e = s * 100.0 * math.sqrt(N) * centred_noise(N, seed=2)
        r100 = 40.0 + 5.0 * centred_noise(N, seed=3)
        cells[(fig, p["id"])] = {check["algorithm"]: np.stack([r100, r100 + b, r100 + b + rho * b + e], axis=1)}
    return curves_context(spec, tmp, ts, cells)


@band_case("composite_beats_baseline")
def beats_baseline_case(spec, claim, check, k, tmp):
    """In every panel with a baseline, the baseline's final mean k s.e. of the difference above the algorithm's;
    the panel's other ARS-UCB variants (only counted) beside the algorithm."""
    rows = {}
    for fig, p in _figure_panels(spec, check, claim["figure"]):
        base = check["baselines"].get(p["experiment"])
        if base is None:
            continue
        T = _horizon(spec, p)
        r = rows.setdefault(fig, [])
        for a in p.get("algorithms", []):
            if a == base:
                r += curve_rows(p["id"], a, p["metric"], [T], 100.0 + k * SE, SE / math.sqrt(2), N)
            elif a == check["algorithm"] or a.startswith("ars"):
                r += curve_rows(p["id"], a, p["metric"], [T], 100.0, SE / math.sqrt(2), N)
    return context(spec, {fig: write_summary(tmp, fig, r) for fig, r in rows.items()})


def _leave_one_out_sd(x: np.ndarray) -> np.ndarray:
    """The sample s.d. (ddof=1) of ``x`` with each replication left out in turn."""
    return np.array([np.delete(x, i).std(ddof=1) for i in range(x.size)])


def _sd_below(q: float, z_rival: np.ndarray, z_mine: np.ndarray, k: float) -> float:
    """The default's s.d. ``sd`` such that q - sd (the rival's s.d. q minus the default's, both from unit-s.d. shapes
    ``z_rival`` and ``z_mine``) is k jackknife s.e. above 0: the jackknife s.e. (the leave-one-out values
    theta_i, sqrt((n - 1)/n sum (theta_i - mean)^2)) written here from its definition; bisection on sd (q - sd -
    k se(sd) decreases in sd)."""
    u, v = _leave_one_out_sd(z_rival), _leave_one_out_sd(z_mine)
    n = z_mine.size

    def gap(sd):
        theta = q * u - sd * v
        return (q - sd) - k * math.sqrt((n - 1) / n * float(np.sum((theta - theta.mean()) ** 2)))

    lo, hi = 0.0, 4.0 * q
    assert gap(lo) > 0 > gap(hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)


@band_case("composite_default_best")
def default_best_case(spec, claim, check, k, tmp):
    """Two scenarios, in every panel of the sweep. 'within': the default's final mean k s.e. inside (1 + within) x
    the best other variant's (the s.e. of (1 + within) best - default from the two curves as independent), its
    s.d. far the smallest. 'sd': the default 6 s.e. inside (1 + within) x the best, its s.d. k jackknife s.e. below
    the m-th smallest s.d. of the other compared variants (m = ceil(sd_rank_fraction x compared)): the others' s.d.s
    are q 2^(i - m) (i = 1, 2, ...: the m-th is q); the sweep's variants left out of ``compare`` far above all."""
    n = 200
    within = float(check.get("within", 0.10))
    frac = float(check.get("sd_rank_fraction", 0.5))
    sweep, algorithm = set(check["sweep"]), check["algorithm"]
    compare = check.get("compare")
    out = {}
    for scenario in ("within", "sd"):
        cells, T = {}, None
        for fig, p in _figure_panels(spec, check, claim["figure"]):
            algos = [a for a in p.get("algorithms", []) if a.startswith("ars")]
            if set(algos) != sweep or algorithm not in algos:
                continue
            T = _horizon(spec, p)
            compared = [a for a in algos if compare is None or a in compare]
            rivals = [a for a in compared if a != algorithm]
            m = math.ceil(frac * len(compared))
            q = 40.0
            shape = {a: centred_noise(n, seed=11 + i) for i, a in enumerate(algos)}
            sd = {a: q * 2.0 ** (i + 1 - m) for i, a in enumerate(rivals)}
            sd[algorithm] = q / 8.0 if scenario == "within" else _sd_below(q, shape[rivals[m - 1]], shape[algorithm],
                                                                            k if scenario == "sd" else SAFE)
            best = rivals[0]
            h = math.hypot((1.0 + within) * sd[best], sd[algorithm]) / math.sqrt(n)
            a_within = k if scenario == "within" else SAFE
            means = {best: 1000.0, algorithm: (1.0 + within) * 1000.0 - a_within * h}
            means.update({a: 3000.0 + 100.0 * i for i, a in enumerate(rivals[1:])})
            finals = {a: means[a] + sd[a] * shape[a] for a in compared}
            for i, a in enumerate(a for a in algos if a not in compared):
                finals[a] = 9000.0 + 100.0 * i + q * shape[a]
            assert all(finals[a].mean() > finals[best].mean() for a in algos if a not in (best, algorithm))
            cells[(fig, p["id"])] = {a: np.stack([0.5 * f, f], axis=1) for a, f in finals.items()}
        out[scenario] = curves_context(spec, tmp / scenario, [T // 2, T], cells)
    return out


def _half_slope_curves(T: int, slope1: np.ndarray, slope2: np.ndarray) -> np.ndarray:
    """(R, 2) curves at (T/2, T) with slope ``slope1`` over [0, T/2] and ``slope2`` over [T/2, T]."""
    half = T // 2
    return np.stack([slope1 * half, slope1 * half + slope2 * (T - half)], axis=1)


@band_case("composite_linear_vs_sublinear")
def linear_vs_sublinear_case(spec, claim, check, k, tmp):
    """C4's three comparisons per panel, one scenario each at k (the other two at +6 s.e.): the linear curve's
    second-half slope minus min_slope_ratio x its first-half slope (paired, s.e. s), the sub-linear curve's
    0.8 x first-half slope minus its second-half slope (paired, s.e. s: the project's sub-linear rule), and the
    linear curve's final mean minus the sub-linear one's (s.e. of the two final means as independent)."""
    r, s = float(check.get("min_slope_ratio", 0.5)), 1e-4
    figure = claim["figure"]
    out = {}
    for scenario, (a_lin, a_sub, a_below) in {"linear": (k, SAFE, SAFE), "sublinear": (SAFE, k, SAFE),
                                              "below": (SAFE, SAFE, k)}.items():
        cells, T = {}, None
        for p_id in check["panels"]:
            p = next(p for p in spec.figures[figure]["panels"] if p["id"] == p_id)
            T = _horizon(spec, p)
            half, rest = T // 2, T - T // 2
            l1 = 0.02 * (1.0 + 0.1 * centred_noise(N, seed=1))
            l2 = r * l1 + sample(a_lin * s, s, N, seed=2)
            s1_shape = 0.001 * centred_noise(N, seed=3)
            d_sub = sample(a_sub * s, s, N, seed=4)
            lin = _half_slope_curves(T, l1, l2)
            se_lin = lin[:, -1].std(ddof=1) / math.sqrt(N)
            # the sub-linear curve's final = half s1 + rest (0.8 s1 - d_sub): its s.e. does not depend on the mean
            # m of s1, so m is solved for the final difference at a_below s.e.
            shape_final = half * s1_shape + rest * (0.8 * s1_shape - d_sub)
            se_sub = shape_final.std(ddof=1) / math.sqrt(N)
            target = lin[:, -1].mean() - a_below * math.hypot(se_lin, se_sub)
            m = (target - shape_final.mean()) / (half + 0.8 * rest)
            s1 = m + s1_shape
            cells[(figure, p_id)] = {check["linear"]: lin,
                                     check["sublinear"]: _half_slope_curves(T, s1, 0.8 * s1 - d_sub)}
        out[scenario] = curves_context(spec, tmp / scenario, [T // 2, T], cells)
    return out


@band_case("composite_clw_slightly_better")
def clw_slightly_better_case(spec, claim, check, k, tmp):
    """C5's three comparisons per panel, one scenario each at k (the others at +6 s.e.; every curve's s.e.
    SE/sqrt(2)): CLW(d) below ARS-EXP3 ("better"), CLW(d) above (1 - max_margin) ARS-EXP3 ("only slightly"), and
    the misspecified CLWs above ARS-EXP3 (all of them at k: "at least one" holds when any does)."""
    m = float(check.get("max_margin", 0.25))
    figure, se = claim["figure"], SE / math.sqrt(2)
    h_diff, h_slight = math.hypot(se, se), math.hypot(se, (1.0 - m) * se)
    out = {}
    for scenario, (a_better, a_slight, a_mis) in {"better": (k, SAFE, SAFE), "slightly": (SAFE, k, SAFE),
                                                   "misspecified": (SAFE, SAFE, k)}.items():
        # CLW(d) = ARS - a_better h_diff = (1 - m) ARS + a_slight h_slight: solve for ARS
        ars = (a_better * h_diff + a_slight * h_slight) / m
        clw = ars - a_better * h_diff
        rows = []
        for p_id in check["panels"]:
            p = next(p for p in spec.figures[figure]["panels"] if p["id"] == p_id)
            T = _horizon(spec, p)
            rows += curve_rows(p_id, check["ars"], p["metric"], [T], ars, se, N)
            rows += curve_rows(p_id, check["clw_exact"], p["metric"], [T], clw, se, N)
            for a in check["clw_misspecified"]:
                rows += curve_rows(p_id, a, p["metric"], [T], ars + a_mis * h_diff, se, N)
        out[scenario] = context(spec, {figure: write_summary(tmp / scenario, figure, rows)})
    return out
