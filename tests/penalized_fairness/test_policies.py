"""Unit tests of the penalized-fairness policies: hand-computed cases, and the production batch loop
against the paper's reference (experiments/penalized_fairness/reference.py, written from the paper) run by run,
pull count by pull count."""

from __future__ import annotations

import math

import numpy as np
import pytest

from banditrepro import rng
from banditrepro.algorithms import fairness as fair
from banditrepro.algorithms.ucb import ucb1
from banditrepro.engine import StepSimulation
from banditrepro.environments.finite import gaussian_arms, threshold_gaps
from banditrepro.experiments.penalized_fairness import builders, loops
from banditrepro.experiments.penalized_fairness import reference as paper

# The hand cases' state, one (6, K) array: rows N_k, S_k, S_k / N_k, 1 / sqrt(N_k), the LFG queue Q_k and the
# step's scores (the production selectors take these rows as separate arrays).
COUNT, SUM, MEAN, INV_SQRT_N, QUEUE, SCRATCH = range(6)
STATE_ROWS = 6


def _state(counts, sums, queues=None):
    counts = np.asarray(counts, dtype=np.float64)
    state = np.zeros((STATE_ROWS, counts.size))
    state[COUNT] = counts
    state[SUM] = sums
    state[MEAN] = np.asarray(sums) / counts
    state[INV_SQRT_N] = 1.0 / np.sqrt(counts)
    if queues is not None:
        state[QUEUE] = queues
    return state


def _stream(key=7):
    return rng.new_stream(key)


# The hand cases below check the production selectors (banditrepro.algorithms.fairness, what the
# batch loop runs) on the rows of a (6, K) state.


def _production_select(name):
    def select(t, state, params, stream):
        if t <= state.shape[1]:  # the batch loop's initialisation rounds
            return t - 1
        radius_scale = math.sqrt(2.0 * math.log(t))
        count, mean, inv_sqrt_n = state[COUNT], state[MEAN], state[INV_SQRT_N]
        scores = state[SCRATCH]
        if name == "ht_ucb":
            return fair.ht_ucb_choose(t, count, mean, inv_sqrt_n, params[0], params[1], scores, stream, radius_scale)
        if name == "lfg":
            return fair.lfg_choose(mean, inv_sqrt_n, state[QUEUE], params[1, 0], params[2, 0], scores, stream,
                                   radius_scale)
        return fair.flearn_choose(t, count, mean, inv_sqrt_n, params[0], params[1, 0], scores, stream, radius_scale)

    return select


def _production_lfg_update(state, params, arm, reward):
    inv_sqrt_count = 1.0 / math.sqrt(state[COUNT, arm] + 1.0)
    fair.record_pull(state[COUNT], state[SUM], state[MEAN], state[INV_SQRT_N], arm,
                     reward, inv_sqrt_count)
    fair.update_queues(state[QUEUE], params[0], arm)


HT_UCB_SELECT = _production_select("ht_ucb")
FLEARN_SELECT = _production_select("flearn")
LFG_SELECT = _production_select("lfg")


# Hand case: round t = 12, N = (5, 3, 3), S = (2.5, 1.8, 0.3) -> means (.5, .6, .1),
# radius sqrt(2 ln 12) = 2.2293; UCB indices 1.4970, 1.8871, 1.3871.
T_HAND = 12
COUNTS = [5, 3, 3]
SUMS = [2.5, 1.8, 0.3]


def _ucb(k):
    return SUMS[k] / COUNTS[k] + math.sqrt(2 * math.log(T_HAND) / COUNTS[k])


def test_hand_ucb_indices():
    assert [round(_ucb(k), 4) for k in range(3)] == [1.4970, 1.8871, 1.3871]


def test_ht_ucb_without_bonus_is_ucb1_argmax():
    params = fair.ht_ucb_params([0.25, 0.25, 0.25], [0.0, 1.0, 1.0])
    # tau_k t = 3 = N_2 = N_3: the strict threshold gives no bonus, so arm 1 (0-based) wins.
    assert HT_UCB_SELECT(T_HAND, _state(COUNTS, SUMS), params, _stream()) == 1


def test_ht_ucb_threshold_is_strict_not_floored():
    # arm 1 has N = 3 = tau t: a non-strict threshold would add A = 1 and make it win by far;
    # arm 2 has tau t = 4 > 3 and gets A = 0.6: 1.3871 + 0.6 = 1.9871 > 1.8871.
    params = fair.ht_ucb_params([0.25, 0.25, 1 / 3], [0.0, 1.0, 0.6])
    assert HT_UCB_SELECT(T_HAND, _state(COUNTS, SUMS), params, _stream()) == 2
    # A = 0.4 is not enough: 1.7871 < 1.8871.
    params = fair.ht_ucb_params([0.25, 0.25, 1 / 3], [0.0, 1.0, 0.4])
    assert HT_UCB_SELECT(T_HAND, _state(COUNTS, SUMS), params, _stream()) == 1
    # tau_2 t = 3.24 > N_2 = 3: floor(3.24) = 3 would not trigger, the unfloored threshold does
    # (1.3871 + 0.55 = 1.9371 > 1.8871).
    params = fair.ht_ucb_params([0.25, 0.25, 0.27], [0.0, 0.0, 0.55])
    assert HT_UCB_SELECT(T_HAND, _state(COUNTS, SUMS), params, _stream()) == 2


@pytest.mark.parametrize("select", [HT_UCB_SELECT, FLEARN_SELECT, LFG_SELECT])
def test_initialisation_pulls_arm_n_in_round_n(select):
    params = np.zeros((fair.PARAM_ROWS, 4))
    params[2] = 1.0
    state = np.zeros((STATE_ROWS, 4))
    assert [select(t, state, params, _stream()) for t in range(1, 5)] == [0, 1, 2, 3]


def test_flearn_plays_ucb_when_no_deficit_exceeds_alpha():
    # deficits 0.25 * 11 - N = (-2.25, -0.25, -0.25) <= 0
    params = fair.flearn_params([0.25, 0.25, 0.25], 0.0)
    assert FLEARN_SELECT(T_HAND, _state(COUNTS, SUMS), params, _stream()) == 1


def test_flearn_serves_largest_deficit_with_random_ties():
    # N = (7, 2, 2): deficits (-4.25, 0.75, 0.75) -> arms 1 and 2 tie; arm 0 has the best UCB.
    sums = [6.3, 0.2, 0.2]
    params = fair.flearn_params([0.25, 0.25, 0.25], 0.0)
    picks = [FLEARN_SELECT(T_HAND, _state([7, 2, 2], sums), params, _stream(key)) for key in range(400)]
    assert set(picks) == {1, 2}
    assert 150 < picks.count(1) < 250  # Binomial(400, 1/2): +-5 sd
    # alpha = 0.75: the deficit must strictly exceed alpha, so UCB1 decides (arm 0 here).
    params = fair.flearn_params([0.25, 0.25, 0.25], 0.75)
    ucb = [0.9 + math.sqrt(2 * math.log(12) / 7), 0.1 + math.sqrt(2 * math.log(12) / 2)]
    assert ucb[0] > ucb[1]
    assert FLEARN_SELECT(T_HAND, _state([7, 2, 2], sums), params, _stream()) == 0


def test_lfg_queue_update_and_capped_score():
    tau = [0.2, 0.3, 0.5]
    params = fair.lfg_params(tau, eta0=2.0, rcap=1.0)
    state = _state([4, 4, 3], [1.6, 3.2, 0.9], queues=[0.0, 0.1, 0.0])
    _production_lfg_update(state, params, 0, 0.5)
    np.testing.assert_allclose(state[QUEUE], [0.0, 0.4, 0.5])  # max(0 + .2 - 1, 0), .1 + .3, 0 + .5
    assert state[COUNT, 0] == 5 and state[SUM, 0] == pytest.approx(2.1)
    # round 13: UCBs .42 + 1.0130, .8 + 1.1325 -> capped at 1, .3 + 1.3077; scores = Q + 2 * min(UCB, 1)
    r = math.sqrt(2 * math.log(13))
    ucb = np.minimum(np.array([2.1 / 5 + r / math.sqrt(5), 0.8 + r / 2, 0.3 + r / math.sqrt(3)]), 1.0)
    scores = state[QUEUE] + 2.0 * ucb
    assert LFG_SELECT(13, state, params, _stream()) == int(np.argmax(scores)) == 2


def test_lfg_uses_start_of_round_queue():
    # Arm 0 has the larger queue now (0.5 vs 0.3). Were the queues advanced by this round's
    # arrivals tau_k before selecting, arm 1 (0.3 + 0.4 = 0.7) would beat arm 0 (0.5 + 0.1 = 0.6).
    params = fair.lfg_params([0.1, 0.4], eta0=0.0)
    state = _state([5, 5], [1.0, 1.0], queues=[0.5, 0.3])
    assert LFG_SELECT(11, state, params, _stream()) == 0


def test_argmax_random_ties_is_uniform_over_maxima():
    scores = np.array([1.0, 3.0, 2.0, 3.0, 3.0])
    stream = _stream(11)
    picks = np.array([fair._tie_pick(scores, 3.0, 3, stream) for _ in range(3000)])
    counts = np.bincount(picks, minlength=5)
    assert counts[0] == counts[2] == 0
    expected = 1000.0
    chi2 = ((counts[[1, 3, 4]] - expected) ** 2 / expected).sum()
    assert chi2 < 13.8  # chi-square(2) 0.999 quantile


def test_parameter_validation():
    with pytest.raises(ValueError):
        fair.ht_ucb_params([0.6, 0.6], 0.1)  # sum tau > 1
    with pytest.raises(ValueError):
        fair.ht_ucb_params([0.1, 0.1], -0.1)
    with pytest.raises(ValueError):
        fair.flearn_params([0.1, 0.1], -1.0)
    with pytest.raises(ValueError):
        fair.lfg_params([0.1, 0.1], -1.0)


# --- whole runs ------------------------------------------------------------------------------

MEANS = np.array([0.9, 0.7, 0.6, 0.5, 0.4])
K = MEANS.size


def _keys(n_reps, seed):
    return np.arange(1, n_reps + 1, dtype=np.uint64) * np.uint64(1000003) + np.uint64(seed)


def _step_pulls(policy, params, horizon, n_reps=6, seed=3):
    env, env_params = gaussian_arms(MEANS, 1.0 / K)
    sim = StepSimulation(env, env_params, threshold_gaps(MEANS, MEANS.max())[None, :], ("regret",), policy, params)
    keys = _keys(n_reps, seed)
    out = sim.run(keys, keys + np.uint64(17), np.array([horizon]))
    return out.pulls[:, 0, :]


def _batch_pulls(algorithm, params, horizon, n_reps=6, seed=3):
    """The production batch loop, Gaussian rewards N(MEANS, 1/K^2), the keys of ``_step_pulls``."""
    keys = _keys(n_reps, seed)
    env_kind, env_params = builders.reward_params("gaussian", MEANS, 1.0 / K)
    return loops.run_batch(algorithm, env_kind, np.repeat(params[None], n_reps, 0), env_params, np.zeros(n_reps, int),
                           keys, keys + np.uint64(17), np.zeros(n_reps, int), horizon, np.array([horizon]))[:, 0, :]


def _paper_pulls(algorithm, tau, value, law, keys, horizon, checkpoints, rcap=1.0, probs=None):
    """N_k at ``checkpoints`` by the paper's reference (``reference.play``: HT-UCB with A_k = ``value``, Flearn
    with alpha = ``value``, LFG with eta0 = ``value`` and cap ``rcap``), one replication per key, rewards from
    the reference's own draws of ``law``, tie coins on the policy key ``key + 17``, sub-stream 0."""
    code, law_params = paper.reward_law(law, MEANS, probs)
    tau = np.asarray(tau, dtype=np.float64)
    out = []
    for key in keys:
        rewards = paper.reward_table(code, law_params, np.uint64(key), horizon)
        out.append(paper.play(paper.POLICY_CODES[algorithm], horizon, tau, np.full(K, float(value)), float(value),
                              float(value), float(rcap), rewards, np.uint64(key) + np.uint64(17), np.uint64(0),
                              np.asarray(checkpoints, dtype=np.int64)))
    return np.stack(out)


def test_ht_ucb_with_zero_penalty_is_ucb1():
    kernel, params = ucb1()
    reference = _step_pulls(kernel, params, 2000)
    ours = _batch_pulls("ht_ucb", fair.ht_ucb_params(np.full(K, 0.1), 0.0), 2000)
    np.testing.assert_array_equal(ours, reference)
    paper_pulls = _paper_pulls("ht_ucb", np.full(K, 0.1), 0.0, "gaussian", _keys(6, 3), 2000, [2000])[:, 0, :]
    np.testing.assert_array_equal(paper_pulls, reference)


def test_flearn_with_huge_alpha_is_ucb1():
    kernel, params = ucb1()
    reference = _step_pulls(kernel, params, 2000)
    ours = _batch_pulls("flearn", fair.flearn_params(np.full(K, 0.1), 1e9), 2000)
    np.testing.assert_array_equal(ours, reference)


def test_flearn_alpha_zero_is_anytime_fair():
    tau = np.full(K, 0.15)
    env_kind, env_params = builders.reward_params("gaussian", MEANS, 1.0 / K)
    checkpoints = np.arange(K, 1501)
    pulls = loops.run_batch("flearn", env_kind, fair.flearn_params(tau, 0.0)[None], env_params, [0], [5], [9], [0],
                         1500, checkpoints)[0]
    deficit = tau[None, :] * checkpoints[:, None] - pulls
    assert deficit.max() <= 1.0 + 1e-9


def test_lfg_eta0_zero_is_round_robin():
    tau = np.full(K, 1.0 / (2 * K))
    env_kind, env_params = builders.reward_params("gaussian", MEANS, 1.0 / K)
    pulls = loops.run_batch("lfg", env_kind, fair.lfg_params(tau, 0.0)[None], env_params, [0], [5], [9], [0],
                         1003, np.array([1003]))[0, 0]
    assert pulls.sum() == 1003 and pulls.max() - pulls.min() <= 1


PAPER_VALUES = {"ht_ucb": 0.25, "flearn": 3.0, "lfg": 40.0}  # A_k, alpha, eta0 (rcap 1)


@pytest.mark.parametrize("algorithm", ["ht_ucb", "flearn", "lfg"])
def test_batch_runner_matches_the_paper_reference(algorithm):
    tau = np.full(K, 0.12)
    value = PAPER_VALUES[algorithm]
    params = {"ht_ucb": fair.ht_ucb_params(tau, value), "flearn": fair.flearn_params(tau, value),
              "lfg": fair.lfg_params(tau, value)}[algorithm]
    n_reps = 4
    reference = _paper_pulls(algorithm, tau, value, "gaussian", _keys(n_reps, 3), 1500, [1500])[:, 0, :]
    ours = _batch_pulls(algorithm, params, 1500, n_reps=n_reps)
    np.testing.assert_array_equal(ours, reference)


def test_batch_rows_are_independent_of_grouping_and_fill_missing_checkpoints():
    tau = np.full(K, 0.1)
    env_kind, env_params = builders.reward_params("gaussian", MEANS, 1.0 / K)
    params = np.stack([fair.ht_ucb_params(tau, a) for a in (0.05, 0.2, 0.5)])
    keys = np.array([11, 12, 13], dtype=np.uint64)
    together = loops.run_batch("ht_ucb", env_kind, params, env_params, [0, 0, 0], keys, keys, [0, 1, 2],
                            [500, 800, 1000], np.array([500, 1000]))
    alone = loops.run_batch("ht_ucb", env_kind, params[2:], env_params, [0], keys[2:], keys[2:], [2], [1000],
                         np.array([500, 1000]))
    np.testing.assert_array_equal(together[2], alone[0])
    assert np.all(together[0, 1] == -1) and together[0, 0].sum() == 500
    assert np.all(together[1, 1] == -1) and together[2, 1].sum() == 1000


# --- the batch runner against the paper's reference, every reward model ------------------------------

CATEGORICAL_PROBS = np.array([[0.1, 0.1, 0.2, 0.3, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2], [0.3, 0.3, 0.2, 0.1, 0.1],
                              [0.0, 0.5, 0.5, 0.0, 0.0], [0.05, 0.15, 0.3, 0.3, 0.2]])  # ratings 1..5 (Setting 3)


def _reward_model(kind):
    """(batch env kind, env_params (rows, K), probs or None) of MEANS under ``kind``."""
    from banditrepro.environments import finite

    if kind == "categorical":
        _, env_params = finite.categorical_arms(np.arange(1.0, 6.0), CATEGORICAL_PROBS)
        return "categorical", env_params, CATEGORICAL_PROBS
    env_kind, env_params = builders.reward_params(kind, MEANS, 1.0 / K if kind == "gaussian" else None)
    return env_kind, env_params[0], None


SWEEP_VALUES = {  # three rows per replication, (value, rcap); alpha = 0 and eta0 = 0 tie on most steps
    "ht_ucb": [(0.0, 1.0), (0.1, 1.0), (0.6, 1.0)],
    "flearn": [(0.0, 1.0), (4.0, 1.0), (1e9, 1.0)],
    "lfg": [(0.0, 1.0), (30.0, 1.0), (900.0, 5.0)],
}
PARAMS = {"ht_ucb": lambda tau, v, rcap: fair.ht_ucb_params(tau, v),
          "flearn": lambda tau, v, rcap: fair.flearn_params(tau, v),
          "lfg": lambda tau, v, rcap: fair.lfg_params(tau, v, rcap)}


@pytest.mark.parametrize("algorithm,reward", [("ht_ucb", "bernoulli"), ("flearn", "beta"), ("lfg", "categorical"),
                                              ("ht_ucb", "beta"), ("flearn", "gaussian"), ("lfg", "bernoulli")])
def test_batch_sweep_rows_match_the_paper_reference(algorithm, reward):
    """Sweep-style rows (replications tiled over parameter values, each replication's rewards read
    from one shared table) give exactly the pull counts of the paper's reference run one replication and
    parameter value at a time, at every step (so the same arm in every round, including random tie-breaks)."""
    tau = np.full(K, 0.12)
    values = SWEEP_VALUES[algorithm]
    params = [PARAMS[algorithm](tau, v, rcap) for v, rcap in values]
    env_kind, env_params, probs = _reward_model(reward)
    n_reps, horizon = 3, 1200
    keys = _keys(n_reps, 5)
    reps = np.tile(np.arange(n_reps), len(params))
    ours = loops.run_batch(algorithm, env_kind, np.repeat(np.stack(params), n_reps, axis=0),
                           np.repeat(env_params[None], n_reps, axis=0), reps, keys[reps], keys[reps] + np.uint64(17),
                           np.zeros(reps.size, int), horizon, np.arange(1, horizon + 1))
    for x, (value, rcap) in enumerate(values):
        reference = _paper_pulls(algorithm, tau, value, reward, keys, horizon, np.arange(1, horizon + 1), rcap=rcap,
                                 probs=probs)
        np.testing.assert_array_equal(ours[x * n_reps:(x + 1) * n_reps], reference)


def test_batch_rows_sharing_a_replication_equal_rows_run_alone():
    """Rows of one replication with different horizons, policies' parameters and sub-streams,
    interleaved with another replication, give what each gives alone."""
    tau = np.full(K, 0.1)
    env_kind, env_params = builders.reward_params("beta", MEANS)
    env_params = np.concatenate([env_params, env_params[:, :, ::-1]])  # two environments
    params = np.stack([fair.ht_ucb_params(tau, a) for a in (0.05, 0.2, 0.5, 0.0, 0.3)])
    env_rows = np.array([0, 1, 0, 1, 0])
    keys = np.array([7, 7, 7, 7, 8], dtype=np.uint64)
    horizons = np.array([700, 1000, 1000, 300, 1000])
    subs = np.array([0, 1, 2, 3, 0])
    steps = np.arange(1, 1001)
    together = loops.run_batch("ht_ucb", env_kind, params, env_params, env_rows, keys, keys + np.uint64(1), subs,
                            horizons, steps)
    for b in range(5):
        alone = loops.run_batch("ht_ucb", env_kind, params[b:b + 1], env_params, env_rows[b:b + 1], keys[b:b + 1],
                             keys[b:b + 1] + np.uint64(1), subs[b:b + 1], horizons[b:b + 1], steps)
        np.testing.assert_array_equal(together[b], alone[0])


@pytest.mark.parametrize("env_kind", sorted(loops.ENV_IDS))
def test_reward_table_chunks_are_the_per_pull_draws(env_kind):
    """``_fill_rewards`` (the batch loop's table, filled a chunk at a time) holds, bit for bit, the
    rewards the reward model's step draws one pull at a time, whatever the chunk boundaries."""
    from banditrepro.environments import finite

    steps = {"gaussian": finite.GAUSSIAN.step, "bernoulli": finite.BERNOULLI.step, "beta": finite.BETA.step,
             "beta_johnk": loops._beta_johnk_step, "categorical": finite.CATEGORICAL.step}
    env = {"gaussian": np.array([[0.3, 0.8], [0.5, 0.1]]), "bernoulli": np.array([[0.3, 0.8]]),
           "beta": np.array([[2.0, 0.5], [3.0, 0.7]]), "beta_johnk": np.array([[0.3, 0.8], [0.7, 0.2]]),
           "categorical": np.array([[0.2, 0.5], [0.7, 0.5], [1.0, 1.0], [1.0, 1.0], [2.0, 4.0], [3.0, 5.0]])}[env_kind]
    key, n = np.uint64(4242), 301
    obs = np.zeros(1)
    state = np.zeros(2)
    expected = np.empty((2, n))
    for arm in range(2):
        for i in range(n):
            steps[env_kind](env, state, key, 1, arm, i, obs)
            expected[arm, i] = obs[0]
    table = np.full((2, n), np.nan)
    fill_state = np.zeros(2)
    for arm in range(2):
        bounds = [0, 1, 8, 40, 41, 72, n]  # odd and even starts (the Gaussian spare)
        for start, stop in zip(bounds[:-1], bounds[1:]):
            loops._fill_rewards(loops.ENV_IDS[env_kind], env, fill_state, key, arm, start, stop, obs, table)
    np.testing.assert_array_equal(table.view(np.uint64), expected.view(np.uint64))
