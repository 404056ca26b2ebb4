"""Censored-resources claim checks on small hand-made replication data: tolerances with the
inconclusive band, paired comparisons, relative gaps with their standard errors."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.censored_resources.checks import (
    advantage_grows,
    censored_at_most,
    censored_cell,
    censored_close,
    paired_relative_difference_below,
    relative_gap,
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
