"""Adaptive round-size policies of Wang, Wang & Huang (AAAI 2021): ARS-UCB, ARS-EXP3, ARS-CLW.

All three play an arm for a whole *round* of consecutive slots and only use the sum of the anonymous
observations received during the round, so the simulations step round by round over the block kernels of
:mod:`banditrepro.environments.composite` (spec §2.1-§2.3, §5).

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

from .. import rng as _rng
from ..environments.composite import adversarial_slot, new_state, play_block, reset_state

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


@njit(cache=True)
def record_block(checkpoints, ci, t0, length, base, slope, out):
    """Write base + slope·(c - t0) for every 1-based checkpoint c in (t0, t0+length]; return the next index."""
    end = t0 + length
    while ci < checkpoints.size and checkpoints[ci] <= end:
        out[ci] = base + slope * (checkpoints[ci] - t0)
        ci += 1
    return ci


@njit(cache=True)
def ars_ucb_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, gaps, horizon,
                alpha, f_kind, f_scale, f_power, noise_keys, checkpoints):
    """ARS-UCB on the stochastic composite environment; (regret (R, C), rounds (R,), pulls (R, N))."""
    R = noise_keys.size
    N = means.size
    C = checkpoints.size
    regret = np.zeros((R, C))
    rounds = np.zeros(R)
    pulls_out = np.zeros((R, N))
    x, prefix, arrivals, rec = new_state(kind, horizon, delay_high, exp_rate.size)  # reused across replications
    for r in range(R):
        key = noise_keys[r]
        reset_state(arrivals, rec)
        pulls = np.zeros(N, dtype=np.int64)
        sums = np.zeros(N)
        counts = np.zeros(N)
        next_round = np.ones(N, dtype=np.int64)
        t = 0
        reg = 0.0
        ci = 0
        n_rounds = 0
        arm = 0
        while t < horizon:
            if n_rounds < N:  # initialisation: arms in index order, f(1) slots each
                arm = n_rounds
            else:
                arm = ars_ucb_choose(sums, counts, t, alpha)
            length = round_size(f_kind, f_scale, f_power, next_round[arm])
            if length > horizon - t:
                length = horizon - t
            y = play_block(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, key,
                           x, prefix, arrivals, rec, pulls, t, arm, length)
            sums[arm] += y
            counts[arm] += length
            next_round[arm] += 1
            ci = record_block(checkpoints, ci, t, length, reg, gaps[arm], regret[r])
            reg += gaps[arm] * length
            t += length
            n_rounds += 1
        rounds[r] = n_rounds
        pulls_out[r] = counts
    return regret, rounds, pulls_out


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


@njit(cache=True)
def ars_exp3_run(rewards, mode, d, delay_low, delay_high, best_arm, sizes, gamma, noise_keys, policy_keys,
                 checkpoints):
    """ARS-EXP3 on a reward matrix; (cumulative realised reward (R, C), rounds (R,))."""
    T, N = rewards.shape
    R = noise_keys.size
    C = checkpoints.size
    n_full = sizes.size - 1
    g_last = float(sizes[n_full - 1])
    reward_curve = np.zeros((R, C))
    rounds = np.zeros(R)
    st = np.zeros(4, dtype=np.uint64)
    probs = np.zeros(N)
    for r in range(R):
        st[0] = policy_keys[r]
        st[1] = _rng.TAG_POLICY
        st[2] = 0
        st[3] = 0
        weights = np.zeros(N)
        arrivals = np.zeros(T + max(d, delay_high) + 2)
        t = 0
        ci = 0
        acc = 0.0
        prev_arm = -1
        run = 0
        for k in range(sizes.size):
            length = sizes[k]
            if length == 0:
                continue
            ars_exp3_probs(weights, g_last, gamma, probs)
            arm = _rng.stream_categorical(st, probs)
            z_sum = 0.0
            for j in range(length):
                run = run + 1 if arm == prev_arm else 1
                prev_arm = arm
                obs, rew = adversarial_slot(rewards, arrivals, mode, d, delay_low, delay_high, noise_keys[r],
                                            t, arm, best_arm, run)
                z_sum += obs
                acc += rew
                t += 1
                while ci < C and checkpoints[ci] == t:
                    reward_curve[r, ci] = acc
                    ci += 1
            if k < n_full:
                ars_exp3_update(weights, probs, arm, z_sum, float(length), gamma)
        rounds[r] = n_full + (1 if sizes[n_full] > 0 else 0)
    return reward_curve, rounds


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
