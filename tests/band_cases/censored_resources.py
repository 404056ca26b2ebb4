"""Band cases of the censored-resources paper's own checks (``experiments/censored_resources/checks.py``).

Every case writes per-replication finals (censored proportions, final regrets) or curves that put the check's
statistic ``k`` of its standard errors from the claim's own threshold, computed here from the statistic's
definition (a mean and its s.e. over repetitions; a paired difference and its paired s.e.; the delta-method s.e. of
a relative regret gap; the pooled t of a Brown-Forsythe test). The ground truth 1 - P_{i*}(tau*) of an experiment is
computed here too: the optimal pair from the paper's instances of the reference implementation (``reference.py``,
written apart from the build), its censoring probability P(C > tau* | R >= 0, C >= 0) by a quadrature of our own.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from banditrepro.experiments.censored_resources import reference as paper_reference
from banditrepro.simulation_output import SimulationOutput

from . import band_case, centred_noise, context, curve_rows, panel_of, write_shards, write_summary

#: repetitions of a synthetic experiment
N = 20
#: the claims' z (every check here defaults to 2 s.e.)
Z = 2.0
#: a comparison that must pass (or fail) whatever k is: this many s.e. clear of its threshold
SAFE = 6.0


def _as_list(x) -> list[str]:
    return [x] if isinstance(x, str) else list(x)


def _values(mean: float, se: float, seed: int) -> np.ndarray:
    """N per-repetition values whose mean is ``mean`` and whose standard error of the mean is ``se``."""
    return mean + se * math.sqrt(N) * centred_noise(N, seed)


def _finals(tmp, experiment: str, finals: dict[str, dict[str, np.ndarray]]) -> dict:
    """The shards of an experiment whose algorithms hold only finals (``algorithm -> {name: (N,)}``)."""
    outs = {a: SimulationOutput(np.array([1000]), {}, {k: np.asarray(v, dtype=float) for k, v in f.items()})
            for a, f in finals.items()}
    return {experiment: write_shards(tmp, experiment, outs)}


def censoring_at_optimum(spec, experiment: str) -> float:
    """1 - P_{i*}(tau*): the probability that the optimal arm's consumption exceeds the optimal limit (the paper's
    optimal pair: argmax of nu, eq. (2), first in arm-major order). (R, C) is the bivariate Gaussian of App. E.2
    conditioned on R >= 0 and C >= 0 (digest A1; sigma a variance, A2), or R ~ Beta independent of C ~ Exp(rate)."""
    arms, taus, lam, _, cost = paper_reference.SETTINGS[experiment].setting(spec.experiments[experiment])
    nu = paper_reference.ground_truth(arms, taus, lam, cost)
    arm, j = np.unravel_index(int(np.argmax(nu)), nu.shape)
    tau = float(taus[j])
    if arms.family == paper_reference.BETA_EXP:
        return math.exp(-float(arms.params[arm][2]) * tau)
    if arms.family != paper_reference.GAUSSIAN:
        raise ValueError(f"{experiment}: no censoring probability here for arm family {arms.family}")
    mu_r, mu_c, sd, rho, _ = (float(v) for v in arms.params[arm])
    cond = sd * math.sqrt(1.0 - rho * rho)  # C | R = r ~ N(mu_c + rho (r - mu_r), sd^2 (1 - rho^2))

    def c_above(r: float, level: float) -> float:  # P(C > level | R = r)
        return float(special.ndtr((mu_c + rho * (r - mu_r) - level) / cond))

    def over_r(f) -> float:  # integral over r >= 0 of the density of R times f(r)
        return integrate.quad(lambda r: math.exp(-0.5 * ((r - mu_r) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
                              * f(r), 0.0, math.inf, limit=200, epsabs=1e-14, epsrel=1e-12)[0]

    return over_r(lambda r: c_above(r, tau)) / over_r(lambda r: c_above(r, 0.0))


# --- censored proportions against a number ----------------------------------------------------------------------


def _within(center: float, tolerance: float, k: float, side: float) -> float:
    """A mean whose distance to ``center`` is ``tolerance - k se`` (se = tolerance / 10), on ``side`` of it."""
    return center + side * (tolerance - k * tolerance / 10)


def _side(center: float) -> float:
    """Above the centre where there is room below 1 (proportions), else below."""
    return 1.0 if center < 0.5 else -1.0


@band_case("censored_cell")
def censored_cell_case(spec, claim, check, k, tmp):
    """|mean - target| = tolerance - k se, se = tolerance / 10 (target: ``center`` if given, else the paper's)."""
    target = check["paper"] if check.get("center") is None else check["center"]
    tol = float(check["tolerance"])
    x = _values(_within(target, tol, k, _side(target)), tol / 10, seed=1)
    return context(spec, shards=_finals(tmp, check["experiment"], {check["algorithm"]: {"censored_proportion": x}}))


@band_case("censored_at_most")
def censored_at_most_case(spec, claim, check, k, tmp):
    """mean = limit - k se, se = limit / 10."""
    limit = float(check["limit"])
    x = _values(limit - k * limit / 10, limit / 10, seed=1)
    return context(spec, shards=_finals(tmp, check["experiment"], {check["algorithm"]: {"censored_proportion": x}}))


@band_case("near_truth")
def near_truth_case(spec, claim, check, k, tmp):
    """|mean - (1 - P*)| = tolerance - k se, se = tolerance / 10."""
    truth, tol = censoring_at_optimum(spec, check["experiment"]), float(check["tolerance"])
    x = _values(_within(truth, tol, k, _side(truth)), tol / 10, seed=1)
    return context(spec, shards=_finals(tmp, check["experiment"], {check["algorithm"]: {"censored_proportion": x}}))


@band_case("all_near_truth")
def all_near_truth_case(spec, claim, check, k, tmp):
    """Each algorithm's |mean - (1 - P*)| = tolerance - k se, se = tolerance / 10, alternately above and below."""
    truth, tol = censoring_at_optimum(spec, check["experiment"]), float(check["tolerance"])
    finals = {a: {"censored_proportion": _values(_within(truth, tol, k, (-1.0) ** i), tol / 10, seed=1 + i)}
              for i, a in enumerate(_as_list(check["algorithms"]))}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


@band_case("censored_above_truth")
def censored_above_truth_case(spec, claim, check, k, tmp):
    """Each algorithm's mean - (1 - P*) = margin + k se, se = margin / 10."""
    truth, margin = censoring_at_optimum(spec, check["experiment"]), float(check["margin"])
    finals = {a: {"censored_proportion": _values(truth + margin + k * margin / 10, margin / 10, seed=1 + i)}
              for i, a in enumerate(_as_list(check["algorithms"]))}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


# --- censored proportions against each other, paired by repetition ------------------------------------------------

#: the paired s.e. of a difference of censored proportions; each proportion alone spreads several times more
PAIRED_SE = 0.01


def _base(mean: float = 0.5, seed: int = 100) -> np.ndarray:
    return _values(mean, 5 * PAIRED_SE, seed)


@band_case("censored_close")
def censored_close_case(spec, claim, check, k, tmp):
    """a - b per repetition: mean tolerance - k se, paired s.e. se = tolerance / 10."""
    tol = float(check["tolerance"])
    b = _base(0.3)
    a = b + _values(tol - k * tol / 10, tol / 10, seed=1)
    return context(spec, shards=_finals(tmp, check["experiment"], {check["a"]: {"censored_proportion": a},
                                                                    check["b"]: {"censored_proportion": b}}))


@band_case("censored_lowest")
def censored_lowest_case(spec, claim, check, k, tmp):
    """other - algorithm per repetition: mean k se, paired s.e. se, for every other."""
    low = _base(0.3)
    finals = {check["algorithm"]: {"censored_proportion": low}}
    for i, o in enumerate(_as_list(check["others"])):
        finals[o] = {"censored_proportion": low + _values(k * PAIRED_SE, PAIRED_SE, seed=1 + i)}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


@band_case("censored_order")
def censored_order_case(spec, claim, check, k, tmp):
    """Each next - previous of the order per repetition: mean k se, paired s.e. se."""
    order = _as_list(check["order"])
    x = _base(0.3)
    finals = {order[0]: {"censored_proportion": x}}
    for i, a in enumerate(order[1:]):
        x = x + _values(k * PAIRED_SE, PAIRED_SE, seed=1 + i)
        finals[a] = {"censored_proportion": x}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


# --- final regrets ---------------------------------------------------------------------------------------------------

#: mean final regret of a synthetic algorithm, and the s.e. of a paired difference of two
REGRET, REGRET_SE = 50.0, 1.0


def _regret_beside(check, k, tmp, spec, sign: float):
    """other - algorithm per repetition: mean ``sign`` k se for the first other, the decisive one; every other
    other ``-sign`` SAFE se (against the claim), so the 'at least one' claim is decided by the first."""
    x = _values(REGRET, 10 * REGRET_SE, seed=100)
    finals = {check["algorithm"]: {"final_regret": x}}
    for i, o in enumerate(_as_list(check["others"])):
        d = sign * (k if i == 0 else -SAFE) * REGRET_SE
        finals[o] = {"final_regret": x + _values(d, REGRET_SE, seed=1 + i)}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


@band_case("regret_not_worst")
def regret_not_worst_case(spec, claim, check, k, tmp):
    """The algorithm below the first other by k paired s.e., above every other other by SAFE."""
    return _regret_beside(check, k, tmp, spec, +1.0)


@band_case("regret_not_best")
def regret_not_best_case(spec, claim, check, k, tmp):
    """The algorithm above the first other by k paired s.e., below every other other by SAFE."""
    return _regret_beside(check, k, tmp, spec, -1.0)


#: the runner-up's mean final regret, the s.e. of each experiment's relative gap, the smaller gap
RUNNER_UP, GAP_SE, SMALL_GAP = 100.0, 0.02, 0.3


def _gap_finals(algorithm: str, others: list[str], gap: float, seed: int) -> dict:
    """Final regrets of one experiment whose relative gap (runner-up - algorithm) / runner-up is ``gap`` with
    delta-method s.e. GAP_SE. With a = (1 - gap) b + e (mean(e) = 0), mean(a) / mean(b) = 1 - gap and the
    linearised ratio per repetition, (a - (1 - gap) b) / mean(b), is e / mean(b): its s.e. is se(e) / mean(b).
    The runner-up is the first other; every other other has twice its regret."""
    b = _values(RUNNER_UP, 0.1 * RUNNER_UP, seed)
    finals = {algorithm: {"final_regret": (1.0 - gap) * b + _values(0.0, GAP_SE * RUNNER_UP, seed + 1)}}
    for i, o in enumerate(others):
        finals[o] = {"final_regret": b if i == 0 else 2.0 * b + _values(0.0, 0.1 * RUNNER_UP, seed + 2 + i)}
    return finals


@band_case("relative_gap_larger")
def relative_gap_larger_case(spec, claim, check, k, tmp):
    """Each larger panel's gap = the smaller panel's + k s.e. of the difference (independent experiments:
    hypot of the two gaps' s.e.)."""
    figure, others = claim["figure"], _as_list(check["others"])
    big = SMALL_GAP + k * math.hypot(GAP_SE, GAP_SE)
    shards = {}
    for i, panel in enumerate([check["smaller_panel"], *_as_list(check["larger_panels"])]):
        experiment = panel_of(spec, figure, panel)["experiment"]
        gap = SMALL_GAP if i == 0 else big
        shards.update(_finals(tmp, experiment, _gap_finals(check["algorithm"], others, gap, seed=10 * (i + 1))))
    return context(spec, shards=shards)


@band_case("advantage_grows")
def advantage_grows_case(spec, claim, check, k, tmp):
    """The large experiment's gap = the small one's + k s.e. of the difference (hypot of the two s.e.)."""
    others = _as_list(check["others"])
    large = SMALL_GAP + k * math.hypot(GAP_SE, GAP_SE)
    shards = _finals(tmp, check["small_experiment"], _gap_finals(check["algorithm"], others, SMALL_GAP, seed=10))
    shards.update(_finals(tmp, check["large_experiment"], _gap_finals(check["algorithm"], others, large, seed=20)))
    return context(spec, shards=shards)


@band_case("spread_larger")
def spread_larger_case(spec, claim, check, k, tmp):
    """Brown-Forsythe: the pooled two-sample t statistic of the absolute deviations from each sample's median is
    k for the larger against each smaller one. Each sample is centre ± h (N/2 positive h), so its median is the
    centre and its absolute deviations are h twice; the larger's h are the smaller's shifted by
    k sd(deviations) sqrt(2 / N) (equal variances: the pooled sd is that sd). Not a 2-s.e. band: the check's
    threshold is a one-sided test at ``level`` (default 0.01, t ~ 2.4 at 2N - 2 = 38 df), which k = ±1 stays
    inside and k = ±3 leaves."""
    half = N // 2
    h = 2.0 + 0.5 * centred_noise(half, seed=3)
    dev = np.concatenate([h, h])
    shift = k * float(np.std(dev, ddof=1)) * math.sqrt(2.0 / N)
    larger = check["larger"]
    smaller = _as_list(check.get("smaller", check.get("others", [])))
    finals = {larger: {"final_regret": np.concatenate([REGRET + (h + shift), REGRET - (h + shift)])}}
    for i, s in enumerate(smaller):
        perm = np.random.default_rng(50 + i).permutation(N)  # the same deviations, in another order
        centre = REGRET + 10.0 * (i + 1)
        finals[s] = {"final_regret": np.concatenate([centre + h, centre - h])[perm]}
    return context(spec, shards=_finals(tmp, check["experiment"], finals))


# --- curves of a figure --------------------------------------------------------------------------------------------

#: the s.e. of the difference of two synthetic curves at a step (each curve's s.e. is SE / sqrt 2)
SE = 1.0


@band_case("above_throughout")
def above_throughout_case(spec, claim, check, k, tmp):
    """algorithm - other = k s.e. of the difference at every recorded t >= t_min_fraction T (independent curves:
    hypot of their s.e.), for every other; a step before t_min_fraction T (when there is one) has the algorithm
    SAFE s.e. below, which the claim does not look at."""
    figure, panel = claim["figure"], check["panel"]
    metric = panel_of(spec, figure, panel)["metric"]
    T = 1000
    ts = np.array([100, 250, 500, 750, T])
    frac = float(check.get("t_min_fraction", 0.0))
    if frac * T > 10:
        ts = np.concatenate([[10], ts[ts >= frac * T]])
    level = 10.0 + 0.01 * ts  # a rising curve
    diff = np.where(ts >= frac * T, k * SE, -SAFE * SE)
    rows = curve_rows(panel, check["algorithm"], metric, ts, level + diff, SE / math.sqrt(2), N)
    for o in _as_list(check["others"]):
        rows += curve_rows(panel, o, metric, ts, level, SE / math.sqrt(2), N)
    return context(spec, {figure: write_summary(tmp, figure, rows)})


@band_case("paired_relative_difference_below")
def paired_relative_difference_below_case(spec, claim, check, k, tmp):
    """At T: (a - b) per repetition over |mean(b)| = max_relative - k se, its paired s.e. se = max_relative / 10
    (a below b: the relative difference is an absolute value)."""
    figure, panel = claim["figure"], check["panel"]
    p = panel_of(spec, figure, panel)
    ts = np.array([100, 500, 1000])
    rel, se = float(check["max_relative"]), float(check["max_relative"]) / 10
    mb = 200.0
    b = _values(mb, 0.05 * mb, seed=1)
    a = b - _values((rel - k * se) * mb, se * mb, seed=2)
    ramp = ts / ts[-1]  # curves rising to their values at T
    curves = {check["a"]: a[:, None] * ramp, check["b"]: b[:, None] * ramp}
    outs = {name: SimulationOutput(ts, {p["metric"]: c}) for name, c in curves.items()}
    rows = []
    for name, c in curves.items():
        rows += curve_rows(panel, name, p["metric"], ts, c.mean(0), c.std(0, ddof=1) / math.sqrt(N), N)
    return context(spec, {figure: write_summary(tmp, figure, rows)},
                   {p["experiment"]: write_shards(tmp, p["experiment"], outs)})
