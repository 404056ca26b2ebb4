"""CLW (Cesa-Bianchi, Gentile & Mansour, COLT 2018) with its EXP3 subroutine (Auer et al. 2002).

Reconstruction (spec §2.6, §2.7; the original's exact block rule could not be consulted): blocks of one arm
end at slot t when the coin B_t ~ Bern(q = 1/(2d̂)) is 1 and the next 2d̂-1 coins are 0 (the look-ahead rule
of the paper's Algorithm 3, ``RULE_LOOKAHEAD``), or, as an option, when B_t = 1 and the block already has
≥ 2d̂ slots (``RULE_LOOKBACK``). At a block end EXP3 gets reward x = (1/(2d̂)) Σ_{τ=t-d̂+1}^{t} Z(τ) ∈ [0, 1]
for the block's arm and a new arm is drawn. γ = min(1, sqrt(2 d̂ N ln N / (T + d̂))).

Coins are counter-based (``uniform(policy_key, TAG_POLICY, 1, t)``), so "generated 2d̂-1 steps ahead" is a
pure look-up. ARS-CLW (Algorithm 3) is this kernel with several phases, each a fresh EXP3 with its own d^(k).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng as _rng
from ..environments.composite import adversarial_slot

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


@njit(cache=True)
def clw_run(rewards, mode, d, delay_low, delay_high, best_arm, phase_ends, phase_d, phase_gamma, rule,
            noise_keys, policy_keys, checkpoints):
    """CLW (one phase) / ARS-CLW (several); (cumulative realised reward (R, C), blocks (R,))."""
    T, N = rewards.shape
    R = noise_keys.size
    C = checkpoints.size
    reward_curve = np.zeros((R, C))
    blocks = np.zeros(R)
    st = np.zeros(4, dtype=np.uint64)
    probs = np.zeros(N)
    for r in range(R):
        pk = policy_keys[r]
        st[0] = pk
        st[1] = _rng.TAG_POLICY
        st[2] = 0
        st[3] = 0
        arrivals = np.zeros(T + max(d, delay_high) + 2)
        t = 0
        ci = 0
        acc = 0.0
        prev_arm = -1
        run = 0
        n_blocks = 0
        for ph in range(phase_ends.size):
            end = phase_ends[ph]
            d_hat = phase_d[ph]
            gamma = phase_gamma[ph]
            q = 1.0 / (2.0 * d_hat)
            log_w = np.zeros(N)
            window = np.zeros(d_hat)  # last d̂ observations (ring)
            wsum = 0.0
            exp3_probs(log_w, gamma, probs)
            arm = _rng.stream_categorical(st, probs)
            block_len = 0
            while t < end:
                run = run + 1 if arm == prev_arm else 1
                prev_arm = arm
                obs, rew = adversarial_slot(rewards, arrivals, mode, d, delay_low, delay_high, noise_keys[r],
                                            t, arm, best_arm, run)
                acc += rew
                slot = t % d_hat
                wsum += obs - window[slot]
                window[slot] = obs
                block_len += 1
                if block_ends_at(rule, pk, q, d_hat, t, block_len, end):
                    x = wsum / (2.0 * d_hat)
                    if x > 1.0:
                        x = 1.0
                    exp3_update(log_w, probs, arm, x, gamma)
                    exp3_probs(log_w, gamma, probs)
                    arm = _rng.stream_categorical(st, probs)
                    block_len = 0
                    n_blocks += 1
                t += 1
                while ci < C and checkpoints[ci] == t:
                    reward_curve[r, ci] = acc
                    ci += 1
        blocks[r] = n_blocks
    return reward_curve, blocks
