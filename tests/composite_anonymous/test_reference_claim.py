"""The reference guard (composite_matches_reference): the build's runs against the end-to-end reference.

The reference (src/banditrepro/experiments/composite_anonymous/reference.py) builds its own instances, turns the
raw draws into feedback, runs its own ARS-UCB / ODAAF loops and computes its own regret, so besides a policy bug
it sees a bug in a builder, an environment's shape or the regret: the last tests plant such bugs in the build
(monkeypatched while the shard is simulated) and require the guard to fail.
"""

import types
from pathlib import Path

import numpy as np
import pytest
from shard_context import shard_context

from banditrepro.environments import composite as ce
from banditrepro.experiments.composite_anonymous import builders, loops
from banditrepro.experiments.composite_anonymous import reference as ref
from banditrepro.experiments.composite_anonymous.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("composite_anonymous", "smoke", REPO_ROOT)
STOCHASTIC = [e for e, exp in SPEC.experiments.items() if exp.builder == "composite_stochastic"]
COVERED = [e for e in STOCHASTIC if e in ref.SETTINGS]


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


def test_the_reference_covers_every_stochastic_experiment_but_the_polynomial_shapes():
    assert sorted(set(STOCHASTIC) - set(COVERED)) == ["poly_2", "poly_3"]
    with pytest.raises(ValueError, match="no poly_3/ars_a4"):
        ref.REFERENCE.run(SPEC.experiments["poly_3"], "ars_a4", np.array([1], np.uint64), np.array([2], np.uint64),
                          np.array([100]))


# slow: each case simulates a whole experiment twice (the build's kernels and the reference), tens of
# CPU-seconds with the first compiles; the full suite runs them, the fast loop does not
@pytest.mark.slow
@pytest.mark.parametrize("experiment", COVERED)
def test_a_correct_build_equals_the_reference(tmp_path, experiment):
    algorithms = list(SPEC.experiments[experiment].algorithms)
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured
    assert res.measured.startswith(f"{len(algorithms)}/{len(algorithms)} ") and "first 2 replication(s)" in res.measured


# slow: the guard runs the build's loops and the reference end to end (on an empty numba cache, their first
# compiles); the full suite runs it, the fast loop does not
@pytest.mark.slow
def test_an_odaaf_run_that_differs_fails(tmp_path):
    def one_more_phase(results):
        results["odaaf_v"].finals["phases"][1] += 1

    res = matches_reference(_context(tmp_path, "delay_10_30", edit=one_more_phase), ["delay_10_30"],
                            ["ars_a4", "odaaf_v"], replications=2)
    assert res.verdict == "not_reproduced"
    assert "delay_10_30/odaaf_v: final phases differs, first at index (1,)" in res.measured


def test_the_reference_transcribes_the_paper():
    """The shapes' weights against the paper's formulas, and the ODAAF baselines' delay statistics (derived in the
    reference from the shape) against the parameters the config gives the build."""
    assert ref.SETTINGS["interval_30_40"].weights == (0.0,) * 30 + (0.1,) * 10
    lindec = np.array(ref.SETTINGS["lindec_50"].weights)
    assert lindec[0] == 0.0 and lindec[1] == pytest.approx(2 * 50 / (50 * 51)) and lindec[50] == pytest.approx(2 / 2550)
    for experiment in ("interval_10_20", "lindec_100", "lininc_50"):
        assert sum(ref.SETTINGS[experiment].weights) == pytest.approx(1.0, abs=1e-12)
    for experiment in COVERED:
        for params in SPEC.experiments[experiment].algorithms.values():
            if params["policy"] == "odaaf":
                mean, var, bound = ref.SETTINGS[experiment].delay_statistics()
                assert (mean, var, bound) == (params["mean_delay"], params.get("var_delay", 0.0), params["bound"])


def test_the_draws_follow_the_counter_convention():
    """Totals are Bernoulli(s_i) and delays the environment's (environments/composite.py's test helpers read the
    same counters): the one convention the reference shares with the build."""
    key, n = np.uint64(987654321), 20000
    totals = np.array([ref.pull_draws(key, 2, k, False)[0] <= 0.7 for k in range(n)])
    assert abs(totals.mean() - 0.7) < 4 * np.sqrt(0.21 / n)
    shape = ce.random_delay(10, 30)
    arms = [0, 0, 1, 0, 1, 1, 1, 0, 2]
    pulls = {a: 0 for a in set(arms)}
    ours = []
    for a in arms:
        ours.append(min(10 + int(ref.pull_draws(key, a, pulls[a], True)[1] * 21), 30))
        pulls[a] += 1
    assert ours == ce.delays_of_pulls(shape, 3, arms, int(key)).tolist()


# --- bugs outside the policies, which the earlier (policy-only) reference could not see ---------------------


@pytest.mark.slow
def test_a_shape_bug_in_the_builder_fails(tmp_path, monkeypatch):
    """Fig 3a's interval read as lags d_min+1..d_max (one slot later): the feedback moves, so do the decisions."""
    real = builders.make_shape
    monkeypatch.setattr(builders, "make_shape", lambda spec: real({**spec, "d_min": spec["d_min"] + 1,
                                                                   "d_max": spec["d_max"] + 1}))
    res = matches_reference(_context(tmp_path, "interval_30_40", algorithms=["ars_a4", "odaaf_gen"]),
                            ["interval_30_40"], ["ars_a4", "odaaf_gen"], replications=2)
    assert res.verdict == "not_reproduced", res.measured


@pytest.mark.slow
def test_an_environment_delay_bug_fails(tmp_path, monkeypatch):
    """The environment's U{lo..hi} delay drawn from U{lo..hi-1}."""
    real = ce.random_delay
    monkeypatch.setattr(ce, "random_delay", lambda low, high: real(low, high - 1))
    res = matches_reference(_context(tmp_path, "delay_10_30", algorithms=["ars_a4"]), ["delay_10_30"], ["ars_a4"],
                            replications=2)
    assert res.verdict == "not_reproduced", res.measured


@pytest.mark.slow
def test_a_regret_bug_fails(tmp_path, monkeypatch):
    """The pseudo-regret's gaps taken to the second-best mean (clipped at 0): the decisions stay, the curves move."""
    def with_wrong_gaps(*args):
        means = args[7]
        return loops.ars_ucb_run(*args[:8], np.maximum(np.sort(means)[-2] - means, 0.0), *args[9:])

    monkeypatch.setattr(builders, "loops", types.SimpleNamespace(ars_ucb_run=with_wrong_gaps))
    res = matches_reference(_context(tmp_path, "delay_10_30", algorithms=["ars_a4"]), ["delay_10_30"], ["ars_a4"],
                            replications=2)
    assert res.verdict == "not_reproduced" and "curve regret differs" in res.measured, res.measured
    assert "final rounds" not in res.measured
