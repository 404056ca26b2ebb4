"""RCUCB (Bengs & Hüllermeier, Sec. 3.2-3.3) and z-RCUCB (Sec. 4, Algorithm 1).

Kernel protocol shared with :mod:`banditrepro.algorithms.censored_baselines` (the simulation loop
is :mod:`banditrepro.experiments.censored_resources.loops`):

* ``select(t, state, taus, lam, params, scores, stream) -> flat pair index i * m + j``
  (t is the 1-based round, ``scores`` a scratch array of n*m floats);
* ``update(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)`` after the
  round: the kernel itself decides which parts of (reward, consumption) it may use; a pull is
  censored when ``consumption > taus[j]``.

``state`` is float64 ``(rows, n_arms, m)``, zero at the start of a replication (rows 0-3 as below,
then the fast kernels' derived rows); ``taus`` is the increasing grid, ``lam`` the penalty lambda(tau)
on it. The simulation loop runs ``rcucb_select_fast`` / ``rcucb_update_fast``; the printed form of
the select, every index recomputed each round, is written from the paper's equations in
``tests/censored_printed_forms.py``, the tests' oracle.

RCUCB state rows: 0 N[i, j] (pulls of i with tau_s >= tau_j), 1 G[i, j] (sum of
(R - c(C)) 1{C <= tau_j} over those pulls), 2 S[i, j] (pulls of i with C > tau_j), 3 N0[i] (all
pulls of i, stored in column 0).

RCUCB params: (alpha, unit_bonus, observable).

* ``unit_bonus = 1``: the penalty bonus is sqrt(2 alpha ln t / N0) instead of the printed
  lambda(tau) sqrt(2 alpha ln t / N0) (digest A6; a labelled sensitivity variant).
* ``observable = 1``: S is only updated for tau_j <= tau_t, where 1{C > tau_j} is observed, and
  the survival estimate and its bonus use N[i, j] instead of N0[i] (digest A5). The default
  (``observable = 0``) is the printed eq. (9), which counts 1{C > tau} for all tau on every pull
  of arm i: for tau above a censored limit that indicator is latent, so the simulator reads the
  latent consumption.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng

STATE_ROWS = 4
_N, _G, _S, _N0 = 0, 1, 2, 3


@njit(cache=True, inline="always")
def rcucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    m = state.shape[2]
    observable = params[2] != 0.0
    for j in range(m):
        exceeded = consumption > taus[j]
        if j <= j_played:
            # every limit below the played one learns from this pull, censored or not:
            # a censored pull adds 0 to G but still counts in N (Sec. 3.2 update rule)
            state[_N, arm, j] += 1.0
            if not exceeded:
                state[_G, arm, j] += reward - cost_slope * consumption
        if exceeded and (j <= j_played or not observable):
            state[_S, arm, j] += 1.0
    state[_N0, arm, 0] += 1.0


# --- RCUCB, incremental form used by the simulation loop ----------------------------------
#
# Profiling (docs/papers/censored_resources.md, "Cost") showed select spending its time on the
# divisions and square roots of n*m indices per round, although only the played arm's pairs change.
# The fast kernels keep, per pair, the parts of the index that change only when the arm is pulled:
# row 4 ``G/N - lambda S/N0`` (``G/N - lambda S/N`` observable), row 5 ``1/sqrt(N)`` and, per arm,
# row 6 column 0 ``1/sqrt(N0)``. Every index is base + r (w) with r = sqrt(2 alpha ln t) and a
# per-pair weight w, so it is bounded by multiply-adds.
#
# Two levels of bounds. Per arm (rows 7-8, column 0): the largest of its pairs' bounds for every round
# of a "window" of ln t (ln t in [k, k+1) / WINDOWS_PER_LOG_UNIT), where r <= r_k = sqrt(2 alpha
# (k+1) / WINDOWS_PER_LOG_UNIT); recomputed lazily, at the first visit of the arm in a new window or
# after its update. Per pair: the same bound with this round's r. Each round ``select`` scans the
# arms in order, skips an arm whose bound is below the running maximum of the scan, checks the pairs
# of the others by their own bounds and evaluates the printed expression, with the same
# floating-point operations as the printed select (the printed form in ``tests/censored_printed_forms.py``),
# only for pairs whose bound reaches the running maximum. A pair below the running maximum can
# neither become the maximum nor tie with it, so the choice and the tie-breaking draws are exactly
# those of the printed select (tests/censored_resources/test_fast_kernels.py checks choices, scores
# and stream positions).
# Profiling showed that most arms' indices stay just below the maximum (that is how UCB-type rules
# share pulls), so the windows are narrow: r_k exceeds r by < 1/(2 WINDOWS_PER_LOG_UNIT ln t) relative.

FAST_STATE_ROWS = 10
_BASE, _INVSQ, _INVSQ0, _ARM_BOUND, _ARM_WINDOW, _GAIN = 4, 5, 6, 7, 8, 9
# The bound's relative slack: sqrt(e / n) and sqrt(e) * (1 / sqrt(n)) differ by a few ulps (< 1e-15).
_SLACK = 1e-12
WINDOWS_PER_LOG_UNIT = 256.0


@njit(cache=True, error_model="numpy", inline="always")
def log_window(log_t):
    """(window index k of ln t, the window's largest ln t bound (k + 1) / WINDOWS_PER_LOG_UNIT).

    The product by a power of two is exact and int() floors a positive number, so the bound is
    strictly above ln t."""
    k = int(log_t * WINDOWS_PER_LOG_UNIT)
    return float(k), (k + 1.0) / WINDOWS_PER_LOG_UNIT


@njit(cache=True, error_model="numpy", inline="always")
def rcucb_refresh_arm(state, lam, params, arm, j_played):
    """Recompute the cached rows 4-6 and 9 of ``arm`` from rows 0-3 after its update with limit ``j_played``.

    G/N and 1/sqrt(N) only change for the limits j <= j_played, whose N the update counted (profiling: the
    divisions and square roots of the others were a tenth of an RCUCB round on the grids of size 10-20);
    the penalty term, whose S and N0 change on every pull, is recomputed for all."""
    m = state.shape[2]
    observable = params[2] != 0.0
    n0 = state[_N0, arm, 0]
    for j in range(m):
        if j <= j_played:
            state[_GAIN, arm, j] = state[_G, arm, j] / state[_N, arm, j]
            state[_INVSQ, arm, j] = 1.0 / math.sqrt(state[_N, arm, j])
        if observable:
            penalty = lam[j] * state[_S, arm, j] / state[_N, arm, j]
        else:
            penalty = lam[j] * state[_S, arm, j] / n0
        state[_BASE, arm, j] = state[_GAIN, arm, j] - penalty
    state[_INVSQ0, arm, 0] = 1.0 / math.sqrt(n0)
    state[_ARM_WINDOW, arm, 0] = -1.0  # its arm bound is stale


@njit(cache=True, error_model="numpy", inline="always")
def _pair_bound(base, inv_sqrt_n, lam_j, radius, arm_bound, observable, unit_bonus):
    """base + radius (w) and the slack that makes it an upper bound of the exact index.

    Scalars only: an array argument would keep numba's reference counting in the scan loop, even
    inlined, at several times the cost of the bound itself."""
    conf_bound = radius * inv_sqrt_n
    if observable:
        pen_bound = conf_bound
    else:
        pen_bound = arm_bound
    if not unit_bonus:
        pen_bound *= lam_j
    return base + conf_bound + pen_bound + _SLACK * (abs(base) + conf_bound + abs(pen_bound))


@njit(cache=True, error_model="numpy", inline="always")
def rcucb_update_fast(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    rcucb_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream)
    rcucb_refresh_arm(state, lam, params, arm, j_played)


@njit(cache=True, error_model="numpy", inline="always")
def rcucb_select_fast(t, state, taus, lam, params, scores, stream):
    """RCUCB's arm: the printed select (the oracle's ``rcucb_select``) on a state kept by
    :func:`rcucb_update_fast` (same choice, same draws)."""
    n_arms = state.shape[1]
    m = state.shape[2]
    if t <= n_arms:
        return (t - 1) * m + (m - 1)
    alpha = params[0]
    unit_bonus = params[1] != 0.0
    observable = params[2] != 0.0
    log_t = math.log(t)
    explore = 2.0 * alpha * log_t
    radius = math.sqrt(explore)
    window, log_t_bound = log_window(log_t)
    window_radius = math.sqrt(2.0 * alpha * log_t_bound)
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n_arms):
        if state[_ARM_WINDOW, i, 0] != window:
            arm_bound = window_radius * state[_INVSQ0, i, 0]
            bound = -np.inf
            for j in range(m):
                bound = max(bound, _pair_bound(state[_BASE, i, j], state[_INVSQ, i, j], lam[j], window_radius, arm_bound,
                                                observable, unit_bonus))
            state[_ARM_BOUND, i, 0] = bound
            state[_ARM_WINDOW, i, 0] = window
        if state[_ARM_BOUND, i, 0] < best:
            continue
        arm_bound = radius * state[_INVSQ0, i, 0]
        arm_conf = -1.0  # sqrt(explore / N0), computed once the arm has a pair that can reach the maximum
        for j in range(m):
            base = state[_BASE, i, j]
            if _pair_bound(base, state[_INVSQ, i, j], lam[j], radius, arm_bound, observable, unit_bonus) < best:
                continue
            n_ij = state[_N, i, j]
            conf = math.sqrt(explore / n_ij)
            if observable:
                pen_conf = math.sqrt(explore / n_ij)
            else:
                if arm_conf < 0.0:
                    arm_conf = math.sqrt(explore / state[_N0, i, 0])  # exactly the printed per-pair value
                pen_conf = arm_conf
            if not unit_bonus:
                pen_conf *= lam[j]
            v = base + conf + pen_conf
            scores[i * m + j] = v
            # rng.stream_argmax_random_ties, restricted to the pairs that can reach the maximum
            if v > best:
                best = v
                count = 1
                choice = i * m + j
            elif v == best:
                count += 1
                if rng.stream_uniform(stream) * count <= 1.0:
                    choice = i * m + j
    return choice


def rcucb_params(alpha: float = 1.0, unit_bonus: bool = False, observable: bool = False) -> np.ndarray:
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    return np.array([alpha, float(unit_bonus), float(observable)], dtype=np.float64)


# --- z-RCUCB ------------------------------------------------------------------------------
#
# Per-arm adaptive grids. State per arm: up to ``capacity`` grid points with columns
# 0 tau, 1 N, 2 G, 3 S, 4 active (1/0), 5 N0 (pulls of the arm since the point was created); and
# the arm's total pulls n0. The choice (eq. 13) is
#   nu_hat + c(n T^2 / delta; alpha) + (tau - down(tau)),
# with c(x; alpha) = sqrt(2 alpha ln x / N) + lambda(tau) sqrt(2 alpha ln x / N0) and nu_hat = 0,
# c = inf for a point never updated. After each update, every point tau of the played arm with
# (tau - down(tau)) >= c(tau) is extended: the m - 1 interior equidistant points of
# [down(tau), tau] are added (eq. 14). Algorithm 1 initialises new points afresh ("initialise
# nu_hat and c"): their estimates, eq. (8)-(9) with their own counters, start at 0 and only
# accumulate later pulls. So a new point's survival estimate Lambda_hat = lambda S / N0 divides its
# exceedances S by the arm's pulls since its creation (column 5), not by the arm's total pulls,
# which would count pulls whose exceedances were never recorded and bias Lambda_hat towards 0.
# The initial point tau_max exists from round 1, so its N0 is the arm's total.

ZCOLS = 6
_ZT, _ZN, _ZG, _ZS, _ZA, _ZN0 = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def zrcucb_down(points, count, tau):
    """Largest active grid point strictly below tau (0 if none; the paper's "<=" is a typo)."""
    best = 0.0
    for k in range(count):
        if points[k, _ZA] != 0.0 and points[k, _ZT] < tau and points[k, _ZT] > best:
            best = points[k, _ZT]
    return best


@njit(cache=True)
def zrcucb_confidence(point, n0, lam_tau, log_level, alpha):
    if point[_ZN] <= 0.0 or n0 <= 0.0:
        return math.inf
    return math.sqrt(2.0 * alpha * log_level / point[_ZN]) + lam_tau * math.sqrt(2.0 * alpha * log_level / n0)


@njit(cache=True)
def zrcucb_select(grids, counts, n0, lam_params, alpha, log_level, stream):
    """Returns (arm, point index). ``lam_params = (slope_low, slope_high, switch)``.

    ``n0`` (the arms' total pulls) is not needed: every point carries its own N0 (column 5)."""
    n_arms = grids.shape[0]
    best = -math.inf
    best_arm = 0
    best_k = 0
    ties = 0
    for i in range(n_arms):
        for k in range(counts[i]):
            pt = grids[i, k]
            if pt[_ZA] == 0.0:
                continue
            tau = pt[_ZT]
            lam_tau = zrcucb_penalty(tau, lam_params)
            conf = zrcucb_confidence(pt, pt[_ZN0], lam_tau, log_level, alpha)
            nu_hat = 0.0
            if pt[_ZN] > 0.0:
                nu_hat = pt[_ZG] / pt[_ZN] - lam_tau * pt[_ZS] / pt[_ZN0]
            score = nu_hat + conf + (tau - zrcucb_down(grids[i], counts[i], tau))
            if score > best:
                best = score
                best_arm = i
                best_k = k
                ties = 1
            elif score == best:
                ties += 1
                if rng.stream_uniform(stream) * ties <= 1.0:
                    best_arm = i
                    best_k = k
    return best_arm, best_k


@njit(cache=True)
def zrcucb_penalty(tau, lam_params):
    if tau <= lam_params[2] + 1e-12:
        return lam_params[0] * tau
    return lam_params[1] * tau


@njit(cache=True)
def zrcucb_update(grids, counts, n0, arm, tau_played, reward, consumption, cost_slope, lam_params, alpha,
                  log_level, refine_m):
    """Update the played arm's points and refine its grid; returns the number of points added."""
    g = grids[arm]
    for k in range(counts[arm]):
        pt = g[k]
        if pt[_ZA] == 0.0:
            continue
        if pt[_ZT] <= tau_played:
            pt[_ZN] += 1.0
            if consumption <= pt[_ZT]:
                pt[_ZG] += reward - cost_slope * consumption
        if consumption > pt[_ZT]:
            pt[_ZS] += 1.0
        pt[_ZN0] += 1.0
    n0[arm] += 1.0
    added = 0
    n_before = counts[arm]
    for k in range(n_before):
        pt = g[k]
        if pt[_ZA] == 0.0:
            continue
        tau = pt[_ZT]
        down = zrcucb_down(g, n_before, tau)
        conf = zrcucb_confidence(pt, pt[_ZN0], zrcucb_penalty(tau, lam_params), log_level, alpha)
        if tau - down >= conf:
            if counts[arm] + refine_m - 1 > g.shape[0]:
                continue  # capacity reached: stop refining this arm
            for q in range(1, refine_m):
                new = g[counts[arm]]
                new[:] = 0.0
                new[_ZT] = down + (tau - down) * q / refine_m
                new[_ZA] = 1.0
                counts[arm] += 1
                added += 1
    return added


@njit(cache=True)
def zrcucb_finest(grids, counts):
    """(arm, tau) of the point on the finest grid level (smallest cell width); ties to the first."""
    best_w = math.inf
    best_arm = 0
    best_tau = 0.0
    for i in range(grids.shape[0]):
        for k in range(counts[i]):
            if grids[i, k, _ZA] == 0.0:
                continue
            tau = grids[i, k, _ZT]
            w = tau - zrcucb_down(grids[i], counts[i], tau)
            if w < best_w - 1e-15:
                best_w = w
                best_arm = i
                best_tau = tau
    return best_arm, best_tau

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "rcucb": ("rcucb_select_fast", "rcucb_update_fast", "rcucb_params"),
}
