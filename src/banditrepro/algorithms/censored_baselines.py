"""The baselines of Bengs & Hüllermeier App. E.1: each (arm, limit) pair as a virtual arm.

Same kernel protocol as :mod:`banditrepro.algorithms.rcucb` (``select``/``update`` on a float64
``(rows, n_arms, m)`` state; flat pair index i * m + j; arm-major, limits ascending). The simulation
loop runs the ``*_fast`` kernels below; the printed forms of the selects and of the Thompson update
are written from the paper in ``tests/censored_printed_forms.py``, the tests' oracle.

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
  (applying the update, digest A8), then argmax of one posterior draw per pair (:func:`banditrepro.algorithms.beta_sampler.beta_ab`:
  exact, one Philox block for most draws). After a pull of
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
from . import beta_sampler, rcucb

STATE_ROWS = 4
# Thompson draws use a sub-stream of their own so their counters never meet the stream's uniforms.
_BETA_SUB = 1


@njit(cache=True, inline="always")
def virtual_reward(reward, consumption, tau, lam_tau, cost_slope):
    """Y of eq. (7)."""
    if consumption <= tau:
        return reward - cost_slope * consumption
    return -lam_tau


@njit(cache=True, inline="always")
def ucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    state[0, arm, j_played] += 1.0
    state[1, arm, j_played] += virtual_reward(reward, consumption, taus[j_played], lam[j_played], cost_slope)


# --- fast forms used by the simulation loop (same choices, same random draws) --------------------
#
# UCB: the index's mean part changes only for the played pair, so it is kept in row 2 and
# 1/sqrt(T) in row 3; select evaluates the printed index only for pairs whose multiply-add bound
# reaches the running maximum of the scan, and skips whole arms (their m pairs) by a bound valid
# for a window of ln t (rows 4-5, column 0), exactly as rcucb.rcucb_select_fast does (see there why
# this is exact). Its ties (UCB's indices tie exactly where pairs share their counts and means, as the
# always censored pairs at tau = 0 do: about a dozen tied pairs a round on the 400 pairs of f2_n80) take
# their draws after the scan, from the stream positions the printed select reads them at
# (rng.stream_tie_choice; the tied pairs are kept in row 6).
#
# TS: the draws are the cost (one Beta per pair per round). ts_update_fast keeps each pair's gamma
# constants d = shape - 1/3, c = 1/sqrt(9 d) and squeeze coefficient in rows 2-7, recomputed only for
# the gamma whose count changed; ts_select_fast runs every pair's first attempt in
# beta_sampler.beta_ge1_first_attempts (one Philox block each, vectorised loops) and finishes the few draws it
# leaves open with beta_sampler.beta_ge1_finish_words (only the gamma that is open, the other kept in rows 8-9, from
# the block's two 64-bit words the first attempt kept in rows 10-11): every score is bit for bit beta_sampler.beta_ab's,
# as in the printed select (the oracle's ts_select).

UCB_FAST_STATE_ROWS = 7
_MEAN, _INVSQ, _ARM_BOUND, _ARM_WINDOW = 2, 3, 4, 5
# scratch of ucb_select_fast: the flat pairs tied with the running maximum, in scan order (row-major)
_TIES = 6
_SLACK = 1e-12


@njit(cache=True, error_model="numpy", inline="always")
def ucb_update_fast(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    ucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream)
    scale = params[1]
    count = state[0, arm, j_played]
    state[_MEAN, arm, j_played] = (state[1, arm, j_played] / count + scale) / (1.0 + scale)
    state[_INVSQ, arm, j_played] = 1.0 / math.sqrt(count)
    state[_ARM_WINDOW, arm, 0] = -1.0  # its arm bound is stale


@njit(cache=True, error_model="numpy", inline="always")
def _ucb_pair_bound(mean, inv_sqrt_count, radius):
    """Scalars only, as rcucb._pair_bound."""
    conf_bound = radius * inv_sqrt_count
    return mean + conf_bound + _SLACK * (abs(mean) + conf_bound)


@njit(cache=True, error_model="numpy", inline="always")
def ucb_select_fast(t, state, taus, lam, params, scores, stream):
    """Modified UCB's pair: the printed select (the oracle's ``ucb_select``) on a state kept by
    :func:`ucb_update_fast`."""
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms * m:
        return t - 1
    log_t = math.log(t)
    explore = params[0] * log_t / 2.0
    radius = math.sqrt(explore)
    window, log_t_bound = rcucb.log_window(log_t)
    window_radius = math.sqrt(params[0] * log_t_bound / 2.0)
    # the argmax of rng.stream_argmax_random_ties with its tie draws deferred to rng.stream_tie_choice
    ties = state[_TIES]  # (a reshaped flat view would cost a call into numba's runtime every round)
    first_draw = stream[3]
    n_draws = 0  # ties so far: each owns the stream's next draw
    best = -np.inf
    n_tied = 0
    tie_draw = first_draw  # the draw of the first tie with the running maximum
    choice = 0
    for i in range(n_arms):
        if state[_ARM_WINDOW, i, 0] != window:
            bound = -np.inf
            for j in range(m):
                bound = max(bound, _ucb_pair_bound(state[_MEAN, i, j], state[_INVSQ, i, j], window_radius))
            state[_ARM_BOUND, i, 0] = bound
            state[_ARM_WINDOW, i, 0] = window
        if state[_ARM_BOUND, i, 0] < best:
            continue
        for j in range(m):
            if _ucb_pair_bound(state[_MEAN, i, j], state[_INVSQ, i, j], radius) < best:
                continue
            v = state[_MEAN, i, j] + math.sqrt(explore / state[0, i, j])
            p = i * m + j
            scores[p] = v
            if v > best:
                best = v
                n_tied = 1
                choice = p
                tie_draw = first_draw + np.uint64(n_draws)
            elif v == best:
                ties[(n_tied - 1) // m, (n_tied - 1) % m] = p
                n_tied += 1
                n_draws += 1
    stream[3] = first_draw + np.uint64(n_draws)
    return rng.stream_tie_choice(stream, tie_draw, choice, ties, n_tied)


# 0 S, 1 F, then from row 2 on the rows of beta_sampler.beta_ge1_first_attempts: d, c and the squeeze coefficient
# of both gammas (kept by ts_update_fast), then the first attempt's gammas and Philox words (scratch)
_FIRST_ATTEMPT_ROW = 2
TS_FAST_STATE_ROWS = _FIRST_ATTEMPT_ROW + beta_sampler.FIRST_ATTEMPT_ROWS
_DA, _CA, _KA = _FIRST_ATTEMPT_ROW + beta_sampler.FA_DA, _FIRST_ATTEMPT_ROW + beta_sampler.FA_CA, _FIRST_ATTEMPT_ROW + beta_sampler.FA_KA
_DB, _CB, _KB = _FIRST_ATTEMPT_ROW + beta_sampler.FA_DB, _FIRST_ATTEMPT_ROW + beta_sampler.FA_CB, _FIRST_ATTEMPT_ROW + beta_sampler.FA_KB
_X, _Y = _FIRST_ATTEMPT_ROW + beta_sampler.FA_X, _FIRST_ATTEMPT_ROW + beta_sampler.FA_Y


@njit(cache=True, error_model="numpy", inline="always")
def ts_update_fast(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    """The printed update (the oracle's ``ts_update``: the same trials with the same uniforms), then
    the pairs' gamma constants.

    Written out rather than calling a shared update: a call that passes arrays costs reference counting on
    every round, several times the update itself; tests/censored_resources/test_fast_kernels.py
    checks that both leave the same counts and stream.
    """
    scale = params[1]  # L = lambda(tau_max)
    j_first = j_played if params[0] != 0.0 else 0
    key = stream[0]
    tag = stream[1]
    sub = stream[2]
    idx = stream[3]
    for j in range(j_first, j_played + 1):
        if consumption <= taus[j]:  # virtual_reward
            y = reward - cost_slope * consumption
        else:
            y = -lam[j]
        p = (y + scale) / (1.0 + scale)
        p = min(max(p, 0.0), 1.0)
        u, _ = rng.uniform2(key, tag, sub, idx)  # rng.stream_uniform
        idx += np.uint64(1)
        success = u <= p
        if success:
            state[0, arm, j] += 1.0
        else:
            state[1, arm, j] += 1.0
        # the same operations as beta_sampler.beta_ab, done when the counts change instead of every round: for
        # the gamma whose count changed, and for both at the pair's first update (its constants are still 0)
        first = state[_DA, arm, j] == 0.0
        if success or first:
            da = (1.0 + state[0, arm, j]) - 1.0 / 3.0
            state[_DA, arm, j] = da
            state[_CA, arm, j] = 1.0 / math.sqrt(9.0 * da)
            state[_KA, arm, j] = min(beta_sampler.SQUEEZE_KAPPA / da, beta_sampler.MT_SQUEEZE)
        if not success or first:
            db = (1.0 + state[1, arm, j]) - 1.0 / 3.0
            state[_DB, arm, j] = db
            state[_CB, arm, j] = 1.0 / math.sqrt(9.0 * db)
            state[_KB, arm, j] = min(beta_sampler.SQUEEZE_KAPPA / db, beta_sampler.MT_SQUEEZE)
    stream[3] = idx


@njit(cache=True, error_model="numpy", boundscheck=False, inline="always")
def ts_select_fast(t, state, taus, lam, params, scores, stream):
    """The printed select (the oracle's ``ts_select``) on a state kept by :func:`ts_update_fast` (bit-identical scores and choice)."""
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
    # one view of the state, passed whole (see beta_sampler.FIRST_ATTEMPT_ROWS)
    table = state.reshape((state.shape[0], n_pairs))
    beta_sampler.beta_ge1_first_attempts(table, _FIRST_ATTEMPT_ROW, key, tag, sub, base, scores)
    words = beta_sampler.first_attempt_word_rows(table, _FIRST_ATTEMPT_ROW)
    # finish the draws the first attempt left open (score -1) and take the argmax in the same pass,
    # ties broken as rng.stream_argmax_random_ties does
    best = -np.inf
    count = 0
    choice = 0
    for p in range(n_pairs):
        v = scores[p]
        if v < 0.0:
            v = beta_sampler.beta_ge1_finish_words(table[_DA, p], table[_CA, p], table[_KA, p], table[_DB, p], table[_CB, p],
                                          table[_KB, p], table[_X, p], table[_Y, p], words[0, p], words[1, p], key, tag,
                                          sub, base + np.uint64(p))
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

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "ucb": ("ucb_select_fast", "ucb_update_fast", "ucb_params"),
    "ts": ("ts_select_fast", "ts_update_fast", "ts_params"),
}
