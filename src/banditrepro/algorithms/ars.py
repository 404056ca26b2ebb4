"""Adaptive round-size policies of Wang, Wang & Huang (AAAI 2021): ARS-UCB, ARS-EXP3, ARS-CLW.

All three play an arm for a whole *round* of consecutive slots and only use the sum of the anonymous
observations received during the round (spec §2.1-§2.3, §5). This module holds the decision kernels (round
sizes, indices, EXP3 weights, phase schedules); the loops that play them round by round against the composite
environment are in :mod:`banditrepro.experiments.composite_anonymous.loops`.

* ARS-UCB (Algorithm 1): index u_i = min(M_i/N_i + sqrt(α ln t / N_i), 1) with t = slots elapsed, rounds of
  f(K_i) slots for arm i's K_i-th round; ties (within 1e-9, spec §6.14) go to the smallest N_i, then index.
* ARS-EXP3 (Algorithm 2): round k has g(k) = ceil(k^β) slots; p_i = (1-γ) e^{w_i/g(K)}/Σ + γ/N;
  w_a += γ min(Z(k), g(k))/(N p_a); the T - G(K) leftover slots are one more draw without update (§6.8).
* ARS-CLW (Algorithm 3): CLW (see :mod:`banditrepro.algorithms.clw`) restarted on doubling phases with the
  delay guess d^(k) = h(T^(k)); implemented as the phase schedule fed to CLW's kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

ROUND_POWER = 0  # f(k) = c * k^beta
ROUND_EXPONENTIAL = 1  # f(k) = 2^(k+c), with f(1) = 2^(2+c)

TIE_TOLERANCE = 1e-9


@njit(cache=True)
def round_size(kind, scale, power, k):
    """f(k): ``ROUND_POWER``: scale·k^power (integer power); ``ROUND_EXPONENTIAL``: 2^(k+scale), f(1)=2^(2+scale)."""
    if kind == ROUND_EXPONENTIAL:
        e = k + scale if k >= 2 else 2 + scale
        return np.int64(1) << np.int64(e)
    v = scale
    for _ in range(power):
        v *= k
    return np.int64(v)


@njit(cache=True)
def ars_ucb_choose(sums, counts, t, alpha):
    """argmax_i min(M_i/N_i + sqrt(α ln t/N_i), 1); near-ties (1e-9) → smallest N_i, then smallest index."""
    n = sums.size
    log_t = math.log(t)
    best = -1
    best_u = -np.inf
    for i in range(n):
        u = sums[i] / counts[i] + math.sqrt(alpha * log_t / counts[i])
        if u > 1.0:
            u = 1.0
        if best < 0 or u > best_u + TIE_TOLERANCE:
            best, best_u = i, u
        elif u >= best_u - TIE_TOLERANCE and counts[i] < counts[best]:
            best = i
            if u > best_u:
                best_u = u
    return best


# ----------------------------------------------------------------------------------------------------
# ARS-EXP3


def ars_exp3_schedule(horizon: int, n_arms: int, beta: float = 0.5) -> tuple[np.ndarray, float]:
    """Round sizes g(1..K) (+ the leftover as a last entry, 0 if none) and γ of Theorem 2."""
    sizes = []
    total = 0
    k = 1
    while True:
        g = math.ceil(k ** beta - 1e-12)
        if total + g > horizon:
            break
        sizes.append(g)
        total += g
        k += 1
    leftover = horizon - total
    gamma = min(1.0, math.sqrt(n_arms * math.log(n_arms) / ((math.e - 1) * ((beta + 1) * horizon) ** (1 / (beta + 1)))))
    return np.array(sizes + [leftover], dtype=np.int64), gamma


@njit(cache=True)
def ars_exp3_probs(weights, g_last, gamma, out):
    """p_i = (1-γ) exp(w_i/g(K))/Σ_j exp(w_j/g(K)) + γ/N (computed with w - max w)."""
    n = weights.size
    wmax = weights.max()
    total = 0.0
    for i in range(n):
        out[i] = math.exp((weights[i] - wmax) / g_last)
        total += out[i]
    for i in range(n):
        out[i] = (1.0 - gamma) * out[i] / total + gamma / n
    return out


@njit(cache=True)
def ars_exp3_update(weights, probs, arm, round_sum, round_len, gamma):
    """w_a += γ min(Z(k), g(k)) / (N p_a)."""
    z = round_sum if round_sum < round_len else round_len
    weights[arm] += gamma * z / (weights.size * probs[arm])


# ----------------------------------------------------------------------------------------------------
# ARS-CLW: CLW on doubling phases with delay guesses h(T^(k))


def ars_clw_phases(horizon: int, first_phase: int, h) -> tuple[np.ndarray, np.ndarray]:
    """Phase ends T^(k) = T^(1) 2^(k-1) (last one cut at T) and guesses d^(k) = h(T^(k)) (h increasing, < T)."""
    ends, guesses = [], []
    end = int(first_phase)
    while True:
        guesses.append(max(1, int(h(end))))
        ends.append(min(end, horizon))
        if end >= horizon:
            break
        end *= 2
    return np.array(ends, dtype=np.int64), np.array(guesses, dtype=np.int64)

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "ars_ucb": ("ars_ucb_choose", "round_size"),
    "ars_exp3": ("ars_exp3_schedule", "ars_exp3_probs", "ars_exp3_update"),
    "ars_clw": ("ars_clw_phases",),
}
