"""The reference guard (censored_matches_reference): the build's runs against the end-to-end reference.

The reference (src/banditrepro/experiments/censored_resources/reference.py) builds its own instances, draws,
ground truth, loop and metrics from the paper, so besides a policy bug it sees a bug in an instance, the
penalty or the ground truth: the last tests plant such bugs in the build (monkeypatched while the shard is
simulated) and require the guard to fail.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from shard_context import shard_context

from banditrepro.environments import censored as ce
from banditrepro.experiments.censored_resources import builders
from banditrepro.experiments.censored_resources import reference as ref
from banditrepro.experiments.censored_resources.checks import matches_reference
from banditrepro.experiments.spec import load_paper
from banditrepro.registry import SIMULATION_BUILDERS

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("censored_resources", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


# slow: each case simulates a whole experiment twice (the build's kernels and the reference), tens of
# CPU-seconds with the first compiles; the full suite runs them, the fast loop does not
@pytest.mark.slow
@pytest.mark.parametrize("experiment", ["s51_indep", "f1m2_negcorr", "f2_n20", "f3"])
def test_the_build_equals_the_reference(tmp_path, experiment):
    algorithms = list(SPEC.experiments[experiment].algorithms)  # every reading too: unit bonus, single pair
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured
    assert "regret within 1e-09 relative" in res.measured


@pytest.mark.slow
def test_the_ames_setting_equals_the_reference(tmp_path):
    """Sec. 5.2 on the shipped surrogate table (the build installs it at the experiment's ``requires`` path)."""
    ames = dataclasses.replace(SPEC.experiments["ames"], requires=["data/ames_forest/surrogate_table.csv"])
    spec = dataclasses.replace(SPEC, experiments={**SPEC.experiments, "ames": ames})
    res = matches_reference(shard_context(spec, "ames", tmp_path, n=1), ["ames"], ["rcucb", "ucb", "ts"])
    assert res.verdict == "reproduced", res.measured


# slow: the guard runs the build's loops and the reference end to end (on an empty numba cache, their first
# compiles); the full suite runs it, the fast loop does not
@pytest.mark.slow
def test_a_run_that_differs_fails(tmp_path):
    def one_more_censored_pull(results):
        results["ucb"].curves["censored"][0, -1] += 1.0

    res = matches_reference(_context(tmp_path, "f2_n20", edit=one_more_censored_pull), ["f2_n20"],
                            ["rcucb", "ucb", "ts"], replications=2)
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("2/3 ") and "f2_n20/ucb: curve censored differs" in res.measured


@pytest.mark.parametrize("experiment", ["s51_poscorr", "s51_negcorr", "s51_indep", "f1m1_poscorr", "f3"])
def test_the_ground_truth_agrees_with_the_builds_to_rounding(experiment):
    """nu by quadrature over R (the build integrates over C), so the regret is compared to 1e-9 relative: the
    two agree to a few units of 1e-15, and on the optimal pair."""
    exp = SPEC.experiments[experiment]
    sim = SIMULATION_BUILDERS[exp.builder](exp, "rcucb")
    arms, taus, lam, scale, cost = ref.SETTINGS[experiment].setting(exp)
    nu = ref.ground_truth(arms, taus, lam, cost)
    assert np.abs(nu - sim.truth.nu).max() < 1e-13
    assert int(np.argmax(nu)) == sim.truth.best_arm * taus.size + sim.truth.best_grid_index


# --- bugs outside the policies, which the earlier (policy-only) reference could not see ---------------------


@pytest.mark.slow
def test_an_instance_bug_fails(tmp_path, monkeypatch):
    """PosCorr's correlations x_i = 0.2 for every arm (the first arm's value copied to the others)."""
    real = ce.gaussian_arms
    monkeypatch.setattr(ce, "gaussian_arms", lambda mu_r, mu_c, x, sigma, truncation="lower0":
                        real(mu_r, mu_c, 0.2, sigma, truncation))
    res = matches_reference(_context(tmp_path, "s51_poscorr", algorithms=["rcucb"]), ["s51_poscorr"], ["rcucb"])
    assert res.verdict == "not_reproduced", res.measured


@pytest.mark.slow
def test_a_penalty_bug_fails(tmp_path, monkeypatch):
    """lambda(0.5) = 10 x 0.5 (the inclusive switch of digest A4 read as exclusive): F.1's M1 = {0.5, 0.9}."""
    real = ce.penalty_values
    monkeypatch.setattr(ce, "penalty_values", lambda taus, kind, **kw: real(taus, kind, switch=0.5 - 1e-9, **kw))
    res = matches_reference(_context(tmp_path, "f1m1_indep", algorithms=["ucb"]), ["f1m1_indep"], ["ucb"])
    assert res.verdict == "not_reproduced", res.measured


@pytest.mark.slow
def test_a_ground_truth_bug_fails(tmp_path, monkeypatch):
    """nu without the cost c(C) (the choices, censoring and gains stay right; only the regret moves)."""
    real = ce.ground_truth
    monkeypatch.setattr(builders.ce, "ground_truth", lambda arms, taus, lam, cost_slope: real(arms, taus, lam, 0.0))
    res = matches_reference(_context(tmp_path, "s51_indep", algorithms=["ts"]), ["s51_indep"], ["ts"])
    assert res.verdict == "not_reproduced" and "curve regret differs beyond 1e-09 relative" in res.measured, res.measured
