"""CLW (Cesa-Bianchi, Gentile & Mansour, COLT 2018) with its EXP3 subroutine (Auer et al. 2002).

Reconstruction (spec §2.6, §2.7; the original's exact block rule could not be consulted): blocks of one arm
end at slot t when the coin B_t ~ Bern(q = 1/(2d̂)) is 1 and the next 2d̂-1 coins are 0 (the look-ahead rule
of the paper's Algorithm 3, ``RULE_LOOKAHEAD``), or, as an option, when B_t = 1 and the block already has
≥ 2d̂ slots (``RULE_LOOKBACK``). At a block end EXP3 gets reward x = (1/(2d̂)) Σ_{τ=t-d̂+1}^{t} Z(τ) ∈ [0, 1]
for the block's arm and a new arm is drawn. γ = min(1, sqrt(2 d̂ N ln N / (T + d̂))).

Coins are counter-based (``uniform(policy_key, TAG_POLICY, 1, t)``), so "generated 2d̂-1 steps ahead" is a
pure look-up. ARS-CLW (Algorithm 3) is CLW with several phases, each a fresh EXP3 with its own d^(k); the loop
over slots (``clw_run``) is in :mod:`banditrepro.experiments.composite_anonymous.loops`.
"""

from __future__ import annotations

import math

from numba import njit

from .. import rng as _rng

RULE_LOOKAHEAD = 0
RULE_LOOKBACK = 1


def clw_gamma(d_hat: int, n_arms: int, horizon: int) -> float:
    return min(1.0, math.sqrt(2.0 * d_hat * n_arms * math.log(n_arms) / (horizon + d_hat)))


@njit(cache=True)
def exp3_probs(log_w, gamma, out):
    """p_i = (1-γ) w_i/Σw + γ/N from log-weights."""
    n = log_w.size
    m = log_w.max()
    total = 0.0
    for i in range(n):
        out[i] = math.exp(log_w[i] - m)
        total += out[i]
    for i in range(n):
        out[i] = (1.0 - gamma) * out[i] / total + gamma / n
    return out


@njit(cache=True)
def exp3_update(log_w, probs, arm, x, gamma):
    """x̂ = x/p_I; w_I ← w_I exp(γ x̂/N) (log domain)."""
    log_w[arm] += gamma * (x / probs[arm]) / log_w.size


@njit(cache=True)
def coin(policy_key, q, t):
    """B_t ~ Bernoulli(q), a pure function of (key, t)."""
    return _rng.uniform(policy_key, _rng.TAG_POLICY, 1, t) <= q


@njit(cache=True)
def block_ends_at(rule, policy_key, q, d_hat, t, block_len, phase_end):
    """Does the current block end at slot t (0-based)? Look-ahead coins are cut at the phase end."""
    if not coin(policy_key, q, t):
        return False
    if rule == RULE_LOOKBACK:
        return block_len >= 2 * d_hat
    stop = t + 2 * d_hat
    for u in range(t + 1, stop):
        if u >= phase_end:
            break
        if coin(policy_key, q, u):
            return False
    return True

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "clw": ("clw_gamma", "exp3_probs", "exp3_update", "block_ends_at"),
    "ars_clw": ("clw_gamma", "exp3_probs", "exp3_update", "block_ends_at"),
}
