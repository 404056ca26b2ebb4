"""The resolutions that decide verdicts, pinned through the config: a change of reading fails here, not only
in the lock (issue 31). Each test builds the algorithm or arms the way the workflow does (spec -> builder)
and checks the reading the headline uses, and that its labelled alternative differs as it should.

* TS's update (digest A9): the headline `ts` updates every pair (I_t, tau <= tau_t); `ts_single` only the
  played pair.
* RCUCB's penalty bonus (A6): the headline `rcucb` scales it by lambda(tau); `rcucb_unit` does not.
* AmesHousing (Sec. 5.2): the headline arms are in the paper's listing order, num.trees-major, which is the
  order of UCB's and TS's initial round-robin, and the training times are in seconds (A11); `ames_shuffled`
  and `ames_time_*` are the alternatives.
"""

import math
from pathlib import Path

import censored_printed_forms as printed
import numpy as np
import pytest

from banditrepro import rng
from banditrepro.algorithms import censored_baselines as cb
from banditrepro.experiments.censored_resources import builders, forest_model
from banditrepro.experiments.spec import load_paper

ROOT = Path(__file__).resolve().parents[2]
SYNTHETIC = ("s51_poscorr", "s51_negcorr", "s51_indep", "f1m1_poscorr", "f1m2_poscorr", "f2_n20", "f3")


@pytest.fixture(scope="module")
def spec():
    return load_paper("censored_resources", "paper", ROOT)


def _ts_pairs_updated(sim, j_played):
    """Which limits of arm 0 one production TS update touches after a pull at limit ``j_played``."""
    m = sim.taus.size
    state = np.zeros((cb.TS_FAST_STATE_ROWS, sim.arms.n_arms, m))
    cb.ts_update_fast(1, state, sim.taus, sim.lam, sim.policy_params, 0, j_played, 0.5, 0.5 * sim.taus[j_played],
                      sim.cost_slope, rng.new_stream(7))
    return (state[0, 0] + state[1, 0]).tolist()


@pytest.mark.parametrize("experiment", SYNTHETIC)
def test_headline_ts_updates_every_lower_limit_and_the_reading_only_the_played_pair(spec, experiment):
    exp = spec.experiments[experiment]
    headline = builders.build_synthetic(exp, "ts")
    single = builders.build_synthetic(exp, "ts_single")
    m = headline.taus.size
    j = m - 1
    assert _ts_pairs_updated(headline, j) == [1.0] * m            # every tau <= tau_t (A9, eq. 32 as resolved)
    assert _ts_pairs_updated(single, j) == [0.0] * (m - 1) + [1.0]  # the played pair only
    assert headline.policy_params[0] == 0.0 and single.policy_params[0] == 1.0


def _hand_index(state, i, j, t, lam, unit):
    n, g, s, n0 = state[0, i, j], state[1, i, j], state[2, i, j], state[3, i, 0]
    e = 2 * math.log(t)
    return g / n - lam * s / n0 + math.sqrt(e / n) + (1.0 if unit else lam) * math.sqrt(e / n0)


@pytest.mark.parametrize("experiment", SYNTHETIC)
def test_headline_rcucb_scales_its_penalty_bonus_by_lambda_and_the_reading_does_not(spec, experiment):
    exp = spec.experiments[experiment]
    t = 500
    for algorithm, unit in (("rcucb", False), ("rcucb_unit", True)):
        sim = builders.build_synthetic(exp, algorithm)
        n, m = sim.arms.n_arms, sim.taus.size
        state = np.zeros((4, n, m))
        state[0] = 20.0 + np.arange(n * m).reshape(n, m) % 7   # N
        state[1] = 2.0                                           # G
        state[2] = 5.0                                           # S
        state[3, :, 0] = 40.0                                    # N0
        scores = np.empty(n * m)
        printed.rcucb_select(t, state, sim.taus, sim.lam, sim.policy_params, scores, rng.new_stream(1))
        expected = [_hand_index(state, i, j, t, sim.lam[j], unit) for i in range(n) for j in range(m)]
        assert np.allclose(scores, expected, rtol=1e-12)
    # the two forms differ exactly where lambda(tau) != 1: above 0.5, where lambda = 10 tau
    assert np.any(sim.lam > 1.0)


@pytest.fixture(scope="module")
def ames_table():
    table, _ = forest_model.read_verified(ROOT / "data" / "ames_forest" / "surrogate_table.csv")
    return forest_model.arm_tables(table, "range")


def test_headline_ames_arms_are_num_trees_major_in_seconds(spec, ames_table):
    rewards, seconds, arm_list = ames_table
    params = spec.experiments["ames"].params
    assert params["arm_order"] == "table" and params["time_scale"] == 1.0
    r, c, arms = builders.ames_arms(rewards, seconds, arm_list, params)
    assert np.array_equal(c, seconds) and np.array_equal(r, rewards)
    # UCB and TS open with a round-robin over the pairs in arm order (pair p = arm p // m): the first
    # 96 arms, 960 rounds, are all the 100-tree forests, the fastest, and the last 96 the 700-tree ones
    per_size = len(arms) // 7
    assert (arms.num_trees.iloc[:per_size] == 100).all() and (arms.num_trees.iloc[-per_size:] == 700).all()
    assert np.median(c[:per_size]) < np.median(c[-per_size:])
    # in seconds the cost c(C) = C leaves [0, 1], which footnote 4's c: R+ -> [0, 1] asks for
    assert c.max() > 1.0


def test_ames_readings_shuffle_the_arms_and_rescale_the_times(spec, ames_table):
    rewards, seconds, arm_list = ames_table
    r, c, arms = builders.ames_arms(rewards, seconds, arm_list, spec.experiments["ames_shuffled"].params)
    order = arms.merge(arm_list.reset_index(), on=list(arm_list.columns))["index"].to_numpy()
    assert sorted(order) == list(range(len(arm_list))) and not np.array_equal(order, np.arange(len(arm_list)))
    assert np.array_equal(c, seconds[order]) and np.array_equal(r, rewards[order])
    for experiment, scale in (("ames_time_milli", 0.001), ("ames_time_centi", 0.01)):
        params = spec.experiments[experiment].params
        assert params["arm_order"] == "table"
        _, c, _ = builders.ames_arms(rewards, seconds, arm_list, params)
        assert np.allclose(c, seconds * scale)
    assert seconds.max() * 0.001 <= 1.0  # in units of 1000 s every cost lies in [0, 1]
