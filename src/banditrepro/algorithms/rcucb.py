"""RCUCB (Bengs & Hüllermeier, Sec. 3.2-3.3) and z-RCUCB (Sec. 4, Algorithm 1).

Kernel protocol shared with :mod:`banditrepro.algorithms.censored_baselines` (the simulation loop
is :mod:`banditrepro.experiments.censored_resources.simulation`):

* ``select(t, state, taus, lam, params, scores, stream) -> flat pair index i * m + j``
  (t is the 1-based round, ``scores`` a scratch array of n*m floats);
* ``update(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)`` after the
  round: the kernel itself decides which parts of (reward, consumption) it may use; a pull is
  censored when ``consumption > taus[j]``.

``state`` is float64 ``(4, n_arms, m)``, zero at the start of a replication; ``taus`` is the
increasing grid, ``lam`` the penalty lambda(tau) on it.

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


def rcucb_params(alpha: float = 1.0, unit_bonus: bool = False, observable: bool = False) -> np.ndarray:
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    return np.array([alpha, float(unit_bonus), float(observable)], dtype=np.float64)


# --- z-RCUCB ------------------------------------------------------------------------------
#
# Per-arm adaptive grids. State per arm: up to ``capacity`` grid points with columns
# 0 tau, 1 N, 2 G, 3 S, 4 active (1/0); N0 per arm. The choice (eq. 13) is
#   nu_hat + c(n T^2 / delta; alpha) + (tau - down(tau)),
# with c(x; alpha) = sqrt(2 alpha ln x / N) + lambda(tau) sqrt(2 alpha ln x / N0) and nu_hat = 0,
# c = inf for a point never updated. After each update, every point tau of the played arm with
# (tau - down(tau)) >= c(tau) is extended: the m - 1 interior equidistant points of
# [down(tau), tau] are added (eq. 14). The survival counts S of new points start at 0 and only
# accumulate later pulls, as do their N and G ("initialise with nu_hat = 0, c = inf").

ZCOLS = 5
_ZT, _ZN, _ZG, _ZS, _ZA = 0, 1, 2, 3, 4


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
    """Returns (arm, point index). ``lam_params = (slope_low, slope_high, switch)``."""
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
            conf = zrcucb_confidence(pt, n0[i], lam_tau, log_level, alpha)
            nu_hat = 0.0
            if pt[_ZN] > 0.0:
                nu_hat = pt[_ZG] / pt[_ZN] - lam_tau * pt[_ZS] / n0[i]
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
    n0[arm] += 1.0
    added = 0
    n_before = counts[arm]
    for k in range(n_before):
        pt = g[k]
        if pt[_ZA] == 0.0:
            continue
        tau = pt[_ZT]
        down = zrcucb_down(g, n_before, tau)
        conf = zrcucb_confidence(pt, n0[arm], zrcucb_penalty(tau, lam_params), log_level, alpha)
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
