"""SAT-UCB and SAT-UCB+ (Michel, Hajiabolhassan and Ortner, TMLR 2023), satisficing_select spec §2.2.

The rules follow the authors' final code (spec §6, read for reference, not copied): pull arms
0..K-1 once each; afterwards, with t = number of pulls so far (t >= K),

    R_t = sqrt(2 ln(1 + t ln(t)^2)),  c_j = R_t / sqrt(n_j),  mu_j = s_j / n_j,
    UCB_j = mu_j + c_j,  LCB_j = mu_j - c_j,  rho_j = (UCB_j - max(LCB_j, S)) / c_j,
    SAT-UCB:   max mu >= S -> argmax rho;  elif max UCB >= S -> uniform on {UCB_j >= S};
               else argmax UCB
    SAT-UCB+:  max UCB >= S -> argmax rho;  else argmax UCB

rho is computed with exactly this floating-point expression (ties at rho = 2 are broken by its
rounding, then by first index, as in the authors' numpy code). Anytime; confidence multiplier 1.

How a step avoids the pass over all K arms (up to 400 on the Lipschitz grids) and still takes the arm
that pass takes. With the key k_j = (mu_j - S) sqrt(n_j), which changes only when arm j is pulled,

    UCB_j >= S  <=>  k_j >= -R_t,        rho_j = 1 + min(k_j, R_t) / R_t          (real arithmetic),

so the argmax of rho is among the arms of largest key, and the arms whose UCB reaches S are those whose
key reaches -R_t. The kernel keeps the keys in a tournament tree (:mod:`.arm_trees`) and evaluates the
printed floating-point expressions only for the arms whose key is within a slack of the bound that
matters; the slack covers the rounding of both sides (below), so an arm it skips has a printed value
strictly below the maximum and can neither win nor tie. The arms whose UCB reaches S are flagged in a
Fenwick tree (their number and the k-th of them for the uniform draw); an arm not pulled keeps its flag,
because R_t never decreases (checked at every step) and a correctly rounded r / q and mu + x never
decrease when r and x grow; the others wait in a second tournament tree until their key reaches
-R_t - slack, and are then tested with the printed expression. Only argmax UCB with every UCB below S
still scans all arms.

Rounding: with eps = 2^-53, q = sqrt(n) as cached and G = (max|mu| + |S|) max q + R_t, the printed
(rho - 1) R_t differs from min(k, R_t) (and the key from k) by less than 20 eps G, and the printed UCB test
and the key disagree on k >= -R_t only within 4 eps G of -R_t; PRUNE_SLACK G = 10^-12 G is about
9,000 eps G, over 400 times the larger bound (and G is over-estimated: max|mu| and max q of the run so far).

The step kernels are called, not inlined, and compiled without reference counts (:mod:`.arm_trees`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng
from .arm_trees import fenwick_add, fenwick_find, new_tournament, tournament_next, tournament_reset, tournament_set

PRUNE_SLACK = 1e-12

# The index a SAT-UCB run keeps beside its counts, sums, means and sqrt(counts) (see the module docstring):
# two tournament trees over the arms, KEY_TREE (every pulled arm's key) and WAIT_TREE (the keys of the
# pulled arms whose UCB is not known to reach S, -inf for the others), the Fenwick tree of the arms whose
# UCB reaches S, and a state vector: how many arms' UCBs and means reach S, max |mu| and max sqrt(n) (for
# G) and the R_t of the last step.
KEY_TREE, WAIT_TREE = 0, 1
N_UCB_REACH, N_MEAN_REACH, MU_ABS_MAX, ROOT_MAX, R_PREV = 0, 1, 2, 3, 4


@njit(cache=True)
def new_index(n_arms):
    """(tree values, tree winners, reach tree, state) for runs on up to ``n_arms`` arms
    (:func:`sat_ucb_reset` starts each run)."""
    values, winner = new_tournament(2, n_arms)
    return values, winner, np.zeros(values.shape[1] + 1, dtype=np.int64), np.zeros(5)


@njit(cache=True)
def confidence_scale(t):
    """R_t for t = number of pulls made so far (t >= 1)."""
    lt = math.log(t)
    return math.sqrt(2.0 * math.log(1.0 + t * lt * lt))


@njit(cache=True, inline="always")
def _reaches(values, counts, arm):
    """Whether the flag 'UCB reaches S' of a pulled ``arm`` is set (it is out of the wait tree)."""
    return counts[arm] > 0.0 and values[WAIT_TREE, arm] == -math.inf


@njit(cache=True, _nrt=False)
def sat_ucb_reset(counts, sums, means, root_counts, values, winner, reach_tree, state, n_arms):
    """Start a run on arms 0..n_arms-1: no pulls, an empty index."""
    counts[:n_arms] = 0.0
    sums[:n_arms] = 0.0
    means[:n_arms] = 0.0
    root_counts[:n_arms] = 0.0
    tournament_reset(values, winner, KEY_TREE)
    tournament_reset(values, winner, WAIT_TREE)
    reach_tree[:] = 0
    state[:] = 0.0


@njit(cache=True, _nrt=False)
def sat_ucb_update(counts, sums, means, root_counts, values, winner, reach_tree, state, arm, reward, level):
    """Count the pull of ``arm`` and re-index it."""
    was_pulled = counts[arm] > 0.0
    was_reaching = _reaches(values, counts, arm)
    if was_pulled and means[arm] >= level:
        state[N_MEAN_REACH] -= 1.0
    counts[arm] += 1.0
    sums[arm] += reward
    mu = sums[arm] / counts[arm]
    q = math.sqrt(counts[arm])
    means[arm] = mu
    root_counts[arm] = q
    if mu >= level:
        state[N_MEAN_REACH] += 1.0
    key = (mu - level) * q
    tournament_set(values, winner, KEY_TREE, arm, key)
    # the printed test at the last step's R_t: true there, it is true at the next step's (never smaller)
    reaches = mu + state[R_PREV] / q >= level
    if reaches and not was_reaching:
        fenwick_add(reach_tree, arm, 1)
        state[N_UCB_REACH] += 1.0
        tournament_set(values, winner, WAIT_TREE, arm, -math.inf)
    elif not reaches:
        if was_reaching:
            fenwick_add(reach_tree, arm, -1)
            state[N_UCB_REACH] -= 1.0
        tournament_set(values, winner, WAIT_TREE, arm, key)
    state[MU_ABS_MAX] = max(state[MU_ABS_MAX], abs(mu))
    state[ROOT_MAX] = max(state[ROOT_MAX], q)


@njit(cache=True, _nrt=False)
def sat_ucb_choose(t, means, root_counts, n_arms, level, plus, stream, values, winner, reach_tree, state):
    """Arm for the next pull after ``t`` pulls; ``plus`` selects SAT-UCB+.

    ``means[j]`` = s_j / n_j and ``root_counts[j]`` = sqrt(n_j) are cached by :func:`sat_ucb_update` (the
    same floating-point values the formulas give), which also keeps the index (``values`` .. ``state``,
    :func:`new_index`). The choice is that of one pass computing every arm's mu, UCB and rho (first index
    on ties); the uniform exploration of SAT-UCB draws one ``rng.stream_integer`` over the arms whose UCB
    reaches the level, in index order.
    """
    if t < n_arms:
        return t
    r_t = confidence_scale(t)
    if r_t < state[R_PREV]:
        raise ValueError("SAT-UCB: R_t decreased in floating point; the reach flags would be wrong")
    state[R_PREV] = r_t
    slack = PRUNE_SLACK * ((state[MU_ABS_MAX] + abs(level)) * state[ROOT_MAX] + r_t + 1.0)
    # waiting arms whose UCB may reach the level now: the printed test decides
    j = tournament_next(values, winner, WAIT_TREE, -r_t - slack, -1)
    while j >= 0:
        if means[j] + r_t / root_counts[j] >= level:
            tournament_set(values, winner, WAIT_TREE, j, -math.inf)
            fenwick_add(reach_tree, j, 1)
            state[N_UCB_REACH] += 1.0
        j = tournament_next(values, winner, WAIT_TREE, -r_t - slack, j)
    n_ucb_reach = int(state[N_UCB_REACH])
    n_mean_reach = int(state[N_MEAN_REACH])
    use_ratio = n_ucb_reach > 0 if plus else n_mean_reach > 0
    if use_ratio:
        # argmax rho among the arms whose key is within the slack of min(max key, R_t)
        threshold = min(values[KEY_TREE, winner[KEY_TREE, 1]], r_t) - slack
        best_rho = -math.inf
        best_ratio = 0
        j = tournament_next(values, winner, KEY_TREE, threshold, -1)
        while j >= 0:
            mu = means[j]
            c = r_t / root_counts[j]
            u = mu + c
            lo = mu - c
            rho = (u - (lo if lo > level else level)) / c
            if rho > best_rho:
                best_rho = rho
                best_ratio = j
            j = tournament_next(values, winner, KEY_TREE, threshold, j)
        return best_ratio
    if n_ucb_reach == 0:
        max_ucb = -math.inf
        best_ucb = 0
        for j in range(n_arms):
            u = means[j] + r_t / root_counts[j]
            if u > max_ucb:
                max_ucb = u
                best_ucb = j
        return best_ucb
    # SAT-UCB only: uniform over the arms whose UCB reaches the level
    pick = rng.stream_integer(stream, n_ucb_reach)
    return fenwick_find(reach_tree, pick)

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "sat_ucb": ("sat_ucb_reset", "sat_ucb_choose", "sat_ucb_update"),
    "sat_ucb_plus": ("sat_ucb_reset", "sat_ucb_choose", "sat_ucb_update"),
}
