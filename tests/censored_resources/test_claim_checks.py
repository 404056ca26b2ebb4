"""Censored-resources claim checks on small hand-made replication data: tolerances with the
inconclusive band, paired comparisons, relative gaps with their standard errors."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.censored_resources import checks
from banditrepro.experiments.censored_resources.checks import (
    advantage_grows,
    brown_forsythe_greater,
    censored_above_truth,
    censored_at_most,
    censored_cell,
    censored_close,
    paired_relative_difference_below,
    regret_not_worst,
    regret_sublinear,
    relative_gap,
    spread_larger,
)
from banditrepro.report.context import ResultsContext


def _out(censored=None, regret=None):
    finals = {}
    if censored is not None:
        finals["censored_proportion"] = np.asarray(censored, dtype=float)
    if regret is not None:
        finals["final_regret"] = np.asarray(regret, dtype=float)
    return SimulationOutput(checkpoints=np.array([1]), curves={}, finals=finals)


def _ctx(by_experiment):
    return SimpleNamespace(replications=lambda e: by_experiment[e])


def _spread(mean, se, n=100):
    """n values with exactly this mean and standard error of the mean."""
    x = np.r_[np.full(n // 2, -1.0), np.full(n // 2, 1.0)]
    return mean + x * se * math.sqrt(n) / np.std(x, ddof=1)


@pytest.mark.parametrize("mean, se, verdict", [
    (0.62, 0.001, "reproduced"),       # |0.62 - 0.64| = 0.02 <= 0.03 by 10 s.e.
    (0.615, 0.003, "inconclusive"),    # 0.025 is within 2 s.e. of 0.03
    (0.60, 0.001, "not_reproduced"),   # 0.04 > 0.03 by 10 s.e.
])
def test_censored_cell_band(mean, se, verdict):
    ctx = _ctx({"e": {"rcucb": _out(censored=_spread(mean, se))}})
    res = censored_cell(ctx, "e", "rcucb", paper=0.64, tolerance=0.03)
    assert res.verdict == verdict
    assert f"{mean:.4g}" in res.measured


def test_censored_cell_center_and_at_most():
    ctx = _ctx({"ames": {"ts": _out(censored=_spread(0.30, 0.005)), "rcucb": _out(censored=_spread(0.11, 0.01))}})
    assert censored_cell(ctx, "ames", "ts", paper=0.2843, tolerance=0.07, center=0.285).verdict == "reproduced"
    assert censored_at_most(ctx, "ames", "rcucb", paper=0.0589, limit=0.12).verdict == "inconclusive"


def test_censored_close_is_paired():
    rng = np.random.default_rng(3)
    common = rng.normal(0.3, 0.05, 50)  # shared by both algorithms (common random numbers)
    ctx = _ctx({"e": {"ucb": _out(censored=common + 0.02), "ts": _out(censored=common)}})
    # unpaired, sd 0.05 / sqrt(50) = 0.007 per mean would leave 0.02 vs 0.03 undecided; paired it is exact
    assert censored_close(ctx, "e", "ucb", "ts", tolerance=0.03).verdict == "reproduced"
    assert censored_close(ctx, "e", "ucb", "ts", tolerance=0.01).verdict == "not_reproduced"


def test_relative_gap_and_its_se_by_hand():
    a = np.array([80.0, 90.0, 100.0, 110.0])
    b = np.array([100.0, 100.0, 100.0, 100.0])
    gap, se = relative_gap(a, b)
    assert gap == pytest.approx(0.05)
    # linearisation (a_r - 0.95 b_r) / 100 = (-0.15, -0.05, 0.05, 0.15)
    assert se == pytest.approx(np.std([-0.15, -0.05, 0.05, 0.15], ddof=1) / 2.0)


def test_advantage_grows_band():
    rng = np.random.default_rng(4)
    small = {"rcucb": _out(regret=100 + rng.normal(0, 1, 100)), "ucb": _out(regret=110 + rng.normal(0, 1, 100))}
    large = {"rcucb": _out(regret=100 + rng.normal(0, 1, 100)), "ucb": _out(regret=150 + rng.normal(0, 1, 100))}
    noisy = {"rcucb": _out(regret=100 + rng.normal(0, 40, 100)), "ucb": _out(regret=112 + rng.normal(0, 40, 100))}
    ctx = _ctx({"m1": small, "m2": large, "noisy": noisy})
    assert advantage_grows(ctx, "m1", "m2", "rcucb", ["ucb"]).verdict == "reproduced"
    assert advantage_grows(ctx, "m2", "m1", "rcucb", ["ucb"]).verdict == "not_reproduced"
    assert advantage_grows(ctx, "m1", "noisy", "rcucb", ["ucb"]).verdict == "inconclusive"


def test_advantage_grows_is_the_trend_only():
    """Both gaps negative (the algorithm trails on both grids) but the larger grid's less so: the trend
    holds; the sign is another claim's."""
    rng = np.random.default_rng(5)
    m1 = {"rcucb": _out(regret=150 + rng.normal(0, 1, 100)), "ucb": _out(regret=100 + rng.normal(0, 1, 100))}
    m2 = {"rcucb": _out(regret=110 + rng.normal(0, 1, 100)), "ucb": _out(regret=100 + rng.normal(0, 1, 100))}
    assert advantage_grows(_ctx({"m1": m1, "m2": m2}), "m1", "m2", "rcucb", ["ucb"]).verdict == "reproduced"


def test_brown_forsythe_is_robust_to_one_outlier():
    """x spreads three times as much as y in its bulk; 4 % of y are outliers at ±20, which make y's variance
    the larger (an F-test would call y the wider) but move the median-based test little."""
    rng = np.random.default_rng(6)
    x = rng.normal(0, 3, 1000)
    y = np.r_[rng.normal(0, 1, 960), np.tile([-20.0, 20.0], 20)]
    assert np.var(y) > np.var(x)
    p_greater, p_less = brown_forsythe_greater(x, y)
    assert p_greater < 0.01 and p_less > 0.99
    ctx = _ctx({"e": {"ts": _out(regret=x), "rcucb": _out(regret=y), "same": _out(regret=x[::-1].copy())}})
    assert spread_larger(ctx, "e", "ts", ["rcucb"]).verdict == "reproduced"
    assert spread_larger(ctx, "e", "rcucb", ["ts"]).verdict == "not_reproduced"
    assert spread_larger(ctx, "e", "ts", ["same"]).verdict == "inconclusive"


def _curves(early, late):
    """Regret at T/2 = 50 and at T = 100 per repetition."""
    early = np.asarray(early, dtype=float)
    return SimulationOutput(checkpoints=np.array([50, 100]), curves={"regret": np.c_[early, early + np.asarray(late)]},
                            finals={})


def test_regret_sublinear_tells_log_from_linear_growth():
    rng = np.random.default_rng(7)
    early = 100 + rng.normal(0, 5, 50)
    ctx = _ctx({"log": {"a": _curves(early, 0.15 * early)},            # log-like: little regret in (T/2, T]
                "linear": {"a": _curves(early, early + rng.normal(0, 5, 50))},
                "growing": {"a": _curves(early, 2 * early)}})
    assert regret_sublinear(ctx, ["log"], "a").verdict == "reproduced"
    # linear growth is not sub-linear: the second half must add at most 0.8 x the first (issue 38), where
    # "less than the first" left a linear curve inconclusive
    assert regret_sublinear(ctx, ["linear"], "a").verdict == "not_reproduced"
    assert regret_sublinear(ctx, ["growing"], "a").verdict == "not_reproduced"
    assert regret_sublinear(ctx, ["log", "growing"], "a").verdict == "not_reproduced"
    with pytest.raises(ValueError, match="not a checkpoint"):
        bad = SimulationOutput(checkpoints=np.array([40, 100]), curves={"regret": np.ones((2, 2))}, finals={})
        regret_sublinear(_ctx({"e": {"a": bad}}), ["e"], "a")


def test_regret_not_worst():
    rng = np.random.default_rng(8)
    base = rng.normal(0, 1, 100)
    ctx = _ctx({"e": {"ts": _out(regret=100 + base), "rcucb": _out(regret=50 + base), "ucb": _out(regret=150 + base),
                      "tie": _out(regret=100 + base + rng.normal(0, 0.1, 100))}})
    assert regret_not_worst(ctx, "e", "ts", ["rcucb", "ucb"]).verdict == "reproduced"
    assert regret_not_worst(ctx, "e", "ucb", ["rcucb", "ts"]).verdict == "not_reproduced"
    assert regret_not_worst(ctx, "e", "ts", ["rcucb", "tie"]).verdict == "inconclusive"


def test_censored_above_truth(monkeypatch):
    monkeypatch.setattr(checks, "truth_of", lambda ctx, e: (SimpleNamespace(censor_prob_star=0.6), None))
    ctx = _ctx({"e": {"ucb": _out(censored=_spread(0.80, 0.002)), "ts": _out(censored=_spread(0.66, 0.002)),
                      "near": _out(censored=_spread(0.651, 0.002))}})
    assert censored_above_truth(ctx, "e", ["ucb", "ts"], margin=0.05).verdict == "reproduced"
    assert censored_above_truth(ctx, "e", ["ucb", "near"], margin=0.05).verdict == "inconclusive"
    assert censored_above_truth(ctx, "e", ["ucb", "ts"], margin=0.1).verdict == "not_reproduced"


class _Ctx(ResultsContext):
    def __init__(self, spec, summary, reps):
        super().__init__(spec, summaries={"fig5": summary})
        self._reps = reps

    def replications(self, experiment):
        return self._reps[experiment]


@pytest.mark.parametrize("shift, verdict", [(1.0, "reproduced"), (2.9, "inconclusive"), (5.0, "not_reproduced")])
def test_paired_relative_difference_below(tmp_path, shift, verdict):
    ts = 100 + np.tile([-10.0, 10.0], 5)                  # mean exactly 100, large spread shared by both
    ucb = ts + shift + np.tile([-1.0, 1.0], 5)            # paired difference: s.e. 0.333, i.e. 0.0033 relative
    cps = np.array([10, 20])
    reps = {"ames": {a: SimulationOutput(checkpoints=cps, curves={"reward": np.c_[x / 2, x]})
                     for a, x in (("ucb", ucb), ("ts", ts))}}
    rows = [{"panel": "reward", "algorithm": a, "metric": "reward", "t": 20, "mean": float(x.mean()), "se": 1.0, "n": 10}
            for a, x in (("ucb", ucb), ("ts", ts))]
    path = tmp_path / "summary.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    spec = SimpleNamespace(figures={"fig5": {"panels": [{"id": "reward", "experiment": "ames", "metric": "reward"}]}})
    res = paired_relative_difference_below(_Ctx(spec, path, reps), "fig5", "reward", "ucb", "ts", max_relative=0.03)
    assert res.verdict == verdict
