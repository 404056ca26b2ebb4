"""Penalized-fairness claim checks on small hand-made summaries: thresholds, the inconclusive band,
and Theorem 4.2's bounds (hand-computed)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.penalized_fairness.checks import (
    growth_ratio,
    ht_lowest_at_T,
    ratio_se,
    theorem_42_bounds,
)
from banditrepro.experiments.penalized_fairness.theory import (
    FixedInstance,
    theorem_42_upper_bounds,
)
from banditrepro.report.context import ResultsContext

LN_20000 = 9.903487552536127  # ln(20000)


def _ctx(tmp_path, rows, figures):
    """A ResultsContext over one figure 'fig1' whose summary has ``rows`` (panel, algorithm, t, mean, se)."""
    df = pd.DataFrame([{"panel": p, "algorithm": a, "metric": "regret", "t": t, "mean": m, "se": s, "n": 50}
                       for p, a, t, m, s in rows])
    path = tmp_path / "summary.csv"
    df.to_csv(path, index=False)
    return ResultsContext(SimpleNamespace(figures=figures), summaries={"fig1": path})


FIG1 = {"fig1": {"panels": [{"id": "p", "metric": "regret"}]}}


def test_theorem_42_bounds_by_hand():
    # T = 20000, A = 0.45, tau_k = 0.01 (tau T = 200)
    inst = FixedInstance(np.array([0.9, 0.86, 0.4, 0.1]), np.full(4, 0.01), np.full(4, 0.45), 20000)
    b = theorem_42_upper_bounds(inst)
    assert np.isnan(b[0])                                   # optimal arm: no bound
    assert b[1] == pytest.approx(8 * LN_20000 / 0.04**2)    # (b) critical, Delta = 0.04: 49517.4 > tau T
    # (c) non-critical, Delta = 0.5, Delta - A = 0.05: min(31691.2, 200) = 200, but the outer
    # max with 8 ln T / Delta^2 = 316.91 binds: the bound is 316.91, not tau T
    assert b[2] == pytest.approx(316.9116, abs=1e-3)
    # Delta = 0.8, Delta - A = 0.35: min(646.8, 200) = 200 > 8 ln T / 0.64 = 123.8
    assert b[3] == pytest.approx(200.0)


def test_ratio_se_delta_method():
    assert ratio_se(2.0, 0.2, 4.0, 0.4) == pytest.approx(0.5 * math.hypot(0.1, 0.1))
    assert math.isnan(ratio_se(0.0, 0.1, 1.0, 0.1))


@pytest.mark.parametrize("ht, se, verdict", [
    (50.0, 1.0, "reproduced"),        # ratio 0.5, far below 0.9
    (89.0, 2.0, "inconclusive"),      # ratio 0.89 ± 0.022: within 2 s.e. of 0.9
    (95.0, 0.5, "not_reproduced"),    # ratio 0.95 ± 0.005: clearly above 0.9
])
def test_ht_lowest_at_T_band(tmp_path, ht, se, verdict):
    ctx = _ctx(tmp_path, [("p", "ht", 16000, ht, se), ("p", "b1", 16000, 100.0, 0.1),
                          ("p", "b2", 16000, 120.0, 0.1)], FIG1)
    res = ht_lowest_at_T(ctx, "fig1", ["p"], "ht", ["b1", "b2"], margin=0.10)
    assert res.verdict == verdict


@pytest.mark.parametrize("end, end_se, kw, verdict", [
    (120.0, 1.0, {"high": 1.5}, "reproduced"),        # 1.2 ± 0.01 <= 1.5
    (154.0, 5.0, {"high": 1.5}, "inconclusive"),      # 1.54 ± 0.05 within 2 s.e. of 1.5
    (170.0, 1.0, {"high": 1.5}, "not_reproduced"),    # 1.7 ± 0.01 > 1.5
    (195.0, 1.0, {"low": 1.8}, "reproduced"),         # 1.95 >= 1.8
    (150.0, 1.0, {"low": 1.8}, "not_reproduced"),
])
def test_growth_ratio_band(tmp_path, end, end_se, kw, verdict):
    ctx = _ctx(tmp_path, [("p", "a", 8000, 100.0, 0.1), ("p", "a", 16000, end, end_se)], FIG1)
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
    assert res.verdict == "reproduced" and "0.9466" in res.measured  # 300 / 316.91
    res = theorem_42_bounds(_fixed_ctx([18000, 1000, 330, 150]), "fig4", ["e"], "ht", slack=5.0)
    assert res.verdict == "not_reproduced"
