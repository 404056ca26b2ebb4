"""MovieLens arms, sweep builders and the trade-off dominance test on small hand cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from banditrepro.algorithms import fairness as fair
from banditrepro.environments.movielens import movielens_arms, popular_movies, read_histograms
from banditrepro.experiments.penalized_fairness.builders import (
    FairnessSweep,
    Instances,
    cases_from,
    eta_grid,
    policy_params,
)
from banditrepro.experiments.penalized_fairness.checks import dominance
from banditrepro.experiments.penalized_fairness.theory import FixedInstance, arm_classes, theorem_42_upper_bounds

REAL_HISTOGRAMS = Path(__file__).resolve().parents[2] / "data/processed/movielens_1m/movie_rating_histograms.csv"


def _synthetic_histograms(tmp_path):
    table = pd.DataFrame({
        "movie_id": [10, 11, 12, 13, 14],
        "n1": [0, 10, 5, 1, 0], "n2": [0, 10, 5, 1, 0], "n3": [2, 10, 5, 1, 1],
        "n4": [4, 10, 5, 1, 0], "n5": [6, 10, 5, 1, 0],
    })
    table.insert(1, "count", table[["n1", "n2", "n3", "n4", "n5"]].sum(axis=1))
    path = tmp_path / "movie_rating_histograms.csv"
    table.to_csv(path, index=False)
    return path


def test_popular_movies_selects_strictly_more_than_m0_by_count(tmp_path):
    path = _synthetic_histograms(tmp_path)
    arms = movielens_arms(path, 10)  # counts 12, 50, 25, 5, 1 -> keep 50, 25, 12
    np.testing.assert_array_equal(arms.movie_ids, [11, 12, 10])
    np.testing.assert_allclose(arms.means, [3.0, 3.0, (3 * 2 + 4 * 4 + 5 * 6) / 12])
    assert movielens_arms(path, 12).n_arms == 2  # count 12 is not > 12
    kind, params = arms.env()
    assert params.shape == (10, 3)
    np.testing.assert_allclose(params[4], 1.0)  # cumulative probability reaches 1 at rating 5


def test_histogram_table_is_validated(tmp_path):
    bad = pd.DataFrame({"movie_id": [1], "count": [3], "n1": [1], "n2": [1], "n3": [0], "n4": [0], "n5": [0]})
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError):
        read_histograms(path)


MIRROR_RATINGS = Path(__file__).resolve().parents[3] / "shared/data/movielens-1m/ratings.dat"


def _real_histogram_table(tmp_path):
    """The processed table if built, else built here from the mirror's ratings.dat with the real
    preprocessing code; None without either."""
    if REAL_HISTOGRAMS.exists():
        return REAL_HISTOGRAMS
    if MIRROR_RATINGS.exists():
        from banditrepro.data.movielens import rating_histograms, read_ratings

        path = tmp_path / "movie_rating_histograms.csv"
        rating_histograms(read_ratings(MIRROR_RATINGS)).to_csv(path, index=False)
        return path
    return None


@pytest.mark.needs_data
def test_real_movielens_cuts_give_13_31_118_arms(tmp_path):
    path = _real_histogram_table(tmp_path)
    if path is None:
        pytest.skip("neither the processed MovieLens-1M table nor the data mirror is present")
    table = read_histograms(path)
    sizes = [popular_movies(table, m0).n_arms for m0 in (2500, 2000, 1250)]
    assert sizes == [13, 31, 118]
    means = popular_movies(table, 1250).means
    assert means.min() == pytest.approx(3.003, abs=1e-3) and means.max() == pytest.approx(4.555, abs=1e-3)


def test_eta_grid_and_encoding():
    grid = eta_grid({"range": [0.02, 0.98, 0.02], "extra": [0.99, 0.995, 0.998, 0.999, 1.0]})
    assert grid.size == 54 and grid[0] == 0.02 and grid[-1] == 1.0
    assert eta_grid({"range": [0.01, 1.0, 0.01]}).size == 100
    with pytest.raises(ValueError):
        eta_grid([0.0005])  # not a multiple of 1/1000


def test_tuning_rules_follow_the_spec_table():
    tau = np.full(8, 1 / 16)
    means = np.linspace(0.1, 0.9, 8)
    kw = dict(eta=0.8, horizon=10000, tau=tau, means=means)
    assert policy_params({"policy": "ht_ucb", "penalty": "eta"}, **kw)[1, 0] == 0.8
    assert policy_params({"policy": "flearn", "alpha": "one_minus_eta_times_tau1_T"}, **kw)[1, 0] == pytest.approx(125.0)
    lfg = policy_params({"policy": "lfg", "eta0": "one_minus_eta_times_T", "rcap": 5}, **kw)
    assert lfg[1, 0] == pytest.approx(2000.0) and lfg[2, 0] == 5.0
    assert policy_params({"policy": "lfg", "eta0": "sqrt_T"}, **kw)[1, 0] == 100.0
    assert policy_params({"policy": "ht_ucb", "penalty": "half_mean_range"}, **kw)[1, 0] == pytest.approx(0.4)


def _sweep(algo, etas, n_reps=3):
    params = {"means": [0.9, 0.6, 0.2], "tau": 0.2, "distribution": "gaussian", "noise_sd": 0.1,
              "etas": etas}
    inst = Instances(params, Path("."))
    return FairnessSweep(inst, cases_from(params, 3), algo, "eta", eta_grid(etas), 600)


def test_eta_sweep_output_and_eta_independent_algorithms():
    keys = np.arange(1, 4, dtype=np.uint64)
    out = _sweep({"policy": "ht_ucb", "penalty": "eta"}, [0.1, 0.5, 1.0]).run(keys, keys, np.array([600]))
    np.testing.assert_array_equal(out.checkpoints, [100, 500, 1000])
    n = np.stack([out.curves[f"N{k}"] for k in (1, 2, 3)], axis=-1)
    assert np.all(n.sum(axis=-1) == 600)
    np.testing.assert_allclose(out.curves["U"], fair.unfairness_level(n, 0.2, 600))
    np.testing.assert_allclose(out.curves["W"], n @ np.array([0.9, 0.6, 0.2]))
    # at eta = 1 every arm is critical and HT-UCB meets tau_k T = 120 (Theorem 4.1)
    assert np.all(out.curves["U"][:, 2] <= 1.0)
    # an algorithm that ignores eta is run once and repeated along the axis
    flat = _sweep({"policy": "ht_ucb", "penalty": 0.0}, [0.1, 0.5, 1.0]).run(keys, keys, np.array([600]))
    assert np.all(flat.curves["N1"] == flat.curves["N1"][:, :1])
    # eta = 0 in a sweep is exactly UCB1 (A = 0) on the same reward draws
    zero = _sweep({"policy": "ht_ucb", "penalty": "eta"}, [0.0]).run(keys, keys, np.array([600]))
    np.testing.assert_array_equal(zero.curves["N1"][:, 0], flat.curves["N1"][:, 0])


def test_dominance_hand_cases():
    u_b = np.array([0.0, 100.0, 200.0])
    w_b = np.array([900.0, 950.0, 1000.0])
    # HT above the baseline's interpolated curve everywhere
    worst, mean_diff, n = dominance(np.array([0.0, 50.0, 150.0]), np.array([905.0, 930.0, 990.0]), u_b, w_b)
    assert n == 3 and worst < 0 and mean_diff == pytest.approx((930 - 925 + 990 - 975) / 2)
    # one HT point 1% below the baseline at U = 100
    worst, _, _ = dominance(np.array([100.0]), np.array([940.5]), u_b, w_b)
    assert worst == pytest.approx((950 - 940.5) / 940.5)
    # HT points outside the baseline's U range are not compared
    assert dominance(np.array([300.0]), np.array([1.0]), u_b, w_b)[2] == 0
    # curves through the same point: a shortfall of float rounding (1e-14) reads 0, a real one does not
    assert dominance(np.array([0.0]), np.array([900.0 * (1 - 1e-14)]), u_b, w_b)[0] == 0.0
    assert dominance(np.array([0.0]), np.array([900.0 * (1 - 1e-9)]), u_b, w_b)[0] > 0


def test_arm_classes_and_theorem_bounds():
    classes = arm_classes([0.9, 0.8, 0.7, 0.6, 0.6, 0.4, 0.3, 0.2, 0.1], 0.45)
    assert list(classes[:2]) == ["optimal", "critical"] and list(classes[5:]) == ["noncritical"] * 4
    inst = FixedInstance(np.array([0.9, 0.86, 0.4]), np.full(3, 0.05), np.full(3, 0.45), 20000)
    bounds = theorem_42_upper_bounds(inst)
    assert np.isnan(bounds[0])
    assert bounds[1] == pytest.approx(8 * np.log(20000) / 0.04**2)
    assert bounds[2] == pytest.approx(min(8 * np.log(20000) / 0.05**2, 1000.0))
