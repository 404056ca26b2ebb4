"""Issue #10 checks of satisficing_select on small synthetic per-replication tables: flat vs growing
against pure logarithmic growth, the inconclusive band, ablation claims gated by their premise, and the
sigma-scaled sensitivity builder."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.environments.continuous import make_environment
from banditrepro.experiments.satisficing_select import checks
from banditrepro.experiments.satisficing_select.builders import build_simulation, unit_noise_equivalent
from banditrepro.experiments.spec import load_paper
from banditrepro.report.checks import below
from banditrepro.report.claims import algorithm_bases, presupposed
from banditrepro.report.context import ResultsContext
from banditrepro.report.vocabulary import KINDS
from banditrepro.seeding import replication_keys

TS = np.arange(500, 5001, 500)
PURE_LOG = np.log(TS) / np.log(TS[-1])  # a ln t through the origin, scaled to R(T) = 1


class Ctx:
    """Panel 'a' (metric 'm', experiment 'e') of figure 'f' from per-replication curves at TS."""

    point = ResultsContext.point

    def __init__(self, curves, params=None):
        self.outs = {a: SimulationOutput(checkpoints=TS, curves={"m": np.asarray(c, float)}) for a, c in curves.items()}
        self.spec = SimpleNamespace(experiments={"e": SimpleNamespace(params=params or {})})

    def panel(self, figure, panel):
        return {"id": panel, "experiment": "e", "metric": "m"}

    def replications(self, experiment):
        return self.outs

    def curve(self, figure, panel, algorithm, metric=None):
        c = self.outs[algorithm].curves["m"]
        return pd.DataFrame({"t": TS, "mean": c.mean(0), "se": c.std(0, ddof=1) / np.sqrt(len(c)), "n": len(c)})


def _reps(mean_curve, noise=0.0, n=200, seed=0):
    """Replications of ``mean_curve`` with independent per-step increments of sd ``noise``."""
    rng = np.random.default_rng(seed)
    steps = noise * rng.standard_normal((n, TS.size))
    return np.asarray(mean_curve, float)[None, :] + np.cumsum(steps, axis=1) - np.cumsum(steps, axis=1).mean(0)


def _flat(ctx, algos="x", **kw):
    return checks.flat(ctx, "f", "a", algos, 4000, **kw)


def test_flat_separates_constant_from_logarithmic_and_linear_growth():
    converged = 100 * (1 - np.exp(-TS / 600))  # constant regret reached early
    ctx = Ctx({"x": _reps(converged, noise=0.2), "log": _reps(100 * PURE_LOG, noise=0.2),
               "lin": _reps(TS / 50, noise=0.2)})
    assert _flat(ctx).verdict == "reproduced"
    # pure log growth has the ratio R(5000)/R(2500) = 1.089 <= 1.10 that passed as 'constant' before;
    # here it sits exactly on the threshold: neither flat nor growing by 2 s.e.
    assert ctx.curve("f", "a", "log")["mean"].iloc[-1] / ctx.curve("f", "a", "log")["mean"].iloc[4] < 1.10
    assert _flat(ctx, "log").verdict == "inconclusive"
    assert _flat(ctx, "log", growing=True).verdict == "inconclusive"
    assert _flat(ctx, "lin").verdict == "not_reproduced"
    assert _flat(ctx, "lin", growing=True).verdict == "reproduced"
    assert _flat(ctx, ["x", "lin"]).verdict == "not_reproduced"
    # faster than log by a little, but drowned in noise: inconclusive, not a pass
    noisy = Ctx({"x": _reps(100 * PURE_LOG + 0.5 * (TS / 5000), noise=3.0)})
    assert _flat(noisy).verdict == "inconclusive"


def test_flat_threshold_is_the_pure_log_increment():
    res = _flat(Ctx({"x": _reps(100 * PURE_LOG, noise=0.01)}))
    expected = 100 * math.log(5000 / 4000) / math.log(5000)
    assert f"pure-log {expected:.4g}" in res.measured


def test_growing_after_the_initial_sweep_of_the_grid():
    params = {"environment": {"kind": "concave_quadratic", "top": 1.0, "curvature": 16.0, "centre": 0.25},
              "level": 0.3}
    ctx = Ctx({}, params)
    sweep = checks._initial_sweep(ctx, "e", TS, "satisficing_regret")
    env = make_environment(params["environment"])
    # hand check at T = 5000: 50 cells, regret max(0.3 - r, 0) summed over the cell centres
    centres = (np.arange(50) + 0.5) / 50
    assert sweep[-1] == pytest.approx(np.maximum(0.3 - env.mean(centres[:, None]), 0).sum())
    only_sweep = Ctx({"x": _reps(sweep + 2.0, noise=0.05)}, params)  # nothing but the sweep grows
    assert _flat(only_sweep, growing=True).verdict == "reproduced"
    assert _flat(only_sweep, growing=True, after_initial_sweep=True).verdict == "not_reproduced"
    keeps_pulling = Ctx({"x": _reps(sweep + TS / 100, noise=0.05)}, params)
    assert _flat(keeps_pulling, growing=True, after_initial_sweep=True).verdict == "reproduced"


def test_ablation_claims_are_gated_by_selects_own_constant_regret():
    """Issue 38: what breaks SELECT's constant regret presupposes it; the gate is each claim's premise (the generic
    rule of report/claims.py, tests/test_premises.py), not a check of this paper."""
    spec = load_paper("satisficing_select", "paper", ".")
    bases = algorithm_bases(spec)
    # Fig 5's ablations and Fig 6's lambdas are modifications of SELECT, read from the experiments' entries
    assert {a for (e, a), base in bases.items() if e == "ablation" and base == "select"} >= \
        {"select_no_step1", "select_no_step2", "select_no_step3"}
    gated = {c["id"]: c["premise"] for c in spec.claims if c["kind"] == "headline" and presupposed(spec, c, bases)}
    # every Fig 5 and Fig 6 claim on a modification of SELECT (issue 53: C5c2 too), gated on SELECT's own claims
    assert {c["id"] for c in spec.claims if c["kind"] == "headline" and c["figure"] in ("fig5", "fig6")
            and c["id"] != "C5a"} == set(gated)
    assert {cid: p for cid, p in gated.items() if isinstance(p, str)} == {"C5b": "C5a", "C5c1": "C5a", "C5c2": "C5a"}
    # C6: the half of C4a2 about SELECT itself, as a check premise (not C4a2's baselines' half)
    half = next(c for c in spec.claims if c["id"] == "C4a2")["check"]["parts"][0]
    assert {k: v for k, v in gated["C6"].items() if k not in ("label", "figure")} == \
        {k: v for k, v in half.items() if k != "label"} and gated["C6"]["figure"] == "fig4"
    assert not hasattr(checks, "if_flat")


def test_comparable_and_spread_have_an_inconclusive_band():
    base = _reps(np.full(TS.size, 100.0), noise=4.0, seed=1)
    rng = np.random.default_rng(2)
    noise = rng.normal(0, 30, base.shape)
    near = base * 1.25 + noise - noise.mean(0) + 0.2  # 25.2 % above on average, noisy
    ctx = Ctx({"a": near, "b": base})
    assert checks.comparable(ctx, "f", "a", "a", "b", 0.25).verdict == "inconclusive"
    assert checks.comparable(ctx, "f", "a", "a", "b", 0.5).verdict == "reproduced"
    assert checks.comparable(ctx, "f", "a", "a", "b", 0.05).verdict == "not_reproduced"
    assert checks.pairwise_comparable(ctx, "f", "a", ["a", "b"], 0.25).verdict == "inconclusive"
    assert checks.spread_at_every_t(ctx, "f", ["a"], ["a", "b"], 1.25).verdict == "inconclusive"
    jitter = rng.normal(0, 2, base.shape)
    above_by_noise = base + jitter - jitter.mean(0) + 0.01
    assert checks.not_above_max(Ctx({"s": above_by_noise, "o": base}), "f", "a", "s", ["o"]).verdict == "inconclusive"
    assert checks.not_above_max(Ctx({"s": base + 5.0, "o": base}), "f", "a", "s", ["o"]).verdict == "not_reproduced"


def test_below_at_every_t_paired_uses_paired_differences():
    base = _reps(TS / 10, noise=5.0)
    ctx = Ctx({"lo": base, "hi": base + 1.0})  # +1 at every T, tiny paired s.e. although each curve is noisy
    res = below(ctx, "f", "a", "lo", ["hi"], at="every", paired=True)
    assert res.verdict == "reproduced" and "; difference 1 ± " in res.measured and " paired; margin " in res.measured
    assert below(ctx, "f", "a", "hi", ["lo"], at="every", paired=True).verdict == "not_reproduced"
    # at T without pairing (C2a2, C4a1, ... as configured) the unpaired s.e.: +1 is within the noise there
    assert below(ctx, "f", "a", "lo", ["hi"]).verdict == "inconclusive"


def test_unit_noise_equivalent_scales_means_and_keeps_the_grid():
    env = make_environment({"kind": "capped_gaussian_bump", "cap": 1.0, "amplitude": 3.0, "rate": 100.0,
                            "centre": [0.5, 0.7], "sigma": 0.1})
    unit, level = unit_noise_equivalent(env, 0.5)
    pts = np.random.default_rng(0).random((50, 2))
    assert np.allclose(unit.mean(pts), env.mean(pts) / 0.1)
    assert unit.sigma == 1.0 and unit.optimum == pytest.approx(10.0) and level == pytest.approx(5.0)
    assert unit.lipschitz == env.lipschitz  # grids sized as on the original instance


@pytest.mark.parametrize("algo", [{"algorithm": "sat_ucb"}, {"algorithm": "select", "oracle": "thompson"}])
def test_radii_scaled_by_sigma_is_the_identity_at_sigma_one(algo):
    params = {"environment": {"kind": "finite", "means": [0.6, 0.7, 0.8, 1.0], "sigma": 1.0}, "level": 0.93}
    keys = replication_keys(7, ("t", "noise"), 6)
    pkeys = replication_keys(7, ("t", "policy"), 6)
    plain = build_simulation(params, algo).run(keys, pkeys, [100, 200, 400])
    scaled = build_simulation({**params, "radii_scaled_by_sigma": True}, algo).run(keys, pkeys, [100, 200, 400])
    for name, curve in plain.curves.items():
        np.testing.assert_array_equal(curve, scaled.curves[name])


def test_sigma_scaled_select_passes_its_lcb_test_with_small_noise():
    """At sigma = 0.1 the scaled test needs sqrt(4 ln n/n) <= 0.07/0.1 (n >= 40): Fig 2(a)'s SELECT
    stops starting new rounds, unlike at sigma = 1 (n >= 7257)."""
    algo = {"algorithm": "select", "oracle": "thompson"}
    base = {"environment": {"kind": "finite", "means": [0.6, 0.7, 0.8, 1.0], "sigma": 0.1}, "level": 0.93}
    keys = replication_keys(11, ("t", "noise"), 40)
    pkeys = replication_keys(11, ("t", "policy"), 40)
    scaled = build_simulation({**base, "radii_scaled_by_sigma": True}, algo).run(keys, pkeys, [1000, 2000])
    unit = build_simulation({**base, "environment": {**base["environment"], "sigma": 1.0}}, algo).run(
        keys, pkeys, [1000, 2000])
    assert scaled.finals["rounds_started"].mean() < unit.finals["rounds_started"].mean()
    assert np.mean(scaled.finals["first_passing_round"] > 0) > 0.3
    assert np.mean(unit.finals["first_passing_round"] > 0) < 0.1


@pytest.mark.parametrize("scale", ["paper", "smoke"])
def test_every_claim_has_a_kind_and_no_ratio_decides_constant(scale):
    spec = load_paper("satisficing_select", scale, ".")
    kinds = {c["id"]: c.get("kind") for c in spec.claims}
    assert all(k in KINDS for k in kinds.values()), kinds
    # the sigma and variant twins of a headline claim are variants; the reference guards of those runs
    # (REF*.sigma) are sanity checks like every reference guard
    assert all(v == "variant" for k, v in kinds.items() if k.endswith((".variants", ".sigma")) and not k.startswith("REF"))
    assert all(v == "sanity" for k, v in kinds.items() if k.startswith("REF"))
    for c in spec.claims:  # 'constant' is select_flat everywhere; the ratio survives only for C5b's 'almost linear'
        if "constant" in c["statement"].split("premise:")[0] and c["id"] not in ("C5b", "C6"):
            assert c["check"]["fn"] in ("select_flat", "all_of", "select_any_variant_recovers"), c["id"]
            assert "select_flat" in str(c["check"]), c["id"]


def test_lcb_reach_matches_the_spec_hand_computation():
    """Spec §5.15: noise-free passing needs n = 7257 (Fig 2a), 68 (Fig 4a), 245 (Fig 5), 27 (Fig 3a);
    the longest forced block before T = 5000 is T_5 = 1024 at alpha = 1/2 and T_8 = 41 at alpha = 3/4."""
    spec = load_paper("satisficing_select", "paper", ".")
    got = {e: checks.lcb_reach(spec.experiments[e], "select")[:2]
           for e in ("finite_realizable", "lipschitz_realizable", "ablation", "concave_realizable")}
    assert got == {"finite_realizable": (7257, 1024), "lipschitz_realizable": (68, 41), "ablation": (245, 41),
                   "concave_realizable": (27, 1024)}
    n = 7257
    assert math.sqrt(4 * math.log(n) / n) <= 0.07 < math.sqrt(4 * math.log(n - 1) / (n - 1))


def _decided(check: dict):
    """A check and, for an all_of, its parts."""
    yield check
    for part in check.get("parts", []) or []:
        yield from _decided(part)


@pytest.mark.parametrize("scale", ["smoke", "paper"])
def test_no_headline_claim_reads_a_rise_that_a_sanity_claim_calls_the_grid_sweep(scale):
    """Issue 53: where a sanity claim shows that an algorithm's raw rise on a panel is its grid's initial sweep
    (C3a3.grid: SAT-UCB(+) pull each cell once), a headline claim that says the algorithm keeps growing there reads it
    beyond the sweep (select_beyond_sweep, as C3a2 and C3a3 do), never through the raw rise (select_flat, growing)."""
    spec = load_paper("satisficing_select", scale, ".")
    swept = {(c["figure"], c["check"]["panel"], a) for c in spec.claims
             if c["kind"] == "sanity" and c["check"]["fn"] == "select_flat" and c["check"].get("growing")
             for a in c["check"]["algorithms"]}
    assert swept, "no sanity claim shows a grid sweep: the rule below has nothing to read"
    raw = [f"{c['id']} ({a})" for c in spec.claims if c["kind"] == "headline" for part in _decided(c["check"])
           if part["fn"] == "select_flat" and part.get("growing")
           for a in part["algorithms"] if (c["figure"], part["panel"], a) in swept]
    assert raw == []
