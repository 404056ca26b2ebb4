"""Reference: ARS-UCB and ODAAF on the stochastic composite environment, written apart from the production loops.

An independent form of :func:`loops.ars_ucb_run` / :func:`loops.odaaf_run` and of the decision kernels they
call (:mod:`banditrepro.algorithms.ars`, :mod:`banditrepro.algorithms.odaaf`), transcribed from the papers
(Wang, Wang & Huang, AAAI 2021, Algorithm 1; Pike-Burke et al., ICML 2018, Algorithm 1 and the spec's
resolutions): the index, the round sizes, the phase lengths and the elimination test are recomputed here.
Only the environment is shared: each block of slots is played by the production environment
(:func:`loops.play_and_record`, the counter-based rewards of environments/composite.py), so on the same keys
a correct production loop takes exactly the same decisions. The sanity claim ``composite_matches_reference``
reruns the first replications of an experiment with these functions and requires the build's numbers
(experiments/reference.py, docs/mutants.md).

ARS-UCB: round k of arm i lasts f(k) slots (f(k) = c k^beta, or 2^(k+c) with f(1) = 2^(2+c)); after one round
of every arm in index order, the next round goes to argmax_i min(S_i/N_i + sqrt(alpha ln t / N_i), 1), t the
slots elapsed, N_i the slots arm i was played, S_i the feedback received in them; indices within 1e-9 of the
best count as tied and go to the arm with fewer slots, then the lower index (the resolution of ties).

ODAAF: Delta_1 = 1/2; phase m plays each active arm, in index order, for n_m - n_{m-1} slots, eliminates the
arms with mean + Delta_m < the best mean, halves Delta, and plays a bridge of n_m - n_{m-1} slots on the best
arm with its feedback discarded; one arm left, or T Delta^2 <= e, the (empirically best) arm plays to T.
n_m = ceil(Delta^-2 (sqrt(2L) + sqrt(2L + 8/3 Delta L + X))^2), L = ln(T Delta^2), with X = 6 Delta m E[tau]
(ODAAF, eq. 3), 4 Delta (E[tau] + 2 Var(tau)) (ODAAF-V), and for ODAAF-B the larger of the X = 4 Delta E[tau]
value and ceil(m min(d, n_m^(3) / m)), n_m^(3) the eq. (3) value.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .loops import play_and_record, start_replication, start_run

_TIE = 1e-9
# round-size kinds and ODAAF variants as the builders pass them (algorithms.ars / algorithms.odaaf ids)
_POWER, _EXPONENTIAL = 0, 1
_ODAAF, _ODAAF_V, _ODAAF_B = 0, 1, 2


@njit(cache=True)
def _round_slots(kind, scale, power, k):
    if kind == _EXPONENTIAL:
        return np.int64(2 ** (k + scale)) if k >= 2 else np.int64(2 ** (2 + scale))
    return np.int64(scale * k ** power)


@njit(cache=True)
def _ars_arm(sums, counts, t, alpha):
    best, best_u = -1, -np.inf
    for i in range(sums.size):
        u = min(sums[i] / counts[i] + math.sqrt(alpha * math.log(t) / counts[i]), 1.0)
        if best < 0 or u > best_u + _TIE:
            best, best_u = i, u
        elif u >= best_u - _TIE and counts[i] < counts[best]:
            best, best_u = i, max(u, best_u)
    return best


@njit(cache=True)
def ars_ucb_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, gaps, horizon,
                alpha, f_kind, f_scale, f_power, noise_keys, checkpoints):
    """What :func:`loops.ars_ucb_run` returns: (regret (R, C), rounds (R,), slots per arm (R, N))."""
    n_arms = means.size
    env, buffers, outputs = start_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, horizon,
                                      noise_keys.size, checkpoints.size)
    regret, rounds, slots_out = outputs
    for r in range(noise_keys.size):
        pulls, feedback, slots = start_replication(buffers, n_arms)
        rounds_of = np.zeros(n_arms, dtype=np.int64)
        t, reg, ci, played_rounds = 0, 0.0, 0, 0
        while t < horizon:
            arm = played_rounds if played_rounds < n_arms else _ars_arm(feedback, slots, t, alpha)
            rounds_of[arm] += 1
            length = min(_round_slots(f_kind, f_scale, f_power, rounds_of[arm]), horizon - t)
            y, ci, reg = play_and_record(env, noise_keys[r], buffers, pulls, t, arm, length, checkpoints, ci, reg,
                                         gaps, regret[r])
            feedback[arm] += y
            slots[arm] += length
            t += length
            played_rounds += 1
        rounds[r] = played_rounds
        slots_out[r] = slots
    return regret, rounds, slots_out


@njit(cache=True)
def _eq3(gap, log_term, extra):
    root = math.sqrt(2.0 * log_term)
    return math.ceil((root + math.sqrt(2.0 * log_term + (8.0 / 3.0) * gap * log_term + extra)) ** 2 / (gap * gap))


@njit(cache=True)
def _phase_slots(variant, m, gap, horizon, mean_delay, var_delay, bound):
    log_term = math.log(horizon * gap * gap)
    eq3 = _eq3(gap, log_term, 6.0 * gap * m * mean_delay)
    if variant == _ODAAF_V:
        return np.int64(_eq3(gap, log_term, 4.0 * gap * (mean_delay + 2.0 * var_delay)))
    if variant == _ODAAF_B:
        return np.int64(max(_eq3(gap, log_term, 4.0 * gap * mean_delay), math.ceil(m * min(bound, eq3 / m))))
    return np.int64(eq3)


@njit(cache=True)
def _best_active(feedback, slots, active):
    best, best_mean = -1, -np.inf
    for i in range(feedback.size):
        if active[i] and feedback[i] / slots[i] > best_mean:
            best, best_mean = i, feedback[i] / slots[i]
    return best, best_mean


@njit(cache=True)
def odaaf_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, gaps, horizon,
              variant, mean_delay, var_delay, bound, noise_keys, checkpoints):
    """What :func:`loops.odaaf_run` returns: (regret (R, C), phases (R,), slots per arm (R, N))."""
    n_arms = means.size
    env, buffers, outputs = start_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, horizon,
                                      noise_keys.size, checkpoints.size)
    regret, phases, played_out = outputs
    for r in range(noise_keys.size):
        key = noise_keys[r]
        pulls, feedback, slots = start_replication(buffers, n_arms)
        active = np.ones(n_arms, dtype=np.bool_)
        played = np.zeros(n_arms)
        t, reg, ci, gap, previous, m = 0, 0.0, 0, 0.5, 0, 1
        while t < horizon:
            if active.sum() == 1 or horizon * gap * gap <= math.e:  # play one arm to the horizon
                last = np.flatnonzero(active)[0] if active.sum() == 1 else _best_active(feedback, slots, active)[0]
                _, ci, reg = play_and_record(env, key, buffers, pulls, t, last, horizon - t, checkpoints, ci, reg,
                                             gaps, regret[r])
                played[last] += horizon - t
                t = horizon
                break
            n_m = _phase_slots(variant, m, gap, horizon, mean_delay, var_delay, bound)
            step = n_m - previous
            for i in range(n_arms):
                if active[i] and t < horizon:
                    length = min(step, horizon - t)
                    y, ci, reg = play_and_record(env, key, buffers, pulls, t, i, length, checkpoints, ci, reg, gaps,
                                                 regret[r])
                    feedback[i] += y
                    slots[i] += length
                    played[i] += length
                    t += length
            if t >= horizon:
                break
            best, best_mean = _best_active(feedback, slots, active)
            for i in range(n_arms):
                if active[i] and feedback[i] / slots[i] + gap < best_mean:
                    active[i] = False
            gap *= 0.5
            length = min(step, horizon - t)  # the bridge: feedback discarded
            _, ci, reg = play_and_record(env, key, buffers, pulls, t, best, length, checkpoints, ci, reg, gaps,
                                         regret[r])
            played[best] += length
            t += length
            previous = n_m
            m += 1
        phases[r] = m
        played_out[r] = played
    return regret, phases, played_out
