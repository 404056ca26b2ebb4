"""The baselines of Bengs & Hüllermeier App. E.1: each (arm, limit) pair as a virtual arm.

Same kernel protocol as :mod:`banditrepro.algorithms.rcucb` (``select``/``update`` on a float64
``(4, n_arms, m)`` state; flat pair index i * m + j; arm-major, limits ascending).

Both rescale the virtual-arm reward (eq. 7)
    Y = (R - c(C)) 1{C <= tau} - lambda(tau) 1{C > tau}
to (Y + L) / (1 + L) with L = lambda(tau_max) = ``lam[-1]``, "equivalent to assuming that the
reward sequence is in [0, 1]".

* Modified UCB (eq. 31): per-pair counts T and sums of Y from that pair's own pulls only;
  round-robin over all n*m pairs first, then argmax of (Ybar + L)/(1 + L) + sqrt(alpha ln t/(2T)).
  State rows: 0 T, 1 sum of Y. Params: (alpha,).
* Modified Thompson sampling (eq. 32): Beta(1 + S, 1 + F) posterior per pair; round-robin first
  (applying the update, digest A8), then argmax of one posterior draw per pair. After a pull of
  (I, tau_J), every pair (I, tau_j) with j <= J is updated with its own independent Bernoulli
  trial of success probability clip((Y_j + L)/(1 + L), 0, 1) (the "update all tau <= tau_t" rule;
  Y_j is observable for j <= J because censoring at tau_J implies C > tau_j). The clip is needed
  because R can exceed 1 under the default truncation (digest A9). State rows: 0 S, 1 F.
  Params: (single_pair_update,): 1 updates only the played pair (the "strict" reading the
  paper mentions and rejects; sensitivity only).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng

STATE_ROWS = 4
# Thompson draws use a sub-stream of their own so their counters never meet the stream's uniforms.
_BETA_SUB = 1
_BETA_COUNTERS = 32


@njit(cache=True)
def virtual_reward(reward, consumption, tau, lam_tau, cost_slope):
    """Y of eq. (7)."""
    if consumption <= tau:
        return reward - cost_slope * consumption
    return -lam_tau


@njit(cache=True)
def ucb_select(t, state, taus, lam, params, scores, stream):
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms * m:
        return t - 1
    scale = lam[m - 1]
    explore = params[0] * math.log(t) / 2.0
    for i in range(n_arms):
        for j in range(m):
            count = state[0, i, j]
            scores[i * m + j] = (state[1, i, j] / count + scale) / (1.0 + scale) + math.sqrt(explore / count)
    return rng.stream_argmax_random_ties(stream, scores)


@njit(cache=True)
def ucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    state[0, arm, j_played] += 1.0
    state[1, arm, j_played] += virtual_reward(reward, consumption, taus[j_played], lam[j_played], cost_slope)


@njit(cache=True, inline="always")
def _marsaglia_tsang_try(shape, z, u):
    """One Marsaglia-Tsang attempt for Gamma(shape >= 1): the draw, or -1 when rejected."""
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    v = 1.0 + c * z
    if v <= 0.0:
        return -1.0
    v = v * v * v
    z2 = z * z
    if u < 1.0 - 0.0331 * z2 * z2:  # squeeze: accepts most draws without logarithms
        return d * v
    if math.log(u) < 0.5 * z2 + d - d * v + d * math.log(v):
        return d * v
    return -1.0


_INV_2_32 = 1.0 / 4294967296.0
_M32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _open_unit(word):
    """32-bit word -> uniform in (0, 1)."""
    return (float(word) + 0.5) * _INV_2_32


@njit(cache=True)
def beta_draw(a, b, key, tag, sub, idx):
    """Beta(a, b) for a, b >= 1 as X / (X + Y) with Marsaglia-Tsang gammas X, Y.

    Speed matters (Thompson sampling draws one per pair per round), so one Philox block feeds
    both gammas: two 32-bit uniforms give a normal pair by Marsaglia's polar method (no
    trigonometry) and the other two are the gammas' acceptance uniforms. Rejected attempts
    (polar: 21 %; gamma: < 2 % for shape >= 1) move on to the next of the draw's 32 counters
    idx*32 .. idx*32+31. Exact rejection sampling; after 32 blocks (probability < 1e-20) a
    missing gamma takes its mode.
    """
    base = np.uint64(idx) * np.uint64(_BETA_COUNTERS)
    x = -1.0
    y = -1.0
    for k in range(_BETA_COUNTERS):
        counter = base + np.uint64(k)
        w0, w1, w2, w3 = rng.philox4x32(counter & _M32, counter >> np.uint64(32), sub, tag, key)
        v1 = 2.0 * _open_unit(w0) - 1.0
        v2 = 2.0 * _open_unit(w1) - 1.0
        s = v1 * v1 + v2 * v2
        if s >= 1.0 or s == 0.0:
            continue
        f = math.sqrt(-2.0 * math.log(s) / s)
        if x < 0.0:
            x = _marsaglia_tsang_try(a, v1 * f, _open_unit(w2))
        if y < 0.0:
            y = _marsaglia_tsang_try(b, v2 * f, _open_unit(w3))
        if x >= 0.0 and y >= 0.0:
            break
    if x < 0.0:
        x = a - 1.0 / 3.0
    if y < 0.0:
        y = b - 1.0 / 3.0
    return x / (x + y)


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
        scores[p] = beta_draw(1.0 + state[0, i, j], 1.0 + state[1, i, j], key, tag, sub, base + np.uint64(p))
    return rng.stream_argmax_random_ties(stream, scores)


@njit(cache=True)
def ts_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    m = state.shape[2]
    scale = lam[m - 1]
    j_first = j_played if params[0] != 0.0 else 0
    for j in range(j_first, j_played + 1):
        y = virtual_reward(reward, consumption, taus[j], lam[j], cost_slope)
        p = (y + scale) / (1.0 + scale)
        p = min(max(p, 0.0), 1.0)
        if rng.stream_uniform(stream) <= p:
            state[0, arm, j] += 1.0
        else:
            state[1, arm, j] += 1.0


def ucb_params(alpha: float = 1.0) -> np.ndarray:
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    return np.array([alpha], dtype=np.float64)


def ts_params(single_pair_update: bool = False) -> np.ndarray:
    return np.array([float(single_pair_update)], dtype=np.float64)
