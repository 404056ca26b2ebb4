"""Composite anonymous feedback kernels: block sums against naive per-slot convolution, exact shapes."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import zeta

from banditrepro.environments import composite as ce


def naive_observations(x, weights_of_lag, T):
    """Y(u) = Σ_{s ≤ u} x_s w(u - s) by brute force."""
    y = np.zeros(T)
    w = weights_of_lag(T)
    for u in range(T):
        y[u] = np.dot(x[: u + 1][::-1], w[: u + 1])
    return y


def run_blocks(shape, means, arms_per_block, lengths, key):
    T = int(np.sum(lengths))
    x, prefix, arrivals, rec, tail = ce.new_state(shape.kind, T, shape.delay_high, len(shape.exp_rate))
    pulls = np.zeros(len(means), dtype=np.int64)
    sums, t = [], 0
    for a, n in zip(arms_per_block, lengths):
        sums.append(ce.play_block(shape.kind, shape.cumulative, shape.exp_coef, shape.exp_rate, shape.delay_low,
                                  shape.delay_high, shape.discount, np.asarray(means, float), np.uint64(key), x,
                                  prefix, arrivals, rec, tail, pulls, t, int(a), int(n)))
        t += n
    return np.array(sums), x[:T]


def test_hand_computed_shapes():
    np.testing.assert_allclose(ce.linear_decreasing(3).weights, [0, 3 / 6, 2 / 6, 1 / 6])
    np.testing.assert_allclose(ce.linear_increasing(3).weights, [0, 1 / 6, 2 / 6, 3 / 6])
    np.testing.assert_allclose(ce.bounded_interval(2, 4).weights, [0, 0, 0.5, 0.5])
    w = ce.discounted(0.8).lag_weights(3)
    np.testing.assert_allclose(w, [0, 0.2, 0.16, 0.128])
    w = ce.polynomial(2).lag_weights(2)
    np.testing.assert_allclose(w, [0, 0.607927101854, 0.607927101854 / 4], rtol=1e-10)
    for shape in (ce.linear_decreasing(100), ce.linear_increasing(50), ce.bounded_interval(30, 40)):
        assert math.isclose(shape.weights.sum(), 1.0, rel_tol=1e-12)
    assert ce.random_delay(10, 30).spill() == 20
    assert math.isclose(ce.discounted(0.9).spill(), 10.0)


@pytest.mark.parametrize("p", [2.0, 3.0])
def test_polynomial_tail_is_exact_to_5e9(p):
    shape = ce.polynomial(p)
    near = len(shape.weights) - 1
    tau = np.unique(np.round(np.geomspace(near + 1, 1e6, 3000)))
    approx = ce.far_tail_weights(shape, tau)
    exact = tau ** -p / zeta(p)
    assert np.max(np.abs(approx / exact - 1)) < 5e-9


SHAPES = [ce.bounded_interval(3, 7), ce.linear_decreasing(6), ce.linear_increasing(5), ce.discounted(0.7),
          ce.polynomial(2.0), ce.polynomial(3.0), ce.bounded_interval(0, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_per_slot_observations_match_naive_convolution(shape):
    rng = np.random.default_rng(3)
    T = 700
    arms = rng.integers(0, 3, size=T)
    y, x = ce.observations_per_slot(shape, [0.9, 0.5, 0.2], arms, key=11)
    np.testing.assert_allclose(y, naive_observations(x, shape.lag_weights, T), rtol=1e-9, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(lengths=st.lists(st.integers(1, 40), min_size=1, max_size=25), data=st.data())
def test_block_sums_are_sums_of_slot_observations(lengths, data):
    """Any partition into blocks gives block sums equal to the per-slot observations summed (all shapes)."""
    for shape in SHAPES + [ce.random_delay(0, 6)]:
        arms = data.draw(st.lists(st.integers(0, 2), min_size=len(lengths), max_size=len(lengths)))
        sums, _ = run_blocks(shape, [0.9, 0.5, 0.2], arms, lengths, key=5)
        per_slot = np.repeat(arms, lengths)
        y, _ = ce.observations_per_slot(shape, [0.9, 0.5, 0.2], per_slot, key=5)
        edges = np.concatenate([[0], np.cumsum(lengths)])
        expected = [y[a:b].sum() for a, b in zip(edges[:-1], edges[1:])]
        np.testing.assert_allclose(sums, expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(n_exp=st.integers(1, 120), src=st.integers(-12, 20), seed=st.integers(0, 2**32 - 1),
       binary=st.booleans(), total=st.floats(0.0, 1e3))
def test_far_tail_batch_is_bit_for_bit_the_slot_steps(n_exp, src, seed, binary, total):
    """The batched far tail (eight sums side by side) equals TAIL_BATCH one-slot steps to the last bit:
    the same total, the same recursion states (the polynomial kernel's outputs must not move)."""
    rng = np.random.default_rng(seed)
    rate = rng.uniform(0.0, 1.0, n_exp)
    coef = rng.exponential(1e-2, n_exp) * rng.uniform(0.0, 1.0, n_exp) ** 8  # wide spread of magnitudes
    rec0 = rng.exponential(1.0, n_exp) * rng.uniform(0.0, 1.0, n_exp) ** 8
    x = (rng.random(40) < 0.6).astype(float) if binary else rng.uniform(0.0, 3.0, 40)
    rec_slot = rec0.copy()
    expected = total
    for j in range(ce.TAIL_BATCH):
        expected += ce._far_tail_slot(x, coef, rate, rec_slot, src + j)
    rec_batch = rec0.copy()
    states = np.full((ce.TAIL_BATCH, n_exp), np.nan)
    got = ce._far_tail_batch(x, coef, rate, rec_batch, states, src, total)
    assert np.float64(got).tobytes() == np.float64(expected).tobytes()
    assert rec_batch.tobytes() == rec_slot.tobytes()


def test_random_delay_arrivals_and_zero_delay_same_slot():
    shape = ce.random_delay(0, 4)
    rng = np.random.default_rng(0)
    arms = rng.integers(0, 2, size=300)
    y, x = ce.observations_per_slot(shape, [0.7, 0.4], arms, key=9)
    z = ce.delays_of_pulls(shape, 2, arms, key=9)
    expected = np.zeros(300 + 5)
    np.add.at(expected, np.arange(300) + z, x)
    np.testing.assert_array_equal(y, expected[:300])
    assert z.min() == 0 and z.max() == 4  # both ends reachable
    counts = np.bincount(ce.delays_of_pulls(ce.random_delay(10, 30), 1, np.zeros(21000, int), key=2) - 10)
    assert counts.size == 21 and np.all(np.abs(counts / 1000 - 1) < 0.15)


def test_common_random_numbers_and_bernoulli_totals():
    """Pull n of arm i has the same total whatever else was played; totals are Bernoulli(s_i)."""
    shape = ce.bounded_interval(0, 1)
    _, x1 = ce.observations_per_slot(shape, [0.3, 0.6], [0] * 50 + [1] * 50, key=4)
    _, x2 = ce.observations_per_slot(shape, [0.3, 0.6], [1, 0] * 50, key=4)
    np.testing.assert_array_equal(x1[:50], x2[1::2])
    np.testing.assert_array_equal(x1[50:], x2[0::2])
    _, x = ce.observations_per_slot(shape, [0.3], np.zeros(20000, int), key=8)
    assert abs(x.mean() - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 20000)


def test_mass_is_conserved():
    """Everything paid up to T plus what is still due after T equals the totals drawn."""
    shape = ce.linear_increasing(10)
    y, x = ce.observations_per_slot(shape, [0.8], np.zeros(200, int), key=1)
    due_after = sum(x[s] * shape.weights[200 - s:].sum() for s in range(190, 200))
    assert math.isclose(y.sum() + due_after, x.sum(), rel_tol=1e-12)


def test_adversarial_delays():
    key = np.uint64(3)
    # non-oblivious: z = d only from the (3d+1)-th consecutive pull of the best arm on
    assert ce.adversarial_delay(ce.DELAY_NON_OBLIVIOUS, 10, 1, 10, key, 0, 2, 2, 30) == 1
    assert ce.adversarial_delay(ce.DELAY_NON_OBLIVIOUS, 10, 1, 10, key, 0, 2, 2, 31) == 10
    assert ce.adversarial_delay(ce.DELAY_NON_OBLIVIOUS, 10, 1, 10, key, 0, 1, 2, 500) == 1
    z = np.array([ce.adversarial_delay(ce.DELAY_OBLIVIOUS, 10, 5, 10, key, t, 0, 0, 1) for t in range(6000)])
    assert z.min() == 5 and z.max() == 10 and abs(z.mean() - 7.5) < 0.1
    z_other_arm = [ce.adversarial_delay(ce.DELAY_OBLIVIOUS, 10, 5, 10, key, t, 3, 0, 7) for t in range(100)]
    np.testing.assert_array_equal(z[:100], z_other_arm)  # oblivious: independent of the actions


def test_adversarial_slot_and_comparator():
    S = np.array([[1, 0], [0, 1], [1, 0], [1, 0]], dtype=np.int8)
    arrivals = np.zeros(10)
    obs, r = ce.adversarial_slot(S, arrivals, ce.DELAY_NON_OBLIVIOUS, 2, 1, 2, np.uint64(1), 0, 0, 0, 1)
    assert (obs, r) == (0.0, 1.0) and arrivals[1] == 1.0
    assert ce.best_in_hindsight(S) == 0
    np.testing.assert_array_equal(ce.best_cumulative(S, np.array([1, 2, 4])), [1, 1, 3])
