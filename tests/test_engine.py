import numpy as np
import pytest
from numba import njit

from banditrepro import rng
from banditrepro.algorithms import ucb1
from banditrepro.engine import PolicyKernel, StepSimulation, checkpoint_grid, summarize
from banditrepro.environments import bernoulli_arms, categorical_arms, gaussian_arms, threshold_gaps
from banditrepro.seeding import replication_keys


@njit(cache=True)
def _rr_select(t, state, params, stream):
    return (t - 1) % state.shape[1]


@njit(cache=True)
def _rr_reverse_select(t, state, params, stream):
    n = state.shape[1]
    return n - 1 - (t - 1) % n


@njit(cache=True)
def _noop_update(t, state, params, arm, obs):
    pass


ROUND_ROBIN = PolicyKernel("round_robin", _rr_select, _noop_update, state_rows=1)
REVERSE_ROBIN = PolicyKernel("reverse_round_robin", _rr_reverse_select, _noop_update, state_rows=1)
MEANS = np.array([0.0, 0.5, 1.0])


def _sim(policy, params=None, means=MEANS, happy=None):
    params = np.zeros(1) if params is None else params
    env, p = gaussian_arms(means, 1.0)
    return StepSimulation(env, p, threshold_gaps(means, means.max())[None, :], ("regret",), policy, params,
                          happy_threshold=happy)


def _keys(n, tag="a"):
    return replication_keys(7, ("test", "noise"), n), replication_keys(7, ("test", tag), n)


def test_results_do_not_depend_on_replication_blocking():
    noise, pol = _keys(40)
    sim = _sim(*ucb1())
    cp = checkpoint_grid(300, {"every": 7})
    whole = sim.run(noise, pol, cp)
    parts = [sim.run(noise[a:a + 13], pol[a:a + 13], cp) for a in range(0, 40, 13)]
    for name, arr in whole.curves.items():
        np.testing.assert_array_equal(arr, np.concatenate([p.curves[name] for p in parts]))
    np.testing.assert_array_equal(whole.pulls, np.concatenate([p.pulls for p in parts]))


def test_common_random_numbers_across_policies():
    """The k-th pull of an arm yields the same reward whatever the order of pulls."""
    noise, pol = _keys(5)
    cp = np.array([30])  # 10 pulls of each arm in both orders
    a = _sim(ROUND_ROBIN).run(noise, pol, cp)
    b = _sim(REVERSE_ROBIN).run(noise, pol, cp)
    np.testing.assert_allclose(a.curves["reward"], b.curves["reward"], rtol=1e-12)
    np.testing.assert_array_equal(a.pulls, b.pulls)


def test_metrics_of_round_robin_are_exact():
    noise, pol = _keys(3)
    cp = np.array([1, 2, 3, 6, 9])
    out = _sim(ROUND_ROBIN, happy=-np.inf).run(noise, pol, cp)
    gaps = MEANS.max() - MEANS
    expected_regret = np.array([gaps[0], gaps[:2].sum(), gaps.sum(), 2 * gaps.sum(), 3 * gaps.sum()])
    np.testing.assert_allclose(out.curves["regret"], np.tile(expected_regret, (3, 1)))
    np.testing.assert_array_equal(out.curves["switches"][0], [0, 1, 2, 5, 8])
    np.testing.assert_array_equal(out.curves["happiness"][0], cp)  # every reward >= -inf
    np.testing.assert_array_equal(out.pulls[:, -1, :], 3)


def test_gaussian_rewards_have_the_right_moments():
    noise, pol = _keys(400)
    means = np.array([2.0])
    env, p = gaussian_arms(means, 3.0)
    sim = StepSimulation(env, p, np.zeros((1, 1)), ("regret",), ROUND_ROBIN, np.zeros(1))
    out = sim.run(noise, pol, np.array([1, 50]))
    first = out.curves["reward"][:, 0]
    assert abs(first.mean() - 2.0) < 4 * 3.0 / np.sqrt(400)
    assert 2.5 < first.std() < 3.5
    assert abs(out.curves["reward"][:, 1].mean() / 50 - 2.0) < 4 * 3.0 / np.sqrt(400 * 50)


def test_gaussian_step_replays_rng_normal_pair_exactly():
    """Pulls 2j and 2j+1 of an arm read pair j of rng.normal_pair (the step is compiled inline into the
    loop; this pins it to the generator as called on its own)."""
    noise, pol = _keys(2)
    means, sds = np.array([0.5, -1.0]), np.array([2.0, 0.5])
    env, p = gaussian_arms(means, sds)
    cp = np.arange(1, 11)  # round robin: step t pulls arm (t-1) % 2 for the ((t-1)//2)-th time
    out = StepSimulation(env, p, np.zeros((1, 2)), ("regret",), ROUND_ROBIN, np.zeros(1)).run(noise, pol, cp)
    for r in range(2):
        rewards = []
        for t in cp:
            arm, pull = (t - 1) % 2, (t - 1) // 2
            z = rng.normal_pair(noise[r], rng.TAG_ARM, arm, pull // 2)[pull % 2]
            rewards.append(means[arm] + sds[arm] * z)
        np.testing.assert_array_equal(out.curves["reward"][r], np.cumsum(rewards))


def test_ucb1_gaussian_numbers_are_pinned():
    """Rewards and pulls of UCB1 on the benchmark's arms, as computed before the kernels were inlined
    (speed changes of the engine must not move a number)."""
    means = [1.0, 2.0, 3.0, 4.0]
    env, p = gaussian_arms(means, 1.0)
    sim = StepSimulation(env, p, threshold_gaps(means, 4.0)[None, :], ("regret",), *ucb1())
    noise, pol = _keys(3)
    out = sim.run(noise, pol, np.array([1000]))
    assert out.curves["reward"][:, -1].tolist() == [3963.3864925984994, 3973.101230217114, 4021.476484875926]
    assert out.pulls[:, -1, :].tolist() == [[3, 2, 32, 963], [1, 3, 11, 985], [2, 4, 12, 982]]


def test_bernoulli_and_categorical_rewards():
    noise, pol = _keys(200)
    env, p = bernoulli_arms([0.3])
    out = StepSimulation(env, p, np.zeros((1, 1)), ("regret",), ROUND_ROBIN, np.zeros(1)).run(noise, pol, np.array([100]))
    assert abs(out.curves["reward"].mean() / 100 - 0.3) < 0.01
    env, p = categorical_arms([1, 2, 5], [[0.5, 0.25, 0.25]])
    out = StepSimulation(env, p, np.zeros((1, 1)), ("regret",), ROUND_ROBIN, np.zeros(1)).run(noise, pol, np.array([100]))
    assert abs(out.curves["reward"].mean() / 100 - 2.25) < 0.05
    with pytest.raises(ValueError):
        categorical_arms([1, 2], [[0.5, 0.6]])


def test_checkpoints_must_increase():
    noise, pol = _keys(2)
    with pytest.raises(ValueError):
        _sim(ROUND_ROBIN).run(noise, pol, np.array([5, 3]))


def test_checkpoint_grid_always_ends_at_horizon():
    assert checkpoint_grid(10, {"every": 3}).tolist() == [3, 6, 9, 10]
    g = checkpoint_grid(1000, {"points": 20, "spacing": "log"})
    assert g[0] == 1 and g[-1] == 1000 and np.all(np.diff(g) > 0)
    assert checkpoint_grid(50, {"at": [10, 60]}).tolist() == [10, 50]


def test_summarize_uses_sample_standard_error():
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    mean, se, n = summarize(x)
    np.testing.assert_allclose(mean, [2.0, 4.0])
    np.testing.assert_allclose(se, np.std(x, axis=0, ddof=1) / np.sqrt(2))
    assert n == 2
