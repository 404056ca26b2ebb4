"""Oracle: the censored-resources policies in their printed form, every index recomputed each round.

RCUCB's select (Bengs & Hüllermeier, Sec. 3.2) and the App. E.1 baselines' select (modified UCB,
modified Thompson sampling) and Thompson update, on the ``(4, n_arms, m)`` state of
:mod:`banditrepro.algorithms.rcucb` / :mod:`banditrepro.algorithms.censored_baselines`. The
production kernels (``rcucb_select_fast``, ``ucb_select_fast``, ``ts_select_fast``,
``ts_update_fast``) keep derived terms in extra state rows and skip work that cannot change the
argmax; tests/censored_resources/test_fast_kernels.py checks that they make these kernels' choices
with the same draws, and test_policies.py checks these by hand. The count updates ``rcucb_update``
and ``ucb_update`` are shared: the production updates call them before refreshing their extra rows.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from banditrepro import rng
from banditrepro.algorithms import beta_sampler, rcucb
from banditrepro.algorithms import censored_baselines as cb

STATE_ROWS = 4


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
        n0 = state[rcucb._N0, i, 0]
        for j in range(m):
            n_ij = state[rcucb._N, i, j]
            gain = state[rcucb._G, i, j] / n_ij
            if observable:
                penalty = lam[j] * state[rcucb._S, i, j] / n_ij
                pen_conf = math.sqrt(explore / n_ij)
            else:
                penalty = lam[j] * state[rcucb._S, i, j] / n0
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
    sub = stream[2] * np.uint64(2) + np.uint64(cb._BETA_SUB)
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
        y = cb.virtual_reward(reward, consumption, taus[j], lam[j], cost_slope)
        p = (y + scale) / (1.0 + scale)
        p = min(max(p, 0.0), 1.0)
        if rng.stream_uniform(stream) <= p:
            state[0, arm, j] += 1.0
        else:
            state[1, arm, j] += 1.0
