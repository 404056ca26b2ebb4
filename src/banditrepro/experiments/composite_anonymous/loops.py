"""Compiled simulation loops of composite_anonymous: the policies of :mod:`banditrepro.algorithms.ars`,
:mod:`~banditrepro.algorithms.odaaf` and :mod:`~banditrepro.algorithms.clw` played against the environments of
:mod:`banditrepro.environments.composite`.

They live here, not beside the policies, because only this paper needs them (the rule is in
:mod:`banditrepro.engine`): the algorithms modules keep the decision kernels (indices, round sizes, phase
lengths, elimination, EXP3 weights, block-end rules) and know no environment.

* :func:`ars_ucb_run`, :func:`odaaf_run`: stochastic Bernoulli totals spread by a shape, stepped round by round
  (block by block) with :func:`~banditrepro.environments.composite.play_block`; pseudo-regret curves.
* :func:`ars_exp3_run`, :func:`clw_run`: replays of an adversarial reward matrix slot by slot with
  :func:`~banditrepro.environments.composite.adversarial_slot`; realised-reward curves.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ... import rng as _rng
from ...algorithms.ars import ars_exp3_probs, ars_exp3_update, ars_ucb_choose, round_size
from ...algorithms.clw import block_ends_at, exp3_probs, exp3_update
from ...algorithms.odaaf import eliminate, phase_length
from ...environments.composite import adversarial_slot, new_state, play_block, reset_state


@njit(cache=True)
def record_block(checkpoints, ci, t0, length, base, slope, out):
    """Write base + slope·(c - t0) for every 1-based checkpoint c in (t0, t0+length]; return the next index."""
    end = t0 + length
    while ci < checkpoints.size and checkpoints[ci] <= end:
        out[ci] = base + slope * (checkpoints[ci] - t0)
        ci += 1
    return ci


@njit(cache=True)
def play_and_record(env, key, buffers, pulls, t, arm, length, checkpoints, ci, reg, gaps, regret_row):
    """Pull ``arm`` in slots t..t+length-1 of the stochastic environment and extend the pseudo-regret curve.

    ``env`` = (kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means) and ``buffers`` =
    :func:`~banditrepro.environments.composite.new_state`'s (x, prefix, arrivals, rec, tail). Returns (sum of the
    observations, next checkpoint index, regret after the block).
    """
    kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means = env
    x, prefix, arrivals, rec, tail = buffers
    y = play_block(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, key,
                   x, prefix, arrivals, rec, tail, pulls, t, arm, length)
    ci = record_block(checkpoints, ci, t, length, reg, gaps[arm], regret_row)
    return y, ci, reg + gaps[arm] * length


@njit(cache=True)
def start_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, horizon, n_reps, n_checkpoints):
    """(env, buffers, outputs) of a run on the stochastic environment: ``env`` and ``buffers`` as
    :func:`play_and_record` takes them (the buffers are reused across replications), outputs = (regret (R, C),
    one count per replication (R,), pulls (R, N))."""
    env = (kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means)
    buffers = new_state(kind, horizon, delay_high, exp_rate.size)
    outputs = (np.zeros((n_reps, n_checkpoints)), np.zeros(n_reps), np.zeros((n_reps, means.size)))
    return env, buffers, outputs


@njit(cache=True)
def start_replication(buffers, n_arms):
    """Reset the environment buffers; fresh (pulls (int), observation sums, slot counts) per arm."""
    reset_state(buffers[2], buffers[3])
    return np.zeros(n_arms, dtype=np.int64), np.zeros(n_arms), np.zeros(n_arms)


@njit(cache=True)
def ars_ucb_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, gaps, horizon,
                alpha, f_kind, f_scale, f_power, noise_keys, checkpoints):
    """ARS-UCB on the stochastic composite environment; (regret (R, C), rounds (R,), pulls (R, N))."""
    N = means.size
    env, buffers, outputs = start_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, horizon,
                                      noise_keys.size, checkpoints.size)
    regret, rounds, pulls_out = outputs
    for r in range(noise_keys.size):
        key = noise_keys[r]
        pulls, sums, counts = start_replication(buffers, N)
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
            y, ci, reg = play_and_record(env, key, buffers, pulls, t, arm, length, checkpoints, ci, reg, gaps, regret[r])
            sums[arm] += y
            counts[arm] += length
            next_round[arm] += 1
            t += length
            n_rounds += 1
        rounds[r] = n_rounds
        pulls_out[r] = counts
    return regret, rounds, pulls_out

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
            for _j in range(length):
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

@njit(cache=True)
def odaaf_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, gaps, horizon,
              variant, mean_delay, var_delay, bound, noise_keys, checkpoints):
    """ODAAF on the stochastic composite environment; (regret (R, C), phases (R,), pulls (R, N))."""
    N = means.size
    env, buffers, outputs = start_run(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, horizon,
                                      noise_keys.size, checkpoints.size)
    regret, phases, pulls_out = outputs
    for r in range(noise_keys.size):
        key = noise_keys[r]
        pulls, sums, counts = start_replication(buffers, N)
        active = np.ones(N, dtype=np.bool_)
        played = np.zeros(N)
        t = 0
        reg = 0.0
        ci = 0
        delta = 0.5
        n_prev = 0
        m = 1
        while t < horizon:
            n_active = 0
            last = -1
            for i in range(N):
                if active[i]:
                    n_active += 1
                    last = i
            final_arm = -1
            if n_active == 1:
                final_arm = last
            elif horizon * delta * delta <= math.e:
                final_arm = -2
            if final_arm != -1:
                if final_arm == -2:  # guard: commit to the empirically best active arm
                    best_mean = -np.inf
                    for i in range(N):
                        if active[i] and sums[i] / counts[i] > best_mean:
                            final_arm, best_mean = i, sums[i] / counts[i]
                length = horizon - t
                _, ci, reg = play_and_record(env, key, buffers, pulls, t, final_arm, length, checkpoints, ci, reg, gaps,
                                             regret[r])
                played[final_arm] += length
                t = horizon
                break
            n_m = phase_length(variant, m, delta, horizon, mean_delay, var_delay, bound)
            step = n_m - n_prev
            for i in range(N):  # Step 1: each active arm, in index order
                if not active[i] or t >= horizon:
                    continue
                length = min(step, horizon - t)
                y, ci, reg = play_and_record(env, key, buffers, pulls, t, i, length, checkpoints, ci, reg, gaps, regret[r])
                sums[i] += y
                counts[i] += length
                played[i] += length
                t += length
            if t >= horizon:
                break
            best = eliminate(sums, counts, active, delta)  # Step 2
            delta *= 0.5  # Step 3
            length = min(step, horizon - t)  # Step 4: bridge on the best arm, observations discarded
            _, ci, reg = play_and_record(env, key, buffers, pulls, t, best, length, checkpoints, ci, reg, gaps, regret[r])
            played[best] += length
            t += length
            n_prev = n_m
            m += 1
        phases[r] = m
        pulls_out[r] = played
    return regret, phases, pulls_out
