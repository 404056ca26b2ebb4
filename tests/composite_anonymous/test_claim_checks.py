"""Composite-anonymous claim checks on small hand-made summaries and replication curves."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.composite_anonymous.checks import (
    default_best,
    final_spread,
    increment_ratio,
    log_growth_ratio,
)
from banditrepro.report.context import ResultsContext

ALPHA = ["ars_a2", "ars_a4", "ars_a6", "ars_a8"]
F = ["ars_fk", "ars_a4", "ars_fk3", "ars_f2k"]


class _Ctx(ResultsContext):
    """A results context whose replications are given in memory instead of shard files."""

    def __init__(self, spec, summary_path, replications=None):
        super().__init__(spec, summaries={"fig2": summary_path})
        self._reps = replications or {}

    def replications(self, experiment):
        return self._reps[experiment]


def _summary(tmp_path, rows):
    df = pd.DataFrame([{"panel": p, "algorithm": a, "metric": "regret", "t": t, "mean": m, "se": s, "n": 100}
                       for p, a, t, m, s in rows])
    path = tmp_path / "summary.csv"
    df.to_csv(path, index=False)
    return path


def test_increment_ratio_and_final_spread_by_hand():
    checkpoints = np.array([10, 100, 1000])
    # three runs: increments (R(T)-R(T/10), R(T/10)-R(T/100)) = (10, 10), (10, 10), (100, 10)
    curves = np.array([[0.0, 10.0, 20.0], [0.0, 10.0, 20.0], [0.0, 10.0, 110.0]])
    ratio, se = increment_ratio(curves, checkpoints, 1000)
    assert ratio == pytest.approx(40.0 / 10.0)
    # delta method: sd(a - ratio*b) / sqrt(3) / mean(b), a - 4b = (-30, -30, 60)
    assert se == pytest.approx(np.std([-30.0, -30.0, 60.0], ddof=1) / np.sqrt(3) / 10.0)
    # the mean (50) is one lock-in run; the median (20) is not
    assert final_spread(curves[:, -1]) == "final regret mean 50 vs median 20, 1/3 runs above twice the median (max 110)"


def _growth_ctx(tmp_path, final_values):
    checkpoints = np.array([10, 100, 1000])
    curves = np.array([[0.0, 10.0, f] for f in final_values])
    rows = [("a", "ars_a4", int(t), float(curves[:, i].mean()), 0.0) for i, t in enumerate(checkpoints)]
    spec = SimpleNamespace(figures={"fig2": {"panels": [{"id": "a", "experiment": "e", "metric": "regret",
                                                         "algorithms": ["ars_a4"]}]}})
    reps = {"e": {"ars_a4": SimulationOutput(checkpoints=checkpoints, curves={"regret": curves})}}
    return _Ctx(spec, _summary(tmp_path, rows), reps)


def test_log_growth_ratio_band_and_median(tmp_path):
    rng = np.random.default_rng(1)
    # log-linear runs: increments about equal -> ratio about 1
    res = log_growth_ratio(_growth_ctx(tmp_path, 20.0 + rng.normal(0, 0.5, 50)), "fig2", "ars_a4", max_ratio=1.5)
    assert res.verdict == "reproduced"
    # 49 log-linear runs and one huge lock-in run: mean ratio far above 1.5 but its s.e. is as large
    finals = np.r_[np.full(49, 20.0), 2000.0]
    res = log_growth_ratio(_growth_ctx(tmp_path, finals), "fig2", "ars_a4", max_ratio=1.5)
    assert res.verdict == "inconclusive"
    assert "mean 59.6 vs median 20, 1/50 runs above twice the median" in res.measured
    # every run grows: clearly above
    res = log_growth_ratio(_growth_ctx(tmp_path, 40.0 + rng.normal(0, 0.5, 50)), "fig2", "ars_a4", max_ratio=1.5)
    assert res.verdict == "not_reproduced"


#: replications of each synthetic sweep panel
SWEEP_RUNS = 100


def _runs(mean: float, se: float) -> np.ndarray:
    """SWEEP_RUNS final regrets whose mean is ``mean`` and whose s.e. is ``se`` (s.d. se * sqrt(n))."""
    x = np.random.default_rng(7).standard_normal(SWEEP_RUNS)
    x = (x - x.mean()) / x.std(ddof=1)
    return mean + se * np.sqrt(SWEEP_RUNS) * x


def _sweep_ctx(tmp_path, alpha_panels, f_panels):
    """Panels 'a*' plot the α-sweep, 'f*' the f-sweep, each from its own experiment; values: {algorithm: (mean,
    se)}, the per-run final regrets with that mean and s.e. (the check's s.d. half reads them)."""
    panels, rows, reps = [], [], {}
    for prefix, algos, values in (("a", ALPHA, alpha_panels), ("f", F, f_panels)):
        for i, vals in enumerate(values):
            pid = f"{prefix}{i}"
            panels.append({"id": pid, "experiment": f"e_{pid}", "metric": "regret",
                           "algorithms": algos + ["odaaf_v"]})
            rows += [(pid, a, 1000, vals[a][0], vals[a][1]) for a in algos]
            reps[f"e_{pid}"] = {a: SimulationOutput(checkpoints=np.array([1000]),
                                                    curves={"regret": _runs(*vals[a])[:, None]}) for a in algos}
    spec = SimpleNamespace(figures={"fig2": {"panels": panels}})
    return _Ctx(spec, _summary(tmp_path, rows), reps)


def _vals(algos, default, best, se=1.0):
    """The sweep's first setting at ``best``, the others at 1.5 ``best``, the default at ``default`` with half the
    others' s.e. (so the clearly smallest s.d.)."""
    out = {a: (best * 1.5, se) for a in algos}
    out[algos[0]] = (best, se)
    out["ars_a4"] = (default, se / 2)
    return out


def test_default_best_gets_one_verdict_per_sweep(tmp_path):
    # α-sweep: α = 2 is 30 % better in 2 of 3 panels; f-sweep: f = k² is the best in all 3
    alpha = [_vals(ALPHA, 130.0, 100.0), _vals(ALPHA, 130.0, 100.0), _vals(ALPHA, 100.0, 100.0)]
    f = [_vals(F, 90.0, 100.0)] * 3
    ctx = _sweep_ctx(tmp_path, alpha, f)
    res_a = default_best(ctx, "fig2", "ars_a4", ALPHA)
    res_f = default_best(ctx, "fig2", "ars_a4", F)
    assert res_a.verdict == "not_reproduced" and "in 1/3 panels" in res_a.measured
    assert res_f.verdict == "reproduced" and "in 3/3 panels" in res_f.measured


def test_default_best_inconclusive_band(tmp_path):
    # default 111 vs best 100 (threshold 110) with s.e. 1.5 and 3: within 2 s.e. in two of three panels
    alpha = [_vals(ALPHA, 111.0, 100.0, se=3.0), _vals(ALPHA, 109.0, 100.0, se=3.0), _vals(ALPHA, 100.0, 100.0)]
    ctx = _sweep_ctx(tmp_path, alpha, [_vals(F, 90.0, 100.0)])
    res = default_best(ctx, "fig2", "ars_a4", ALPHA)
    assert res.verdict == "inconclusive" and "(2 within noise)" in res.measured
    with pytest.raises(KeyError, match="sweep"):
        default_best(ctx, "fig2", "ars_a4", ["ars_a2", "ars_a4"])


def test_default_best_compare_restricts_to_theorem_alphas(tmp_path):
    # α = 2 (outside Theorem 1) is 30 % better in every panel; among α = 4, 6, 8 the default is the best
    alpha = [_vals(ALPHA, 130.0, 100.0)] * 3
    ctx = _sweep_ctx(tmp_path, alpha, [_vals(F, 90.0, 100.0)])
    assert default_best(ctx, "fig2", "ars_a4", ALPHA).verdict == "not_reproduced"
    res = default_best(ctx, "fig2", "ars_a4", ALPHA, compare=["ars_a4", "ars_a6", "ars_a8"])
    # α = 6, 8 end at 150: α = 4 (130) is the best of the three, with the clearly smallest s.d.: rank 1 of 3
    assert res.verdict == "reproduced" and "in 3/3 panels" in res.measured and "ars_a2" not in res.measured


def test_log_growth_names_the_undecided_experiment(tmp_path):
    finals = np.r_[np.full(49, 20.0), 2000.0]  # one lock-in run: inconclusive (test above)
    res = log_growth_ratio(_growth_ctx(tmp_path, finals), "fig2", "ars_a4", max_ratio=1.5)
    assert res.verdict == "inconclusive" and res.undecided == ("e",)
    rng = np.random.default_rng(1)
    res = log_growth_ratio(_growth_ctx(tmp_path, 20.0 + rng.normal(0, 0.5, 50)), "fig2", "ars_a4", max_ratio=1.5)
    assert res.verdict == "reproduced" and res.undecided == ()
