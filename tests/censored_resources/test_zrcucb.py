"""z-RCUCB (Algorithm 1): grid refinement, the down() rule, the choice criterion, a short run."""

import math

import numpy as np
import pytest

from banditrepro import rng
from banditrepro.algorithms import rcucb
from banditrepro.environments import censored as ce
from banditrepro.experiments.censored_resources.simulation import simulate_zrcucb

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
    g[0, 1, 1:4] = [20, 8.0, 9]  # tau = 0.5
    n0 = np.array([20.0])
    alpha, level = 2.0, 5.0
    arm, k = rcucb.zrcucb_select(g, c, n0, LAM, alpha, level, rng.new_stream(2))
    def score(N, G, S, tau, lam, width):
        return G / N - lam * S / 20 + math.sqrt(2 * alpha * level / N) + lam * math.sqrt(2 * alpha * level / 20) + width
    s1 = score(10, 5.0, 2, 1.0, 10.0, 0.5)
    s05 = score(20, 8.0, 9, 0.5, 0.05, 0.5)
    assert k == (0 if s1 > s05 else 1)


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
