"""Test oracle: the censored-resources policies in their printed form, every index recomputed each round.

RCUCB's select (Bengs & Hüllermeier, Sec. 3.2) and the App. E.1 baselines (modified UCB, modified Thompson
sampling) on the ``(4, n_arms, m)`` state N, G, S, N0 (rows of :mod:`banditrepro.algorithms.rcucb`), with
their updates and the virtual reward Y of eq. (7) written here, and :func:`simulate`, the simulation loop
of :func:`loops.simulate` around them. The production kernels (``rcucb_select_fast``, ``ucb_select_fast``,
``ts_select_fast``, ``ts_update_fast``) keep derived terms in extra state rows and skip work that cannot
change the argmax; they must make these kernels' choices with the same draws.
tests/censored_resources/test_fast_kernels.py checks that step by step, on small instances. (The paper's reference
guards use the end-to-end reference ``experiments/censored_resources/reference.py`` instead.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from banditrepro import rng
from banditrepro.algorithms import beta_sampler
from banditrepro.environments import censored as ce

# rows of the state (as algorithms.rcucb numbers them: the build's shards do not depend on it)
_N, _G, _S, _N0 = 0, 1, 2, 3
_BETA_SUB = 1  # the sub-stream offset of TS's Beta draws (algorithms.censored_baselines)

STATE_ROWS = 4


@njit(cache=True)
def virtual_reward(reward, consumption, tau, lam_tau, cost_slope):
    """Y of eq. (7): the net gain if the consumption stays within the limit, else the penalty -lambda(tau)."""
    return reward - cost_slope * consumption if consumption <= tau else -lam_tau


@njit(cache=True)
def rcucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    """Sec. 3.2: every limit up to the played one counts the pull (a censored pull adds 0 gain); S counts
    1{C > tau_j} for every limit (the observable reading: only where it is observed, j <= the played one)."""
    observable = params[2] != 0.0
    for j in range(state.shape[2]):
        exceeded = consumption > taus[j]
        if j <= j_played:
            state[_N, arm, j] += 1.0
            if not exceeded:
                state[_G, arm, j] += reward - cost_slope * consumption
        if exceeded and (j <= j_played or not observable):
            state[_S, arm, j] += 1.0
    state[_N0, arm, 0] += 1.0


@njit(cache=True)
def ucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    """UCB on the n m virtual arms: the played pair's count and its sum of Y."""
    state[0, arm, j_played] += 1.0
    state[1, arm, j_played] += virtual_reward(reward, consumption, taus[j_played], lam[j_played], cost_slope)


@njit(cache=True)
def rcucb_select(t, state, taus, lam, params, scores, stream):
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms:  # initialisation: every arm once with the largest limit
        return (t - 1) * m + (m - 1)
    alpha = params[0]
    unit_bonus = params[1] != 0.0
    observable = params[2] != 0.0
    explore = 2.0 * alpha * math.log(t)
    for i in range(n_arms):
        n0 = state[_N0, i, 0]
        for j in range(m):
            n_ij = state[_N, i, j]
            gain = state[_G, i, j] / n_ij
            if observable:
                penalty = lam[j] * state[_S, i, j] / n_ij
                pen_conf = math.sqrt(explore / n_ij)
            else:
                penalty = lam[j] * state[_S, i, j] / n0
                pen_conf = math.sqrt(explore / n0)
            if not unit_bonus:
                pen_conf *= lam[j]
            scores[i * m + j] = gain - penalty + math.sqrt(explore / n_ij) + pen_conf
    return rng.stream_argmax_random_ties(stream, scores)


@njit(cache=True)
def ucb_select(t, state, taus, lam, params, scores, stream):
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms * m:
        return t - 1
    scale = params[1]  # L = lambda(tau_max)
    explore = params[0] * math.log(t) / 2.0
    for i in range(n_arms):
        for j in range(m):
            count = state[0, i, j]
            scores[i * m + j] = (state[1, i, j] / count + scale) / (1.0 + scale) + math.sqrt(explore / count)
    return rng.stream_argmax_random_ties(stream, scores)


@njit(cache=True)
def ts_select(t, state, taus, lam, params, scores, stream):
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms * m:
        return t - 1
    idx = stream[3]
    stream[3] = idx + np.uint64(1)
    key = stream[0]
    tag = stream[1]
    sub = stream[2] * np.uint64(2) + np.uint64(_BETA_SUB)
    base = idx * np.uint64(n_arms * m)
    for p in range(n_arms * m):
        i = p // m
        j = p - i * m
        scores[p] = beta_sampler.beta_ab(1.0 + state[0, i, j], 1.0 + state[1, i, j], key, tag, sub, base + np.uint64(p))
    return rng.stream_argmax_random_ties(stream, scores)


@njit(cache=True)
def ts_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    scale = params[1]  # L = lambda(tau_max)
    j_first = j_played if params[0] != 0.0 else 0
    for j in range(j_first, j_played + 1):
        y = virtual_reward(reward, consumption, taus[j], lam[j], cost_slope)
        p = (y + scale) / (1.0 + scale)
        p = min(max(p, 0.0), 1.0)
        if rng.stream_uniform(stream) <= p:
            state[0, arm, j] += 1.0
        else:
            state[1, arm, j] += 1.0


@njit(cache=True)
def _select(code, t, state, taus, lam, params, scores, stream):
    if code == 0:
        return rcucb_select(t, state, taus, lam, params, scores, stream)
    if code == 1:
        return ucb_select(t, state, taus, lam, params, scores, stream)
    return ts_select(t, state, taus, lam, params, scores, stream)


@njit(cache=True)
def _update(code, t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream):
    if code == 0:
        rcucb_update(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)
    elif code == 1:
        ucb_update(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)
    else:
        ts_update(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)


@njit(cache=True)
def simulate(policy_code, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
             optimal_pair, noise_keys, policy_keys, checkpoints, curves):
    """What :func:`loops.simulate` writes (curves (R, 5, C): cumulative regret, censored pulls, reward, gain,
    optimal pulls), with this module's kernels (policy codes: 0 RCUCB, 1 UCB, 2 TS, as loops.POLICY_CODES).
    Arm i's k-th pull reads the k-th draw of its block stream (environments.censored.draw_block)."""
    n_arms = env_params.shape[0]
    m = taus.shape[0]
    scores = np.empty(n_arms * m)
    draws = np.empty((n_arms, ce.BLOCK_ROWS, ce.BLOCK_PULLS))
    for r in range(noise_keys.shape[0]):
        state = np.zeros((STATE_ROWS, n_arms, m))
        pulls = np.zeros(n_arms, dtype=np.int64)
        stream = np.empty(4, dtype=np.uint64)
        stream[0] = policy_keys[r]
        stream[1] = rng.TAG_POLICY
        stream[2] = 0
        stream[3] = 0
        regret = censored = reward_sum = gain = optimal = 0.0
        c = 0
        for t in range(1, checkpoints[-1] + 1):
            p = _select(policy_code, t, state, taus, lam, policy_params, scores, stream)
            i, j = p // m, p % m
            k = pulls[i]
            if k % ce.BLOCK_PULLS == 0:
                ce.draw_block(env_code, env_params, env_table, noise_keys[r], i, k, draws[i])
            reward, consumption = draws[i, 0, k % ce.BLOCK_PULLS], draws[i, 1, k % ce.BLOCK_PULLS]
            pulls[i] = k + 1
            _update(policy_code, t, state, taus, lam, policy_params, i, j, reward, consumption, cost_slope, stream)
            regret += gaps[i, j]
            if consumption > taus[j]:
                censored += 1.0
                gain -= lam[j]
            else:
                reward_sum += reward
                gain += reward - cost_slope * consumption
            if p == optimal_pair:
                optimal += 1.0
            if t == checkpoints[c]:
                curves[r, 0, c], curves[r, 1, c], curves[r, 2, c] = regret, censored, reward_sum
                curves[r, 3, c], curves[r, 4, c] = gain, optimal
                c += 1
                if c == checkpoints.shape[0]:
                    break
