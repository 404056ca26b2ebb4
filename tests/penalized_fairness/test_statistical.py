"""Known behaviour of the policies on small instances (fixed seeds, tolerances of several SE)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from banditrepro.algorithms import fairness as fair
from banditrepro.experiments.penalized_fairness import builders, loops

# gaps (0, .1, .4, .6) with A = .25: arm 1 critical, arms 2 and 3 non-critical (Delta - A = .15, .35)
MEANS = np.array([0.9, 0.8, 0.5, 0.3])
TAU = np.full(4, 0.1)
PENALTY = 0.25
CHECKPOINTS = np.array([1000, 4000, 16000])
N_REPS = 24


def _run(algorithm, params, n_reps=N_REPS, checkpoints=CHECKPOINTS, means=MEANS, distribution="gaussian"):
    env_kind, env_params = builders.reward_params(distribution, means, 1.0 / means.size)
    keys = np.arange(1, n_reps + 1, dtype=np.uint64) * np.uint64(7919)
    return loops.run_batch(algorithm, env_kind, np.repeat(params[None], n_reps, 0), env_params, np.zeros(n_reps, int),
                        keys, keys + np.uint64(1), np.zeros(n_reps, int), checkpoints[-1], checkpoints)


@pytest.fixture(scope="module")
def ht_pulls():
    return _run("ht_ucb", fair.ht_ucb_params(TAU, PENALTY))


def test_ht_ucb_penalized_regret_grows_logarithmically(ht_pulls):
    regret = fair.penalized_regret(ht_pulls, MEANS, TAU, PENALTY, CHECKPOINTS[None, :]).mean(axis=0)
    assert np.all(regret > 0)
    # O(log T): the ratio over a 4x longer horizon is near ln(16000)/ln(4000) = 1.17, far below 4
    assert regret[2] / regret[1] < 1.5
    # Theorem 4.2 order: sum over non-critical arms of 8 ln T / (Delta - A) plus the critical arm's
    # 8 ln T / Delta; the measured regret must sit below this gap-dependent bound.
    log_t = math.log(16000)
    bound = 8 * log_t / 0.15 + 8 * log_t / 0.35 + 8 * log_t / 0.1
    assert regret[2] < bound


def test_ht_ucb_keeps_critical_arm_fair_and_starves_non_critical_arms(ht_pulls):
    final = ht_pulls[:, -1, :].astype(float)
    # critical arm 1: N >= tau T - O(1) in every run (Theorem 4.1 / 4.2(b))
    assert np.all(final[:, 1] >= TAU[1] * 16000 - 5)
    # non-critical arms: E N_k <= 8 ln T / (Delta_k - A)^2 + O(1) (Theorem 4.2(c)) and < tau T
    log_t = math.log(16000)
    for arm, excess in ((2, 0.15), (3, 0.35)):
        assert final[:, arm].mean() <= min(8 * log_t / excess**2, TAU[arm] * 16000) + 5
    assert final[:, 2].mean() > final[:, 3].mean()  # smaller excess gap -> more pulls


def test_flearn_fair_baseline_has_linear_penalized_regret():
    pulls = _run("flearn", fair.flearn_params(TAU, 0.0))
    regret = fair.penalized_regret(pulls, MEANS, TAU, PENALTY, CHECKPOINTS[None, :]).mean(axis=0)
    # keeps non-critical arms at tau T: cost (Delta - A) tau T = (.15 + .35) * .1 * T = .05 T
    np.testing.assert_allclose(regret[2] / 16000, 0.05, rtol=0.1)
    assert regret[2] / regret[1] > 3.5


def test_lfg_interpolates_between_round_robin_and_ucb():
    fair_pulls = _run("lfg", fair.lfg_params(TAU, 0.0), checkpoints=np.array([4000]))[:, 0, :]
    greedy_pulls = _run("lfg", fair.lfg_params(TAU, 1e6, rcap=10.0), checkpoints=np.array([4000]))[:, 0, :]
    ucb1_pulls = _run("ht_ucb", fair.ht_ucb_params(TAU, 0.0), checkpoints=np.array([4000]))[:, 0, :]
    assert np.all(fair_pulls.max(axis=1) - fair_pulls.min(axis=1) <= 1)  # eta0 = 0: round robin
    w_fair = fair.expected_reward(fair_pulls, MEANS).mean()
    w_greedy = fair.expected_reward(greedy_pulls, MEANS).mean()
    assert w_fair == pytest.approx(MEANS.mean() * 4000, rel=1e-3)
    # huge eta0 (cap inactive): the queues only perturb UCB1's choice, so LFG earns what UCB1 earns
    assert w_greedy == pytest.approx(fair.expected_reward(ucb1_pulls, MEANS).mean(), rel=0.01)
    assert w_greedy > w_fair + 0.1 * 4000
    # and with queues dominating, LFG meets every tau_k T (no unfairness at eta0 = 0)
    assert fair.unfairness_level(fair_pulls, TAU, 4000).max() == 0


@pytest.mark.parametrize("distribution", ["gaussian", "beta", "bernoulli"])
def test_reward_models_have_the_stated_means_and_variances(distribution):
    # eta0 = 0 round robin over 2 arms: each arm's rewards are its own i.i.d. draws
    means = np.array([0.3, 0.8])
    env_kind, env_params = builders.reward_params(distribution, means, 0.5)
    n_reps = 40
    keys = np.arange(n_reps, dtype=np.uint64) + np.uint64(99)
    draws = np.zeros((n_reps, 2, 500))
    from banditrepro.environments import finite
    step = {"gaussian": finite.GAUSSIAN.step, "beta": loops._beta_johnk_step, "bernoulli": finite.BERNOULLI.step}[distribution]
    obs = np.zeros(1)
    for r in range(n_reps):
        state = np.zeros(2)
        for arm in range(2):
            for i in range(500):
                step(env_params[0], state, keys[r], 1, arm, i, obs)
                draws[r, arm, i] = obs[0]
    flat = draws.transpose(1, 0, 2).reshape(2, -1)
    variance = {"gaussian": np.full(2, 0.25), "beta": means * (1 - means) / 2, "bernoulli": means * (1 - means)}
    n = flat.shape[1]
    assert np.all(np.abs(flat.mean(axis=1) - means) < 5 * np.sqrt(variance[distribution] / n))
    np.testing.assert_allclose(flat.var(axis=1), variance[distribution], rtol=0.05)


def test_uniform_instances():
    mu = builders.uniform_means(np.arange(2000, dtype=np.uint64), 5)
    assert mu.shape == (2000, 5) and mu.min() > 0 and mu.max() < 1
    assert abs(mu.mean() - 0.5) < 5 * math.sqrt(1 / 12 / mu.size)
    np.testing.assert_array_equal(mu[:3], builders.uniform_means(np.arange(3, dtype=np.uint64), 5))


@pytest.mark.parametrize("a", [0.03, 0.3, 0.5, 0.9])
def test_johnk_beta_sampler_matches_the_beta_law(a):
    from scipy import stats

    env_params = np.array([[a], [1.0 - a]])
    obs = np.zeros(1)
    state = np.zeros(1)
    draws = np.empty(4000)
    for i in range(draws.size):
        loops._beta_johnk_step(env_params, state, np.uint64(12345), 1, 0, i, obs)
        draws[i] = obs[0]
    assert draws.min() >= 0.0 and draws.max() <= 1.0
    assert stats.kstest(draws, stats.beta(a, 1.0 - a).cdf).pvalue > 1e-3


def test_johnk_sampler_draws_the_numbers_of_its_single_loop_form():
    """The sampler peels its first attempt out of the retry loop (speed); the draws are those of the
    plain loop over attempts j = 0..31 at counters i * 32 + j."""
    from numba import njit

    from banditrepro import rng

    @njit
    def single_loop(a, b, key, arm, pull_index):
        base = np.uint64(pull_index) * np.uint64(32)
        for j in range(32):
            u, v = rng.uniform2(key, rng.TAG_ARM, arm, base + np.uint64(j))
            x = math.log(u) / a
            y = math.log(v) / b
            m = x if x > y else y
            ex = math.exp(x - m)
            total = ex + math.exp(y - m)
            if m + math.log(total) <= 0.0:
                return ex / total
        return a / (a + b)

    obs = np.zeros(1)
    state = np.zeros(2)
    for a in (0.001, 0.2, 0.5, 0.93):
        env_params = np.array([[0.5, a], [0.5, 1.0 - a]])
        for i in range(3000):
            loops._beta_johnk_step(env_params, state, np.uint64(99), 1, 1, i, obs)
            assert obs[0] == single_loop(a, 1.0 - a, np.uint64(99), 1, i)
