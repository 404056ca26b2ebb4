"""Known behaviour of the satisficing_select policies on small instances (fixed seeds), and
property tests of the simulation loops."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from banditrepro.algorithms.select import SelectVariant, round_schedule
from banditrepro.environments.continuous import capped_gaussian_bump, concave_quadratic, finite_gaussian
from banditrepro.experiments.satisficing_select.loops import (
    Convex1DSimulation,
    IndexPolicySimulation,
    SelectSimulation,
)
from banditrepro.seeding import replication_keys


def keys(n, name="stat", start=0):
    return (replication_keys(7, ("select-tests", name, "noise"), start + n, start),
            replication_keys(7, ("select-tests", name, "policy"), start + n, start))


TWO_ARMS = finite_gaussian([0.3, 0.8])


def test_thompson_regret_is_logarithmic_on_two_arms():
    nk, pk = keys(300, "ts")
    out = IndexPolicySimulation("thompson", TWO_ARMS, 1.5).run(nk, pk, [500, 1000, 2000, 4000])
    m = out.curves["regret"].mean(0)
    # log growth: increments per doubling stay roughly constant (linear would double them)
    assert m[3] - m[2] < 1.6 * (m[1] - m[0])
    assert m[3] < 0.02 * 4000 * 0.5


def test_uniform_ucb_regret_within_theorem_bound_and_sublinear():
    # UCB(1/H^2) on a fixed 4-arm instance, one run per horizon: regret <= 8 sqrt(K H ln H) + 3 sum gaps
    env = finite_gaussian([0.0, 0.5, 0.7, 1.0])
    nk, pk = keys(200, "ucb")
    hs = np.array([250, 1000, 4000])
    out = IndexPolicySimulation("uniform_ucb", env, 1.5, per_horizon=True).run(nk, pk, hs)
    m = out.curves["regret"].mean(0)
    bound = 8 * np.sqrt(4 * hs * np.log(hs)) + 3 * (1.0 + 0.5 + 0.3)
    assert np.all(m <= bound)
    assert m[2] / m[1] < 2.0  # far from linear (4x)


def test_sat_ucb_constant_satisficing_regret_when_realizable():
    env = finite_gaussian([0.0, 0.4, 1.0])
    nk, pk = keys(300, "satucb")
    for algo in ("sat_ucb", "sat_ucb_plus"):
        out = IndexPolicySimulation(algo, env, 0.6).run(nk, pk, [1000, 2000, 4000])
        m = out.curves["satisficing_regret"].mean(0)
        assert m[2] / m[1] <= 1.05, algo


def test_sat_ucb_logarithmic_regret_when_not_realizable():
    env = finite_gaussian([0.0, 0.4, 1.0])
    nk, pk = keys(300, "satucb-nr")
    out = IndexPolicySimulation("sat_ucb", env, 1.5).run(nk, pk, [500, 1000, 2000, 4000])
    m = out.curves["regret"].mean(0)
    assert m[3] - m[2] < 1.6 * (m[1] - m[0])


def test_convex_1d_converges_to_the_optimum():
    env = concave_quadratic()
    nk, pk = keys(200, "convex")
    out = Convex1DSimulation(env, 1.5).run(nk, pk, [500, 4000])
    m = out.curves["regret"].mean(0)
    # average per-step regret falls with the horizon (a non-learning policy would stay at >= 1)
    assert m[1] / 4000 < 0.6 * m[0] / 500


def test_select_reservoir_candidate_is_uniform_on_trajectory():
    # Round 1 of SELECT with the convex oracle: t_1 = 4 queries x_l, x_c, x_r, x_l = 0.25, 0.5, 0.75,
    # 0.25 (r = 1, 0, -3, 1), so r(X_hat_1) is 1, 0, -3 with probabilities 1/2, 1/4, 1/4.
    env = concave_quadratic()
    nk, pk = keys(4000, "reservoir")
    out = SelectSimulation("convex_1d", env, 0.3).run(nk, pk, [4])
    cand = out.finals["candidate_mean_round_1"]
    counts = np.array([np.sum(cand == v) for v in (1.0, 0.0, -3.0)])
    assert counts.sum() == 4000
    assert stats.chisquare(counts, 4000 * np.array([0.5, 0.25, 0.25])).pvalue > 1e-3


def test_select_constant_satisficing_regret_with_a_large_exceeding_gap():
    # Delta* = 0.7: radius sqrt(4 ln n/n) <= 0.7 from n = 44, so round 3 (T_3 = 64) usually passes
    env = finite_gaussian([0.0, 1.0])
    nk, pk = keys(300, "select-const")
    out = SelectSimulation("thompson", env, 0.3).run(nk, pk, [1000, 2000, 4000])
    m = out.curves["satisficing_regret"].mean(0)
    assert m[2] / m[1] <= 1.05
    assert np.mean(out.finals["first_passing_round"] > 0) > 0.95


def test_select_regret_sublinear_when_not_realizable():
    env = finite_gaussian([0.0, 1.0])
    nk, pk = keys(200, "select-nr")
    out = SelectSimulation("thompson", env, 1.5).run(nk, pk, [1000, 4000])
    m = out.curves["regret"].mean(0)
    assert m[1] < 0.1 * 4000 and m[1] / m[0] < 4.0 * 0.75


def test_select_without_step1_is_near_linear():
    env = capped_gaussian_bump()
    nk, pk = keys(100, "nostep1")
    out = SelectSimulation("uniform_ucb", env, 0.7, SelectVariant(skip_step1=True)).run(nk, pk, [1000, 2000])
    m = out.curves["satisficing_regret"].mean(0)
    assert m[1] / m[0] > 1.7


# ---------------------------------------------------------------- properties

SMALL = finite_gaussian([0.2, 0.6, 0.9])


@settings(max_examples=15, deadline=None)
@given(level=st.floats(0.1, 1.5), first=st.integers(1, 400), extra=st.integers(1, 400), seed=st.integers(0, 2**31))
def test_select_prefix_equals_shorter_horizon(level, first, extra, seed):
    """A run of horizon T restricted to its first T' steps is the run of horizon T' (spec §2.1)."""
    nk = np.array([seed], dtype=np.uint64)
    pk = np.array([seed + 1], dtype=np.uint64)
    sim = SelectSimulation("thompson", SMALL, level)
    short = sim.run(nk, pk, [first])
    long = sim.run(nk, pk, [first, first + extra])
    for name in short.curves:
        assert short.curves[name][0, 0] == long.curves[name][0, 0]


@settings(max_examples=15, deadline=None)
@given(level=st.floats(0.1, 1.5), seed=st.integers(0, 2**31),
       variant=st.sampled_from([SelectVariant(), SelectVariant(skip_step2=True), SelectVariant(skip_step3=True),
                                SelectVariant(reuse_step1=True), SelectVariant(gamma_scale=5.0)]))
def test_select_regret_curves_are_consistent(level, seed, variant):
    nk = np.array([seed], dtype=np.uint64)
    pk = np.array([seed ^ 0x5555], dtype=np.uint64)
    chk = np.array([10, 50, 200, 600])
    out = SelectSimulation("thompson", SMALL, level, variant).run(nk, pk, chk)
    sat = out.curves["satisficing_regret"][0]
    reg = out.curves["regret"][0]
    assert np.all(np.diff(sat) >= 0) and np.all(np.diff(reg) >= 0)
    assert np.all(sat <= chk * max(level - 0.2, 0.0) + 1e-9)
    # max(S - r, 0) >= (S - r*) + (r* - r) for every pull
    assert np.all(sat >= chk * (level - 0.9) + reg - 1e-9)
    assert np.all(np.diff(out.curves["round"][0]) >= 0)


def test_results_do_not_depend_on_sharding():
    nk, pk = keys(6, "shard")
    env = capped_gaussian_bump()
    for sim in (SelectSimulation("uniform_ucb", env, 0.5), IndexPolicySimulation("sat_ucb", env, 0.5, per_horizon=True)):
        whole = sim.run(nk, pk, [100, 300])
        parts = [sim.run(nk[a:b], pk[a:b], [100, 300]) for a, b in ((0, 2), (2, 6))]
        for name, arr in whole.curves.items():
            np.testing.assert_array_equal(arr, np.concatenate([p.curves[name] for p in parts]))


@settings(max_examples=30, deadline=None)
@given(alpha=st.floats(0.5, 0.9), scale=st.floats(0.25, 6.0), i=st.integers(1, 12))
def test_schedule_is_positive_and_grows(alpha, scale, i):
    t1, big1 = round_schedule(i, alpha, scale)
    t2, big2 = round_schedule(i + 1, alpha, scale)
    assert t1 >= 1 and big1 >= 1 and t2 >= t1 and big2 >= big1
    gamma = scale * 2.0 ** (-i * (1 - alpha) / alpha)
    assert t1 >= gamma ** (-1 / (1 - alpha)) - 1e-6 and big1 >= gamma ** -2 - 1e-6
    assert math.isclose(t1, max(1, math.ceil(gamma ** (-1 / (1 - alpha)) - 1e-9)))


def test_select_warm_start_variant_has_less_regret_than_restarts():
    env = finite_gaussian([0.3, 1.0])
    nk, pk = keys(200, "warm")
    chk = [1000, 4000]
    cold = SelectSimulation("thompson", env, 1.5).run(nk, pk, chk).curves["regret"].mean(0)
    warm = SelectSimulation("thompson", env, 1.5, SelectVariant(warm_start=True)).run(nk, pk, chk).curves["regret"].mean(0)
    assert warm[1] < 0.8 * cold[1]
