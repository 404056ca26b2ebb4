"""z-RCUCB (Algorithm 1): grid refinement, the down() rule, the choice criterion, a short run."""

import math

import numpy as np
import pytest

from banditrepro import rng
from banditrepro.algorithms import rcucb
from banditrepro.environments import censored as ce
from banditrepro.experiments.censored_resources.loops import simulate_zrcucb

LAM = np.array([0.1, 10.0, 0.5])  # lambda(x) = x/10 for x <= 0.5, 10 x above


def grid_with(points):
    g = np.zeros((1, 16, rcucb.ZCOLS))
    for k, tau in enumerate(points):
        g[0, k, 0] = tau
        g[0, k, 4] = 1.0
    return g, np.array([len(points)], dtype=np.int64)


def test_down_is_strictly_below_and_zero_at_the_bottom():
    g, c = grid_with([1.0, 0.25, 0.5, 0.75])
    assert rcucb.zrcucb_down(g[0], c[0], 1.0) == 0.75
    assert rcucb.zrcucb_down(g[0], c[0], 0.5) == 0.25
    assert rcucb.zrcucb_down(g[0], c[0], 0.25) == 0.0  # "<=" in the text would give the point itself


def test_unvisited_points_have_infinite_confidence_and_are_chosen_first():
    g, c = grid_with([1.0])
    n0 = np.zeros(1)
    arm, k = rcucb.zrcucb_select(g, c, n0, LAM, 2.0, 10.0, rng.new_stream(1))
    assert (arm, k) == (0, 0)
    assert rcucb.zrcucb_confidence(g[0, 0], 0.0, 10.0, 10.0, 2.0) == math.inf


def test_refinement_adds_the_m_minus_1_interior_points_when_bias_exceeds_confidence():
    g, c = grid_with([1.0])
    n0 = np.zeros(1)
    log_level = 1e-4  # tiny level: c = 0.02 + 10 * 0.02 < 1 = tau - down, so (14) triggers at once
    added = rcucb.zrcucb_update(g, c, n0, 0, 1.0, 0.8, 0.3, 0.1, LAM, 2.0, log_level, 4)
    assert added == 3
    assert sorted(g[0, :c[0], 0]) == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert g[0, 0, 1] == 1 and g[0, 1:4, 1].sum() == 0  # new points start empty (nu_hat = 0, c = inf)
    # a large level never refines
    g2, c2 = grid_with([1.0])
    assert rcucb.zrcucb_update(g2, c2, np.zeros(1), 0, 1.0, 0.8, 0.3, 0.1, LAM, 2.0, 50.0, 4) == 0


def test_update_counts_follow_rcucb_rules():
    g, c = grid_with([1.0, 0.25, 0.5, 0.75])
    n0 = np.zeros(1)
    # limit 0.5 played, C = 0.6 censored: N counts tau <= 0.5, S counts tau < 0.6 (latent)
    rcucb.zrcucb_update(g, c, n0, 0, 0.5, 0.9, 0.6, 0.1, LAM, 2.0, 1e6, 4)
    by_tau = {g[0, k, 0]: g[0, k] for k in range(4)}
    assert [by_tau[t][1] for t in (0.25, 0.5, 0.75, 1.0)] == [1, 1, 0, 0]
    assert [by_tau[t][3] for t in (0.25, 0.5, 0.75, 1.0)] == [1, 1, 0, 0]
    assert all(by_tau[t][2] == 0 for t in by_tau)
    assert n0[0] == 1


def test_choice_criterion_by_hand():
    g, c = grid_with([1.0, 0.5])
    g[0, 0, 1:4] = [10, 5.0, 2]  # tau = 1: N, G, S
    g[0, 0, 5] = 20  # N0: tau_max exists from the start, so all 20 pulls of the arm
    g[0, 1, 1:4] = [8, 4.0, 5]  # tau = 0.5, created after 8 pulls of the arm
    g[0, 1, 5] = 12  # N0: pulls of the arm since tau = 0.5 was created
    n0 = np.array([20.0])
    alpha, level = 2.0, 5.0
    arm, k = rcucb.zrcucb_select(g, c, n0, LAM, alpha, level, rng.new_stream(2))

    def score(N, G, S, N0, lam, width):
        return G / N - lam * S / N0 + math.sqrt(2 * alpha * level / N) + lam * math.sqrt(2 * alpha * level / N0) + width

    s1 = score(10, 5.0, 2, 20, 10.0, 0.5)  # 0.5 - 1 + 1.4142 + 10 + 0.5 = 11.414
    s05 = score(8, 4.0, 5, 12, 0.05, 0.5)  # 0.5 - 0.0208 + 1.5811 + 0.0645 + 0.5 = 2.6248
    assert (s1, s05) == (pytest.approx(11.4142, abs=1e-4), pytest.approx(2.6248, abs=1e-4))
    assert (arm, k) == (0, 0)
    # lambda = 0 above 0.5 and G(tau = 1) = 7.075 put tau = 1 at 0.7075 + 1.4142 + 0.5 = 2.6217:
    # between tau = 0.5's score with its own N0 = 12 (2.6248) and with the arm's 20 pulls (2.6186)
    g[0, 0, 2] = 7.075
    lam0 = np.array([0.1, 0.0, 0.5])
    s1 = score(10, 7.075, 2, 20, 0.0, 0.5)
    assert score(8, 4.0, 5, 20, 0.05, 0.5) < s1 < s05
    assert rcucb.zrcucb_select(g, c, n0, lam0, alpha, level, rng.new_stream(2)) == (0, 1)


def test_refined_points_divide_their_exceedances_by_their_own_pulls():
    """Algorithm 1 initialises new points afresh: their N0 counts the arm's pulls since creation."""
    g, c = grid_with([1.0])
    n0 = np.zeros(1)
    rcucb.zrcucb_update(g, c, n0, 0, 1.0, 0.8, 0.9, 0.1, LAM, 2.0, 1e-4, 4)  # refines to 0.25, 0.5, 0.75, 1
    assert c[0] == 4
    for _ in range(4):  # C = 0.6 exceeds 0.25 and 0.5; a large level refines nothing more
        rcucb.zrcucb_update(g, c, n0, 0, 1.0, 0.8, 0.6, 0.1, LAM, 2.0, 50.0, 4)
    by_tau = {g[0, k, 0]: g[0, k] for k in range(c[0])}
    assert n0[0] == 5
    assert by_tau[1.0][5] == 5 and by_tau[1.0][3] == 0
    assert by_tau[0.5][5] == 4 and by_tau[0.5][3] == 4  # Lambda_hat(0.5) = lambda * 4/4, not 4/5
    assert by_tau[0.25][5] == 4 and by_tau[0.25][3] == 4
    assert by_tau[0.75][5] == 4 and by_tau[0.75][3] == 0


def test_short_run_refines_around_the_better_arm():
    a = np.array([0.9, 0.5])
    b = np.array([0.1, 0.5])
    arms = ce.beta_exp_arms(a, b, 5.0)
    grids, counts, chosen, taus = simulate_zrcucb(arms.code, arms.params, arms.table, 1.0, LAM, 0.1, 1.1, 0.1, 3,
                                                  20000, 400, np.uint64(11), np.uint64(12))
    assert counts[0] > 1  # the better arm's grid was refined
    assert np.mean(chosen[-5000:] == 0) > 0.8
    arm, tau = rcucb.zrcucb_finest(grids, counts)
    assert arm == 0
    assert 0.0 < tau <= 1.0
