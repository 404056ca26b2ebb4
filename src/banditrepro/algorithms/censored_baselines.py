"""The baselines of Bengs & Hüllermeier App. E.1: each (arm, limit) pair as a virtual arm.

Same kernel protocol as :mod:`banditrepro.algorithms.rcucb` (``select``/``update`` on a float64
``(4, n_arms, m)`` state; flat pair index i * m + j; arm-major, limits ascending).

Both rescale the virtual-arm reward (eq. 7)
    Y = (R - c(C)) 1{C <= tau} - lambda(tau) 1{C > tau}
to (Y + L) / (1 + L) with L = lambda(tau_max), "equivalent to assuming that the
reward sequence is in [0, 1]". tau_max is the largest admissible limit (M is a subset of
(0, tau_max]), which need not be on the grid: F.1's M1 = {0.5, 0.9} has L = lambda(1) = 10. L is
the params' last entry.

* Modified UCB (eq. 31): per-pair counts T and sums of Y from that pair's own pulls only;
  round-robin over all n*m pairs first, then argmax of (Ybar + L)/(1 + L) + sqrt(alpha ln t/(2T)).
  State rows: 0 T, 1 sum of Y. Params: (alpha, L).
* Modified Thompson sampling (eq. 32): Beta(1 + S, 1 + F) posterior per pair; round-robin first
  (applying the update, digest A8), then argmax of one posterior draw per pair. After a pull of
  (I, tau_J), every pair (I, tau_j) with j <= J is updated with its own independent Bernoulli
  trial of success probability clip((Y_j + L)/(1 + L), 0, 1) (the "update all tau <= tau_t" rule;
  Y_j is observable for j <= J because censoring at tau_J implies C > tau_j). The clip is needed
  because R can exceed 1 under the default truncation (digest A9). State rows: 0 S, 1 F.
  Params: (single_pair_update, L): single_pair_update = 1 updates only the played pair (the "strict" reading the
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
    scale = params[1]  # L = lambda(tau_max)
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


@njit(cache=True, error_model="numpy")
def _beta_draw_from(a, b, key, tag, sub, idx, k_first):
    """beta_draw when attempts 0 .. k_first - 1 settled neither gamma (so they change nothing)."""
    base = np.uint64(idx) * np.uint64(_BETA_COUNTERS)
    x = -1.0
    y = -1.0
    for k in range(k_first, _BETA_COUNTERS):
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


_SETTLED, _POLAR_OK = 1, 2


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
    return _beta_draw_from(a, b, key, tag, sub, idx, 0)


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


# --- fast forms used by the simulation loop (same choices, same random draws) --------------------
#
# UCB: the index's mean part changes only for the played pair, so it is kept in row 2 and
# 1/sqrt(T) in row 3; select evaluates the printed index only for pairs whose multiply-add bound
# reaches the running maximum of the scan (see rcucb.rcucb_select_fast for why this is exact).
#
# TS: profiling showed the draws' time going to pipeline stalls, not arithmetic: beta_draw's
# rejection loop branches unpredictably (the polar method rejects 21 % of first attempts), so no
# two draws overlap. ts_select_fast evaluates every pair's first attempt in one branch-free loop
# and hands the pairs that first attempt does not settle (about a quarter) to beta_draw itself,
# which repeats the same attempt and goes on exactly as before: every score is bit-identical.

UCB_FAST_STATE_ROWS = 4
_SLACK = 1e-12


@njit(cache=True, error_model="numpy")
def ucb_update_fast(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    ucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream)
    scale = params[1]
    count = state[0, arm, j_played]
    state[2, arm, j_played] = (state[1, arm, j_played] / count + scale) / (1.0 + scale)
    state[3, arm, j_played] = 1.0 / math.sqrt(count)


@njit(cache=True, error_model="numpy")
def ucb_select_fast(t, state, taus, lam, params, scores, stream):
    """:func:`ucb_select` on a state kept by :func:`ucb_update_fast`."""
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms * m:
        return t - 1
    explore = params[0] * math.log(t) / 2.0
    radius = math.sqrt(explore)
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n_arms):
        for j in range(m):
            mean = state[2, i, j]
            conf_bound = radius * state[3, i, j]
            if mean + conf_bound + _SLACK * (abs(mean) + conf_bound) < best:
                continue
            v = mean + math.sqrt(explore / state[0, i, j])
            p = i * m + j
            scores[p] = v
            if v > best:
                best = v
                count = 1
                choice = p
            elif v == best:
                count += 1
                if rng.stream_uniform(stream) * count <= 1.0:
                    choice = p
    return choice


TS_FAST_STATE_ROWS = 6  # 0 S, 1 F, then the Marsaglia-Tsang constants d, c of both gammas
_DA, _CA, _DB, _CB = 2, 3, 4, 5


@njit(cache=True, error_model="numpy")
def ts_update_fast(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    ts_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream)
    j_first = j_played if params[0] != 0.0 else 0
    for j in range(j_first, j_played + 1):
        # the same operations as _marsaglia_tsang_try, done when the counts change instead of every round
        da = (1.0 + state[0, arm, j]) - 1.0 / 3.0
        db = (1.0 + state[1, arm, j]) - 1.0 / 3.0
        state[_DA, arm, j] = da
        state[_CA, arm, j] = 1.0 / math.sqrt(9.0 * da)
        state[_DB, arm, j] = db
        state[_CB, arm, j] = 1.0 / math.sqrt(9.0 * db)


@njit(cache=True, error_model="numpy", boundscheck=False)
def _first_attempt_words(counters, sub, tag, key, s_out, v1_out, v2_out, u1_out, u2_out):
    """Attempt 0 of each draw up to the logarithm: one Philox block per counter (SIMD-friendly)."""
    for p in range(counters.shape[0]):
        counter = counters[p]
        w0, w1, w2, w3 = rng.philox4x32(counter & _M32, counter >> np.uint64(32), sub, tag, key)
        v1 = 2.0 * _open_unit(w0) - 1.0
        v2 = 2.0 * _open_unit(w1) - 1.0
        v1_out[p] = v1
        v2_out[p] = v2
        s_out[p] = v1 * v1 + v2 * v2
        u1_out[p] = _open_unit(w2)
        u2_out[p] = _open_unit(w3)


@njit(cache=True, error_model="numpy", boundscheck=False)
def _batch_attempt(pairs, n, k, base, sub, tag, key, state, work, counters, flags):
    """Attempt ``k`` of the draws of ``pairs[:n]`` (none of whose attempts < k settled a gamma).

    Writes into ``work[5, :n]`` the draw where ``flags[q]`` says _SETTLED (both gammas accepted by
    their squeeze tests) and sets _POLAR_OK where the polar step accepted; rows 6-13 keep the
    attempt's d, c, v^3 and z^2 of both gammas for :func:`_finish_log_tests`.
    """
    da_all = state[_DA].ravel()  # views: the state is C-contiguous
    ca_all = state[_CA].ravel()
    db_all = state[_DB].ravel()
    cb_all = state[_CB].ravel()
    s_arr = work[0]
    v1_arr = work[1]
    v2_arr = work[2]
    u1_arr = work[3]
    u2_arr = work[4]
    out = work[5]
    da_arr = work[6]
    ca_arr = work[7]
    db_arr = work[8]
    cb_arr = work[9]
    for q in range(n):  # gathered first, so that the arithmetic below runs on contiguous arrays
        p = pairs[q]
        counters[q] = (base + np.uint64(p)) * np.uint64(_BETA_COUNTERS) + np.uint64(k)
        da_arr[q] = da_all[p]
        ca_arr[q] = ca_all[p]
        db_arr[q] = db_all[p]
        cb_arr[q] = cb_all[p]
    _first_attempt_words(counters[:n], sub, tag, key, s_arr, v1_arr, v2_arr, u1_arr, u2_arr)
    for q in range(n):
        out[q] = math.log(s_arr[q])
    for q in range(n):
        s = s_arr[q]
        f = math.sqrt(-2.0 * out[q] / s)  # NaN or inf where the polar step rejects
        za = v1_arr[q] * f
        zb = v2_arr[q] * f
        va = 1.0 + ca_arr[q] * za
        vb = 1.0 + cb_arr[q] * zb
        za2 = za * za
        zb2 = zb * zb
        polar_ok = (s < 1.0) & (s != 0.0)
        settled = (polar_ok & (va > 0.0) & (vb > 0.0) & (u1_arr[q] < 1.0 - 0.0331 * za2 * za2)
                   & (u2_arr[q] < 1.0 - 0.0331 * zb2 * zb2))
        va3 = va * va * va
        vb3 = vb * vb * vb
        x = da_arr[q] * va3
        y = db_arr[q] * vb3
        out[q] = x / (x + y)
        flags[q] = int(settled) * _SETTLED + int(polar_ok) * _POLAR_OK
        # kept for _finish_log_tests: the cubes and squares of this attempt
        work[10, q] = va3
        work[11, q] = vb3
        work[12, q] = za2
        work[13, q] = zb2


@njit(cache=True, error_model="numpy", boundscheck=False)
def _finish_log_tests(todo, n_todo, work, u_rows):
    """For attempts whose polar step accepted but whose squeeze tests did not both accept: the
    logarithmic tests of _marsaglia_tsang_try, same operations. Returns the number settled; those
    get the _SETTLED flag (in ``u_rows``'s flag column) and their draw in row 5."""
    settled = 0
    for r in range(n_todo):
        q = todo[r]
        ok = True
        for g in range(2):
            d = work[6 + 2 * g, q]  # da / db
            v = work[10 + g, q]  # cube of 1 + c z
            z2 = work[12 + g, q]
            u = work[3 + g, q]
            if not (v > 0.0):
                ok = False
            elif u < 1.0 - 0.0331 * z2 * z2:
                pass
            elif not (math.log(u) < 0.5 * z2 + d - d * v + d * math.log(v)):
                ok = False
        if ok:
            x = work[6, q] * work[10, q]
            y = work[8, q] * work[11, q]
            work[5, q] = x / (x + y)
            u_rows[q] = u_rows[q] | _SETTLED
            settled += 1
    return settled


@njit(cache=True, error_model="numpy", boundscheck=False)
def ts_select_fast(t, state, taus, lam, params, scores, stream):
    """:func:`ts_select` on a state kept by :func:`ts_update_fast` (bit-identical scores and choice).

    Attempt 0 of every pair's draw runs in flat loops (Philox blocks, logarithms, then square roots
    and both gammas' squeeze tests, then the logarithmic tests where a squeeze test failed), attempt
    1 likewise for the pairs whose attempt 0 the polar step rejected; a pair whose attempt rejects a
    gamma, or that is still unsettled after attempt 1, finishes in beta_draw's own loop from that
    attempt on.
    """
    n_arms = state.shape[1]
    m = state.shape[2]
    n_pairs = n_arms * m
    if t <= n_pairs:
        return t - 1
    idx = stream[3]
    stream[3] = idx + np.uint64(1)
    key = stream[0]
    tag = stream[1]
    sub = stream[2] * np.uint64(2) + np.uint64(_BETA_SUB)
    base = idx * np.uint64(n_pairs)
    work = np.empty((14, n_pairs))
    counters = np.empty(n_pairs, dtype=np.uint64)
    flags = np.empty(n_pairs, dtype=np.int64)
    pairs = np.arange(n_pairs)
    retry = np.empty(n_pairs, dtype=np.int64)
    todo = np.empty(n_pairs, dtype=np.int64)
    n = n_pairs
    for k in range(2):
        _batch_attempt(pairs, n, k, base, sub, tag, key, state, work, counters, flags)
        n_todo = 0
        for q in range(n):
            if flags[q] == _POLAR_OK:  # polar step accepted, a squeeze test did not
                todo[n_todo] = q
                n_todo += 1
        _finish_log_tests(todo, n_todo, work, flags)
        n_retry = 0
        for q in range(n):
            p = pairs[q]
            fl = flags[q]
            if fl & _SETTLED:
                scores[p] = work[5, q]
            elif fl & _POLAR_OK or k == 1:
                # a gamma was rejected in this attempt, or it is the last batched one: finish the
                # draw in beta_draw's loop from attempt k (earlier attempts settled nothing)
                i = p // m
                j = p - i * m
                scores[p] = _beta_draw_from(1.0 + state[0, i, j], 1.0 + state[1, i, j], key, tag, sub,
                                            base + np.uint64(p), k)
            else:
                retry[n_retry] = p
                n_retry += 1
        pairs, retry = retry, pairs
        n = n_retry
    return rng.stream_argmax_random_ties(stream, scores)


def ucb_params(alpha: float = 1.0, *, scale: float) -> np.ndarray:
    """(alpha, L): ``scale`` is L = lambda(tau_max) of the rescaling (Y + L) / (1 + L).

    tau_max is the largest admissible limit, not the grid's largest point: on the F.1 grid
    M1 = {0.5, 0.9} of (0, 1], L = lambda(1) = 10, not lambda(0.9) = 9.
    """
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    if scale < 0:
        raise ValueError("the scale L = lambda(tau_max) must be >= 0")
    return np.array([alpha, scale], dtype=np.float64)


def ts_params(single_pair_update: bool = False, *, scale: float) -> np.ndarray:
    """(single_pair_update, L) with L = lambda(tau_max) as in :func:`ucb_params`."""
    if scale < 0:
        raise ValueError("the scale L = lambda(tau_max) must be >= 0")
    return np.array([float(single_pair_update), scale], dtype=np.float64)
