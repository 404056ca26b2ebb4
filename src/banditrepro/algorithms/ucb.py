"""UCB1 (Auer, Cesa-Bianchi and Fischer, 2002).

Index mean_i + sqrt(2 log t / n_i) after pulling every arm once in index order; ties go to
the lowest index. State rows: 0 pull counts, 1 reward sums, 2 means, 3 1/sqrt(n_i) (kept up to
date by ``update`` so that ``select`` does one log and one sqrt per step, not one per arm).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import portable
from ..engine import PolicyKernel


@njit(cache=True)
def _select(t, state, params, stream):
    n_arms = state.shape[1]
    if t <= n_arms:
        return t - 1
    radius = params[1 + t]  # sqrt(exploration * log t), tabulated by _prepare
    best = 0
    best_index = -math.inf
    for i in range(n_arms):
        index = state[2, i] + radius * state[3, i]
        if index > best_index:
            best_index = index
            best = i
    return best


@njit(cache=True)
def _update(t, state, params, arm, obs):
    n = state[0, arm] + 1.0
    state[0, arm] = n
    state[1, arm] += obs[0]
    state[2, arm] = state[1, arm] / n
    state[3, arm] = 1.0 / math.sqrt(n)


def _prepare(params, horizon):
    """Append sqrt(exploration * log t) for t = 0..horizon (entry 0 unused): the same in every replication."""
    t = np.arange(horizon + 1, dtype=np.float64)
    t[0] = 1.0
    # portable.log, not np.log: NumPy's float64 log kernel differs on AVX-512 CPUs (last bits)
    return np.concatenate([params[:1], np.sqrt(params[0] * portable.log(t))])


UCB1 = PolicyKernel("ucb1", _select, _update, state_rows=4, prepare=_prepare)


def ucb1(exploration: float = 2.0) -> tuple[PolicyKernel, np.ndarray]:
    """UCB1 with index mean + sqrt(exploration * log t / n); exploration = 2 is Auer et al.'s."""
    if exploration < 0:
        raise ValueError("exploration must be >= 0")
    return UCB1, np.array([exploration], dtype=np.float64)
