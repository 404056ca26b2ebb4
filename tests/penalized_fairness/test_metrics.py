"""Penalized regret, unfairness and reward from pull counts: hand cases and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro.algorithms import fairness as fair


def test_penalized_regret_hand_case():
    # mu = (.9, .6, .2), tau = (.2, .2, .2), A = .35, T = 100:
    # gaps (0, .3, .7): arm 2 critical, arm 3 non-critical; L* = 100 * (0 + .3*.2 + .35*.2) = 13.
    # N = (70, 25, 5): loss = .3*25 + .7*5 + .35*(20 - 5) = 7.5 + 3.5 + 5.25 = 16.25 -> Rhat = 3.25.
    r = fair.penalized_regret([70, 25, 5], [0.9, 0.6, 0.2], 0.2, 0.35, 100)
    assert r == pytest.approx(3.25)
    # the oracle allocation (80, 20, 0) has zero regret
    assert fair.penalized_regret([80, 20, 0], [0.9, 0.6, 0.2], 0.2, 0.35, 100) == pytest.approx(0.0)
    np.testing.assert_allclose(fair.oracle_allocation([0.9, 0.6, 0.2], 0.2, 0.35), [0.8, 0.2, 0.0])


def test_penalized_regret_matches_eq10_expansion():
    rng = np.random.default_rng(0)
    for _ in range(50):
        k = 6
        mu = rng.uniform(size=k)
        tau = rng.dirichlet(np.ones(k + 1))[:k]
        a = rng.uniform(0, 1, size=k)
        n = rng.multinomial(500, rng.dirichlet(np.ones(k)))
        gaps = mu.max() - mu
        opt, cr = gaps == 0, (a >= gaps) & (gaps > 0)
        noncr = ~opt & ~cr
        short = np.maximum(tau * 500 - n, 0)
        eq10 = ((a * short)[opt].sum() + (gaps * (n - tau * 500) + a * short)[cr].sum()
                + (gaps * n + a * (short - tau * 500))[noncr].sum())
        assert fair.penalized_regret(n, mu, tau, a, 500) == pytest.approx(eq10, abs=1e-9)


@st.composite
def _instances(draw):
    k = draw(st.integers(1, 8))
    unit = st.floats(0, 1, allow_nan=False)
    mu = np.array(draw(st.lists(unit, min_size=k, max_size=k)))
    raw_tau = np.array(draw(st.lists(unit, min_size=k, max_size=k)))
    scale = draw(st.floats(0, 1))
    tau = raw_tau / max(raw_tau.sum(), 1e-12) * scale
    penalty = np.array(draw(st.lists(st.floats(0, 5), min_size=k, max_size=k)))
    horizon = draw(st.integers(1, 10_000))
    cuts = np.sort(np.array(draw(st.lists(st.integers(0, horizon), min_size=k - 1, max_size=k - 1)), dtype=np.int64))
    pulls = np.diff(np.concatenate([[0], cuts, [horizon]]))
    return pulls, mu, tau, penalty, horizon


@settings(max_examples=300, deadline=None)
@given(_instances())
def test_penalized_regret_is_never_negative(case):
    pulls, mu, tau, penalty, horizon = case
    assert fair.penalized_regret(pulls, mu, tau, penalty, horizon) >= -1e-9 * max(1.0, horizon)


@settings(max_examples=200, deadline=None)
@given(_instances())
def test_oracle_allocation_attains_the_minimum(case):
    _, mu, tau, penalty, horizon = case
    y = fair.oracle_allocation(mu, tau, penalty)
    assert y.sum() == pytest.approx(1.0) and np.all(y >= -1e-12)
    # continuous allocation T*y reaches L*: Rhat = 0
    assert fair.penalized_regret(horizon * y, mu, tau, penalty, horizon) == pytest.approx(0.0, abs=1e-8 * horizon)


def test_unfairness_and_reward():
    pulls = np.array([[70, 25, 5], [40, 40, 20]])
    tau = np.array([0.3, 0.3, 0.3])
    np.testing.assert_allclose(fair.arm_unfairness(pulls, tau, 100), [[0, 5, 25], [0, 0, 10]])
    np.testing.assert_allclose(fair.unfairness_level(pulls, tau, 100), [30, 10])
    np.testing.assert_allclose(fair.expected_reward(pulls, [0.9, 0.6, 0.2]), [79, 64])
    # per-row horizons broadcast over the leading axis
    np.testing.assert_allclose(fair.unfairness_level(pulls, tau, np.array([100, 200])), [30, 80])
