"""Compiled batch runner for the penalized-fairness policies: many independent *rows* in one call.

Only this paper runs it, so it lives in the paper's package (the rule is in :mod:`banditrepro.engine`);
the policies' decision kernels stay in :mod:`banditrepro.algorithms.fairness`.

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

_gaussian_step = finite.GAUSSIAN.step
_bernoulli_step = finite.BERNOULLI.step
_beta_step = finite.BETA.step
_categorical_step = finite.CATEGORICAL.step


@njit(cache=True)
def _beta_johnk_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    """Beta(a, b) for a + b <= 1 by Johnk's method, in logs (U^(1/a) underflows for small a).

    Setting 5's Beta(mu, 1 - mu) has a + b = 1, where a Johnk attempt (one Philox block) is accepted
    with probability a b pi / sin(pi a) >= pi/4; this is ~4x cheaper than the two Marsaglia-Tsang
    gammas of ``finite.BETA``. Attempt j of pull i uses counter i * 32 + j of (arm, TAG_ARM); after
    31 rejections (probability < 1e-20) the mean is returned."""
    a = env_params[0, arm]
    b = env_params[1, arm]
    base = np.uint64(pull_index) * np.uint64(_JOHNK_TRIES)
    for j in range(_JOHNK_TRIES):
        u, v = rng.uniform2(noise_key, rng.TAG_ARM, arm, base + np.uint64(j))
        x = math.log(u) / a
        y = math.log(v) / b
        m = x if x > y else y
        ex = math.exp(x - m)
        total = ex + math.exp(y - m)
        if m + math.log(total) <= 0.0:  # U^(1/a) + V^(1/b) <= 1
            obs[0] = ex / total
            return
    obs[0] = a / (a + b)


@njit(cache=True)
def _env_step(env_kind, env_params, env_state, noise_key, t, arm, pull_index, obs):
    if env_kind == GAUSSIAN:
        _gaussian_step(env_params, env_state, noise_key, t, arm, pull_index, obs)
    elif env_kind == BERNOULLI:
        _bernoulli_step(env_params, env_state, noise_key, t, arm, pull_index, obs)
    elif env_kind == BETA:
        _beta_step(env_params, env_state, noise_key, t, arm, pull_index, obs)
    elif env_kind == BETA_JOHNK:
        _beta_johnk_step(env_params, env_state, noise_key, t, arm, pull_index, obs)
    else:
        _categorical_step(env_params, env_state, noise_key, t, arm, pull_index, obs)


@njit(cache=True)
def run_rows(algorithm, env_kind, pol_params, env_params, env_rows, noise_keys, policy_keys, policy_subs,
             horizons, checkpoints, pulls_out):
    """Run every row to its horizon and write N_k at each checkpoint <= horizon into ``pulls_out``.

    pol_params (B, 3, K); env_params (E, rows, K) with env_rows (B,) choosing the slice;
    noise_keys, policy_keys (B,) uint64; policy_subs (B,) the policy sub-stream of each row (so
    rows of one replication with different parameters draw independent tie-breaking coins);
    horizons (B,); checkpoints (C,) increasing; pulls_out (B, C, K) int64, -1 where a checkpoint
    exceeds the row's horizon.
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
    # Rows are independent (own state, own policy sub-stream, counter-based rewards) and run one after
    # the other on one thread: a Snakemake job is one core, parallelism comes from the shards.
    for b in range(n_rows):
        state = np.zeros((fair.STATE_ROWS, n_arms))
        env_state = np.zeros(n_arms)
        obs = np.zeros(1)
        stream = np.zeros(4, dtype=np.uint64)
        stream[0] = policy_keys[b]
        stream[1] = rng.TAG_POLICY
        stream[2] = policy_subs[b]
        stream[3] = 0
        params = pol_params[b]
        env = env_params[env_rows[b]]
        noise_key = noise_keys[b]
        horizon = horizons[b]
        c = 0
        for t in range(1, horizon + 1):
            if algorithm == fair.HT_UCB_ID:
                arm = fair.ht_ucb_select_core(t, state, params, stream, radius[t])
            elif algorithm == fair.LFG_ID:
                arm = fair.lfg_select_core(t, state, params, stream, radius[t])
            else:
                arm = fair.flearn_select_core(t, state, params, stream, radius[t])
            _env_step(env_kind, env, env_state, noise_key, t, arm, int(state[0, arm]), obs)
            fair.record_pull(state, arm, obs[0])
            if algorithm == fair.LFG_ID:
                fair.update_queues(state, params, arm)
            while c < n_chk and checkpoints[c] == t:
                for k in range(n_arms):
                    pulls_out[b, c, k] = int(state[0, k])
                c += 1
        while c < n_chk:
            for k in range(n_arms):
                pulls_out[b, c, k] = -1
            c += 1


def run_batch(algorithm: str, env_kind: str, pol_params, env_params, env_rows, noise_keys, policy_keys,
              policy_subs, horizons, checkpoints) -> np.ndarray:
    """Typed wrapper of :func:`run_rows`; returns pulls (B, C, K) int64."""
    pol_params = np.ascontiguousarray(pol_params, dtype=np.float64)
    env_params = np.ascontiguousarray(env_params, dtype=np.float64)
    n_rows, rows, n_arms = pol_params.shape
    if rows != fair.PARAM_ROWS:
        raise ValueError(f"policy params must have shape (B, {fair.PARAM_ROWS}, K)")
    if env_params.ndim != 3 or env_params.shape[2] != n_arms:
        raise ValueError("env_params must have shape (E, rows, K) with the policy's K")
    env_rows = np.ascontiguousarray(env_rows, dtype=np.int64)
    if env_rows.shape != (n_rows,) or env_rows.min() < 0 or env_rows.max() >= env_params.shape[0]:
        raise ValueError("env_rows must give one valid environment index per row")
    horizons = np.ascontiguousarray(np.broadcast_to(horizons, (n_rows,)), dtype=np.int64)
    if np.any(horizons < n_arms):
        raise ValueError("every horizon must be at least K (initialisation pulls each arm once)")
    checkpoints = np.ascontiguousarray(checkpoints, dtype=np.int64)
    if checkpoints.ndim != 1 or checkpoints.size == 0 or np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 1:
        raise ValueError("checkpoints must be a non-empty strictly increasing sequence of steps >= 1")
    pulls = np.zeros((n_rows, checkpoints.size, n_arms), dtype=np.int64)
    run_rows(fair.ALGORITHM_IDS[algorithm], ENV_IDS[env_kind], pol_params, env_params, env_rows,
             np.ascontiguousarray(np.broadcast_to(noise_keys, (n_rows,)), dtype=np.uint64),
             np.ascontiguousarray(np.broadcast_to(policy_keys, (n_rows,)), dtype=np.uint64),
             np.ascontiguousarray(np.broadcast_to(policy_subs, (n_rows,)), dtype=np.uint64),
             horizons, checkpoints, pulls)
    return pulls


@njit(cache=True)
def _uniform_means(keys, n_arms, out):
    for r in range(keys.shape[0]):
        for k in range(n_arms):
            idx = 0
            u = 1.0
            while u == 1.0:  # 1 - u lies in [0, 1); reject exactly 0 (Beta/Bernoulli need (0, 1))
                u = rng.uniform(keys[r], rng.TAG_AUX, k, idx)
                idx += 1
            out[r, k] = 1.0 - u


def uniform_means(instance_keys, n_arms: int) -> np.ndarray:
    """Random instances mu^(r) ~ U(0, 1)^K, one row per key (TAG_AUX stream of the key)."""
    keys = np.ascontiguousarray(instance_keys, dtype=np.uint64)
    out = np.empty((keys.size, n_arms))
    _uniform_means(keys, n_arms, out)
    return out


def reward_params(distribution: str, means: np.ndarray, noise_sd: float | None = None) -> tuple[str, np.ndarray]:
    """(env kind, env_params (E, rows, K)) for per-instance means (E, K).

    gaussian: N(mu_k, noise_sd^2); beta: Beta(mu_k, 1 - mu_k) (Johnk's sampler, exact and faster than
    the generic two-gamma one for a + b = 1); bernoulli: Bernoulli(mu_k).
    """
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    if distribution == "gaussian":
        if noise_sd is None or noise_sd < 0:
            raise ValueError("gaussian rewards need a noise_sd >= 0")
        return "gaussian", np.stack([means, np.full_like(means, noise_sd)], axis=1)
    if np.any((means <= 0) | (means >= 1)):
        raise ValueError(f"{distribution} rewards need means in (0, 1)")
    if distribution == "beta":
        return "beta_johnk", np.stack([means, 1.0 - means], axis=1)
    if distribution == "bernoulli":
        return "bernoulli", means[:, None, :].copy()
    raise ValueError(f"unknown reward distribution {distribution!r}")
