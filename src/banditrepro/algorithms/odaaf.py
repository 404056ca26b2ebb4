"""ODAAF (Pike-Burke, Agrawal, Szepesvári & Grünewälder, ICML 2018, Alg. 1) and its generalisation.

Phase elimination with known delay statistics and known T (spec §2.4, a reconstruction [B]):

* phase m plays every active arm for n_m - n_{m-1} consecutive slots; X̄_i averages the observations of
  ALL slots in which i was played in phases 1..m (|T_i| = n_m);
* arms with X̄_j + Δ̃_m < max_i X̄_i are eliminated, Δ̃_{m+1} = Δ̃_m/2 (Δ̃_1 = 1/2);
* a bridge of n_m - n_{m-1} slots on the empirically best active arm follows, its observations discarded
  (so the next phase's estimates are not polluted by the previous arm's spill-over);
* one arm left: it is played to T; T Δ̃_m² ≤ e (guard): the empirically best active arm is played to T.

Phase lengths (L_m = ln(T Δ̃_m²)):

* ``ODAAF``   (E[τ] known):  n_m = ⌈Δ̃^{-2}(√(2L) + √(2L + 8/3 Δ̃ L + 6 Δ̃ m E[τ]))²⌉   (eq. 3)
* ``ODAAF_V`` (E, Var known): 6 Δ̃ m E[τ] → 4 Δ̃ (E[τ] + 2 Var(τ))
* ``ODAAF_B`` (delay ≤ d):   max{⌈Δ̃^{-2}(√(2L) + √(2L + 8/3 Δ̃ L + 4 Δ̃ E[τ]))²⌉, m d̃_m},
  d̃_m = min{d, n_m^(3)/m} with n_m^(3) the eq. (3) value.

Generalised ODAAF (Garg & Akash 2019, reconstructed, spec §2.5): the same with E[τ] := D, the interval size.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

ODAAF = 0
ODAAF_V = 1
ODAAF_B = 2
VARIANTS = {"odaaf": ODAAF, "odaaf_v": ODAAF_V, "odaaf_b": ODAAF_B}


@njit(cache=True)
def _eq3(delta, log_term, extra):
    a = math.sqrt(2.0 * log_term)
    b = math.sqrt(2.0 * log_term + (8.0 / 3.0) * delta * log_term + extra)
    return math.ceil((a + b) ** 2 / (delta * delta))


@njit(cache=True)
def phase_length(variant, m, delta, horizon, mean_delay, var_delay, bound):
    """n_m of phase m (1-based) with gap estimate Δ̃_m = delta; needs T Δ̃² > 1."""
    log_term = math.log(horizon * delta * delta)
    n3 = _eq3(delta, log_term, 6.0 * delta * m * mean_delay)
    if variant == ODAAF:
        return np.int64(n3)
    if variant == ODAAF_V:
        return np.int64(_eq3(delta, log_term, 4.0 * delta * (mean_delay + 2.0 * var_delay)))
    d_m = min(bound, n3 / m)
    return np.int64(max(_eq3(delta, log_term, 4.0 * delta * mean_delay), math.ceil(m * d_m)))


@njit(cache=True)
def eliminate(sums, counts, active, delta):
    """Drop active arms with X̄_j + Δ̃ < max_i X̄_i; return the empirically best active arm."""
    best = -1
    best_mean = -np.inf
    for i in range(sums.size):
        if active[i] and sums[i] / counts[i] > best_mean:
            best, best_mean = i, sums[i] / counts[i]
    for i in range(sums.size):
        if active[i] and sums[i] / counts[i] + delta < best_mean:
            active[i] = False
    return best

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "odaaf": ("phase_length", "eliminate"),
}
