"""SAT-UCB(+) and Uniform UCB with their indices (algorithms/satisficing_ucb.py, lipschitz_ucb.py and the trees
of arm_trees.py) take the arm of the printed one-pass rules.

The printed rules are :func:`printed_sat_ucb` and :func:`printed_uniform_ucb` below: the scans the kernels ran
before issue 41 (every mean, sqrt and index recomputed from counts and sums at every step, one pass, first index
on ties, SAT-UCB's uniform draw from the same policy stream). Both are driven through the same random histories,
step by step; every choice and the policy stream's position must agree. Rewards come from few values in most
examples, so that means, keys, rho and UCB indices tie exactly.
"""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from banditrepro import rng
from banditrepro.algorithms.arm_trees import new_tournament
from banditrepro.algorithms.lipschitz_ucb import ucb_choose, ucb_reset, ucb_update
from banditrepro.algorithms.satisficing_ucb import new_index, sat_ucb_choose, sat_ucb_reset, sat_ucb_update


@njit
def printed_uniform_ucb(step, counts, sums, n_arms, log_h):
    if step <= n_arms:
        return step - 1
    best, best_index = 0, -math.inf
    for j in range(n_arms):
        index = sums[j] / counts[j] + math.sqrt(4.0 * log_h / counts[j])
        if index > best_index:
            best, best_index = j, index
    return best


@njit
def printed_sat_ucb(pulls_so_far, counts, sums, n_arms, level, plus, stream):
    if pulls_so_far < n_arms:
        return pulls_so_far
    log_t = math.log(pulls_so_far)
    r_t = math.sqrt(2.0 * math.log(1.0 + pulls_so_far * log_t * log_t))
    max_mu, max_ucb, arg_ucb, max_rho, arg_rho = -math.inf, -math.inf, 0, -math.inf, 0
    for j in range(n_arms):
        mu = sums[j] / counts[j]
        c = r_t / math.sqrt(counts[j])
        rho = (mu + c - max(mu - c, level)) / c
        max_mu = max(max_mu, mu)
        if mu + c > max_ucb:
            max_ucb, arg_ucb = mu + c, j
        if rho > max_rho:
            max_rho, arg_rho = rho, j
    if (max_ucb if plus else max_mu) >= level:
        return arg_rho
    if max_ucb < level:
        return arg_ucb
    eligible = np.empty(n_arms, dtype=np.int64)
    m = 0
    for j in range(n_arms):
        if sums[j] / counts[j] + r_t / math.sqrt(counts[j]) >= level:
            eligible[m] = j
            m += 1
    return eligible[rng.stream_integer(stream, m)]

REWARDS = {
    "gaussian": lambda gen, mean: mean + gen.standard_normal(),
    "coarse": lambda gen, mean: float(np.round(2.0 * (mean + gen.standard_normal())) / 2.0),  # multiples of 1/2
    "bernoulli": lambda gen, mean: float(gen.random() <= mean),
    "constant": lambda gen, mean: mean,  # exact ties between arms of equal means and counts
}


def _arm_means(gen, n_arms):
    return np.round(gen.uniform(-0.5, 1.5, n_arms) * 4.0) / 4.0  # equal means among the arms


def _run_both(n_arms, level, plus, rewards, seed, steps, key=5):
    gen = np.random.default_rng(seed)
    arm_means = _arm_means(gen, n_arms)
    counts, sums, means, roots = (np.zeros(n_arms) for _ in range(4))
    index = new_index(n_arms)
    sat_ucb_reset(counts, sums, means, roots, *index, n_arms)
    ref_counts, ref_sums = np.zeros(n_arms), np.zeros(n_arms)
    stream, ref_stream = rng.new_stream(key), rng.new_stream(key)
    choices = []
    for t in range(steps):
        arm = sat_ucb_choose(t, means, roots, n_arms, level, plus, stream, *index)
        ref = printed_sat_ucb(t, ref_counts, ref_sums, n_arms, level, plus, ref_stream)
        assert arm == ref, f"step {t}: indexed {arm}, printed {ref}"
        assert np.array_equal(stream, ref_stream), f"step {t}: streams diverged"
        y = REWARDS[rewards](gen, arm_means[arm])
        sat_ucb_update(counts, sums, means, roots, *index, arm, y, level)
        ref_counts[arm] += 1.0
        ref_sums[arm] += y
        choices.append(arm)
    return choices


@settings(max_examples=40, deadline=None)
@given(n_arms=st.integers(2, 40), level=st.sampled_from([-0.25, 0.0, 0.5, 0.93, 1.0, 1.5, 3.0]), plus=st.booleans(),
       rewards=st.sampled_from(sorted(REWARDS)), seed=st.integers(0, 2**32 - 1))
def test_indexed_step_takes_the_printed_rules_arm(n_arms, level, plus, rewards, seed):
    _run_both(n_arms, level, plus, rewards, seed, steps=12 * n_arms + 40)


def test_every_branch_on_a_grid_sized_instance():
    """400 arms as on the Lipschitz grid: the ratio rule, the uniform exploration among many arms whose UCB
    reaches S, and argmax UCB once no UCB reaches it (S far above every mean)."""
    for level, plus in ((0.5, False), (0.5, True), (1.5, False), (1.5, True), (6.0, False)):
        choices = _run_both(400, level, plus, "gaussian", seed=3, steps=2500)
        assert len(set(choices)) == 400


def test_constant_rewards_tie_every_arm_of_a_mean():
    """Arms of equal means and counts have bit-equal keys, rho and UCBs: the first index must win."""
    for plus in (False, True):
        choices = _run_both(64, 0.5, plus, "constant", seed=1, steps=900)
        assert len(set(choices)) > 10


@settings(max_examples=40, deadline=None)
@given(n_arms=st.integers(1, 40), horizon=st.integers(1, 5000), rewards=st.sampled_from(sorted(REWARDS)),
       seed=st.integers(0, 2**32 - 1))
def test_uniform_ucb_tournament_takes_the_printed_rules_arm(n_arms, horizon, rewards, seed):
    gen = np.random.default_rng(seed)
    arm_means = _arm_means(gen, n_arms)
    log_h = np.log(horizon)
    counts, sums = np.zeros(n_arms), np.zeros(n_arms)
    index, winner = new_tournament(1, n_arms)
    ucb_reset(counts, sums, index, winner, n_arms)
    for step in range(1, 12 * n_arms + 40):
        arm = ucb_choose(step, winner, n_arms)
        assert arm == printed_uniform_ucb(step, counts, sums, n_arms, log_h), f"step {step}"
        ucb_update(counts, sums, index, winner, arm, REWARDS[rewards](gen, arm_means[arm]), log_h)


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(1, 400), min_size=2, max_size=40), seed=st.integers(0, 2**32 - 1),
       level=st.sampled_from([-0.5, 0.0, 0.25, 0.5, 1.0]), plus=st.booleans(), growth=st.sampled_from([1, 2, 50]))
def test_indexed_step_takes_the_printed_rules_arm_among_many_satisfied_arms(counts, seed, level, plus, growth):
    """Histories a run rarely reaches in a few hundred steps: many arms pulled often, so that several have
    LCB > S and rho = 2 up to rounding (the first index among the printed maxima must win, not the largest
    key), and keys within a few ulps of -R_t. Constant rewards on a grid of 1/8 make means exact and equal."""
    gen = np.random.default_rng(seed)
    n_arms = len(counts)
    arm_means = np.round(gen.uniform(-0.5, 2.0, n_arms) * 8.0) / 8.0
    pulls, sums, means, roots = (np.zeros(n_arms) for _ in range(4))
    index = new_index(n_arms)
    sat_ucb_reset(pulls, sums, means, roots, *index, n_arms)
    for arm, n in enumerate(counts):
        for _ in range(n):
            sat_ucb_update(pulls, sums, means, roots, *index, arm, float(arm_means[arm]), level)
    stream, ref_stream = rng.new_stream(11), rng.new_stream(11)
    total = int(sum(counts))
    for t in (total, growth * total, 10 * growth * total):  # R_t never decreases between the steps
        arm = sat_ucb_choose(t, means, roots, n_arms, level, plus, stream, *index)
        assert arm == printed_sat_ucb(t, pulls.copy(), sums.copy(), n_arms, level, plus, ref_stream), f"t = {t}"
        assert np.array_equal(stream, ref_stream)
