"""Issue 31 for satisficing_select: the readings that decide verdicts are pinned (the printed Algorithm 1 as the
default, the last-query reading only as a labelled switch), the new checks on synthetic tables (the absolute
post-sweep test of C3a3, the sub-linear guard, the simulated twin of the LCB claims), and the split and gated
claims in the config."""

from __future__ import annotations

import re

import numpy as np
import pytest

from banditrepro.algorithms.select import SelectVariant
from banditrepro.engine import SimulationOutput
from banditrepro.experiments.satisficing_select import checks
from banditrepro.experiments.satisficing_select.builders import build_simulation
from banditrepro.experiments.spec import load_paper
from banditrepro.seeding import replication_keys

from .test_calibrated_checks import TS, Ctx, _reps


def test_printed_algorithm_is_the_default_reading():
    """Algorithm 1 as printed: LCB radius sqrt(4 ln n / n), a fresh oracle every round, the candidate drawn
    uniformly from the oracle's trajectory, only this round's Step-2/3 rewards in the test."""
    v = SelectVariant()
    assert (v.radius_coef, v.warm_start, v.last_query, v.reuse_step1) == (4.0, False, False, False)
    assert (v.skip_step1, v.skip_step2, v.skip_step3, v.gamma_scale) == (False, False, False, 1.0)
    with pytest.raises(ValueError, match="need Step 1"):
        SelectVariant(skip_step1=True, last_query=True)


def test_every_headline_select_run_uses_the_printed_reading():
    spec = load_paper("satisficing_select", "paper", ".")
    for exp in spec.experiments.values():
        for algo_id, algo in exp.algorithms.items():
            if algo["algorithm"] == "select" and algo["last_query"]:
                assert algo_id == "select_last_query" and "last_query" in exp.id


def _concave_run(last_query: bool):
    params = {"environment": {"kind": "concave_quadratic", "top": 1.0, "curvature": 16.0, "centre": 0.25,
                              "sigma": 1.0}, "level": 0.3}
    sim = build_simulation(params, {"algorithm": "select", "oracle": "convex_1d", "last_query": last_query})
    keys = replication_keys(3, ("last_query",), 40)
    return sim.run(keys, replication_keys(3, ("last_query", "policy"), 40), np.arange(1, 2001))


def test_last_query_changes_only_the_candidate():
    """Round 1's Step 1 (t_1 steps of the oracle) is the same under both readings; the candidates differ."""
    printed, last = _concave_run(False), _concave_run(True)
    t1 = 4  # t_1 = ceil(gamma_1^(-1/(1-alpha))) with gamma_1 = 2^-1, alpha = 1/2
    np.testing.assert_array_equal(printed.curves["regret"][:, :t1], last.curves["regret"][:, :t1])
    assert not np.array_equal(printed.finals["candidate_mean_round_3"], last.finals["candidate_mean_round_3"])


def test_beyond_sweep_decides_on_the_absolute_post_sweep_regret():
    params = {"environment": {"kind": "concave_quadratic", "top": 1.0, "curvature": 16.0, "centre": 0.25},
              "level": 0.3}
    sweep = checks._initial_sweep(Ctx({}, params), "e", TS, "m")  # the panel's metric ('m': not satisficing)
    only_sweep = Ctx({"x": _reps(sweep + 0.14, noise=0.01)}, params)  # SAT-UCB at paper scale: ~0.14 beyond it
    res = checks.beyond_sweep(only_sweep, "f", "a", "x", 4000, 0.1)
    assert res.verdict == "not_reproduced" and "of a rise of" in res.measured
    keeps_pulling = Ctx({"x": _reps(sweep + TS / 500, noise=0.01)}, params)  # 2 more per 1000 steps: ~18 % of the rise
    assert checks.beyond_sweep(keeps_pulling, "f", "a", "x", 4000, 0.1).verdict == "reproduced"


def test_sublinear_guard_fails_a_linear_curve():
    sub = Ctx({"a": _reps(30 * np.sqrt(TS), noise=0.5), "b": _reps(10 * np.log(TS), noise=0.5)})
    assert checks.sublinear(sub, "f", "a", ["a", "b"]).verdict == "reproduced"
    lin = Ctx({"a": _reps(TS / 10, noise=0.5)})  # exactly linear: both halves equal, past the 0.8 margin (issue 38)
    assert checks.sublinear(lin, "f", "a", ["a"]).verdict == "not_reproduced"
    near = Ctx({"a": _reps(TS / 10 - 0.2 * np.maximum(TS - 2500, 0) / 10, noise=0.5)})  # second half exactly 0.8 x
    assert checks.sublinear(near, "f", "a", ["a"]).verdict == "inconclusive"
    broken = Ctx({"a": _reps(np.maximum(TS - 1000, 0) / 10, noise=0.5)})  # a baseline that starts losing late
    assert checks.sublinear(broken, "f", "a", ["a"]).verdict == "not_reproduced"


def test_lcb_pass_share_counts_replications_whose_test_ever_passed():
    ctx = Ctx({})
    first = np.zeros(1000)
    first[:9] = 5  # 9 of 1000 replications pass in round 5
    ctx.outs = {"select": SimulationOutput(checkpoints=TS, curves={"m": np.zeros((1000, TS.size))},
                                           finals={"first_passing_round": first})}
    res = checks.lcb_pass_share(ctx, "f", "a")
    assert res.verdict == "reproduced" and res.measured.startswith("the test passes in 9 of 1000")
    first[:] = 3
    assert checks.lcb_pass_share(ctx, "f", "a").verdict == "not_reproduced"


def test_split_and_gated_claims_state_their_parts_apart():
    claims = {c["id"]: c for c in load_paper("satisficing_select", "paper", ".").claims}
    assert claims["C2a1"]["check"]["algorithms"] == ["select"]
    assert claims["C2a1.baselines"]["check"]["algorithms"] == ["sat_ucb", "sat_ucb_plus"]
    assert claims["C2a2"]["check"]["lower"] == ["select"]
    assert claims["C2a2.baselines"]["check"]["lower"] == ["sat_ucb", "sat_ucb_plus"]
    for claim in claims.values():  # a gated claim keeps its own check and names what gates it in its statement
        premise = claim.get("premise")
        if isinstance(premise, dict):  # a check premise is labelled by the claim it is a part of ("C4a2's SELECT half")
            named = [re.match(r"[\w.]+", premise["label"]).group(0).removesuffix(".")]
            assert named[0] in claims, claim["id"]
        else:
            named = [premise] if isinstance(premise, str) else list(premise or [])
        assert all(p in claim["statement"] for p in named), claim["id"]
    assert claims["C3a3"]["check"]["fn"] == "select_beyond_sweep"
