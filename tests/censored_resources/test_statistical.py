"""Known behaviour on small instances: logarithmic regret, RCUCB beating the reductions, CRN."""

import numpy as np
import pytest

from banditrepro.algorithms import censored_baselines as cb
from banditrepro.algorithms import rcucb
from banditrepro.environments import censored as ce
from banditrepro.experiments.censored_resources.loops import CensoredSimulation

# slow: every test runs the paper's simulation loop, about 60 CPU-s to compile on an empty numba cache; the full
# suite runs them, the fast loop keeps the kernels' unit tests (test_policies.py, test_fast_kernels.py)
pytestmark = pytest.mark.slow

T = 20000
REPS = 8
CHECKPOINTS = np.array([T // 4, T // 2, T])


def small_instance():
    """3 independent arms (Beta rewards, exponential consumption), grid {0, 1/3, 2/3, 1}, mild penalty."""
    a = np.array([0.8, 0.8, 0.8])
    b = np.array([0.2, 0.4, 0.6])
    arms = ce.beta_exp_arms(a, b, [1.8, 1.8, 1.8])
    taus = ce.resource_grid(1.0, 4)
    lam = ce.penalty_values(taus, "linear", high_slope=1.0)
    return arms, taus, lam


def run(policy, params, arms=None, taus=None, lam=None, reps=REPS, seed=0):
    if arms is None:
        arms, taus, lam = small_instance()
    sim = CensoredSimulation(arms, taus, lam, 0.1, policy, params)
    noise = np.arange(reps, dtype=np.uint64) + np.uint64(1000 + seed)
    pol = np.arange(reps, dtype=np.uint64) + np.uint64(5000 + seed)
    return sim, sim.run(noise, pol, CHECKPOINTS)


@pytest.mark.parametrize("policy,params", [("rcucb", rcucb.rcucb_params()), ("rcucb", rcucb.rcucb_params(unit_bonus=True)),
                                           ("ucb", cb.ucb_params(scale=1.0)), ("ts", cb.ts_params(scale=1.0))])
def test_regret_grows_logarithmically_not_linearly(policy, params):
    sim, out = run(policy, params)
    r = out.curves["regret"].mean(axis=0)
    # log growth: R(T) - R(T/2) is a small fraction of R(T/2) (linear growth would double it)
    assert r[2] - r[1] < 0.5 * r[1]
    assert out.finals["optimal_share"].mean() > 0.6


def test_rcucb_beats_the_virtual_arm_ucb():
    """Theorem 1's point on a small instance: sharing (censored) observations across limits lowers
    the regret of the UCB reduction. (Against TS no such guarantee exists; on this instance TS wins.)"""
    _, out_r = run("rcucb", rcucb.rcucb_params())
    _, out_u = run("ucb", cb.ucb_params(scale=1.0))
    assert np.all(out_r.finals["final_regret"] < out_u.finals["final_regret"])


def test_censoring_of_rcucb_converges_to_the_optimal_pair():
    sim, out = run("rcucb", rcucb.rcucb_params())
    assert out.finals["censored_proportion"].mean() == pytest.approx(sim.truth.censor_prob_star, abs=0.03)


def test_metrics_are_consistent():
    sim, out = run("ts", cb.ts_params(scale=1.0), reps=3)
    c = out.curves
    assert np.all(np.diff(c["regret"], axis=1) >= -1e-9)
    assert np.all(c["censored"][:, -1] <= T) and np.all(c["optimal"][:, -1] <= T)
    # gain = reward - cost - penalties: with lambda = tau and c(x) = x/10 it is at most the reward
    assert np.all(c["gain"] <= c["reward"] + 1e-9)


def test_results_do_not_depend_on_replication_blocking():
    sim, full = run("ts", cb.ts_params(scale=1.0), reps=4)
    noise = np.arange(4, dtype=np.uint64) + np.uint64(1000)
    pol = np.arange(4, dtype=np.uint64) + np.uint64(5000)
    part = sim.run(noise[2:], pol[2:], CHECKPOINTS)
    assert np.array_equal(full.curves["regret"][2:], part.curves["regret"])
    assert np.array_equal(full.curves["censored"][2:], part.curves["censored"])


def test_common_random_numbers_pair_the_algorithms():
    """With identical choices the two RCUCB variants would see identical draws: their first n rounds
    (same initialisation) produce identical reward and censoring records."""
    arms, taus, lam = small_instance()
    noise = np.array([77], dtype=np.uint64)
    pol = np.array([78], dtype=np.uint64)
    chk = np.array([1, 2, 3])
    a = CensoredSimulation(arms, taus, lam, 0.1, "rcucb", rcucb.rcucb_params()).run(noise, pol, chk)
    b = CensoredSimulation(arms, taus, lam, 0.1, "rcucb", rcucb.rcucb_params(unit_bonus=True)).run(noise, pol, chk)
    assert np.array_equal(a.curves["reward"], b.curves["reward"])
    assert np.array_equal(a.curves["gain"], b.curves["gain"])
