"""CLW / EXP3: hand-computed updates, block-end rules (property tests), statistical behaviour."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro.algorithms import clw
from banditrepro.environments import composite as ce
from banditrepro.experiments.composite_anonymous import loops


def test_exp3_hand_computed():
    p = clw.exp3_probs(np.zeros(3), 0.3, np.zeros(3))
    np.testing.assert_allclose(p, 1 / 3)
    log_w = np.zeros(2)
    probs = np.array([0.25, 0.75])
    clw.exp3_update(log_w, probs, 0, 0.5, 0.2)  # x̂ = 2, log w += 0.2 * 2 / 2
    np.testing.assert_allclose(log_w, [0.2, 0.0])
    p = clw.exp3_probs(log_w, 0.2, np.zeros(2))
    e = math.exp(0.2)
    np.testing.assert_allclose(p, [0.8 * e / (e + 1) + 0.1, 0.8 / (e + 1) + 0.1])
    assert math.isclose(clw.clw_gamma(10, 10, 10**6), math.sqrt(200 * math.log(10) / (10**6 + 10)))


def block_ends(rule, key, d, T):
    q = 1 / (2 * d)
    ends, length = [], 0
    for t in range(T):
        length += 1
        if clw.block_ends_at(rule, np.uint64(key), q, d, t, length, T):
            ends.append(t)
            length = 0
    return np.array(ends)


@settings(max_examples=20, deadline=None)
@given(key=st.integers(1, 2**63), d=st.integers(1, 12))
def test_block_ends_are_at_least_2d_apart(key, d):
    for rule in (clw.RULE_LOOKAHEAD, clw.RULE_LOOKBACK):
        ends = block_ends(rule, key, d, 600)
        assert np.all(np.diff(ends) >= 2 * d)
        if rule == clw.RULE_LOOKBACK and ends.size:
            assert ends[0] >= 2 * d - 1


def test_lookahead_end_rate():
    """P(t ∈ U) = q (1-q)^(2d-1) for every t (the point of the paper's modification)."""
    d, T = 5, 200_000
    ends = block_ends(clw.RULE_LOOKAHEAD, 17, d, T)
    q = 1 / (2 * d)
    rate = q * (1 - q) ** (2 * d - 1)
    assert abs(ends.size / T - rate) < 4 * math.sqrt(rate / T)


def test_clw_learns_under_oblivious_delays_and_window_reward():
    T = 200_000
    rng = np.random.default_rng(2)
    cat = rng.choice(3, size=T, p=[0.7, 0.15, 0.15])
    S = np.zeros((T, 3), np.int8)
    S[np.arange(T), cat] = 1
    cps = np.array([T // 4, T // 2, T])
    keys = np.arange(1, 9, dtype=np.uint64)
    reward, blocks = loops.clw_run(S, ce.DELAY_OBLIVIOUS, 10, 5, 10, 0, np.array([T]), np.array([10]),
                                 np.array([clw.clw_gamma(10, 3, T)]), clw.RULE_LOOKAHEAD, keys, keys + 50, cps)
    regret = (ce.best_cumulative(S, cps) - reward.mean(axis=0)) / cps
    assert regret[2] < regret[0] and regret[2] < 0.15  # uniform play loses 0.55 per slot
    q = 1 / 20
    assert abs(blocks.mean() / T - q * (1 - q) ** 19) < 0.002
