"""ODAAF phase lengths against the formulas (and the spec's numbers), elimination, statistical behaviour."""

import math

import numpy as np
import pytest

from banditrepro.algorithms import odaaf
from banditrepro.environments import composite as ce
from banditrepro.experiments.composite_anonymous import loops


def n_eq3(delta, T, extra):
    L = math.log(T * delta**2)
    return math.ceil((math.sqrt(2 * L) + math.sqrt(2 * L + 8 / 3 * delta * L + extra)) ** 2 / delta**2)


def test_phase_lengths_match_formulas():
    T = 10**6
    for m, delta in [(1, 0.5), (2, 0.25), (3, 0.125)]:
        assert odaaf.phase_length(odaaf.ODAAF, m, delta, T, 20.0, 0.0, 30.0) == n_eq3(delta, T, 6 * delta * m * 20)
        assert odaaf.phase_length(odaaf.ODAAF_V, m, delta, T, 20.0, 36.67, 30.0) == n_eq3(delta, T, 4 * delta * (20 + 2 * 36.67))
        n3 = n_eq3(delta, T, 6 * delta * m * 20)
        expected_b = max(n_eq3(delta, T, 4 * delta * 20), math.ceil(m * min(30.0, n3 / m)))
        assert odaaf.phase_length(odaaf.ODAAF_B, m, delta, T, 20.0, 36.67, 30.0) == expected_b


@pytest.mark.parametrize("variant, mean, var, expected", [
    (odaaf.ODAAF_V, 20.0, (21**2 - 1) / 12, [1.6e3, 4.0e3, 10.3e3, 28e3]),
    (odaaf.ODAAF_V, 30.0, (61**2 - 1) / 12, [6.9e3, 15e3, 34e3, 78e3]),
    (odaaf.ODAAF, 100.0, 0.0, [2.2e3, 8.4e3, 26e3, 74e3]),
])
def test_phase_lengths_match_spec_numbers(variant, mean, var, expected):
    got = [odaaf.phase_length(variant, m, 0.5**m, 10**6, mean, var, 100.0) for m in range(1, 5)]
    np.testing.assert_allclose(got, expected, rtol=0.06)


def test_eliminate():
    active = np.ones(4, dtype=np.bool_)
    best = odaaf.eliminate(np.array([9.0, 7.0, 5.0, 8.6]), np.full(4, 10.0), active, 0.25)
    # max mean 0.9: 0.7 + 0.25 < 0.9 is false (kept), 0.5 + 0.25 < 0.9 eliminated
    assert best == 0 and list(active) == [True, True, False, True]
    active = np.array([False, True, True, True])
    assert odaaf.eliminate(np.array([100.0, 1.0, 2.0, 3.0]), np.full(4, 10.0), active, 0.05) == 3
    assert list(active) == [False, False, False, True]


def run_odaaf(shape, means, T, variant, mean, var, bound, keys):
    means = np.asarray(means, float)
    return loops.odaaf_run(shape.kind, shape.cumulative, shape.exp_coef, shape.exp_rate, shape.delay_low,
                           shape.delay_high, shape.discount, means, means.max() - means, T, variant, mean, var,
                           bound, np.asarray(keys, np.uint64), np.array([T], np.int64))


def test_deterministic_two_arms():
    """means [0, 1], no delay: phase 1 plays arm 0 then arm 1 for n_1 slots each, arm 0 is eliminated, and
    arm 1 is played to T: regret = n_1 exactly."""
    T = 100_000
    n1 = odaaf.phase_length(odaaf.ODAAF, 1, 0.5, T, 0.0, 0.0, 0.0)
    regret, phases, pulls = run_odaaf(ce.bounded_interval(0, 1), [0.0, 1.0], T, odaaf.ODAAF, 0.0, 0.0, 0.0, [3])
    assert regret[0, -1] == n1 and list(pulls[0]) == [n1, T - n1] and phases[0] == 2


def test_eliminates_suboptimal_arms_under_delay():
    T = 300_000
    regret, phases, pulls = run_odaaf(ce.random_delay(5, 15), [0.9, 0.5, 0.2], T, odaaf.ODAAF_V, 10.0, 10.0, 15.0,
                                      np.arange(1, 9))
    assert np.all(pulls[:, 0] / T > 0.95)
    assert np.all(phases <= 5)  # gap 0.4 is resolved once Δ̃ < 0.2
