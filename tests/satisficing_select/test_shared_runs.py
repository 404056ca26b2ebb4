"""What run_index_policy shares between the runs of a replication (issue 41) changes no number.

* A replication's step draws are made once (``fill_step_draws``) and read by every run: each is the draw
  ``observe`` makes at that step, for Gaussian and Bernoulli rewards.
* Per horizon, a run whose arm set a later run also plays is read off that run's first steps when the later
  run has not drawn from its policy stream by then. Reference: the same kernel with the run on its own (the
  earlier runs given one-arm sets of their own, so no run shares), column by column.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro.environments.continuous import (
    BERNOULLI_REWARDS,
    GAUSSIAN_REWARDS,
    fill_step_draws,
    observe,
    observe_draw,
    step_draw,
)
from banditrepro.experiments.satisficing_select.loops import (
    POLICY_SAT_UCB,
    POLICY_SAT_UCB_PLUS,
    POLICY_UNIFORM_UCB,
    run_index_policy,
)


@settings(max_examples=30, deadline=None)
@given(key=st.integers(0, 2**64 - 1), reward_code=st.sampled_from([GAUSSIAN_REWARDS, BERNOULLI_REWARDS]),
       mean=st.floats(-2.0, 2.0), sigma=st.sampled_from([1.0, 0.1, 10.0]), steps=st.integers(1, 300))
def test_the_table_holds_the_draw_observe_makes(key, reward_code, mean, sigma, steps):
    key = np.uint64(key)
    draws = np.full(steps + 1, np.nan)
    fill_step_draws(reward_code, key, draws)
    for t in range(1, steps + 1):
        assert draws[t] == step_draw(reward_code, key, t)
        y = observe_draw(reward_code, mean, sigma, draws[t])
        assert np.float64(y).tobytes() == np.float64(observe(reward_code, mean, sigma, key, t)).tobytes()


MAX_ARMS = 8
DUMMY_ARMS = MAX_ARMS + 1


def _play(policy, means, sizes, checkpoints, level, keys):
    curves = np.zeros((len(keys), 3, checkpoints.size))
    run_index_policy(policy, means, sizes, checkpoints, True, level, 1.0, 1.0, GAUSSIAN_REWARDS, keys,
                     keys[::-1].copy(), checkpoints, curves)
    return curves


def _alone(policy, means, sizes, checkpoints, level, keys, g):
    """Column g with run g the only run of its arm set: the earlier runs on sets of ``DUMMY_ARMS`` arms (more
    than any set of the test has), the later left out."""
    alone_means = np.zeros((g + 1, DUMMY_ARMS))
    alone_means[g, :means.shape[1]] = means[g]
    alone_sizes = np.full(g + 1, DUMMY_ARMS, dtype=np.int64)
    alone_sizes[g] = sizes[g]
    return _play(policy, alone_means, alone_sizes, checkpoints[:g + 1], level, keys)[:, :, g]


@settings(max_examples=25, deadline=None)
@given(policy=st.sampled_from([POLICY_SAT_UCB, POLICY_SAT_UCB_PLUS, POLICY_UNIFORM_UCB]),
       groups=st.lists(st.integers(0, 2), min_size=1, max_size=6), level=st.sampled_from([0.3, 0.9, 1.5]),
       seed=st.integers(0, 2**32 - 1))
def test_a_run_read_off_a_longer_run_is_the_run_on_its_own(policy, groups, level, seed):
    """``groups``: how many arm sets in a row repeat the one before (0: a new set), so runs of equal arm sets
    follow each other as on the Lipschitz grids (M(T) equal for neighbouring T)."""
    gen = np.random.default_rng(seed)
    n_runs = len(groups)
    checkpoints = np.cumsum(gen.integers(5, 120, n_runs)).astype(np.int64)
    sizes = np.empty(n_runs, dtype=np.int64)
    means = np.full((n_runs, MAX_ARMS), np.nan)
    for g, repeat in enumerate(groups):
        if g > 0 and repeat > 0:
            sizes[g], means[g] = sizes[g - 1], means[g - 1]
        else:
            sizes[g] = gen.integers(2, MAX_ARMS + 1)
            means[g, :sizes[g]] = np.round(gen.uniform(0.0, 1.0, sizes[g]) * 4.0) / 4.0
    keys = gen.integers(0, 2**63, 3).astype(np.uint64)
    shared = _play(policy, means, sizes, checkpoints, level, keys)
    for g in range(n_runs):
        assert shared[:, :, g].tobytes() == _alone(policy, means, sizes, checkpoints, level, keys, g).tobytes(), g
