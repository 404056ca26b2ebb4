"""The statistics guard (report/statistics_guard.py, each paper's STATS_reference claim) and its independent
reference computation (report/statistics_reference.py), issue 39 deliverable 4.

Three kinds of tests: the reference is independent of the production statistics (its imports); the reference
and the production helpers agree with hand computations and, for the delta-method s.e., with a bootstrap; and the
guard passes on a correct build and FAILS on each plausible slip of a shared statistic, planted by monkeypatch
into the production code (an s.e. with n for n - 1, a mean over the wrong axis, a point one checkpoint off, a
delta method without its covariance term, a least-squares slope on uncentred x, Brown-Forsythe centred on the
mean, a Bonferroni band that forgets the two sides, a shard block cut off by one).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from shard_context import shard_context

from banditrepro import portable
from banditrepro.experiments import aggregate
from banditrepro.experiments.censored_resources import checks as censored_checks
from banditrepro.experiments.penalized_fairness import checks as fair_checks
from banditrepro.experiments.satisficing_ucl import checks as ucl_checks
from banditrepro.experiments.spec import load_paper
from banditrepro.report import checks, sequential
from banditrepro.report import statistics_reference as ref
from banditrepro.report.context import CurvePoint, ResultsContext
from banditrepro.report.statistics_guard import Audit, audit_grids, audit_sequential, statistics_reference
from banditrepro.simulation_output import SimulationOutput

REPO = Path(__file__).resolve().parents[1]
REFERENCE_SOURCE = REPO / "src" / "banditrepro" / "report" / "statistics_reference.py"

# --- independence -------------------------------------------------------------------------------------------------

#: what the reference may import: the standard library's math, the array and statistics libraries, and the
#: verdict words (constants, no statistics)
ALLOWED_IMPORTS = {"__future__", "math", "numpy", "pandas", "scipy", "banditrepro.report.vocabulary"}


def _imports(path: Path) -> set[str]:
    """Every module a source file imports, relative imports resolved against banditrepro.report."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ["banditrepro", "report"][: 3 - node.level] if node.level else []
            if node.module:
                found.add(".".join(base + [node.module]))
            else:  # from .. import portable: each name is a module
                found |= {".".join(base + [a.name]) for a in node.names}
    return found


def test_reference_imports_no_production_statistics():
    imported = _imports(REFERENCE_SOURCE)
    assert imported, "the import scan found nothing: it no longer reads the module"
    outside = {m for m in imported if not any(m == a or m.startswith(a + ".") for a in ALLOWED_IMPORTS)}
    assert not outside, f"statistics_reference.py imports {sorted(outside)}: it must compute apart from production"


def test_import_scan_sees_a_production_import(tmp_path):
    """The scan above can fail: a reference that imported the production helpers would be caught."""
    bad = tmp_path / "statistics_reference.py"
    bad.write_text(REFERENCE_SOURCE.read_text(encoding="utf-8") + "\nfrom .checks import mean_se\n"
                   "from .. import portable\nimport banditrepro.simulation_output\n", encoding="utf-8")
    imported = _imports(bad)
    assert {"banditrepro.report.checks", "banditrepro.portable", "banditrepro.simulation_output"} <= imported


# --- the reference and the production helpers by hand -------------------------------------------------------------


def test_mean_se_by_hand():
    # 1, 2, 3, 4: mean 2.5, sample variance 5/3, s.e. sqrt(5/3) / 2
    mean, se, n = ref.mean_se([1.0, 2.0, 3.0, 4.0])
    assert (mean, n) == (2.5, 4) and se == pytest.approx(math.sqrt(5 / 3) / 2, rel=1e-15)
    assert checks.mean_se(np.array([1.0, 2.0, 3.0, 4.0])) == pytest.approx((2.5, math.sqrt(5 / 3) / 2), rel=1e-15)
    assert math.isnan(ref.mean_se([3.0])[1]) and math.isnan(checks.mean_se(np.array([3.0]))[1])


def test_summary_by_hand():
    # two replications of a two-step curve: columns (1, 3) and (2, 6)
    values = np.array([[1.0, 2.0], [3.0, 6.0]])
    mean, se, n = aggregate.summarize(values)
    table = ref.column_summary(values)
    assert list(mean) == [2.0, 4.0] == list(table["mean"]) and n == 2 and list(table["n"]) == [2, 2]
    assert list(se) == pytest.approx([1.0, 2.0]) and list(table["se"]) == pytest.approx([1.0, 2.0])


def test_ratio_se_by_hand():
    # a = (1, 3), b = (2, 2): ratio 2 / 2 = 1; linearisation (a - b) / 2 = (-0.5, 0.5), s.e. 0.5
    ratio, se, _ = ref.ratio_se([1.0, 3.0], [2.0, 2.0])
    assert ratio == 1.0 and se == pytest.approx(0.5, rel=1e-15)
    assert checks.paired_ratio_se(np.array([1.0, 3.0]), np.array([2.0, 2.0])) == pytest.approx((1.0, 0.5), rel=1e-15)
    # a = b: the ratio is exactly 1 in every resample, and the covariance term cancels the variances
    x = np.array([1.0, 4.0, 2.0, 8.0])
    assert checks.paired_ratio_se(x, x)[1] == pytest.approx(0.0, abs=1e-15) and ref.ratio_se(x, x)[1] == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_ratio_se_agrees_with_production(seed):
    rng = np.random.default_rng(seed)
    b = rng.gamma(3.0, 2.0, size=50)
    a = 0.7 * b + rng.normal(0.0, 0.5, size=50)
    ratio, se, terms = ref.ratio_se(a, b)
    p_ratio, p_se = checks.paired_ratio_se(a, b)
    assert p_ratio == pytest.approx(ratio, rel=1e-12)
    assert p_se**2 == pytest.approx(se**2, abs=1e-12 * terms)


def _bootstrap_ratio_se(a, b, draws: int, seed: int) -> float:
    """The sd of mean(a*)/mean(b*) over bootstrap resamples of the pairs."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(draws, a.size))
    return float(np.std(a[idx].mean(axis=1) / b[idx].mean(axis=1), ddof=1))


def test_delta_method_se_against_a_bootstrap():
    """The delta-method s.e. of a paired ratio agrees with a bootstrap of the pairs (within 10 % at n = 400,
    B = 4000: the bootstrap's own sd is about 1 %), and the slip that leaves out the covariance term does not
    (strongly correlated pairs, as two algorithms on common random numbers are)."""
    rng = np.random.default_rng(39)
    b = rng.gamma(4.0, 25.0, size=400)  # final regrets of one algorithm
    a = 0.8 * b + rng.normal(0.0, 5.0, size=400)  # a second algorithm on the same reward draws
    boot = _bootstrap_ratio_se(a, b, 4000, 1)
    ratio, se = checks.paired_ratio_se(a, b)
    assert se == pytest.approx(boot, rel=0.10)
    assert ref.ratio_se(a, b)[1] == pytest.approx(boot, rel=0.10)
    ma, mb = a.mean(), b.mean()
    no_covariance = abs(ratio) * math.sqrt((a.var(ddof=1) / ma**2 + b.var(ddof=1) / mb**2) / a.size)
    assert no_covariance > 3 * boot


def test_jackknife_se_by_hand_and_against_production():
    """The jackknife s.e. of a mean is the s.e. of the mean: x = (1, 2, 3, 6), sd 2.1602, s.e. 1.0801. The
    reference (pseudo-values) and production (leave-one-out spread) agree on a nonlinear statistic too, and the
    slip of issue 39's mutant fairness_jackknife_se_of_the_deletes (sd / sqrt(n) of the leave-one-out values, a
    band n - 1 times too narrow) does not."""
    x = np.array([1.0, 2.0, 3.0, 6.0])
    expected = float(np.std(x, ddof=1) / math.sqrt(x.size))
    assert ref.jackknife_se(lambda keep: x[keep].mean(), x.size) == pytest.approx(expected, rel=1e-14)
    assert checks.jackknife_se(lambda keep: x[keep].mean(), x.size) == pytest.approx(expected, rel=1e-14)
    assert math.isnan(ref.jackknife_se(lambda keep: x[keep].mean(), 1))
    rng = np.random.default_rng(39)
    y = rng.gamma(2.0, 3.0, size=(30, 6)).cumsum(axis=1)  # 30 replications of six arms' pulls
    grid = np.arange(1.0, 7.0)

    def r2(keep):
        return ref.line_fit(grid, y[keep].mean(axis=0))[2]

    reference = ref.jackknife_se(r2, 30)
    assert checks.jackknife_se(r2, 30) == pytest.approx(reference, rel=1e-10)
    loo = np.array([r2(np.arange(30) != i) for i in range(30)])
    assert np.std(loo, ddof=1) / math.sqrt(30) == pytest.approx(reference / 29, rel=1e-10)


def test_brown_forsythe_by_hand():
    """Levene's test with the median as centre on two samples is the pooled t-test of the absolute deviations
    squared: the production one-sided p (t distribution) and the reference (scipy's Levene, halved) agree."""
    rng = np.random.default_rng(7)
    for _ in range(5):
        x, y = rng.standard_t(3, size=40) * 3.0, rng.standard_t(3, size=30)
        p_more, p_less = censored_checks.brown_forsythe_greater(x, y)
        r_more, r_less = ref.brown_forsythe(x, y)
        assert (p_more, p_less) == pytest.approx((r_more, r_less), rel=ref.P_RTOL)
        assert r_more < 0.5 < r_less  # x spreads more
    assert ref.brown_forsythe([1.0, 1.0], [2.0, 2.0]) == (1.0, 1.0) == censored_checks.brown_forsythe_greater(
        np.array([1.0, 1.0]), np.array([2.0, 2.0]))


def test_log_fit_by_hand():
    t = np.array([1.0, math.e, math.e**2, math.e**3])
    a, b, r2 = ref.log_fit(t, 2.0 * np.log(t) + 1.0)
    assert (a, b, r2) == pytest.approx((2.0, 1.0, 1.0), rel=1e-12)
    assert portable.linear_fit(np.log(t), 2.0 * np.log(t) + 1.0) == pytest.approx((2.0, 1.0), rel=1e-12)


@pytest.mark.parametrize("grid,horizon", [({"every": 1}, 50), ({"every": 10}, 5000), ({"every": 7}, 50),
                                          ({"points": 60, "spacing": "log"}, 100000),
                                          ({"points": 200, "spacing": "linear"}, 1000), ({"at": [5, 1, 80, 9]}, 60)])
def test_checkpoint_grids_agree(grid, horizon):
    from banditrepro.simulation_output import checkpoint_grid

    assert np.array_equal(checkpoint_grid(horizon, grid), ref.checkpoints(horizon, grid))


def test_sequential_band_by_hand():
    # up to 4x: L = 3, alpha_0 = 2 (1 - Phi(2)) = 0.0455; each extra look at Phi^-1(1 - 0.0455 / 4) = 2.2776, rounded up
    looks, alpha, z = ref.sequential_band(4, 2.0)
    assert looks == 3 and alpha == pytest.approx(0.0455002639, rel=1e-9) and z == 2.278
    assert ref.sequential_band(1, 2.0) == (1, pytest.approx(0.0455002639, rel=1e-9), 2.0)
    assert ref.sequential_band(2, 2.0)[2] == 2.0  # one extra look: the band of look 0, not one 1e-3 wider
    rule = sequential.SequentialRule(4, 2.0)
    assert (rule.looks, rule.z_extra) == (3, 2.278)
    assert ref.extra_blocks(10, 40, 15) == [(10, 20), (20, 35), (35, 40)] == sequential.extra_blocks(10, 40, 15)


# --- the guard on a built figure ----------------------------------------------------------------------------------

PAPER, EXPERIMENT, FIGURES = "satisficing_ucl", "mean_reward", ["fig1", "fig2", "fig3"]


@pytest.fixture(scope="module")
def ucl_shard(tmp_path_factory):
    """satisficing_ucl's fig1-3 experiment at smoke scale (24 replications of T = 400), one shard."""
    spec = load_paper(PAPER, "smoke", REPO)
    folder = tmp_path_factory.mktemp("stats_guard")
    shard_context(spec, EXPERIMENT, folder, n=spec.experiments[EXPERIMENT].replications)
    return spec, folder / f"{EXPERIMENT}.npz"


def _built(spec, shard) -> ResultsContext:
    """A context over the shard whose figures are summarized now, by the (possibly patched) production code."""
    ctx = ResultsContext(spec, shards={EXPERIMENT: [shard]})
    for figure in FIGURES:
        summary, reference = aggregate.summarize_figure(spec, figure, {EXPERIMENT: ctx.replications(EXPERIMENT)})
        ctx.use_summary(figure, summary, reference)
    return ctx


def _guard(ctx):
    return statistics_reference(ctx, FIGURES[-1], figures=FIGURES)


def test_guard_passes_on_the_production_statistics(ucl_shard):
    result = _guard(_built(*ucl_shard))
    assert result.verdict == "reproduced", result.measured
    assert result.measured.startswith("all ") and "no probe" not in result.measured
    # it compared every kind of statistic these figures' headline claims read
    for kind in ("summary rows", "points", "checkpoint grids", "means and s.e.", "paired ratios", "fits",
                 "printed numbers", "verdicts", "sequential rule"):
        assert f"{kind} " in result.measured, (kind, result.measured)
    spec = ucl_shard[0]
    headline = sum(c["figure"] in FIGURES and c["kind"] == "headline" for c in spec.claims)
    assert headline >= 5 and f"covering the statistics of {headline} headline claims" in result.measured


def _summarize_n_not_n_minus_1(values):
    n = values.shape[0]
    return values.mean(axis=0), values.std(axis=0, ddof=0) / np.sqrt(n), n


def _summarize_over_wrong_axis(values):
    n = values.shape[0]
    return values.mean(axis=1), values.std(axis=1, ddof=1) / np.sqrt(n), n


def _point_one_checkpoint_late(self, figure, panel, algorithm, t=None, metric=None):
    c = self.curve(figure, panel, algorithm, metric)
    i = len(c) - 1 if t is None else min(int(np.searchsorted(c.t.values, t, side="right")), len(c) - 1)
    row = c.iloc[i]
    return CurvePoint(float(row["mean"]), float(row["se"]), int(row["n"]), int(row["t"]))


def _mean_se_n_not_n_minus_1(x):
    return float(x.mean()), float(x.std(ddof=0) / math.sqrt(x.size))


def _ratio_without_covariance(a, b):
    ma, mb, n = float(a.mean()), float(b.mean()), a.size
    ratio = ma / mb if mb != 0 else math.inf
    if n < 2 or mb == 0 or ma == 0:
        return ratio, math.nan
    rel_var = (portable.covariance(a, a) / ma**2 + portable.covariance(b, b) / mb**2) / n
    return ratio, abs(ratio) * math.sqrt(rel_var)


def _linear_fit_uncentred_denominator(x, y):
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / (x * x).sum())
    return slope, float(y.mean() - slope * x.mean())


def _increment_from_the_checkpoint_before(ctx, figure, panel, algorithm, t_from, metric=None):
    ts, curve = checks.per_replication(ctx, figure, panel, algorithm, metric)
    j = max(int(np.searchsorted(ts, t_from)) - 1, 0)
    m, se = checks.mean_se(curve[:, -1] - curve[:, j])
    return m, se, ts[-1], ts[j]


# (what is patched, the slip, what the guard's measured text must then name)
GUARD_SLIPS = {
    "summary s.e. with n for n - 1": (aggregate, "summarize", _summarize_n_not_n_minus_1, "summary s.e."),
    "summary mean over the wrong axis": (aggregate, "summarize", _summarize_over_wrong_axis, "summary"),
    "point read one checkpoint late": (ResultsContext, "point", _point_one_checkpoint_late, "point at t="),
    "paired s.e. with n for n - 1": (checks, "mean_se", _mean_se_n_not_n_minus_1, "paired difference s.e."),
    "delta method without its covariance term": (ucl_checks, "paired_ratio_se", _ratio_without_covariance,
                                                 "delta-method variance"),
    "log-growth slope on uncentred x": (portable, "linear_fit", _linear_fit_uncentred_denominator, "slope on ln t"),
    "rise from the checkpoint before T/2": (ucl_checks, "_increment", _increment_from_the_checkpoint_before,
                                            "rise from t="),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the wrong-axis summary leaves empty curves to fit
@pytest.mark.parametrize("slip", list(GUARD_SLIPS))
def test_guard_fails_on_a_slip(ucl_shard, monkeypatch, slip):
    owner, name, patched, named = GUARD_SLIPS[slip]
    monkeypatch.setattr(owner, name, patched)
    result = _guard(_built(*ucl_shard))
    assert result.verdict == "not_reproduced", result.measured
    assert "DISAGREE" in result.measured and named in result.measured, result.measured


def test_guard_fails_on_a_checkpoint_grid_one_step_off(monkeypatch):
    """A grid {every: k} counted from 0 (k - 1, 2k - 1, ...): the experiment records one step before each
    checkpoint the paper's figures are drawn at."""
    from banditrepro.experiments import spec as spec_module

    def grid_from_zero(horizon, grid):
        grid = grid or {"every": 1}
        if "every" not in grid:
            return ref.checkpoints(horizon, grid)
        k = int(grid["every"])
        steps = np.arange(k - 1, horizon, k)
        return np.unique(np.append(steps[steps >= 1], horizon)).astype(np.int64)

    spec = load_paper(PAPER, "smoke", REPO)
    audit = Audit()
    audit_grids(SimpleNamespace(spec=spec), audit, ["mean_reward_T5000"])  # {every: 10}
    assert not audit.failures and audit.counts["checkpoint grids"] == 1
    monkeypatch.setattr(spec_module, "checkpoint_grid", grid_from_zero)
    audit = Audit()
    # read_paper, not load_paper: the slip is in memory, which the spec cache (keyed by the files) cannot see
    audit_grids(SimpleNamespace(spec=spec_module.read_paper(PAPER, "smoke", REPO)), audit, ["mean_reward_T5000"])
    assert audit.failures and "mean_reward_T5000 checkpoints" in audit.failures[0]


SEQUENTIAL_SLIPS = {
    # Bonferroni over the extra looks without the two sides: Phi^-1(1 - alpha_0 / (L - 1))
    "one-sided extra band": (sequential.SequentialRule, "z_extra", property(
        lambda self: self.z_first if self.looks == 1 else math.ceil(
            1000 * sequential.NormalDist().inv_cdf(1.0 - self.alpha_first / (self.looks - 1))) / 1000), "bands"),
    "one look too many": (sequential.SequentialRule, "looks", property(
        lambda self: int(math.log2(self.max_factor)) + 2), "looks"),
    # blocks as inclusive [first, last] where the shard files take [start, stop): one replication short each
    "shard blocks with an inclusive stop": (sequential, "extra_blocks", lambda n0, n, size: [
        (a, b - 1) for a, b in ref.extra_blocks(n0, n, size)], "extra shards"),
}


@pytest.mark.parametrize("slip", list(SEQUENTIAL_SLIPS))
def test_sequential_audit_fails_on_a_slip(monkeypatch, slip):
    spec = load_paper(PAPER, "smoke", REPO)
    audit = Audit()
    audit_sequential(spec, audit)
    assert not audit.failures and audit.counts["sequential rule"] > 10
    owner, name, patched, named = SEQUENTIAL_SLIPS[slip]
    monkeypatch.setattr(owner, name, patched)
    audit = Audit()
    audit_sequential(spec, audit)
    assert audit.failures and any(named in f for f in audit.failures), audit.failures


# --- Brown-Forsythe through censored_resources' probe (claim check spread_larger) ----------------------------------


def _spread_ctx(x, y):
    outs = {a: SimulationOutput(checkpoints=np.array([100]), curves={}, finals={"final_regret": np.asarray(v, dtype=float)})
            for a, v in (("wide", x), ("narrow", y))}
    return SimpleNamespace(replications=lambda experiment: outs)


def _levene_mean_centred(x, y):
    """Levene's original test (centred on the mean): not Brown-Forsythe, and not robust to heavy tails."""
    from scipy import stats

    res = stats.ttest_ind(np.abs(x - np.mean(x)), np.abs(y - np.mean(y)), equal_var=True)
    t, df = float(res.statistic), len(x) + len(y) - 2
    return float(stats.t.sf(t, df)), float(stats.t.cdf(t, df))


def _spread_audit(ctx) -> Audit:
    from banditrepro.report.statistics_guard import PROBES

    args = {"experiment": "e", "larger": "wide", "smaller": ["narrow"], "level": 0.01}
    audit = Audit()
    PROBES["spread_larger"](ctx, audit, censored_checks.spread_larger(ctx, **args), **args)
    return audit


def test_brown_forsythe_probe_fails_on_a_mean_centred_test(monkeypatch):
    rng = np.random.default_rng(3)
    ctx = _spread_ctx(rng.standard_t(2, size=60) * 4.0, rng.standard_t(2, size=60))
    audit = _spread_audit(ctx)
    assert not audit.failures and audit.counts["Brown-Forsythe p-values"] == 2 and audit.counts["verdicts"] == 1
    monkeypatch.setattr(censored_checks, "brown_forsythe_greater", _levene_mean_centred)
    audit = _spread_audit(ctx)
    assert audit.failures and all("e wide vs narrow" in f for f in audit.failures), audit.failures


# --- trade-off dominance through penalized_fairness' probe (claim check fair_tradeoff_dominance) ------------------


def _tradeoff_ctx():
    """20 replications of three algorithms' (U, W) over 8 eta values: HT-UCB above both baselines, LFG's last
    three etas all fair (U = 0, a tie of three points with different totals, as at eta near 1)."""
    rng = np.random.default_rng(41)
    u_mean = {"ht_ucb": np.linspace(40.0, 0.0, 8), "flearn": np.linspace(55.0, 0.0, 8),
              "lfg": np.array([60.0, 45.0, 30.0, 15.0, 5.0, 0.0, 0.0, 0.0])}
    w_mean = {"ht_ucb": 5000.0 - 8.0 * (40.0 - u_mean["ht_ucb"]), "flearn": 4990.0 - 9.0 * (55.0 - u_mean["flearn"]),
              "lfg": np.array([4995.0, 4870.0, 4740.0, 4600.0, 4500.0, 4420.0, 4300.0, 4200.0])}
    outs = {}
    for a in u_mean:
        u = np.maximum(u_mean[a] + rng.normal(0.0, 2.0, size=(20, 8)), 0.0)
        u[:, u_mean[a] == 0.0] = 0.0  # a fair run stays fair in every replication
        w = w_mean[a] + rng.normal(0.0, 15.0, size=(20, 8))
        outs[a] = SimulationOutput(checkpoints=np.arange(1, 9), curves={"W": w, "U": u}, finals={})

    def curve(figure, panel, algorithm, metric):
        values = outs[algorithm].curves[metric]
        return pd.DataFrame({"t": np.arange(1, 9), "mean": values.mean(axis=0)})

    panel = {"experiment": "e", "metric": "W", "extra_metrics": ["U", "W_round_robin"]}
    return SimpleNamespace(panel=lambda figure, p: panel, curve=curve, replications=lambda experiment: outs)


def _tradeoff_audit(ctx) -> tuple[Audit, str]:
    from banditrepro.report.statistics_guard import PROBES

    args = {"figure": "fig5", "panels": ["p"], "ht": "ht_ucb", "baselines": ["flearn", "lfg"], "rel_tol": 0.001}
    result = fair_checks.tradeoff_dominance(ctx, **args)
    audit = Audit()
    PROBES["fair_tradeoff_dominance"](ctx, audit, result, **args)
    return audit, result.verdict


PRODUCTION_DOMINANCE = fair_checks.dominance


def _baseline_curve(u_b, w_b):
    """The baseline's trade-off points sorted by U, ties averaged (as production does)."""
    uniq, inv = np.unique(u_b, return_inverse=True)
    return uniq, np.bincount(inv, weights=w_b) / np.bincount(inv)


def _dominance_last_of_ties(u_ht, w_ht, u_b, w_b, rel_tol=0.001):
    """Points with the same U are not averaged: np.interp over the sorted points, ties and all."""
    order = np.argsort(u_b, kind="stable")
    ub, wb = u_b[order], w_b[order]
    inside = (u_ht >= ub[0]) & (u_ht <= ub[-1])
    worst = float(((np.interp(u_ht[inside], ub, wb) - w_ht[inside]) / w_ht[inside]).max())
    interior = inside & (u_ht > 0) & (u_ht < ub[-1])
    return worst, float((w_ht[interior] - np.interp(u_ht[interior], ub, wb)).mean()), int(inside.sum())


def _dominance_relative_to_the_baseline(u_ht, w_ht, u_b, w_b, rel_tol=0.001):
    """The shortfall divided by the baseline's W(U) instead of HT-UCB's W."""
    _, diff, n = PRODUCTION_DOMINANCE(u_ht, w_ht, u_b, w_b, rel_tol)
    uniq, wmean = _baseline_curve(u_b, w_b)
    inside = (u_ht >= uniq[0]) & (u_ht <= uniq[-1])
    at = np.interp(u_ht[inside], uniq, wmean)
    return float(((at - w_ht[inside]) / at).max()), diff, n


def _dominance_over_every_point(u_ht, w_ht, u_b, w_b, rel_tol=0.001):
    """The mean difference over every HT point inside the range, the fair ones (U = 0) included."""
    worst, _, n = PRODUCTION_DOMINANCE(u_ht, w_ht, u_b, w_b, rel_tol)
    uniq, wmean = _baseline_curve(u_b, w_b)
    inside = (u_ht >= uniq[0]) & (u_ht <= uniq[-1])
    return worst, float((w_ht[inside] - np.interp(u_ht[inside], uniq, wmean)).mean()), n


DOMINANCE_SLIPS = {"ties not averaged": _dominance_last_of_ties,
                   "shortfall relative to the baseline": _dominance_relative_to_the_baseline,
                   "mean difference over the fair points too": _dominance_over_every_point}


def test_tradeoff_probe_passes_on_production():
    audit, verdict = _tradeoff_audit(_tradeoff_ctx())
    assert not audit.failures, audit.failures
    assert audit.counts["trade-off dominance"] == 2 * 5 and audit.counts["verdicts"] == 1 and verdict == "reproduced"


@pytest.mark.parametrize("slip", list(DOMINANCE_SLIPS))
def test_tradeoff_probe_fails_on_a_slip(monkeypatch, slip):
    """Issue 39: a slip inside the dominance statistic moves C3.1 and C5.1 together (both call it) and no
    reference implementation of the policies sees it; the probe's own computation does."""
    ctx = _tradeoff_ctx()
    monkeypatch.setattr(fair_checks, "dominance", DOMINANCE_SLIPS[slip])
    audit, _ = _tradeoff_audit(ctx)
    assert any("p/" in f for f in audit.failures), audit.failures
