"""Compiled batch loop of the penalized-fairness policies: many independent *rows* in one call.

Only this paper runs it, so it lives in the paper's package (the rule is in :mod:`banditrepro.engine`);
the policies themselves are :mod:`banditrepro.algorithms.fairness`, which the loop calls on every step.

A row is one (replication, parameter value) pair: its own policy parameters (e.g. A_k = eta for
one eta of a sweep), its own horizon (Setting 1 runs each T separately because LFG's eta0 depends
on T), a reward environment (shared by all rows of a replication) and the replication's noise key.
Because rewards come from the counter-based generator at counter (arm, pull index), every row of
a replication sees the same reward sequence per arm whatever the algorithm or eta (common random
numbers), and the results do not depend on how rows are grouped into calls.

The runner records the pull counts N_k(t) at the requested checkpoints; every metric of the paper
(penalized regret, unfairness, total expected reward) is a function of N_k(T) and the true
parameters, see :mod:`banditrepro.algorithms.fairness`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ... import rng
from ...algorithms import fairness as fair
from ...environments import finite

# Reward models (env_params layouts are those of banditrepro.environments.finite).
GAUSSIAN = 0  # rows: mean, standard deviation
BERNOULLI = 1  # rows: success probability
BETA = 2  # rows: alpha, beta
CATEGORICAL = 3  # rows: V cumulative probabilities, then V values
BETA_JOHNK = 4  # rows: alpha, beta with alpha + beta <= 1 (Johnk's sampler, see _beta_johnk_step)
ENV_IDS = {"gaussian": GAUSSIAN, "bernoulli": BERNOULLI, "beta": BETA, "categorical": CATEGORICAL,
           "beta_johnk": BETA_JOHNK}
_JOHNK_TRIES = 32
_FILL_CHUNK = 32  # rewards drawn per refill of an arm's table (at most 31 drawn and never read)

_gaussian_step = finite.GAUSSIAN.step
_bernoulli_step = finite.BERNOULLI.step
_beta_step = finite.BETA.step
_categorical_step = finite.CATEGORICAL.step


@njit(cache=True, inline="always")
def _johnk_attempt(a, b, noise_key, arm, counter):
    """One Johnk attempt at counter ``counter`` of (arm, TAG_ARM): (accepted, value)."""
    u, v = rng.uniform2(noise_key, rng.TAG_ARM, arm, counter)
    x = math.log(u) / a
    y = math.log(v) / b
    m = x if x > y else y
    ex = math.exp(x - m)
    total = ex + math.exp(y - m)
    return m + math.log(total) <= 0.0, ex / total  # U^(1/a) + V^(1/b) <= 1


@njit(cache=True)
def _beta_johnk_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    """Beta(a, b) for a + b <= 1 by Johnk's method, in logs (U^(1/a) underflows for small a).

    Setting 5's Beta(mu, 1 - mu) has a + b = 1, where a Johnk attempt (one Philox block) is accepted
    with probability a b pi / sin(pi a) >= pi/4; this is ~4x cheaper than the two Marsaglia-Tsang
    gammas of ``finite.BETA``. Attempt j of pull i uses counter i * 32 + j of (arm, TAG_ARM); after
    31 rejections (probability < 1e-20) the mean is returned.

    The first attempt is written before the loop of retries. With one ``for j in range(32)`` loop a
    draw cost ~1100 ns although 1.0-1.3 attempts are used on average (its cost grew with the trip
    count: LLVM unrolls the constant-count loop and apparently computes the attempts' Philox blocks
    ahead of the acceptance tests); peeled, a draw costs ~50-70 ns. Same operations, same numbers."""
    a = env_params[0, arm]
    b = env_params[1, arm]
    base = np.uint64(pull_index) * np.uint64(_JOHNK_TRIES)
    accepted, value = _johnk_attempt(a, b, noise_key, arm, base)
    if accepted:
        obs[0] = value
        return
    for j in range(1, _JOHNK_TRIES):
        accepted, value = _johnk_attempt(a, b, noise_key, arm, base + np.uint64(j))
        if accepted:
            obs[0] = value
            return
    obs[0] = a / (a + b)


@njit(cache=True)
def _fill_rewards(env_kind, env, fill_state, noise_key, arm, start, stop, obs, rewards):
    """Rewards ``start``..``stop - 1`` of ``arm`` into the replication's reward table.

    One call per chunk of ``_FILL_CHUNK`` pulls, and one loop per reward model with the model's step
    inside: a call per draw into a compiled function that receives arrays costs numba's reference
    counting, and so does a dispatch on ``env_kind`` inside the loop when its other branches call
    (measured per Gaussian reward: ~100 ns drawn one per call through a dispatcher, 16 ns here;
    Bernoulli 120 -> 28 ns, Johnk Beta 150 -> 77 ns). Each arm's table is filled in increasing pull
    index from a zero ``fill_state``, so the Gaussian arms' spare normal pairs pulls 2j and 2j + 1
    exactly as in a single run, and a reward is a pure function of (environment, noise key, arm,
    pull index): a reward drawn ahead and never read changes no number. No reward model reads the
    round ``t``; 0 is passed."""
    if env_kind == GAUSSIAN:
        for i in range(start, stop):
            _gaussian_step(env, fill_state, noise_key, 0, arm, i, obs)
            rewards[arm, i] = obs[0]
    elif env_kind == BERNOULLI:
        for i in range(start, stop):
            _bernoulli_step(env, fill_state, noise_key, 0, arm, i, obs)
            rewards[arm, i] = obs[0]
    elif env_kind == BETA:
        for i in range(start, stop):
            _beta_step(env, fill_state, noise_key, 0, arm, i, obs)
            rewards[arm, i] = obs[0]
    elif env_kind == BETA_JOHNK:
        for i in range(start, stop):
            _beta_johnk_step(env, fill_state, noise_key, 0, arm, i, obs)
            rewards[arm, i] = obs[0]
    else:
        for i in range(start, stop):
            _categorical_step(env, fill_state, noise_key, 0, arm, i, obs)
            rewards[arm, i] = obs[0]


@njit(cache=True)
def run_rows(algorithm, env_kind, pol_params, env_params, env_rows, noise_keys, policy_keys, policy_subs,
             horizons, checkpoints, order, pulls_out):
    """Run every row to its horizon and write N_k at each checkpoint <= horizon into ``pulls_out``.

    pol_params (B, 3, K); env_params (E, rows, K) with env_rows (B,) choosing the slice;
    noise_keys, policy_keys (B,) uint64; policy_subs (B,) the policy sub-stream of each row (so
    rows of one replication with different parameters draw independent tie-breaking coins);
    horizons (B,); checkpoints (C,) increasing; order (B,) the order in which rows run (any order
    gives the same numbers; adjacent rows with the same env_rows and noise_keys share the reward
    table); pulls_out (B, C, K) int64, -1 where a checkpoint
    exceeds the row's horizon.

    Rows run one after the other on one thread (a Snakemake job is one core; parallelism comes from
    the shards). Rows are independent (own state, own policy sub-stream), and a reward is a pure
    function of (environment, noise key, arm, pull index), so the rows of one replication (one per
    eta, T or case) read it from a table filled (in chunks) on first use instead of drawing it again: the same
    numbers, drawn once per replication instead of once per row.

    Every step is a selector of :mod:`banditrepro.algorithms.fairness` (``ht_ucb_choose``,
    ``lfg_choose``, ``flearn_choose``; rounds 1..K pull arm t), a reward from the table, and
    ``record_pull`` (and LFG's ``update_queues``), each a call without reference counting.
    ``tests/penalized_fairness/test_policies.py`` compares the pull counts with the paper's reference
    implementation (``experiments/penalized_fairness/reference.py``).
    """
    n_rows = pol_params.shape[0]
    n_arms = pol_params.shape[2]
    n_chk = checkpoints.shape[0]
    t_max = 1
    for b in range(n_rows):
        t_max = max(t_max, horizons[b])
    radius = np.zeros(t_max + 1)  # sqrt(2 ln t), tabulated once for all rows
    for t in range(2, t_max + 1):
        radius[t] = math.sqrt(2.0 * math.log(t))
    inv_sqrt = np.zeros(t_max + 1)  # 1 / sqrt(N) for N = 1..t_max (N a float)
    for n in range(1, t_max + 1):
        inv_sqrt[n] = 1.0 / math.sqrt(float(n))
    rewards = np.empty((n_arms, t_max))  # rewards[k, i]: reward of pull i of arm k (this replication)
    filled = np.zeros(n_arms, dtype=np.int64)  # pulls of each arm in the table
    fill_state = np.zeros(n_arms)
    obs = np.zeros(1)
    count = np.zeros(n_arms)  # a policy's state (banditrepro.algorithms.fairness)
    total = np.zeros(n_arms)
    mean = np.zeros(n_arms)
    isq = np.zeros(n_arms)
    queue = np.zeros(n_arms)
    scores = np.zeros(n_arms)
    stream = np.zeros(4, dtype=np.uint64)
    prev = -1
    for i in range(n_rows):
        b = order[i]
        if prev < 0 or env_rows[b] != env_rows[prev] or noise_keys[b] != noise_keys[prev]:
            for k in range(n_arms):  # a new replication: empty reward table
                filled[k] = 0
                fill_state[k] = 0.0
        prev = b
        env = env_params[env_rows[b]]
        noise_key = noise_keys[b]
        for k in range(n_arms):
            count[k] = 0.0
            total[k] = 0.0
            mean[k] = 0.0
            isq[k] = 0.0
            queue[k] = 0.0
            scores[k] = 0.0
        stream[0] = policy_keys[b]
        stream[1] = rng.TAG_POLICY
        stream[2] = policy_subs[b]
        stream[3] = 0
        params = pol_params[b]
        tau = params[0]
        second = params[1]  # HT-UCB: A_k; Flearn: alpha; LFG: eta0
        scale = second[0]  # Flearn: alpha; LFG: eta0 (one value per row)
        rcap = params[2, 0]
        horizon = horizons[b]
        c = 0
        for t in range(1, horizon + 1):
            if t <= n_arms:
                arm = t - 1
            elif algorithm == fair.HT_UCB_ID:
                arm = fair.ht_ucb_choose(t, count, mean, isq, tau, second, scores, stream, radius[t])
            elif algorithm == fair.LFG_ID:
                arm = fair.lfg_choose(mean, isq, queue, scale, rcap, scores, stream, radius[t])
            else:
                arm = fair.flearn_choose(t, count, mean, isq, tau, scale, scores, stream, radius[t])
            pull = int(count[arm])  # reward: pull `pull` of `arm`, from the replication's table
            if pull == filled[arm]:  # the next chunk of this arm's rewards
                stop = min(pull + _FILL_CHUNK, t_max)
                _fill_rewards(env_kind, env, fill_state, noise_key, arm, pull, stop, obs, rewards)
                filled[arm] = stop
            fair.record_pull(count, total, mean, isq, arm, rewards[arm, pull], inv_sqrt[pull + 1])
            if algorithm == fair.LFG_ID:
                fair.update_queues(queue, tau, arm)
            while c < n_chk and checkpoints[c] == t:
                for k in range(n_arms):
                    pulls_out[b, c, k] = int(count[k])
                c += 1
        while c < n_chk:
            for k in range(n_arms):
                pulls_out[b, c, k] = -1
            c += 1


def _column(values, n_rows: int, dtype) -> np.ndarray:
    """``values`` broadcast to (n_rows,) as a fresh writeable array (a read-only broadcast view of a
    single row would be a second numba signature of run_rows, compiled separately)."""
    return np.array(np.broadcast_to(values, (n_rows,)), dtype=dtype)


def run_batch(algorithm: str, env_kind: str, pol_params, env_params, env_rows, noise_keys, policy_keys,
              policy_subs, horizons, checkpoints) -> np.ndarray:
    """Typed wrapper of :func:`run_rows`; returns pulls (B, C, K) int64."""
    pol_params = np.array(pol_params, dtype=np.float64, order="C")
    env_params = np.array(env_params, dtype=np.float64, order="C")
    n_rows, rows, n_arms = pol_params.shape
    if rows != fair.PARAM_ROWS:
        raise ValueError(f"policy params must have shape (B, {fair.PARAM_ROWS}, K)")
    if env_params.ndim != 3 or env_params.shape[2] != n_arms:
        raise ValueError("env_params must have shape (E, rows, K) with the policy's K")
    env_rows = np.array(env_rows, dtype=np.int64, order="C")
    if env_rows.shape != (n_rows,) or env_rows.min() < 0 or env_rows.max() >= env_params.shape[0]:
        raise ValueError("env_rows must give one valid environment index per row")
    horizons = _column(horizons, n_rows, np.int64)
    if np.any(horizons < n_arms):
        raise ValueError("every horizon must be at least K (initialisation pulls each arm once)")
    checkpoints = np.array(checkpoints, dtype=np.int64, order="C")
    if checkpoints.ndim != 1 or checkpoints.size == 0 or np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 1:
        raise ValueError("checkpoints must be a non-empty strictly increasing sequence of steps >= 1")
    noise_keys = _column(noise_keys, n_rows, np.uint64)
    order = np.lexsort((noise_keys, env_rows)).astype(np.int64)  # rows sharing rewards run together
    pulls = np.zeros((n_rows, checkpoints.size, n_arms), dtype=np.int64)
    run_rows(fair.ALGORITHM_IDS[algorithm], ENV_IDS[env_kind], pol_params, env_params, env_rows, noise_keys,
             _column(policy_keys, n_rows, np.uint64), _column(policy_subs, n_rows, np.uint64),
             horizons, checkpoints, order, pulls)
    return pulls
