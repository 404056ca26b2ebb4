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
"""

from __future__ import annotations

import math

from numba import njit

from .. import rng


@njit(cache=True)
def confidence_scale(t):
    """R_t for t = number of pulls made so far (t >= 1)."""
    lt = math.log(t)
    return math.sqrt(2.0 * math.log(1.0 + t * lt * lt))


@njit(cache=True)
def sat_ucb_choose(t, means, root_counts, n_arms, level, plus, stream, work):
    """Arm for the next pull after ``t`` pulls; ``plus`` selects SAT-UCB+.

    ``means[j]`` = s_j / n_j and ``root_counts[j]`` = sqrt(n_j) are cached by
    :func:`sat_ucb_update` (the same floating-point values the formulas give; caching them keeps
    the per-step pass over the arms free of square roots). ``work`` is scratch (>= 2 n_arms).
    """
    if t < n_arms:
        return t
    r_t = confidence_scale(t)
    rho = work[:n_arms]
    ucb = work[n_arms:2 * n_arms]
    # branch-free pass (vectorisable): indices of every arm
    for j in range(n_arms):
        c = r_t / root_counts[j]
        u = means[j] + c
        lo = means[j] - c
        ucb[j] = u
        rho[j] = (u - (lo if lo > level else level)) / c
    max_mu = -math.inf
    max_ucb = -math.inf
    best_ucb = 0
    for j in range(n_arms):
        if means[j] > max_mu:
            max_mu = means[j]
        if ucb[j] > max_ucb:
            max_ucb = ucb[j]
            best_ucb = j
    use_ratio = max_ucb >= level if plus else max_mu >= level
    if use_ratio:
        best = 0
        best_rho = -math.inf
        for j in range(n_arms):
            if rho[j] > best_rho:
                best_rho = rho[j]
                best = j
        return best
    if max_ucb < level:
        return best_ucb
    # SAT-UCB only: uniform over the arms whose UCB reaches the level
    n_eligible = 0
    for j in range(n_arms):
        if ucb[j] >= level:
            n_eligible += 1
    pick = rng.stream_integer(stream, n_eligible)
    for j in range(n_arms):
        if ucb[j] >= level:
            if pick == 0:
                return j
            pick -= 1
    return best_ucb


@njit(cache=True)
def sat_ucb_update(counts, sums, means, root_counts, arm, reward):
    counts[arm] += 1.0
    sums[arm] += reward
    means[arm] = sums[arm] / counts[arm]
    root_counts[arm] = math.sqrt(counts[arm])
