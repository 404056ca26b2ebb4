"""The paper config builds and runs, and the claim checks decide as spec §3 says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.satisficing_select import checks
from banditrepro.experiments.satisficing_select.builders import build_simulation
from banditrepro.experiments.spec import load_paper
from banditrepro.report.checks import below
from banditrepro.report.context import ResultsContext

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scale", ["paper", "smoke"])
def test_config_loads_and_every_cell_builds(scale):
    spec = load_paper("satisficing_select", scale, REPO)
    assert {"fig2", "fig3", "fig4", "fig5", "fig6", "diagnostics"} <= set(spec.figures)
    if scale == "paper":
        for exp in spec.experiments.values():
            assert exp.replications == 1000 and list(exp.checkpoints) == list(range(500, 5001, 500))
    for exp in spec.experiments.values():
        for algo, cfg in exp.algorithms.items():
            sim = build_simulation(exp.params, cfg)
            assert hasattr(sim, "run"), (exp.id, algo)


def test_smoke_cells_run():
    spec = load_paper("satisficing_select", "smoke", REPO)
    nk = np.array([11, 12], dtype=np.uint64)
    pk = np.array([21, 22], dtype=np.uint64)
    chk = np.array([100, 200])
    for exp in spec.experiments.values():
        for algo, cfg in exp.algorithms.items():
            out = build_simulation(exp.params, cfg).run(nk, pk, chk)
            sat = out.curves["satisficing_regret"]
            assert sat.shape == (2, 2) and np.all(sat[:, 1] >= sat[:, 0]), (exp.id, algo)


class FakeContext:
    """Summaries and per-replication curves of one figure, panel 'a', metric 'satisficing_regret'."""

    point = ResultsContext.point

    def __init__(self, curves: dict[str, np.ndarray], ts=(2500, 5000)):
        self.ts = np.array(ts)
        self.outs = {a: SimulationOutput(checkpoints=self.ts, curves={"satisficing_regret": c}) for a, c in curves.items()}

    def panel(self, figure, panel):
        return {"id": panel, "experiment": "e", "metric": "satisficing_regret"}

    def replications(self, experiment):
        return self.outs

    def curve(self, figure, panel, algorithm, metric=None):
        c = self.outs[algorithm].curves["satisficing_regret"]
        return pd.DataFrame({"t": self.ts, "mean": c.mean(0), "se": c.std(0, ddof=1) / np.sqrt(len(c)), "n": len(c)})


def _reps(at_half, at_end, n=400, sd=1.0, seed=0):
    rng = np.random.default_rng(seed)
    a = at_half + sd * rng.standard_normal(n)
    return np.column_stack([a, a + (at_end - at_half) + 0.1 * sd * rng.standard_normal(n)])


def test_growth_ratio_constant_and_growing():
    ctx = FakeContext({"flat": _reps(100, 105), "up": _reps(100, 160)})
    assert checks.growth_ratio(ctx, "f", "a", ["flat"], 2500, max_ratio=1.10).verdict == "reproduced"
    assert checks.growth_ratio(ctx, "f", "a", ["flat", "up"], 2500, max_ratio=1.10).verdict == "not_reproduced"
    assert checks.growth_ratio(ctx, "f", "a", ["up"], 2500, min_ratio=1.25).verdict == "reproduced"
    with pytest.raises(ValueError):
        checks.growth_ratio(ctx, "f", "a", ["up"], 2500)


def test_below_uses_two_standard_errors():
    ctx = FakeContext({"low": _reps(10, 50, sd=5), "high": _reps(10, 60, sd=5), "close": _reps(10, 50.3, sd=5)})
    assert below(ctx, "f", "a", "low", ["high"]).verdict == "reproduced"
    assert below(ctx, "f", "a", "high", ["low"]).verdict == "not_reproduced"
    assert below(ctx, "f", "a", "low", ["close"]).verdict == "inconclusive"
    assert below(ctx, "f", "a", ["low", "close"], ["high"]).verdict == "reproduced"


def test_comparable_and_pairwise_and_spread():
    ctx = FakeContext({"a": _reps(10, 100), "b": _reps(10, 120), "c": _reps(10, 130)})
    assert checks.comparable(ctx, "f", "a", "a", "b", 0.25).verdict == "reproduced"
    assert checks.comparable(ctx, "f", "a", "a", "b", 0.1).verdict == "not_reproduced"
    assert checks.pairwise_comparable(ctx, "f", "a", ["a", "b", "c"], 0.25).verdict == "not_reproduced"  # 130/100
    assert checks.pairwise_comparable(ctx, "f", "a", ["b", "c"], 0.25).verdict == "reproduced"
    assert checks.spread_at_every_t(ctx, "f", ["a"], ["a", "b", "c"], 1.5).verdict == "reproduced"
    assert checks.not_above_max(ctx, "f", "a", "b", ["a", "c"]).verdict == "reproduced"
    assert checks.not_above_max(ctx, "f", "a", "c", ["a", "b"]).verdict == "not_reproduced"


def test_any_variant_recovers():
    ctx = FakeContext({"select": _reps(100, 190), "v1": _reps(100, 180), "v2": _reps(100, 104)})
    inner = {"fn": "select_growth_ratio", "panel": "a", "algorithms": ["select"], "t_from": 2500, "max_ratio": 1.1}
    res = checks.any_variant_recovers(ctx, "f", inner, "select", ["v1", "v2"])
    assert res.verdict == "reproduced" and "[v2: reproduced]" in res.measured
    res = checks.any_variant_recovers(ctx, "f", inner, "select", ["v1"])
    assert res.verdict == "not_reproduced"


def test_diagnostics_tables_from_select_finals():
    from types import SimpleNamespace

    from banditrepro.environments.continuous import finite_gaussian
    from banditrepro.experiments.satisficing_select.loops import SelectSimulation
    from banditrepro.experiments.satisficing_select.tables import select_diagnostics, select_rounds

    env = finite_gaussian([1.0], sigma=0.0)  # noise-free: rounds end at 8, 40, 168 then round 4 passes
    out = SelectSimulation("thompson", env, 0.5).run(np.array([1, 2], dtype=np.uint64),
                                                      np.array([3, 4], dtype=np.uint64), np.array([1000]))
    exp = SimpleNamespace(params={"level": 0.5}, algorithms={"select": {"algorithm": "select"}, "ts": {"algorithm": "thompson"}})
    ctx = SimpleNamespace(spec=SimpleNamespace(experiments={"e": exp}), replications=lambda e: {"select": out})
    d = select_diagnostics(ctx, ["e"]).iloc[0]
    assert d.algorithm == "select" and d.mean_rounds_started == 4 and d.share_step3_at_T == 1.0
    assert d.share_with_a_passing_LCB_check == 1.0 and d.mean_first_passing_round == 4
    r = select_rounds(ctx, ["e"])
    assert list(r["round"]) == [1, 2, 3, 4]
    assert list(r.share_first_check_passed) == [0.0, 0.0, 0.0, 1.0]
    assert r.mean_checks_passed.iloc[3] == 1000 - 680 + 1


def test_every_panel_has_distinct_colours():
    from banditrepro.plotting import Style

    spec = load_paper("satisficing_select", "paper", REPO)
    style = Style.for_paper(spec)
    for fig_id, fig in spec.figures.items():
        for panel in fig["panels"]:
            colours = [style.colors[a] for a in panel.get("algorithms", [])]
            assert len(set(colours)) == len(colours), (fig_id, panel["id"])
