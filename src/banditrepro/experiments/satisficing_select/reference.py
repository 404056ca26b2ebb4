"""Reference: the finite-armed baselines of satisficing_select (Gaussian TS, Uniform UCB, SAT-UCB, SAT-UCB+),
written apart from :func:`loops.run_index_policy` and the kernels it calls.

Transcribed from the algorithms' definitions (spec §2.2; SAT-UCB and SAT-UCB+ as Michel et al.'s code states
them), with every index recomputed from counts and sums at each step instead of the production kernels'
cached means, square roots and indices. Only the environment's draws (``environments.continuous.observe``,
step t's common noise) and the policy stream are shared, so on the same keys a correct production loop takes
exactly the same arms. The sanity claim ``select_matches_reference`` reruns the first replications of an
experiment with :func:`run_index_policy` here and requires the build's curves (experiments/reference.py,
docs/mutants.md).

* Gaussian TS (unit noise, flat prior): theta_j = s_j / (k_j + 1) + Z_j / sqrt(k_j + 1), Z_j the policy
  stream's normals in arm order; argmax theta, first index on ties.
* Uniform UCB (UCB(1/H^2)): each arm once in index order, then argmax s_j/n_j + sqrt(4 ln H / n_j).
* SAT-UCB / SAT-UCB+, after t pulls (each arm once first): R_t = sqrt(2 ln(1 + t ln(t)^2)), c_j = R_t/sqrt(n_j),
  rho_j = (mu_j + c_j - max(mu_j - c_j, S)) / c_j. SAT-UCB: max mu >= S -> argmax rho; else if max UCB >= S a
  uniform draw among {UCB_j >= S}; else argmax UCB. SAT-UCB+: max UCB >= S -> argmax rho; else argmax UCB.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ... import rng
from ...environments.continuous import observe

# policy codes as loops.INDEX_POLICIES numbers them
_TS, _UNIFORM_UCB, _SAT_UCB, _SAT_UCB_PLUS, _BETA_TS = 0, 1, 2, 3, 4


@njit(cache=True)
def _gaussian_ts(counts, sums, n_arms, stream):
    best, best_theta = 0, -math.inf
    for j in range(n_arms):
        theta = sums[j] / (counts[j] + 1.0) + rng.stream_normal(stream) / math.sqrt(counts[j] + 1.0)
        if theta > best_theta:
            best, best_theta = j, theta
    return best


@njit(cache=True)
def _beta_ts(counts, sums, n_arms, stream):
    best, best_theta = 0, -math.inf
    for j in range(n_arms):
        theta = rng.stream_beta(stream, 1.0 + sums[j], 1.0 + counts[j] - sums[j])
        if theta > best_theta:
            best, best_theta = j, theta
    return best


@njit(cache=True)
def _uniform_ucb(step, counts, sums, n_arms, log_h):
    if step <= n_arms:
        return step - 1
    best, best_index = 0, -math.inf
    for j in range(n_arms):
        index = sums[j] / counts[j] + math.sqrt(4.0 * log_h / counts[j])
        if index > best_index:
            best, best_index = j, index
    return best


@njit(cache=True)
def _sat_ucb(pulls_so_far, counts, sums, n_arms, level, plus, stream):
    if pulls_so_far < n_arms:
        return pulls_so_far
    log_t = math.log(pulls_so_far)
    r_t = math.sqrt(2.0 * math.log(1.0 + pulls_so_far * log_t * log_t))
    max_mu, max_ucb, arg_ucb, max_rho, arg_rho = -math.inf, -math.inf, 0, -math.inf, 0
    for j in range(n_arms):
        mu = sums[j] / counts[j]
        c = r_t / math.sqrt(counts[j])
        rho = (mu + c - max(mu - c, level)) / c
        max_mu = max(max_mu, mu)
        if mu + c > max_ucb:
            max_ucb, arg_ucb = mu + c, j
        if rho > max_rho:
            max_rho, arg_rho = rho, j
    if (max_ucb if plus else max_mu) >= level:
        return arg_rho
    if max_ucb < level:
        return arg_ucb
    eligible = np.empty(n_arms, dtype=np.int64)
    m = 0
    for j in range(n_arms):
        if sums[j] / counts[j] + r_t / math.sqrt(counts[j]) >= level:
            eligible[m] = j
            m += 1
    return eligible[rng.stream_integer(stream, m)]


@njit(cache=True)
def run_index_policy(policy, arm_means, arm_counts, run_horizons, per_horizon, level, r_star, sigma,
                     reward_code, noise_keys, policy_keys, checkpoints, curves):
    """What :func:`loops.run_index_policy` writes into ``curves`` (R, 3, C): satisficing regret, regret and
    reward at the checkpoints (run g of a replication: arm set g, policy sub-stream g)."""
    n_chk = checkpoints.shape[0]
    for r in range(noise_keys.shape[0]):
        for g in range(arm_counts.shape[0]):
            stream = np.empty(4, dtype=np.uint64)
            stream[0], stream[1], stream[2], stream[3] = policy_keys[r], rng.TAG_POLICY, g, 0
            n_arms = arm_counts[g]
            counts = np.zeros(n_arms)
            sums = np.zeros(n_arms)
            horizon = checkpoints[g] if per_horizon else checkpoints[n_chk - 1]
            log_h = math.log(run_horizons[g])
            sat = reg = rew = 0.0
            c = g if per_horizon else 0
            for t in range(1, horizon + 1):
                if policy == _TS:
                    arm = _gaussian_ts(counts, sums, n_arms, stream)
                elif policy == _BETA_TS:
                    arm = _beta_ts(counts, sums, n_arms, stream)
                elif policy == _UNIFORM_UCB:
                    arm = _uniform_ucb(t, counts, sums, n_arms, log_h)
                else:
                    arm = _sat_ucb(t - 1, counts, sums, n_arms, level, policy == _SAT_UCB_PLUS, stream)
                mean = arm_means[g, arm]
                y = observe(reward_code, mean, sigma, noise_keys[r], t)
                counts[arm] += 1.0
                sums[arm] += y
                sat += max(level - mean, 0.0)
                reg += r_star - mean
                rew += y
                if (per_horizon and t == horizon) or (not per_horizon and t == checkpoints[c]):
                    curves[r, 0, c], curves[r, 1, c], curves[r, 2, c] = sat, reg, rew
                    if not per_horizon:
                        c += 1
