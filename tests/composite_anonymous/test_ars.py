"""ARS-UCB and ARS-EXP3: hand-computed rounds and indices, statistical behaviour on small instances."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro.algorithms import ars
from banditrepro.environments import composite as ce
from banditrepro.experiments.composite_anonymous import loops

IMMEDIATE = ce.bounded_interval(0, 1)  # whole total seen in the slot of the pull


def run_ucb(shape, means, horizon, alpha, f, keys, checkpoints):
    kind, scale, power = {"k": (0, 1, 1), "k^2": (0, 1, 2), "2^k": (1, 0, 0)}[f]
    means = np.asarray(means, float)
    return loops.ars_ucb_run(shape.kind, shape.cumulative, shape.exp_coef, shape.exp_rate, shape.delay_low,
                           shape.delay_high, shape.discount, means, means.max() - means, horizon, alpha, kind, scale,
                           power, np.asarray(keys, np.uint64), np.asarray(checkpoints, np.int64))


def test_round_sizes():
    assert [ars.round_size(ars.ROUND_POWER, 1, 2, k) for k in range(1, 5)] == [1, 4, 9, 16]
    assert [ars.round_size(ars.ROUND_POWER, 1, 1, k) for k in range(1, 4)] == [1, 2, 3]
    assert [ars.round_size(ars.ROUND_POWER, 2, 3, k) for k in range(1, 3)] == [2, 16]
    assert [ars.round_size(ars.ROUND_EXPONENTIAL, 0, 0, k) for k in range(1, 6)] == [4, 4, 8, 16, 32]
    assert [ars.round_size(ars.ROUND_EXPONENTIAL, 1, 0, k) for k in range(1, 4)] == [8, 8, 16]


def test_index_hand_computed_and_ties():
    # u = [min(0.5 + sqrt(4 ln 100 / 40), 1), 0.2 + sqrt(4 ln 100 / 200)] = [1, 0.5035]
    sums, counts = np.array([20.0, 40.0]), np.array([40.0, 200.0])
    assert ars.ars_ucb_choose(sums, counts, 100, 4.0) == 0
    # both capped at 1: the arm with fewer pulls wins, whatever its index
    assert ars.ars_ucb_choose(np.array([9.0, 1.0]), np.array([10.0, 2.0]), 12, 4.0) == 1
    # uncapped: 0.3 + sqrt(2 ln 1000/ 400) = 0.4859 vs 0.1 + sqrt(2 ln 1000/25) = 0.8434
    assert ars.ars_ucb_choose(np.array([120.0, 2.5]), np.array([400.0, 25.0]), 1000, 2.0) == 1
    # equal up to 1e-12 (summation order) counts as a tie -> fewer pulls
    a = 0.1 + 0.2
    assert ars.ars_ucb_choose(np.array([a * 50, 0.3 * 40]), np.array([50.0, 40.0]), 10**9, 1e-30) == 1
    # exact ties with equal counts -> smallest index
    assert ars.ars_ucb_choose(np.array([1.0, 1.0, 1.0]), np.array([2.0, 2.0, 2.0]), 6, 4.0) == 0


def test_first_rounds_hand_computed():
    """means [1, 0], immediate feedback, f(k) = k: rounds (0,1) (1,1) (0,2) (1,2) ...

    t=2: u = [1, min(sqrt(4 ln 2), 1) = 1] tie, equal N -> arm 0 for f(2) = 2 slots;
    t=4: u = [1, 1], N = [3, 1] -> arm 1 for f(2) = 2 slots. Regret after slots 1..6: 0 1 1 1 2 3.
    """
    regret, rounds, pulls = run_ucb(IMMEDIATE, [1.0, 0.0], 6, 4.0, "k", [7], np.arange(1, 7))
    np.testing.assert_array_equal(regret[0], [0, 1, 1, 1, 2, 3])
    assert rounds[0] == 4 and list(pulls[0]) == [3, 3]


def test_logarithmic_regret_and_focus_on_best_arm():
    """Random delay U{0..8}: regret increments shrink like log t; the best arm gets almost all pulls."""
    T = 200_000
    cps = np.array([T // 100, T // 10, T])
    regret, _, pulls = run_ucb(ce.random_delay(0, 8), [0.8, 0.5, 0.3], T, 4.0, "k^2", np.arange(1, 13), cps)
    r = regret.mean(axis=0)
    assert (r[2] - r[1]) / (r[1] - r[0]) < 1.5  # log-linear: about 1
    gaps = np.array([0.3, 0.5])
    assert r[2] < np.sum(8 * 4.0 * math.log(T) / gaps)  # Theorem 1's leading term
    assert pulls[:, 0].mean() / T > 0.97


def test_spill_over_is_credited_to_the_arm_played():
    """With a long constant delay the first rounds observe nothing: M_i only counts slots i was played in."""
    shape = ce.random_delay(50, 50)
    regret, rounds, pulls = run_ucb(shape, [1.0, 0.0], 40, 4.0, "2^k", [1], np.array([40]))
    # nothing arrives before slot 50, so both estimates stay 0 and the indices tie: fewer pulls, then index 0.
    # 2^k (f(1) = 4): arm0 4, arm1 4, arm0 4, arm1 4, arm0 8, arm1 8, arm0 16 cut to 8 at T = 40
    assert list(pulls[0]) == [24, 16] and rounds[0] == 7 and regret[0, -1] == 16


# --------------------------------------------------------------------------------------------------------
# ARS-EXP3


def test_exp3_schedule_and_gamma():
    sizes, gamma = ars.ars_exp3_schedule(10, 2)
    assert list(sizes) == [1, 2, 2, 2, 3, 0]  # G(5) = 10, no leftover
    sizes, _ = ars.ars_exp3_schedule(12, 2)
    assert list(sizes) == [1, 2, 2, 2, 3, 2]  # g(6) = 3 > 2 leftover slots
    sizes, gamma = ars.ars_exp3_schedule(10**6, 10)
    K = len(sizes) - 1
    assert sizes[K - 1] == 115 and 13_000 < K < 13_200
    assert math.isclose(gamma, math.sqrt(10 * math.log(10) / ((math.e - 1) * (1.5e6) ** (2 / 3))), rel_tol=1e-12)
    assert 0.031 < gamma < 0.033


def test_exp3_probabilities_and_update():
    p = ars.ars_exp3_probs(np.zeros(4), 5.0, 0.2, np.zeros(4))
    np.testing.assert_allclose(p, 0.25)
    w = np.array([math.log(3.0) * 2.0, 0.0])  # e = [3, 1] with g(K) = 2
    p = ars.ars_exp3_probs(w, 2.0, 0.1, np.zeros(2))
    np.testing.assert_allclose(p, [0.9 * 0.75 + 0.05, 0.9 * 0.25 + 0.05])
    w = np.zeros(2)
    ars.ars_exp3_update(w, np.array([0.5, 0.5]), 1, 7.0, 4.0, 0.1)  # Z' = min(7, 4) = 4
    np.testing.assert_allclose(w, [0.0, 0.1 * 4 / (2 * 0.5)])


def one_hot_matrix(T, probs, seed):
    rng = np.random.default_rng(seed)
    cat = rng.choice(len(probs), size=T, p=probs)
    S = np.zeros((T, len(probs)), np.int8)
    S[np.arange(T), cat] = 1
    return S


def test_ars_exp3_learns_the_best_arm_sublinearly():
    S = one_hot_matrix(200_000, [0.6, 0.2, 0.2], 1)
    cps = np.array([50_000, 100_000, 200_000])
    sizes, gamma = ars.ars_exp3_schedule(len(S), 3)
    keys = np.arange(1, 9, dtype=np.uint64)
    reward, rounds = loops.ars_exp3_run(S, ce.DELAY_NON_OBLIVIOUS, 10, 1, 10, 0, sizes, gamma, keys, keys + 100, cps)
    regret = ce.best_cumulative(S, cps) - reward.mean(axis=0)
    per_slot = regret / cps
    assert per_slot[2] < per_slot[1] < per_slot[0]  # sub-linear
    assert per_slot[2] < 0.1  # uniform play would lose 0.4 per slot
    assert np.all(rounds == len(sizes) - 1 + (sizes[-1] > 0))  # the leftover is one more (unupdated) round


def test_ars_clw_phases():
    ends, guesses = ars.ars_clw_phases(10_000, 1024, lambda x: math.ceil(x ** 0.25))
    assert list(ends) == [1024, 2048, 4096, 8192, 10_000]
    assert list(guesses) == [6, 7, 8, 10, 12]


@settings(max_examples=15, deadline=None)
@given(alpha=st.sampled_from([2.0, 4.0, 8.0]), f=st.sampled_from(["k", "k^2", "2^k"]), T=st.integers(20, 3000),
       low=st.integers(0, 5), span=st.integers(0, 20), key=st.integers(1, 2**62))
def test_regret_is_gap_weighted_pull_count(alpha, f, T, low, span, key):
    """Invariants of any run: pulls sum to T, final pseudo-regret = Σ Δ_i N_i, curve non-decreasing."""
    means = np.array([0.9, 0.6, 0.3])
    cps = np.unique(np.linspace(1, T, 25).astype(np.int64))
    regret, rounds, pulls = run_ucb(ce.random_delay(low, low + span), means, T, alpha, f, [key], cps)
    assert pulls[0].sum() == T
    assert math.isclose(regret[0, -1], np.dot(means.max() - means, pulls[0]), abs_tol=1e-6)
    assert np.all(np.diff(regret[0]) >= -1e-9)
    assert rounds[0] >= min(3, T)


def test_ars_clw_runs_phases_and_learns():
    from banditrepro.algorithms import clw

    T = 60_000
    S = one_hot_matrix(T, [0.7, 0.15, 0.15], 5)
    ends, guesses = ars.ars_clw_phases(T, 4096, lambda x: math.ceil(x ** 0.25))
    gammas = np.array([clw.clw_gamma(int(g), 3, int(e)) for g, e in zip(guesses, ends)])
    keys = np.arange(1, 7, dtype=np.uint64)
    cps = np.array([T // 4, T])
    reward, blocks = loops.clw_run(S, ce.DELAY_OBLIVIOUS, 5, 1, 5, 0, ends, guesses, gammas, clw.RULE_LOOKAHEAD,
                                 keys, keys + 7, cps)
    regret = (ce.best_cumulative(S, cps) - reward.mean(axis=0)) / cps
    assert regret[1] < regret[0] < 0.55  # uniform play loses 0.55 per slot
    # expected number of blocks: Σ_phases (phase length) q (1-q)^(2d-1)
    lengths = np.diff(np.concatenate([[0], ends]))
    q = 1 / (2 * guesses)
    expected = np.sum(lengths * q * (1 - q) ** (2 * guesses - 1))
    assert abs(blocks.mean() - expected) < 0.1 * expected


@pytest.mark.parametrize("shape", [ce.discounted(0.9), ce.polynomial(2.0), ce.linear_decreasing(20)],
                         ids=lambda s: s.name)
def test_log_regret_with_infinite_and_composite_spread(shape):
    """Regret increments over [T/10, T] are not larger than over [T/100, T/10] (log growth) for any spread."""
    T = 100_000
    cps = np.array([T // 100, T // 10, T])
    regret, _, pulls = run_ucb(shape, [0.8, 0.4, 0.2], T, 4.0, "k^2", np.arange(1, 9), cps)
    r = regret.mean(axis=0)
    assert (r[2] - r[1]) / (r[1] - r[0]) < 1.5
    assert pulls[:, 0].mean() / T > 0.95
