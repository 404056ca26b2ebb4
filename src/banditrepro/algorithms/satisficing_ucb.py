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
def sat_ucb_choose(t, means, root_counts, n_arms, level, plus, stream):
    """Arm for the next pull after ``t`` pulls; ``plus`` selects SAT-UCB+.

    ``means[j]`` = s_j / n_j and ``root_counts[j]`` = sqrt(n_j) are cached by
    :func:`sat_ucb_update` (the same floating-point values the formulas give; caching them keeps
    the per-step pass over the arms free of square roots). One fused pass finds max mu, argmax UCB
    and argmax rho (first index on ties); the rare uniform-exploration branch of SAT-UCB recomputes
    the UCBs (bit-identical) in a second pass.
    """
    if t < n_arms:
        return t
    r_t = confidence_scale(t)
    max_mu = -math.inf
    max_ucb = -math.inf
    best_ucb = 0
    best_rho = -math.inf
    best_ratio = 0
    for j in range(n_arms):
        mu = means[j]
        c = r_t / root_counts[j]
        u = mu + c
        lo = mu - c
        rho = (u - (lo if lo > level else level)) / c
        if mu > max_mu:
            max_mu = mu
        if u > max_ucb:
            max_ucb = u
            best_ucb = j
        if rho > best_rho:
            best_rho = rho
            best_ratio = j
    use_ratio = max_ucb >= level if plus else max_mu >= level
    if use_ratio:
        return best_ratio
    if max_ucb < level:
        return best_ucb
    # SAT-UCB only: uniform over the arms whose UCB reaches the level
    n_eligible = 0
    for j in range(n_arms):
        if means[j] + r_t / root_counts[j] >= level:
            n_eligible += 1
    pick = rng.stream_integer(stream, n_eligible)
    for j in range(n_arms):
        if means[j] + r_t / root_counts[j] >= level:
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

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "sat_ucb": ("sat_ucb_choose", "sat_ucb_update"),
    "sat_ucb_plus": ("sat_ucb_choose", "sat_ucb_update"),
}
