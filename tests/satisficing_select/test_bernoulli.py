"""The Bernoulli-reward sensitivity run of Fig 2 (spec §5.2): Bernoulli draws on the finite instance,
Beta(1, 1) Thompson sampling (standalone and as SELECT's oracle). Hand-computed cases, the draw's
law, and a statistical test of Beta-TS on a tiny instance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from banditrepro import rng
from banditrepro.algorithms.thompson import beta_posterior, beta_ts_choose, beta_ts_update
from banditrepro.environments.continuous import (
    BERNOULLI_REWARDS,
    GAUSSIAN_REWARDS,
    finite_bernoulli,
    finite_gaussian,
    make_environment,
    noise,
    observe,
)
from banditrepro.experiments.satisficing_select.builders import build_simulation
from banditrepro.experiments.satisficing_select.loops import IndexPolicySimulation, SelectSimulation
from banditrepro.seeding import replication_keys

FIG2_MEANS = [0.6, 0.7, 0.8, 1.0]


def keys(n, name):
    return (replication_keys(11, ("select-bernoulli", name, "noise"), n),
            replication_keys(11, ("select-bernoulli", name, "policy"), n))


# ---------------------------------------------------------------- Beta-TS kernel, hand-computed

def test_beta_posterior_update_hand_computed():
    # rewards 1, 0, 1, 1 on arm 2, nothing on arms 0, 1: Beta(1+3, 1+1) on arm 2, the prior elsewhere
    counts, sums = np.zeros(3), np.zeros(3)
    for y in (1.0, 0.0, 1.0, 1.0):
        beta_ts_update(counts, sums, 2, y)
    assert counts.tolist() == [0.0, 0.0, 4.0] and sums.tolist() == [0.0, 0.0, 3.0]
    assert beta_posterior(counts[2], sums[2]) == (4.0, 2.0)
    assert beta_posterior(counts[0], sums[0]) == (1.0, 1.0)  # Beta(1, 1) prior


def test_beta_ts_draws_posterior_betas_in_arm_order():
    counts, sums = np.array([4.0, 0.0, 10.0]), np.array([3.0, 0.0, 2.0])
    stream = rng.new_stream(12345)
    arm = beta_ts_choose(counts, sums, 3, stream)
    assert stream[3] == 3  # one draw per arm
    # the same draws by hand: Beta(4, 2), Beta(1, 1), Beta(3, 9) at stream indices 0, 1, 2
    replay = rng.new_stream(12345)
    thetas = [rng.stream_beta(replay, a, b) for a, b in [(4.0, 2.0), (1.0, 1.0), (3.0, 9.0)]]
    assert arm == int(np.argmax(thetas))


def test_beta_ts_choose_only_reads_the_first_n_arms():
    counts, sums = np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0, 0.0])
    for seed in range(50):
        assert beta_ts_choose(counts, sums, 2, rng.new_stream(seed)) in (0, 1)


def test_stream_beta_matches_the_beta_law_and_leaves_the_stream_sub_free():
    st = rng.new_stream(99)
    draws = np.array([rng.stream_beta(st, 4.0, 2.0) for _ in range(4000)])
    assert stats.kstest(draws, stats.beta(4.0, 2.0).cdf).pvalue > 1e-3
    assert st[3] == 4000  # one stream index per draw
    # the gammas live on sub-streams 2 (sub + 2^30) and 2 (sub + 2^30) + 1, never on the stream's own sub
    st = rng.new_stream(99, sub=5)
    st[3] = 7
    assert rng.stream_beta(st, 4.0, 2.0) == rng.beta(4.0, 2.0, 99, rng.TAG_POLICY, 5 + 2**30, 7)


# ---------------------------------------------------------------- Bernoulli draws

def test_bernoulli_observation_hand_computed():
    key = np.uint64(2024)
    for t in (1, 2, 3, 17):
        u = rng.uniform(key, rng.TAG_ENV, 1, t)
        assert observe(BERNOULLI_REWARDS, u, math.nan, key, t) == 1.0  # u <= p
        assert observe(BERNOULLI_REWARDS, u - 1e-12, math.nan, key, t) == 0.0
        assert observe(BERNOULLI_REWARDS, 1.0, math.nan, key, t) == 1.0
        assert observe(BERNOULLI_REWARDS, 0.0, math.nan, key, t) == 0.0
        # Gaussian rewards are unchanged: mean + sigma * eps_t
        assert observe(GAUSSIAN_REWARDS, 0.7, 2.0, key, t) == 0.7 + 2.0 * noise(key, t)


def test_bernoulli_draw_mean():
    key = np.uint64(77)
    n = 20000
    for p in (0.1, 0.6, 0.93):
        ys = np.array([observe(BERNOULLI_REWARDS, p, math.nan, key, t) for t in range(1, n + 1)])
        assert set(np.unique(ys)) <= {0.0, 1.0}
        assert abs(ys.mean() - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_bernoulli_environment_from_config():
    env = make_environment({"kind": "finite", "means": FIG2_MEANS, "rewards": "bernoulli"})
    assert env.rewards == "bernoulli" and env.reward_code == BERNOULLI_REWARDS
    assert env.optimum == 1.0 and env.n_arms == 4 and math.isnan(env.sigma)
    assert make_environment({"kind": "finite", "means": FIG2_MEANS}).reward_code == GAUSSIAN_REWARDS
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        finite_bernoulli([0.5, 1.2])
    with pytest.raises(ValueError, match="finite"):
        make_environment({"kind": "concave_quadratic", "rewards": "bernoulli"})
    with pytest.raises(ValueError, match="sigma"):
        make_environment({"kind": "finite", "means": FIG2_MEANS, "rewards": "bernoulli", "sigma": 1.0})
    with pytest.raises(ValueError, match="Gaussian"):
        build_simulation({"environment": {"kind": "finite", "means": FIG2_MEANS, "rewards": "bernoulli"},
                          "level": 0.93, "radii_scaled_by_sigma": True}, {"algorithm": "sat_ucb"})


def test_beta_ts_needs_bernoulli_rewards():
    nk, pk = keys(2, "guard")
    with pytest.raises(ValueError, match="Bernoulli"):
        IndexPolicySimulation("beta_thompson", finite_gaussian(FIG2_MEANS), 0.93).run(nk, pk, [10])
    with pytest.raises(ValueError, match="Bernoulli"):
        SelectSimulation("beta_thompson", finite_gaussian(FIG2_MEANS), 0.93).run(nk, pk, [10])


# slow: the paper's loops with Bernoulli arms are another compile of every loop (about 20 CPU-s on an empty numba
# cache); the full suite runs them, the fast loop keeps the Bernoulli kernels' unit tests above
@pytest.mark.slow
def test_realised_rewards_are_counts_of_ones():
    env = finite_bernoulli(FIG2_MEANS)
    nk, pk = keys(20, "counts")
    for sim in (IndexPolicySimulation("beta_thompson", env, 0.93), IndexPolicySimulation("sat_ucb", env, 0.93),
                SelectSimulation("beta_thompson", env, 0.93)):
        reward = sim.run(nk, pk, [100, 500, 1000]).curves["reward"]
        assert np.all(reward == np.round(reward)) and np.all(reward <= [100, 500, 1000])


@pytest.mark.slow
def test_common_random_numbers_across_algorithms():
    # the uniform u_t of step t is shared: on arms of equal mean every policy's reward at step t is
    # 1{u_t <= p}, whichever arm it pulls; arms of mean 1 always pay 1
    nk, pk = keys(5, "crn")
    ones = finite_bernoulli([1.0, 1.0])
    for sim in (IndexPolicySimulation("beta_thompson", ones, 0.5), IndexPolicySimulation("sat_ucb", ones, 0.5),
                SelectSimulation("beta_thompson", ones, 0.5)):
        assert np.all(sim.run(nk, pk, [50]).curves["reward"] == 50.0)
    halves = finite_bernoulli([0.5, 0.5])
    a = IndexPolicySimulation("beta_thompson", halves, 0.5).run(nk, pk, [200]).curves["reward"]
    b = IndexPolicySimulation("sat_ucb_plus", halves, 0.5).run(nk, pk, [200]).curves["reward"]
    c = SelectSimulation("beta_thompson", halves, 0.4).run(nk, pk, [200]).curves["reward"]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert 0 < a.mean() < 200


# ---------------------------------------------------------------- statistical

@pytest.mark.slow
def test_beta_ts_concentrates_on_the_best_arm():
    # two arms 0.2 / 0.8: Beta-TS regret is logarithmic, so by T = 2000 the best arm takes almost every
    # pull (regret 0.6 per pull of the worse arm; Lai-Robbins: ~ ln T / KL(0.2, 0.8) ~ 9 pulls)
    env = finite_bernoulli([0.2, 0.8])
    nk, pk = keys(200, "concentrate")
    out = IndexPolicySimulation("beta_thompson", env, 1.5).run(nk, pk, [250, 500, 1000, 2000])
    m = out.curves["regret"].mean(0)
    worse_pulls = m / 0.6
    assert worse_pulls[-1] < 0.02 * 2000
    assert m[3] - m[2] < 1.6 * (m[1] - m[0])  # increments per doubling stay bounded (log growth)
    # and the last 1000 steps pull the best arm more than 99 % of the time on average
    assert (m[3] - m[2]) / 0.6 < 0.01 * 1000


@pytest.mark.slow
def test_select_with_beta_ts_oracle_passes_its_test_on_an_easy_instance():
    # gap r* - S = 0.6: the printed radius sqrt(4 ln n / n) <= 0.6 from n = 42, so the round-3
    # block (64 pulls) can pass, and SELECT then stays on its satisficing candidate (constant regret)
    env = finite_bernoulli([0.1, 1.0])
    nk, pk = keys(100, "select-easy")
    out = SelectSimulation("beta_thompson", env, 0.4).run(nk, pk, [1000, 2000, 4000])
    m = out.curves["satisficing_regret"].mean(0)
    assert m[2] - m[1] < 0.05 * m[1]
    assert (out.finals["first_passing_round"] > 0).mean() > 0.9
