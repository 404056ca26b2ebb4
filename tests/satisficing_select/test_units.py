"""Hand-computed cases for the satisficing_select kernels (spec §2, §3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from banditrepro import rng
from banditrepro.algorithms import convex_1d as cvx
from banditrepro.algorithms.arm_trees import new_tournament
from banditrepro.algorithms.lipschitz_ucb import cell_centres, cells_per_axis, ucb_choose, ucb_reset, ucb_update
from banditrepro.algorithms.satisficing_ucb import (
    confidence_scale,
    new_index,
    sat_ucb_choose,
    sat_ucb_reset,
    sat_ucb_update,
)
from banditrepro.algorithms.select import SelectVariant, round_schedule, schedule_table
from banditrepro.algorithms.thompson import gaussian_ts_choose, gaussian_ts_update
from banditrepro.environments.continuous import capped_gaussian_bump, concave_quadratic, finite_gaussian
from banditrepro.experiments.satisficing_select.loops import SelectSimulation

T_GRID = np.arange(500, 5001, 500)


# ---------------------------------------------------------------- environments and grids

def test_lipschitz_constants_match_spec():
    assert concave_quadratic().lipschitz == 24.0
    assert capped_gaussian_bump().lipschitz == pytest.approx(20 * math.sqrt(2 * math.log(3)), rel=1e-12)


def test_bump_lipschitz_constant_bounds_numeric_sup_norm_slope():
    env = capped_gaussian_bump()
    h = 1e-4
    x = np.linspace(0.3, 0.7, 161)
    y = np.linspace(0.5, 0.9, 161)
    pts = np.array([(a, b) for a in x for b in y])
    f = env.mean(pts)
    fx = env.mean(pts + [h, 0.0])
    fy = env.mean(pts + [0.0, h])
    l1_gradient = (np.abs(fx - f) + np.abs(fy - f)) / h
    assert l1_gradient.max() <= env.lipschitz * (1 + 1e-3)
    assert l1_gradient.max() >= 0.99 * 29.57  # the spec's numeric check


def test_environment_means():
    cav = concave_quadratic()
    np.testing.assert_allclose(cav.mean([[0.25], [0.0], [1.0], [0.5]]), [1.0, 0.0, -8.0, 0.0])
    bump = capped_gaussian_bump()
    np.testing.assert_allclose(bump.mean([[0.5, 0.7], [0.55, 0.7], [0.0, 0.0]]),
                               [1.0, 1.0, 3 * math.exp(-100 * 0.74)])
    assert bump.mean([[0.5 + 0.2, 0.7]])[0] == pytest.approx(3 * math.exp(-4))
    fin = finite_gaussian([0.6, 0.7, 0.8, 1.0])
    assert fin.optimum == 1.0 and fin.n_arms == 4


def test_grid_sizes_match_spec():
    assert [cells_per_axis(24.0, t, 1) for t in T_GRID] == [23, 29, 34, 37, 40, 42, 44, 46, 48, 50]
    lip = capped_gaussian_bump().lipschitz
    assert [cells_per_axis(lip, t, 2) for t in T_GRID] == [12, 14, 15, 16, 17, 18, 18, 19, 20, 20]


def test_cell_centres_row_major():
    np.testing.assert_allclose(cell_centres(2, 2), [[0.25, 0.25], [0.25, 0.75], [0.75, 0.25], [0.75, 0.75]])
    np.testing.assert_allclose(cell_centres(4, 1)[:, 0], [0.125, 0.375, 0.625, 0.875])


# ---------------------------------------------------------------- SELECT schedule

def test_schedule_alpha_half_is_powers_of_four():
    assert [round_schedule(i, 0.5) for i in range(1, 7)] == [(4 ** i, 4 ** i) for i in range(1, 7)]


def test_schedule_alpha_three_quarters_matches_spec():
    pairs = [round_schedule(i, 0.75) for i in range(1, 10)]
    assert pairs == [(3, 2), (7, 3), (16, 4), (41, 7), (102, 11), (256, 16), (646, 26), (1626, 41), (4096, 64)]
    assert list(np.cumsum([a + b for a, b in pairs])) == [5, 15, 35, 83, 196, 468, 1140, 2807, 6967]


def test_schedule_scale_half_shifts_by_three_rounds():
    for i in range(1, 7):
        assert round_schedule(i, 0.75, 0.5) == round_schedule(i + 3, 0.75)


def test_schedule_table_covers_horizon():
    t, big = schedule_table(5000, 0.5)
    assert list(t) == [4, 16, 64, 256, 1024, 4096]  # round 6 starts at 2728 < 5000, round 7 at 10920
    t, big = schedule_table(5000, 0.75)
    assert len(t) == 9


# ---------------------------------------------------------------- Thompson sampling

def test_ts_draws_posterior_normals_in_arm_order():
    counts = np.array([3.0, 0.0, 8.0])
    sums = np.array([2.0, 0.0, 7.0])
    key = 12345
    stream = rng.new_stream(key)
    arm = gaussian_ts_choose(counts, sums, 3, stream)
    z = [rng.normal(key, rng.TAG_POLICY, 0, i) for i in range(3)]
    theta = [2.0 / 4 + z[0] / 2.0, 0.0 + z[1], 7.0 / 9 + z[2] / 3.0]  # variance 1/(k+1)
    assert arm == int(np.argmax(theta))
    assert stream[3] == 3
    gaussian_ts_update(counts, sums, 1, 0.5)
    assert counts[1] == 1.0 and sums[1] == 0.5  # posterior mean 0.5/2 (prior folded in)


# ---------------------------------------------------------------- UCB(1/H^2)

def test_uniform_ucb_round_robin_then_cached_index():
    counts = np.zeros(3)
    sums = np.zeros(3)
    index, winner = new_tournament(1, 3)
    ucb_reset(counts, sums, index, winner, 3)
    log_h = math.log(100)
    rewards = [0.0, 1.0, 0.5]
    for step in range(1, 4):
        arm = ucb_choose(step, winner, 3)
        assert arm == step - 1
        ucb_update(counts, sums, index, winner, arm, rewards[arm], log_h)
    np.testing.assert_allclose(index[0, :3], np.array(rewards) + math.sqrt(4 * log_h))
    assert ucb_choose(4, winner, 3) == 1
    ucb_update(counts, sums, index, winner, 1, 0.0, log_h)  # arm 1: mean 0.5, radius sqrt(4 ln 100 / 2)
    assert index[0, 1] == pytest.approx(0.5 + math.sqrt(2 * log_h))
    assert ucb_choose(5, winner, 3) == 2
    ucb_update(counts, sums, index, winner, 2, 0.5, log_h)  # arms 1 and 2: the same index ...
    ucb_update(counts, sums, index, winner, 0, -2.0, log_h)  # ... above arm 0's: the first of them wins
    assert index[0, 1] == index[0, 2] > index[0, 0] and ucb_choose(7, winner, 3) == 1


# ---------------------------------------------------------------- SAT-UCB / SAT-UCB+

class SatState:
    """SAT-UCB's arrays and index after pulls whose rewards are given per arm (updates in arm order)."""

    def __init__(self, rewards_per_arm, level):
        n = len(rewards_per_arm)
        self.n_arms, self.level = n, level
        self.counts, self.sums, self.means, self.roots = (np.zeros(n) for _ in range(4))
        self.index = new_index(n)
        sat_ucb_reset(self.counts, self.sums, self.means, self.roots, *self.index, n)
        for arm, rewards in enumerate(rewards_per_arm):
            for y in rewards:
                sat_ucb_update(self.counts, self.sums, self.means, self.roots, *self.index, arm, float(y), level)

    def choose(self, t, plus, stream):
        return sat_ucb_choose(t, self.means, self.roots, self.n_arms, self.level, plus, stream, *self.index)


def test_confidence_scale():
    assert confidence_scale(10) == pytest.approx(math.sqrt(2 * math.log(1 + 10 * math.log(10) ** 2)))


def test_sat_ucb_initial_pulls_in_index_order():
    state = SatState([[], [], []], 0.5)
    for t in range(3):
        assert state.choose(t, False, rng.new_stream(1)) == t


def test_sat_ucb_ratio_branch_hand_computed():
    # t = 20 pulls; arm 0 mean 0.9 (n=10), arm 1 mean 0.6 (n=5), arm 2 mean 0.2 (n=5); S = 0.5
    state = SatState([[1.0] * 9 + [0.0], [1.0] * 3 + [0.0] * 2, [1.0] + [0.0] * 4], 0.5)
    np.testing.assert_array_equal(state.sums, [9.0, 3.0, 1.0])
    r_t = math.sqrt(2 * math.log(1 + 20 * math.log(20) ** 2))
    c = r_t / np.sqrt(state.counts)
    rho = (state.means + c - np.maximum(state.means - c, 0.5)) / c
    expected = int(np.argmax(rho))
    assert expected == 0  # rho_0 = 1 + 0.4/c_0 is the largest
    for plus in (False, True):
        assert state.choose(20, plus, rng.new_stream(3)) == expected


def test_sat_ucb_uniform_exploration_branch():
    # max mean 0.45 < S = 0.5 <= UCB of arms 0 and 1; arm 2's UCB is below S
    state = SatState([[0.5] * 45 + [0.0] * 5, [0.5] * 40 + [0.0] * 10, [0.0] * 4000], 0.5)
    np.testing.assert_array_equal(state.sums, [22.5, 20.0, 0.0])
    t = int(state.counts.sum())
    r_t = confidence_scale(t)
    ucb = state.means + r_t / state.roots
    assert ucb[0] >= 0.5 and ucb[1] >= 0.5 and ucb[2] < 0.5
    stream = rng.new_stream(7)
    picks = [state.choose(t, False, stream) for _ in range(2000)]
    freq = np.bincount(picks, minlength=3) / 2000
    assert freq[2] == 0.0 and abs(freq[0] - 0.5) < 0.05
    # SAT-UCB+ goes straight to the ratio index: rho = 1 + (mu - S)/c, largest for arm 0
    c = r_t / state.roots
    rho = (ucb - np.maximum(state.means - c, 0.5)) / c
    assert state.choose(t, True, stream) == int(np.argmax(rho)) == 0


def test_sat_ucb_all_ucbs_below_level_pull_argmax_ucb():
    state = SatState([[1.0] * 10 + [0.0] * 90, [0.25] * 240 + [0.0] * 160, [0.25] * 80 + [0.0] * 20], 1.5)
    np.testing.assert_array_equal(state.sums, [10.0, 60.0, 20.0])
    t = int(state.counts.sum())
    ucb = state.means + confidence_scale(t) / state.roots
    assert ucb.max() < 1.5
    for plus in (False, True):
        assert state.choose(t, plus, rng.new_stream(1)) == int(np.argmax(ucb))


def test_sat_ucb_update_caches_mean_and_root():
    state = SatState([[], [2.0, 1.0]], 0.5)
    assert state.means[1] == 1.5 and state.roots[1] == math.sqrt(2.0)


# ---------------------------------------------------------------- Agarwal et al. 1-D

def test_convex_case1_drops_right_quarter():
    state = cvx.new_state()
    cvx.convex_reset(state, 4, 1.0)
    n1 = math.ceil(2 * math.log(4) / 0.25)
    assert state[cvx.PER_POINT] == n1 == 12
    r = concave_quadratic()
    points = []
    for _ in range(3 * n1):
        x = cvx.convex_choose(state)
        points.append(x)
        cvx.convex_update(state, r.mean([[x]])[0])  # noiseless: m_l = 1, m_c = 0, m_r = -3
    assert points[:4] == [0.25, 0.5, 0.75, 0.25]
    # Case 1: max(Lo_l, Lo_r) = 0.5 >= min(U_l, U_r) + gamma = -2; U_l = 1.5 > U_r = -2.5 -> r = x_r
    assert (state[cvx.LEFT], state[cvx.RIGHT], state[cvx.ROUND]) == (0.0, 0.75, 1.0)
    assert cvx.convex_choose(state) == pytest.approx(0.75 / 4)


def test_convex_no_case_goes_to_next_round():
    state = cvx.new_state()
    cvx.convex_reset(state, 4, 1.0)
    for _ in range(36):
        cvx.convex_choose(state)
        cvx.convex_update(state, 0.3)  # flat: neither case can fire
    assert (state[cvx.LEFT], state[cvx.RIGHT], state[cvx.ROUND]) == (0.0, 1.0, 2.0)
    assert state[cvx.PER_POINT] == math.ceil(2 * math.log(4) * 16)


def test_convex_case2_left_wins_ties():
    # Case 2 only: centre clearly best, ends equal -> U_l <= U_r -> l = x_l
    state = cvx.new_state()
    cvx.convex_reset(state, 4, 1.0)
    for q in range(36):
        cvx.convex_choose(state)
        cvx.convex_update(state, 3.0 if q % 3 == 1 else 0.0)
    assert (state[cvx.LEFT], state[cvx.RIGHT]) == (0.25, 1.0)


# ---------------------------------------------------------------- SELECT, noise-free hand cases

def _noise_free_select(mean, level, variant=None, horizon=5000):
    variant = SelectVariant() if variant is None else variant
    env = finite_gaussian([mean], sigma=0.0)  # one arm: the TS oracle always pulls it
    sim = SelectSimulation("thompson", env, level, variant)
    chk = np.array([t for t in (8, 40, 500, 1000) if t < horizon] + [horizon])
    return sim.run(np.array([1], dtype=np.uint64), np.array([2], dtype=np.uint64), chk)


def test_select_non_realizable_every_test_fails_at_first_check():
    out = _noise_free_select(1.0, 1.5)
    # rounds end at t = 8, 40, 168, 680, 2728; round 6 runs to 5000 in its Step 1
    np.testing.assert_allclose(out.curves["round"][0], [1, 2, 4, 5, 6])
    np.testing.assert_allclose(out.curves["satisficing_regret"][0], 0.5 * np.array([8, 40, 500, 1000, 5000]))
    np.testing.assert_allclose(out.curves["regret"][0], 0.0)
    assert out.finals["rounds_started"][0] == 6 and out.finals["step_at_end"][0] == 1
    for i in range(1, 6):
        assert out.finals[f"checks_passed_round_{i}"][0] == 0
    assert out.finals["checks_passed_round_6"][0] == -1
    assert out.finals["first_passing_round"][0] == 0


def test_select_realizable_test_passes_once_radius_below_gap():
    # mean 1, S = 0.5: radius sqrt(4 ln n / n) is 1.18, 0.83, 0.51 at n = 4, 16, 64 (fail) and 0.29
    # at n = 256 (pass). Round 4 starts at t = 168, Step 2 ends at 680, then 4320 Step-3 pulls.
    out = _noise_free_select(1.0, 0.5)
    assert out.finals["rounds_started"][0] == 4
    assert out.finals["first_passing_round"][0] == 4
    assert out.finals["checks_passed_round_3"][0] == 0
    assert out.finals["checks_passed_round_4"][0] == 5000 - 680 + 1
    assert out.finals["step_at_end"][0] == 3
    np.testing.assert_allclose(out.curves["satisficing_regret"][0], 0.0)


def test_select_without_step2_starts_test_at_one_sample():
    # n = 1: radius 0, LCB = 1 >= 0.5 passes; n = 2: 1 - sqrt(2 ln 2) < 0.5 fails -> rounds of 4^i + 2
    out = _noise_free_select(1.0, 0.5, SelectVariant(skip_step2=True), horizon=100)
    assert out.finals["checks_passed_round_1"][0] == 1
    assert out.finals["checks_passed_round_2"][0] == 1
    # rounds end at 6, 24, 90; round 4 (256 oracle steps) runs past t = 100
    assert out.finals["rounds_started"][0] == 4
    np.testing.assert_allclose(out.curves["round"][0], [2, 3, 4])


def test_select_without_step3_rounds_are_oracle_plus_forced():
    out = _noise_free_select(1.0, 0.5, SelectVariant(skip_step3=True))
    np.testing.assert_allclose(out.curves["round"][0], [1, 2, 4, 5, 6])  # ends 8, 40, 168, 680, 2728
    assert out.finals["checks_passed_round_1"][0] == -1


def test_select_reuse_step1_adds_oracle_samples_of_candidate():
    # with reuse, round 3 tests n = 64 + 64 samples: radius sqrt(4 ln 128 / 128) = 0.39 -> passes
    out = _noise_free_select(1.0, 0.5, SelectVariant(reuse_step1=True))
    assert out.finals["first_passing_round"][0] == 3
    # a smaller radius constant: c = 1 passes already at n = 16 (radius 0.42)
    out = _noise_free_select(1.0, 0.5, SelectVariant(radius_coef=1.0))
    assert out.finals["first_passing_round"][0] == 2


def test_select_gamma_scale_changes_schedule():
    # lambda = 2 with alpha = 1/2: t_i = T_i = 4^i / 4 -> rounds end at 2, 10, 42, 170, 682, 2730
    out = _noise_free_select(1.0, 1.5, SelectVariant(gamma_scale=2.0))
    np.testing.assert_allclose(out.curves["round"][0], [2, 3, 5, 6, 7])


def test_convex_set_horizon_keeps_interval_and_round():
    state = cvx.new_state()
    cvx.convex_reset(state, 4, 1.0)
    for _ in range(36):
        cvx.convex_choose(state)
        cvx.convex_update(state, 0.3)
    before = state.copy()
    cvx.convex_set_horizon(state, 64)
    assert state[cvx.LOG_H] == math.log(64)
    changed = np.flatnonzero(state != before)
    assert list(changed) == [cvx.LOG_H]


def test_select_warm_start_first_round_identical_then_oracle_keeps_data():
    env = finite_gaussian([0.2, 0.9])
    nk = np.array([5, 6, 7], dtype=np.uint64)
    pk = np.array([8, 9, 10], dtype=np.uint64)
    chk = np.array([8, 5000])
    cold = SelectSimulation("thompson", env, 1.5).run(nk, pk, chk)
    warm = SelectSimulation("thompson", env, 1.5, SelectVariant(warm_start=True)).run(nk, pk, chk)
    # round 1 (t <= 8) draws the same numbers; afterwards the warm oracle knows the arms
    np.testing.assert_array_equal(cold.curves["regret"][:, 0], warm.curves["regret"][:, 0])
    assert not np.array_equal(cold.curves["regret"][:, 1], warm.curves["regret"][:, 1])


def test_select_warm_start_with_uniform_ucb_is_one_oracle_on_the_horizons_grid(monkeypatch):
    """V3 with the Uniform UCB oracle (issue 38, Fig 4): not restarted, the oracle is one UCB(H) on the grid of
    the run's horizon H, so every round's Step 1 draws from that one grid; the cold run's rounds use the grid of
    their own t_i."""
    from banditrepro.experiments.satisficing_select import loops

    seen = []
    real = loops.grid_means_table

    def spy(env, horizons, exponent=None, lipschitz=None):
        seen.append(list(np.asarray(horizons)))
        return real(env, horizons, exponent, lipschitz)

    monkeypatch.setattr(loops, "grid_means_table", spy)
    env, nk, pk = capped_gaussian_bump(), np.array([5, 6], dtype=np.uint64), np.array([8, 9], dtype=np.uint64)
    chk = np.array([500, 1000])
    cold = SelectSimulation("uniform_ucb", env, 1.5).run(nk, pk, chk)
    warm = SelectSimulation("uniform_ucb", env, 1.5, SelectVariant(warm_start=True)).run(nk, pk, chk)
    cold_grids, warm_grids = seen
    assert len(set(cold_grids)) > 1 and set(warm_grids) == {1000}
    assert len(warm_grids) == len(cold_grids)
    assert np.all(warm.curves["regret"] >= 0) and not np.array_equal(cold.curves["regret"], warm.curves["regret"])
