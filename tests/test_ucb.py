import math

import numpy as np
from scipy import stats

from banditrepro.algorithms.ucb import ucb1
from banditrepro.bench import naive_ucb1_gaussian, naive_ucl_gaussian
from banditrepro.engine import StepSimulation
from banditrepro.environments import gaussian_arms, threshold_gaps
from banditrepro.rng import new_stream
from banditrepro.seeding import replication_keys


def _state(counts, sums):
    counts = np.asarray(counts, float)
    sums = np.asarray(sums, float)
    return np.vstack([counts, sums, sums / counts, 1 / np.sqrt(counts)])


def test_initial_round_robin():
    kernel, params = ucb1()
    params = kernel.prepare(params, 10)
    state = np.zeros((4, 3))
    assert [kernel.select(t, state, params, new_stream(0)) for t in (1, 2, 3)] == [0, 1, 2]


def test_index_hand_computed():
    kernel, params = ucb1()
    params = kernel.prepare(params, 100)
    # t = 20: radius sqrt(2 log 20) = 2.4477; arm 0: 1.0 + 2.4477/sqrt(16) = 1.612; arm 1: 0.2 + 2.4477/2 = 1.424
    state = _state([16, 4], [16.0, 0.8])
    assert kernel.select(20, state, params, new_stream(0)) == 0
    # arm 1 with fewer pulls wins when its mean is close: 0.5 + 1.224 = 1.724 > 1.612
    state = _state([16, 4], [16.0, 2.0])
    assert kernel.select(20, state, params, new_stream(0)) == 1


def test_update_keeps_derived_rows():
    kernel, params = ucb1()
    state = np.zeros((4, 2))
    for r in (1.0, 3.0):
        kernel.update(5, state, params, 1, np.array([r]))
    np.testing.assert_allclose(state[:, 1], [2, 4.0, 2.0, 1 / math.sqrt(2)])


def _run(policy, means, T, R, seed=3):
    env, p = gaussian_arms(means, 1.0)
    sim = StepSimulation(env, p, threshold_gaps(means, max(means))[None, :], ("regret",), policy[0], policy[1])
    cp = np.unique(np.geomspace(10, T, 30).astype(np.int64))
    return sim.run(replication_keys(seed, ("t", "n"), R), replication_keys(seed, ("t", "p"), R), cp)


def test_ucb1_regret_grows_logarithmically_and_respects_auer_bound():
    means = [0.0, 0.5]
    T = 4000
    out = _run(ucb1(), means, T, 200)
    mean_pulls = out.pulls[:, -1, 0].mean()
    assert mean_pulls < 8 * math.log(T) / 0.25 + 1 + math.pi**2 / 3  # Auer et al. (2002), Thm 1
    regret = out.curves["regret"].mean(axis=0)
    t = out.checkpoints
    late = t >= 100
    slope, _, r, _, _ = stats.linregress(np.log(t[late]), regret[late])
    assert slope > 0 and r**2 > 0.9
    # sublinear: the second half adds far less than the first
    assert regret[-1] - regret[np.searchsorted(t, T // 2)] < 0.5 * regret[np.searchsorted(t, T // 2)]


def test_naive_reference_agrees_statistically_with_the_kernel():
    means, T = [1.0, 2.0, 3.0, 4.0], 500
    fast = _run(ucb1(), means, T, 200).curves["regret"][:, -1]
    slow = np.array([naive_ucb1_gaussian(means, [1.0] * 4, T, seed=s) for s in range(60)])
    assert abs(fast.mean() - slow.mean()) < 4 * math.hypot(fast.std() / math.sqrt(200), slow.std() / math.sqrt(60))


def test_naive_ucl_reference_agrees_statistically_with_the_kernel():
    from banditrepro.algorithms import ucl

    means, T = [1.0, 2.0, 3.0, 4.0], 500
    policy = ucl(np.ones(4), threshold_gaps(means, 4.0), K=1.0, regret_threshold=4.0)
    fast = _run(policy, means, T, 200).curves["regret"][:, -1]
    slow = np.array([naive_ucl_gaussian(means, [1.0] * 4, T, seed=s) for s in range(60)])
    assert abs(fast.mean() - slow.mean()) < 4 * math.hypot(fast.std() / math.sqrt(200), slow.std() / math.sqrt(60))
