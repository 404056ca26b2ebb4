"""Penalized-fairness claim checks on small hand-made summaries: thresholds, the inconclusive band,
and Theorem 4.2's bounds (hand-computed)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.penalized_fairness.checks import (
    growth_ratio,
    ht_lowest_at_T,
    paired_ratio,
    theorem_42_bounds,
)

LN_20000 = 9.903487552536127  # ln(20000)


def _ctx(values):
    """A results context with one panel 'p' (experiment 'e', metric 'regret') whose per-replication
    values are ``values[algorithm] = {T: array}``."""
    panel = {"id": "p", "experiment": "e", "metric": "regret"}
    outs = {}
    for algo, by_t in values.items():
        ts = sorted(by_t)
        outs[algo] = SimulationOutput(checkpoints=np.array(ts), curves={"regret": np.stack([by_t[t] for t in ts], 1)})
    return SimpleNamespace(panel=lambda figure, pid: panel, replications=lambda e: outs)


def _spread(mean, sd, n=50):
    """n values with exactly this mean and standard deviation."""
    x = np.tile([-1.0, 1.0], n // 2)
    return mean + sd * x / np.std(x, ddof=1)


def test_paired_ratio_by_hand():
    ratio, se = paired_ratio(np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0]))
    assert ratio == 2.0 and se == 0.0  # perfectly paired: no noise in the ratio
    ratio, se = paired_ratio(np.array([1.0, 3.0]), np.array([2.0, 2.0]))
    assert ratio == 1.0 and se == pytest.approx(np.std([-1.0, 1.0], ddof=1) / np.sqrt(2) / 2.0)


@pytest.mark.parametrize("ht_mean, ht_sd, verdict", [
    (50.0, 5.0, "reproduced"),        # ratio 0.5, far below 0.9
    (89.0, 60.0, "inconclusive"),     # ratio 0.89 ± 0.085: within 2 s.e. of 0.9
    (95.0, 5.0, "not_reproduced"),    # ratio 0.95 ± 0.007: clearly above 0.9
])
def test_ht_lowest_at_T_band(ht_mean, ht_sd, verdict):
    ctx = _ctx({"ht": {16000: _spread(ht_mean, ht_sd)}, "b1": {16000: np.full(50, 100.0)},
                "b2": {16000: np.full(50, 120.0)}})
    res = ht_lowest_at_T(ctx, "fig1", ["p"], "ht", ["b1", "b2"], margin=0.10)
    assert res.verdict == verdict


def test_ht_lowest_at_T_pairs_the_replications():
    # instances vary a lot between replications, but HT is 0.5 x the baseline in each: paired, no noise
    base = _spread(100.0, 60.0)
    ctx = _ctx({"ht": {16000: 0.88 * base}, "b": {16000: base}})
    assert ht_lowest_at_T(ctx, "fig1", ["p"], "ht", ["b"], margin=0.10).verdict == "reproduced"


@pytest.mark.parametrize("end_mean, end_sd, kw, verdict", [
    (120.0, 5.0, {"high": 1.5}, "reproduced"),        # 1.2 <= 1.5
    (154.0, 80.0, {"high": 1.5}, "inconclusive"),     # 1.54 ± 0.11 within 2 s.e. of 1.5
    (170.0, 5.0, {"high": 1.5}, "not_reproduced"),    # 1.7 > 1.5
    (195.0, 5.0, {"low": 1.8}, "reproduced"),         # 1.95 >= 1.8
    (150.0, 5.0, {"low": 1.8}, "not_reproduced"),
])
def test_growth_ratio_band(end_mean, end_sd, kw, verdict):
    ctx = _ctx({"a": {8000: np.full(50, 100.0), 16000: _spread(end_mean, end_sd)}})
    assert growth_ratio(ctx, "fig1", ["p"], ["a"], **kw).verdict == verdict


def _fixed_ctx(final_pulls):
    exp = SimpleNamespace(params={"means": [0.9, 0.86, 0.4, 0.1], "tau": 0.01},
                          algorithms={"ht": {"penalty": 0.45}}, horizon=20000)
    pulls = np.asarray(final_pulls, dtype=float)[None, None, :].repeat(3, axis=0)
    out = SimulationOutput(checkpoints=np.array([20000]), curves={}, pulls=pulls)
    return SimpleNamespace(spec=SimpleNamespace(experiments={"e": exp}), replications=lambda e: {"ht": out})


def test_theorem_42_bounds_check():
    # arm 3 (non-critical) at 300 pulls: above tau T = 200 but below the corrected bound 316.9
    res = theorem_42_bounds(_fixed_ctx([18000, 1000, 300, 150]), "fig4", ["e"], "ht", slack=5.0)
    # arms 2 and 3 have logarithmic bounds (49517, 316.9): largest ratio 300 / 316.91; arm 4 is bounded by
    # tau T = 200 and sits 50 below it
    assert res.verdict == "reproduced"
    assert res.measured == ("2 arms with a logarithmic bound: largest N_k / bound 0.9466; "
                            "1 arms bounded by tau_k T: largest N_k - tau_k T -50")
    res = theorem_42_bounds(_fixed_ctx([18000, 1000, 330, 150]), "fig4", ["e"], "ht", slack=5.0)
    assert res.verdict == "not_reproduced"
