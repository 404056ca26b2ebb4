"""RCUCB, its variants and the App. E.1 baselines: hand-computed updates and indices.

The selects (and the Thompson update) checked here are the paper's printed forms, written from the paper
for the tests (tests/censored_printed_forms.py); test_fast_kernels.py checks that the production fast kernels
make their choices with the same draws and the same scores."""

import math

import censored_printed_forms as printed
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from banditrepro import rng
from banditrepro.algorithms import censored_baselines as cb
from banditrepro.algorithms import rcucb

TAUS = np.array([0.2, 0.5, 1.0])
LAM = np.array([0.02, 0.05, 10.0])
KAPPA = 0.1


def stream(key=1):
    return rng.new_stream(key)


def fresh(n=2, m=3):
    return np.zeros((4, n, m))


def test_rcucb_update_uncensored_pull():
    s = fresh()
    p = rcucb.rcucb_params()
    # arm 1, limit tau=0.5, C = 0.3 <= 0.5: observed
    rcucb.rcucb_update(5, s, TAUS, LAM, p, 1, 1, 0.9, 0.3, KAPPA, stream())
    assert np.array_equal(s[0, 1], [1, 1, 0])  # N: limits <= played one
    assert np.allclose(s[1, 1], [0.0, 0.9 - 0.03, 0.0])  # G: only where C <= tau_j
    assert np.array_equal(s[2, 1], [1, 0, 0])  # S: C > tau_j
    assert s[3, 1, 0] == 1  # N0
    assert not s[:, 0].any()


def test_rcucb_update_censored_pull_still_counts_lower_limits():
    for observable, s_expected in [(False, [1, 1, 0]), (True, [1, 0, 0])]:
        s = fresh()
        p = rcucb.rcucb_params(observable=observable)
        # limit tau=0.2, latent C = 0.7: censored; the oracle survival count reads the latent C at tau=0.5
        rcucb.rcucb_update(5, s, TAUS, LAM, p, 0, 0, 0.8, 0.7, KAPPA, stream())
        assert np.array_equal(s[0, 0], [1, 0, 0])
        assert not s[1, 0].any()
        assert np.array_equal(s[2, 0], s_expected)
        assert s[3, 0, 0] == 1


def test_rcucb_initialises_with_the_largest_limit():
    s = fresh(n=3)
    scores = np.empty(9)
    for t in (1, 2, 3):
        assert printed.rcucb_select(t, s, TAUS, LAM, rcucb.rcucb_params(), scores, stream()) == (t - 1) * 3 + 2


def _hand_index(N, G, S, N0, t, lam, unit=False):
    e = 2 * math.log(t)
    bonus = math.sqrt(e / N0) * (1.0 if unit else lam)
    return G / N - lam * S / N0 + math.sqrt(e / N) + bonus


def test_rcucb_index_by_hand():
    s = fresh(n=2)
    s[0] = [[10, 6, 2], [12, 12, 12]]
    s[1] = [[0.5, 1.5, 0.4], [1.0, 3.0, 4.0]]
    s[2] = [[8, 5, 1], [10, 6, 2]]
    s[3, :, 0] = [10, 12]
    scores = np.empty(6)
    t = 40
    for unit in (False, True):
        choice = printed.rcucb_select(t, s, TAUS, LAM, rcucb.rcucb_params(unit_bonus=unit), scores, stream())
        expected = [_hand_index(s[0, i, j], s[1, i, j], s[2, i, j], s[3, i, 0], t, LAM[j], unit)
                    for i in range(2) for j in range(3)]
        assert np.allclose(scores, expected)
        assert choice == int(np.argmax(expected))
    # the literal bonus scales with lambda(tau): the tau = 1 pairs get a 10x penalty bonus
    printed.rcucb_select(t, s, TAUS, LAM, rcucb.rcucb_params(), scores, stream())
    lit = scores.copy()
    printed.rcucb_select(t, s, TAUS, LAM, rcucb.rcucb_params(unit_bonus=True), scores, stream())
    assert lit[2] - scores[2] == pytest.approx((10 - 1) * math.sqrt(2 * math.log(t) / 10))


def test_rcucb_observable_variant_uses_n_ij():
    s = fresh(n=1)
    s[0] = [[10, 4, 2]]
    s[1] = [[1.0, 1.0, 1.0]]
    s[2] = [[6, 1, 0]]
    s[3, 0, 0] = 10
    scores = np.empty(3)
    printed.rcucb_select(30, s, TAUS, LAM, rcucb.rcucb_params(observable=True), scores, stream())
    e = 2 * math.log(30)
    assert scores[1] == pytest.approx(1 / 4 - 0.05 * 1 / 4 + math.sqrt(e / 4) + 0.05 * math.sqrt(e / 4))


def test_random_tie_breaking_covers_all_maxima():
    s = fresh(n=2, m=1)
    s[0] = 1
    s[3, :, 0] = 1
    scores = np.empty(2)
    st_ = stream(5)
    picks = {printed.rcucb_select(10, s, np.array([1.0]), np.array([0.0]), rcucb.rcucb_params(), scores, st_)
             for _ in range(60)}
    assert picks == {0, 1}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 2), st.floats(0, 1), st.floats(0, 2)), min_size=1,
                max_size=40))
def test_rcucb_counts_are_the_defining_sums(pulls):
    """N, G, S, N0 equal eq. (8)-(9)'s sums over the pull history, whatever the order of updates."""
    s = fresh()
    p = rcucb.rcucb_params()
    for arm, j, r, c in pulls:
        rcucb.rcucb_update(1, s, TAUS, LAM, p, arm, j, r, c, KAPPA, stream())
    for i in range(2):
        mine = [(j, r, c) for a, j, r, c in pulls if a == i]
        assert s[3, i, 0] == len(mine)
        for jj, tau in enumerate(TAUS):
            assert s[0, i, jj] == sum(1 for j, _, _ in mine if TAUS[j] >= tau)
            assert s[1, i, jj] == pytest.approx(sum(r - KAPPA * c for j, r, c in mine if TAUS[j] >= tau and c <= tau))
            assert s[2, i, jj] == sum(1 for _, _, c in mine if c > tau)
        assert np.all(np.diff(s[0, i]) <= 0) and np.all(np.diff(s[2, i]) <= 0)


def test_ucb_round_robin_then_index():
    s = fresh(n=2)
    scores = np.empty(6)
    p = cb.ucb_params(scale=10.0)
    for t in range(1, 7):
        assert printed.ucb_select(t, s, TAUS, LAM, p, scores, stream()) == t - 1
    s[0] = [[5, 4, 3], [2, 2, 8]]
    s[1] = [[1.0, -0.5, 2.0], [0.4, -20.0, 1.0]]
    t = 25
    choice = printed.ucb_select(t, s, TAUS, LAM, p, scores, stream())
    L = 10.0
    expected = [(s[1, i, j] / s[0, i, j] + L) / (1 + L) + math.sqrt(math.log(t) / (2 * s[0, i, j]))
                for i in range(2) for j in range(3)]
    assert np.allclose(scores, expected)
    assert choice == int(np.argmax(expected))


def test_ucb_updates_only_the_played_pair_with_eq7():
    s = fresh()
    p = cb.ucb_params(scale=10.0)
    cb.ucb_update(1, s, TAUS, LAM, p, 1, 1, 0.9, 0.7, KAPPA, stream())  # censored at 0.5
    assert s[0, 1, 1] == 1 and s[1, 1, 1] == pytest.approx(-0.05)
    cb.ucb_update(1, s, TAUS, LAM, p, 1, 2, 0.9, 0.7, KAPPA, stream())  # observed at 1.0
    assert s[1, 1, 2] == pytest.approx(0.9 - 0.07)
    assert s[0].sum() == 2


def test_ts_updates_every_lower_limit_with_clipped_probability():
    taus = np.array([0.2, 0.5, 1.0])
    lam = np.array([0.02, 0.05, 10.0])
    s = fresh(n=1)
    # R = 20 >> 1: (Y + L)/(1 + L) > 1 is clipped to 1, so uncensored limits always succeed;
    # C = 0.3 is censored at 0.2 with Y = -0.02, p = 9.98 / 11.
    n = 4000
    st_ = stream(3)
    for _ in range(n):
        printed.ts_update(1, s, taus, lam, cb.ts_params(scale=10.0), 0, 2, 20.0, 0.3, KAPPA, st_)
    assert s[0, 0, 1] == n and s[0, 0, 2] == n and s[1, 0, 1] == 0
    assert s[0, 0, 0] + s[1, 0, 0] == n
    assert s[0, 0, 0] / n == pytest.approx(9.98 / 11, abs=4 * math.sqrt(0.09 / n))
    # penalty equal to L gives p = 0
    s2 = fresh(n=1)
    printed.ts_update(1, s2, taus, lam, cb.ts_params(scale=10.0), 0, 2, 0.5, 5.0, KAPPA, st_)
    assert s2[1, 0, 2] == 1 and s2[0, 0, 2] == 0
    # single-pair reading touches only the played pair
    s3 = fresh(n=1)
    printed.ts_update(1, s3, taus, lam, cb.ts_params(single_pair_update=True, scale=10.0), 0, 2, 0.5, 0.1, KAPPA, st_)
    assert s3[:2, 0, :2].sum() == 0 and s3[:2, 0, 2].sum() == 1


def test_ts_round_robin_initialisation():
    s = fresh(n=2)
    scores = np.empty(6)
    for t in range(1, 7):
        assert printed.ts_select(t, s, TAUS, LAM, cb.ts_params(scale=10.0), scores, stream()) == t - 1


def test_ts_scores_are_draws_from_each_pair_posterior():
    """Every round each pair's score is a fresh Beta(1 + S, 1 + F) draw (eq. 32)."""
    s = fresh(n=1)
    s[0, 0] = [3.0, 40.0, 0.0]  # S: successes of the three limits
    s[1, 0] = [0.0, 12.0, 200.0]  # F: failures
    st_ = stream(17)
    scores = np.empty(3)
    draws = []
    for _ in range(3000):
        printed.ts_select(10, s, TAUS, LAM, cb.ts_params(scale=10.0), scores, st_)
        draws.append(scores.copy())
    draws = np.array(draws)
    for j in range(3):
        assert stats.kstest(draws[:, j], stats.beta(1 + s[0, 0, j], 1 + s[1, 0, j]).cdf).pvalue > 1e-3
    assert abs(np.corrcoef(draws[:, 0], draws[:, 1])[0, 1]) < 0.06  # independent across pairs


# --- the baselines' scale L = lambda(tau_max) (audit #10.5) ---------------------------------------

def test_baseline_scale_is_lambda_of_tau_max_not_of_the_largest_grid_point():
    """F.1's M1 = {0.5, 0.9} lies in (0, 1]: L = lambda(1) = 10 (piecewise: 10 x above 0.5), not
    lambda(0.9) = 9; on linspace grids ending at tau_max both agree (10; F.3: lambda(0.6) = 6)."""
    from pathlib import Path

    from banditrepro.experiments.censored_resources.builders import build_synthetic
    from banditrepro.experiments.spec import load_paper

    spec = load_paper("censored_resources", "smoke", Path(__file__).resolve().parents[2])
    for exp_id, lam_last, scale in [("f1m1_poscorr", 9.0, 10.0), ("s51_poscorr", 10.0, 10.0), ("f3", 6.0, 6.0)]:
        exp = spec.experiments[exp_id]
        for algo in ("ucb", "ts"):
            sim = build_synthetic(exp, algo)
            assert sim.lam[-1] == pytest.approx(lam_last)
            assert sim.policy_params[-1] == pytest.approx(scale)


def test_ucb_index_on_m1_uses_l_equal_10():
    taus = np.array([0.5, 0.9])
    lam = np.array([0.05, 9.0])  # lambda on M1
    s = np.zeros((4, 1, 2))
    s[0, 0] = [4, 2]
    s[1, 0] = [2.0, -9.0 + 0.8]  # pair (0, 0.9): one censored pull (Y = -9), one with Y = 0.8
    scores = np.empty(2)
    t = 50
    printed.ucb_select(t, s, taus, lam, cb.ucb_params(scale=10.0), scores, stream())
    assert scores[1] == pytest.approx((-8.2 / 2 + 10) / 11 + math.sqrt(math.log(50) / 4))  # = 0.5364 + 0.9890
    assert scores[0] == pytest.approx((0.5 + 10) / 11 + math.sqrt(math.log(50) / 8))


def test_ts_update_on_m1_gives_a_censored_pull_at_0_9_success_probability_1_over_11():
    """Censored at tau = 0.9: Y = -lambda(0.9) = -9, p = (-9 + 10) / 11 = 1/11 (with L = 9 it was 0, a
    sure failure). The Bernoulli trial is stream_uniform <= p, so the count is known exactly."""
    taus = np.array([0.5, 0.9])
    lam = np.array([0.05, 9.0])
    s = np.zeros((4, 1, 2))
    st_ = stream(9)
    replay = stream(9)
    expected_successes = 0
    for _ in range(500):
        printed.ts_update(1, s, taus, lam, cb.ts_params(single_pair_update=True, scale=10.0), 0, 1, 0.7, 0.95, KAPPA, st_)
        expected_successes += rng.stream_uniform(replay) <= 1.0 / 11.0
    assert s[0, 0, 1] == expected_successes and s[1, 0, 1] == 500 - expected_successes
    assert 20 < expected_successes < 75  # about 500/11 = 45
