"""Arms of the censored-resources paper: sampling, truncation, common random numbers, exact ground truth."""

import math

import numpy as np
import pytest
from numba import njit

from banditrepro.environments import censored as ce


def poscorr(truncation="lower0"):
    return ce.gaussian_arms([0.6] + [0.5] * 9, [0.45] + [0.5] * 9, [0.2, 0.3, 0.4, 0.4] + [0.6] * 6, 0.2, truncation)


def negcorr(truncation="lower0"):
    return ce.gaussian_arms([0.9] + [0.8] * 9, 0.8, -0.2, 0.2, truncation)


def indep():
    a = np.full(10, 0.8)
    b = np.array([0.2] + [0.3] * 9)
    return ce.beta_exp_arms(a, b, a / (a + b) + 1.0)


@njit(cache=True)
def _draw_many(code, params, table, key, arm, n):
    out = np.empty((n, 2))
    for k in range(n):
        r, c = ce.draw(code, params, table, key, arm, k)
        out[k, 0] = r
        out[k, 1] = c
    return out


def draws(arms, arm, n, key=12345):
    return _draw_many(arms.code, arms.params, arms.table, np.uint64(key), arm, n)


def test_correlation_from_x_matches_digest():
    assert np.allclose(ce.correlation_from_x([0.2, 0.3, 0.4, 0.6, -0.2]), [0.3919, 0.5724, 0.7332, 0.96, -0.3919], atol=1e-4)


def test_penalty_is_inclusive_at_half_and_grids():
    lam = ce.penalty_values([0.0, 0.5, 0.5000001, 1.0], "piecewise")
    assert lam[1] == pytest.approx(0.05)
    assert lam[2] == pytest.approx(5.000001)
    assert lam[3] == pytest.approx(10.0)
    assert np.allclose(ce.resource_grid(1.0, 10), np.arange(10) / 9)
    assert np.allclose(ce.resource_grid(1.0, 4, "k_over_m"), [0.25, 0.5, 0.75, 1.0])
    assert np.allclose(ce.resource_grid(1.0, 4, "interior"), [0.2, 0.4, 0.6, 0.8])
    assert np.allclose(ce.resource_grid(3.0, 3, tau_min=1.0), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("truncation,box", [("lower0", (0, np.inf, 0, np.inf)), ("unit_square", (0, 1, 0, 1))])
def test_draws_stay_in_the_truncation_box(truncation, box):
    x = draws(negcorr(truncation), 0, 20000)
    assert x[:, 0].min() >= box[0] and x[:, 0].max() <= box[1]
    assert x[:, 1].min() >= box[2] and x[:, 1].max() <= box[3]


def test_untruncated_draws_have_the_stated_moments():
    arms = ce.gaussian_arms([0.6], [0.45], [0.4], 0.2, "none")
    x = draws(arms, 0, 200000)
    assert x.mean(axis=0) == pytest.approx([0.6, 0.45], abs=0.005)
    assert x.var(axis=0) == pytest.approx([0.2, 0.2], rel=0.02)  # sigma scales the variance (digest A2)
    assert np.corrcoef(x.T)[0, 1] == pytest.approx(0.7332, abs=0.01)


def test_common_random_numbers_and_distinct_arms():
    arms = poscorr()
    a = draws(arms, 3, 50, key=7)
    assert np.array_equal(a, draws(arms, 3, 50, key=7))
    assert not np.allclose(a, draws(arms, 4, 50, key=7))
    assert not np.allclose(a, draws(arms, 3, 50, key=8))


def test_beta_exp_draws_match_their_laws():
    x = draws(indep(), 0, 100000)
    assert x[:, 0].mean() == pytest.approx(0.8, abs=0.005)
    assert x[:, 1].mean() == pytest.approx(1 / 1.8, rel=0.02)
    assert abs(np.corrcoef(x.T)[0, 1]) < 0.01


def test_table_arms_replay_recorded_runs():
    rewards = np.array([[0.1, 0.2, 0.3], [0.7, 0.8, 0.9]])
    times = rewards * 10
    arms = ce.table_arms(rewards, times)
    x = draws(arms, 1, 3000)
    assert set(np.round(x[:, 0], 6)) == {0.7, 0.8, 0.9}
    assert np.allclose(x[:, 1], 10 * x[:, 0])
    counts = np.array([(np.round(x[:, 0], 6) == v).sum() for v in (0.7, 0.8, 0.9)])
    assert counts.min() > 900  # uniform over the K runs
    truth = ce.ground_truth(arms, [5.0, 8.5], [0.0, 0.0], 1.0)
    # arm 2 at tau=8.5: runs 0.7 (t=7) and 0.8 (t=8) complete: E[(R - C) 1{C<=tau}] = ((0.7-7) + (0.8-8))/3
    assert truth.nu[1, 1] == pytest.approx(((0.7 - 7) + (0.8 - 8)) / 3)
    assert truth.censor_prob[1, 1] == pytest.approx(1 / 3)


DIGEST_TRUTH = [  # (instance, grid, tau*, nu*, 1 - P*), digest §3.2 (lower0 + linspace)
    ("pos", ce.resource_grid(1.0, 10), 4 / 9, 0.1947, 0.6159),
    ("neg", ce.resource_grid(1.0, 10), 4 / 9, 0.1669, 0.8132),
    ("ind", ce.resource_grid(1.0, 10), 4 / 9, 0.4099, 0.4493),
    ("pos", np.array([0.5, 0.9]), 0.5, 0.2305, 0.5573),
    ("neg", np.array([0.5, 0.9]), 0.5, 0.2039, 0.7732),
    ("ind", np.array([0.5, 0.9]), 0.5, 0.4418, 0.4066),
    ("pos", ce.resource_grid(1.0, 20), 9 / 19, 0.2134, 0.5851),
    ("ind", ce.resource_grid(1.0, 20), 9 / 19, 0.4271, 0.4263),
]


@pytest.mark.parametrize("name,grid,tau_star,nu_star,cens", DIGEST_TRUTH)
def test_ground_truth_matches_the_digest(name, grid, tau_star, nu_star, cens):
    arms = {"pos": poscorr, "neg": negcorr, "ind": indep}[name]()
    truth = ce.ground_truth(arms, grid, ce.penalty_values(grid, "piecewise"), 0.1)
    assert truth.best_arm == 0
    assert grid[truth.best_grid_index] == pytest.approx(tau_star)
    assert truth.nu_star == pytest.approx(nu_star, abs=6e-5)
    assert truth.censor_prob_star == pytest.approx(cens, abs=6e-5)


def test_unit_square_moves_the_optimum_to_tau_one():
    grid = np.arange(1, 11) / 10
    truth = ce.ground_truth(poscorr("unit_square"), grid, ce.penalty_values(grid, "piecewise"), 0.1)
    assert grid[truth.best_grid_index] == pytest.approx(1.0)
    assert truth.censor_prob_star == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("arms_fn,arm,truncation", [(poscorr, 0, "lower0"), (negcorr, 0, "lower0"),
                                                     (negcorr, 1, "unit_square"), (indep, 1, None)])
def test_ground_truth_agrees_with_monte_carlo(arms_fn, arm, truncation):
    arms = arms_fn() if truncation is None else arms_fn(truncation)
    grid = np.array([0.0, 0.3, 4 / 9, 0.7, 1.0])
    lam = ce.penalty_values(grid, "piecewise")
    truth = ce.ground_truth(arms, grid, lam, 0.1)
    n = 1_000_000
    x = draws(arms, arm, n, key=99)
    for j, tau in enumerate(grid):
        below = x[:, 1] <= tau
        y = np.where(below, x[:, 0] - 0.1 * x[:, 1], -lam[j])
        se = max(y.std() / math.sqrt(n), 1e-9)
        assert abs(y.mean() - truth.nu[arm, j]) < 4.5 * se + 1e-12
        p_se = max(math.sqrt(below.mean() * (1 - below.mean()) / n), 1e-9)
        assert abs((1 - below.mean()) - truth.censor_prob[arm, j]) < 4.5 * p_se + 1e-12


def _blocks_and_draws(code, params, table, key, arm, n_blocks):
    """(draw_block's R, C; draw's R, C) for pulls 0 .. n_blocks * BLOCK_PULLS - 1 of ``arm``.
    A Python loop over the package's kernels: an @njit helper re-optimised draw_block and draw inside it
    (15 CPU-s on an empty cache); draw_block alone is the one the simulation loop compiles."""
    block = np.empty((ce.BLOCK_ROWS, ce.BLOCK_PULLS))
    out = np.empty((n_blocks * ce.BLOCK_PULLS, 4))
    for b in range(n_blocks):
        first = b * ce.BLOCK_PULLS
        ce.draw_block(code, params, table, key, arm, first, block)
        for q in range(ce.BLOCK_PULLS):
            r, c = ce.draw(code, params, table, key, arm, first + q)
            out[first + q] = block[0, q], block[1, q], r, c
    return out


def table_arms():
    rng_ = np.random.default_rng(3)
    return ce.table_arms(rng_.uniform(size=(3, 50)), rng_.exponential(size=(3, 50)))


@pytest.mark.parametrize("arms", [poscorr(), negcorr("unit_square"), ce.gaussian_arms([0.9, 0.1], 0.0, 0.0, 0.1),
                                  indep(), ce.beta_exp_arms([0.3, 2.5], [4.0, 0.7], [1.0, 3.0]), table_arms()],
                         ids=["poscorr", "negcorr_unit_square", "low_mu_c", "indep", "beta_exp_shapes", "table"])
def test_block_draws_are_the_single_draws(arms):
    """draw_block hands out exactly draw's values, also where the block's first attempts are rejected
    (unit_square and mu_C = 0 reject about half the Gaussian candidates, so the fallbacks run)."""
    for arm in range(min(arms.n_arms, 3)):
        out = _blocks_and_draws(arms.code, arms.params, arms.table, np.uint64(4242 + arm), arm, 40)
        assert np.array_equal(out[:, :2], out[:, 2:])
