"""The generic sanity guard ``sublinear_halves`` (report/checks.py) on hand-made replication curves."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.report.checks import sublinear_halves


def _ctx(curves_by_algo, plotted=None):
    """One figure 'fig' with one panel 'p' (experiment 'e'); curves at t = 50, 100."""
    checkpoints = np.array([50, 100])
    outs = {a: SimulationOutput(checkpoints=checkpoints, curves={"regret": np.asarray(c, dtype=float)})
            for a, c in curves_by_algo.items()}
    panel = {"id": "p", "experiment": "e", "metric": "regret", "algorithms": plotted or list(curves_by_algo)}
    spec = SimpleNamespace(figures={"fig": {"panels": [panel]}}, experiments={"e": SimpleNamespace(algorithms=outs)})
    return SimpleNamespace(spec=spec, panel=lambda f, p: panel, replications=lambda e: outs)


def test_sublinear_halves_by_hand():
    # log-like: R(50) = 10, R(100) = 13 in every run: second half 3 < first half 10
    res = sublinear_halves(_ctx({"good": [[10, 13]] * 4}), "fig", ["good"])
    assert res.verdict == "reproduced"
    assert res.measured.startswith("1/1 (experiment, algorithm) pairs sub-linear; largest second-half / first-half "
                                   "increment 0.3 at e/good")
    # linear: R(50) = 10, R(100) = 21: second half 11 > first 10 in every run
    res = sublinear_halves(_ctx({"bad": [[10, 21]] * 4}), "fig", ["bad"])
    assert res.verdict == "not_reproduced" and "e/bad: second/first half 1.1 (not reproduced)" in res.measured
    # d_r = 2 R(50) - R(100) = (+5, -5, +5, -5): mean 0, within noise; the check names the experiment
    res = sublinear_halves(_ctx({"noisy": [[10, 15], [10, 25], [10, 15], [10, 25]]}), "fig", ["noisy"])
    assert res.verdict == "inconclusive" and res.undecided == ("e",)


def test_sublinear_halves_reads_only_plotted_algorithms():
    ctx = _ctx({"good": [[10, 13]] * 3, "bad": [[10, 21]] * 3}, plotted=["good"])
    assert sublinear_halves(ctx, "fig", ["good", "bad"]).verdict == "reproduced"
    with pytest.raises(KeyError, match="plots any of"):
        sublinear_halves(ctx, "fig", ["bad"])
