"""One-dimensional stochastic convex bandit algorithm of Agarwal, Foster, Hsu, Kakade and
Rakhlin (NIPS 2011, Algorithm 1), written for maximising a concave r on [0, 1] as the
satisficing_select digest reconstructs it (spec §2.2 and §5 item 13):

    interval [l, r]; an epoch queries x_l, x_c, x_r = l + w/4, l + w/2, l + 3w/4 (w = r - l);
    round i of the epoch: gamma = 2^-i, n_i = ceil(2 sigma^2 ln(H) / gamma^2) fresh samples of each
    point, queried cyclically (x_l, x_c, x_r, x_l, ...); with m_p the round's mean at p,
    U_p = m_p + gamma and Lo_p = m_p - gamma:
      Case 1: max(Lo_l, Lo_r) >= min(U_l, U_r) + gamma
      Case 2: min(U_l, U_r) <= Lo_c - gamma
    on Case 1 or 2: if U_l <= U_r then l = x_l else r = x_r, and a new epoch starts;
    otherwise round i + 1 of the same epoch. The run stops after H queries.

The state is a float64 vector (layout below) so that it can live inside compiled loops.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# state layout
LEFT, RIGHT, ROUND, PER_POINT, QUERIES, SUM_L, SUM_C, SUM_R, LOG_H, SIGMA, EPOCHS = range(11)
STATE_SIZE = 11


@njit(cache=True)
def _samples_per_point(round_index, log_h, sigma):
    gamma = 2.0 ** (-round_index)
    return math.ceil(2.0 * sigma * sigma * log_h / (gamma * gamma))


@njit(cache=True)
def convex_reset(state, horizon, sigma):
    """A fresh instance with query budget ``horizon`` (>= 1) and noise scale ``sigma``."""
    state[LEFT] = 0.0
    state[RIGHT] = 1.0
    state[ROUND] = 1.0
    state[LOG_H] = math.log(max(horizon, 2))  # ln H; H = 1 would give n_i = 0
    state[SIGMA] = sigma
    state[PER_POINT] = _samples_per_point(1, state[LOG_H], sigma)
    state[QUERIES] = 0.0
    state[SUM_L] = 0.0
    state[SUM_C] = 0.0
    state[SUM_R] = 0.0
    state[EPOCHS] = 0.0


@njit(cache=True)
def convex_set_horizon(state, horizon):
    """Keep the interval, epoch and round data but size later rounds for budget ``horizon``
    (used when SELECT's sensitivity variant carries the oracle over to the next round)."""
    state[LOG_H] = math.log(max(horizon, 2))


@njit(cache=True)
def convex_choose(state):
    """Point to query next: x_l, x_c, x_r cyclically."""
    w = state[RIGHT] - state[LEFT]
    p = int(state[QUERIES]) % 3
    return state[LEFT] + w * (p + 1) / 4.0


@njit(cache=True)
def convex_update(state, reward):
    """Record the reward of the point returned by :func:`convex_choose`; close the round when complete."""
    q = int(state[QUERIES])
    state[SUM_L + q % 3] += reward
    q += 1
    state[QUERIES] = q
    n = state[PER_POINT]
    if q < 3 * n:
        return
    gamma = 2.0 ** (-state[ROUND])
    m_l = state[SUM_L] / n
    m_c = state[SUM_C] / n
    m_r = state[SUM_R] / n
    u_l = m_l + gamma
    u_r = m_r + gamma
    lo_l = m_l - gamma
    lo_r = m_r - gamma
    lo_c = m_c - gamma
    case1 = max(lo_l, lo_r) >= min(u_l, u_r) + gamma
    case2 = min(u_l, u_r) <= lo_c - gamma
    if case1 or case2:
        w = state[RIGHT] - state[LEFT]
        if u_l <= u_r:
            state[LEFT] = state[LEFT] + w / 4.0
        else:
            state[RIGHT] = state[LEFT] + 3.0 * w / 4.0
        state[ROUND] = 1.0
        state[EPOCHS] += 1.0
    else:
        state[ROUND] += 1.0
    state[PER_POINT] = _samples_per_point(int(state[ROUND]), state[LOG_H], state[SIGMA])
    state[QUERIES] = 0.0
    state[SUM_L] = 0.0
    state[SUM_C] = 0.0
    state[SUM_R] = 0.0


def new_state() -> np.ndarray:
    return np.zeros(STATE_SIZE)

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "convex_1d": ("convex_reset", "convex_set_horizon", "convex_choose", "convex_update"),
}
