"""Uniformly discretized UCB for Lipschitz bandits on [0, 1]^d (Bubeck, Stoltz and Yu 2011, §2.2),
satisficing_select spec §2.2.

Discretisation: step delta = (L H)^(-1/(d+2)) (the paper's Section 6 wording; spec §5 item 9),
M = ceil(1/delta) cells per axis (guarded against float error), arms = cell centres
((m_1 + 1/2)/M, ..., (m_d + 1/2)/M) in row-major order (first coordinate outermost).

Finite-armed learner: UCB(delta = 1/H^2) of Lattimore and Szepesvari, Thm 7.2 (cited by App. D.1):
pull arms 0..K-1 once each in index order, then argmax_j mu_j + sqrt(4 ln(H) / n_j), first index on
ties, with H the horizon the instance was created for (the indices are kept in a tournament tree,
:mod:`.arm_trees`: O(log K) per step instead of a scan of all K). If H < K only the first H arms are ever
pulled (that is what the literal algorithm does). The kernels are compiled without reference counts
(:mod:`.arm_trees`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numba import njit

from .arm_trees import tournament_reset, tournament_set, tournament_top

CEIL_GUARD = 1e-9  # ceil(x - 1e-9): exact powers of two computed in floating point (spec §5 item 8)


def guarded_ceil(x: float) -> int:
    return max(1, int(math.ceil(x - CEIL_GUARD)))


def cells_per_axis(lipschitz: float, horizon: float, dim: int, exponent: float | None = None) -> int:
    """M = ceil(1/delta) with delta = (L H)^(-exponent); exponent defaults to 1/(d+2)."""
    if lipschitz <= 0 or horizon < 1 or dim < 1:
        raise ValueError("need lipschitz > 0, horizon >= 1, dim >= 1")
    exponent = 1.0 / (dim + 2) if exponent is None else exponent
    return guarded_ceil((lipschitz * horizon) ** exponent)


def cell_centres(cells: int, dim: int) -> np.ndarray:
    """(cells^dim, dim) array of cell centres, row-major (first coordinate outermost)."""
    axis = (np.arange(cells) + 0.5) / cells
    return np.array(list(itertools.product(axis, repeat=dim)), dtype=np.float64).reshape(-1, dim)


@njit(cache=True, _nrt=False)
def ucb_reset(counts, sums, index, winner, n_arms):
    """Start an instance on arms 0..n_arms-1: no pulls; ``index`` and ``winner`` hold the tournament tree of
    the arms' UCB indices (:func:`.arm_trees.new_tournament` with one tree)."""
    counts[:n_arms] = 0.0
    sums[:n_arms] = 0.0
    tournament_reset(index, winner, 0)


@njit(cache=True, _nrt=False)
def ucb_choose(step, winner, n_arms):
    """UCB(1/H^2) arm for the ``step``-th pull (1-based) of the instance.

    Arm j's UCB index changes only when arm j is pulled (H is fixed), so :func:`ucb_update` replays only
    its matches in the tournament tree and the root is the first index among the largest indices, the
    arm a scan of all K indices would take.
    """
    if step <= n_arms:
        return step - 1
    return tournament_top(winner, 0)


@njit(cache=True)
def ucb_index(count, total, log_horizon):
    return total / count + math.sqrt(4.0 * log_horizon / count)


@njit(cache=True, _nrt=False)
def ucb_update(counts, sums, index, winner, arm, reward, log_horizon):
    counts[arm] += 1.0
    sums[arm] += reward
    tournament_set(index, winner, 0, arm, ucb_index(counts[arm], sums[arm], log_horizon))

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "uniform_ucb": ("ucb_reset", "ucb_choose", "ucb_update"),
}
