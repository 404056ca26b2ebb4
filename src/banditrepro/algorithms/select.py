"""SELECT (Feng, Ma and Zhu, Algorithm 1), generic over its learning oracle, with the ablations of
Appendix E and the gamma scale lambda of Appendix F (satisficing_select spec §2.1, §2.3).

Round i (gamma_i = lambda 2^(-i(1-alpha)/alpha), t_i = ceil(gamma_i^(-1/(1-alpha))),
T_i = ceil(gamma_i^(-2)), both guarded against float error):

1. run a *fresh* oracle ALG(t_i) for t_i steps and keep one arm of its trajectory uniformly at
   random (reservoir sampling: at step s the candidate is replaced with probability 1/s);
2. pull the candidate T_i times;
3. before every further pull (the first check right after Step 2, k = 0) compute
   LCB = tot/n - sqrt(c ln(n)/n) from this round's Step-2/3 rewards (c = 4 as printed) and end the
   round as soon as LCB < S.
The run stops when the horizon is reached, in whatever step; every pull counts.

Oracles (``oracle`` code): ``ORACLE_TS`` Gaussian Thompson sampling on a finite instance;
``ORACLE_UNIFORM_UCB`` uniformly discretized UCB, the grid of round i given as row i-1 of a
padded table of grid means (the grid depends on t_i); ``ORACLE_CONVEX_1D`` Agarwal et al.'s 1-D
algorithm on a concave mean function.

Variants (all off = Algorithm 1 as printed): ``skip_step1`` (candidate ~ Uniform([0,1]^d), no
oracle), ``skip_step2`` (LCB test from n = 1: pull once, then check before every further pull),
``skip_step3`` (a round ends after its T_i forced pulls), ``radius_coef`` c, and two
sensitivity variants that are not the paper's algorithm: ``reuse_step1`` (the round's Step-1
rewards of the candidate arm also enter the LCB test) and ``warm_start`` (the oracle is not
restarted: its data carry over from round to round and only its horizon becomes t_i; defined for
the Thompson-sampling and convex oracles, whose arm sets do not change with t_i).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import rng
from ..environments.continuous import env_mean, noise
from .convex_1d import STATE_SIZE as CONVEX_STATE_SIZE
from .convex_1d import convex_choose, convex_reset, convex_set_horizon, convex_update
from .lipschitz_ucb import guarded_ceil, ucb_choose, ucb_update
from .thompson import gaussian_ts_choose, gaussian_ts_update

ORACLE_TS = 0
ORACLE_UNIFORM_UCB = 1
ORACLE_CONVEX_1D = 2
ORACLES = {"thompson": ORACLE_TS, "uniform_ucb": ORACLE_UNIFORM_UCB, "convex_1d": ORACLE_CONVEX_1D}
ORACLE_ALPHA = {"thompson": 0.5, "convex_1d": 0.5}  # uniform_ucb: (d+1)/(d+2)

# curves[r, metric, checkpoint]
CURVE_NAMES = ("satisficing_regret", "regret", "reward", "round")
# finals[r, column]
FINAL_NAMES = ("rounds_started", "step_at_end", "first_passing_round", "final_candidate_mean")
# phase codes recorded in ``step_at_end``
PHASE_ORACLE, PHASE_FORCED, PHASE_TEST = 1, 2, 3


def round_schedule(i: int, alpha: float, scale: float = 1.0) -> tuple[int, int]:
    """(t_i, T_i) of round i (1-based) for oracle exponent alpha and gamma scale lambda."""
    if not 0.0 < alpha < 1.0 or scale <= 0 or i < 1:
        raise ValueError("need 0 < alpha < 1, scale > 0, i >= 1")
    gamma = scale * 2.0 ** (-i * (1.0 - alpha) / alpha)
    return guarded_ceil(gamma ** (-1.0 / (1.0 - alpha))), guarded_ceil(gamma ** -2.0)


def schedule_table(horizon: int, alpha: float, scale: float = 1.0, include_step1: bool = True,
                   include_step2: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(t_i), (T_i) for every round that can start before ``horizon``.

    A round takes at least t_i + T_i steps (fewer only if the horizon cuts it), so rounds are
    listed while the sum of the minimal lengths of the earlier rounds is below the horizon; a
    round without Step 1 and Step 2 (not a paper variant) would take at least one step.
    """
    ts, big_ts = [], []
    start = 0
    i = 0
    while start < horizon:
        i += 1
        t_i, big_t = round_schedule(i, alpha, scale)
        ts.append(t_i)
        big_ts.append(big_t)
        start += max(1, (t_i if include_step1 else 0) + (big_t if include_step2 else 0))
    return np.array(ts, dtype=np.int64), np.array(big_ts, dtype=np.int64)


@dataclass(frozen=True)
class SelectVariant:
    """Which steps run and how the LCB test is computed (defaults: Algorithm 1 as printed)."""

    skip_step1: bool = False
    skip_step2: bool = False
    skip_step3: bool = False
    radius_coef: float = 4.0
    reuse_step1: bool = False
    gamma_scale: float = 1.0
    warm_start: bool = False

    def __post_init__(self):
        if self.radius_coef < 0 or self.gamma_scale <= 0:
            raise ValueError("radius_coef must be >= 0 and gamma_scale > 0")
        if self.skip_step1 and (self.reuse_step1 or self.warm_start):
            raise ValueError("reuse_step1 and warm_start need Step 1")


@njit(cache=True)
def _pull(mean, pos, noise_key, sigma, level, r_star, acc, checkpoints, curves, r, round_index):
    """One step on an arm of true mean ``mean``: observation, regret bookkeeping, checkpoint."""
    t = pos[0] + 1
    pos[0] = t
    y = mean + sigma * noise(noise_key, t)
    acc[0] += max(level - mean, 0.0)
    acc[1] += r_star - mean
    acc[2] += y
    c = pos[1]
    if c < checkpoints.shape[0] and t == checkpoints[c]:
        curves[r, 0, c] = acc[0]
        curves[r, 1, c] = acc[1]
        curves[r, 2, c] = acc[2]
        curves[r, 3, c] = round_index
        pos[1] = c + 1
    return y


@njit(cache=True)
def run_select(oracle, env_code, env_params, dim, grid_means, grid_sizes, round_t, round_big_t,
               level, r_star, sigma, radius_coef, skip_step1, skip_step2, skip_step3, reuse_step1,
               warm_start, noise_keys, policy_keys, checkpoints, curves, finals, round_candidate_mean, round_checks_passed):
    """Run SELECT for each replication up to ``checkpoints[-1]`` steps.

    Outputs (pre-allocated): ``curves`` (R, 4, C) -- see CURVE_NAMES; ``finals`` (R, 4) -- see
    FINAL_NAMES; ``round_candidate_mean`` (R, D) r(X_hat_i) of rounds 1..D (nan if the round chose no
    candidate before the horizon); ``round_checks_passed`` (R, D): number of LCB checks the round
    passed (= Step-3 pulls made; -1 if the round never reached its first check).
    """
    n_reps = noise_keys.shape[0]
    horizon = checkpoints[-1]
    n_rounds_table = round_t.shape[0]
    n_diag = round_candidate_mean.shape[1]
    k_max = max(grid_sizes.max(), env_params.shape[0])
    max_t1 = round_t.max()
    counts = np.zeros(k_max)
    sums = np.zeros(k_max)
    index = np.zeros(k_max)
    convex_state = np.zeros(CONVEX_STATE_SIZE)
    step1_key = np.zeros(max_t1)
    step1_reward = np.zeros(max_t1)
    point = np.zeros(max(dim, 1))
    acc = np.zeros(3)
    pos = np.zeros(2, dtype=np.int64)
    stream = np.empty(4, dtype=np.uint64)
    for r in range(n_reps):
        stream[0] = policy_keys[r]
        stream[1] = rng.TAG_POLICY
        stream[2] = 0
        stream[3] = 0
        noise_key = noise_keys[r]
        acc[:] = 0.0
        pos[:] = 0
        round_candidate_mean[r, :] = math.nan
        round_checks_passed[r, :] = -1.0
        first_passing = 0
        cand_mean = math.nan
        phase = PHASE_ORACLE
        i = 0
        while pos[0] < horizon and i < n_rounds_table:
            i += 1
            t_i = round_t[i - 1]
            big_t = round_big_t[i - 1]
            phase = PHASE_ORACLE
            # ---- Step 1: candidate from a fresh oracle's trajectory (or uniform, ablation)
            cand_key = math.nan
            if skip_step1:
                for q in range(dim):
                    point[q] = rng.stream_uniform(stream)
                cand_mean = env_mean(env_code, env_params, point)
            else:
                n_arms = 0
                log_h = math.log(t_i)
                fresh = i == 1 or not warm_start
                if oracle == ORACLE_TS:
                    n_arms = env_params.shape[0]
                elif oracle == ORACLE_UNIFORM_UCB:
                    n_arms = grid_sizes[i - 1]
                elif fresh:
                    convex_reset(convex_state, t_i, sigma)
                else:
                    convex_set_horizon(convex_state, t_i)
                if fresh:
                    counts[:n_arms] = 0.0
                    sums[:n_arms] = 0.0
                s = 0
                while s < t_i and pos[0] < horizon:
                    s += 1
                    if oracle == ORACLE_TS:
                        arm = gaussian_ts_choose(counts, sums, n_arms, stream)
                        key = float(arm)
                        mean = env_params[arm]
                    elif oracle == ORACLE_UNIFORM_UCB:
                        arm = ucb_choose(s, index, n_arms)
                        key = float(arm)
                        mean = grid_means[i - 1, arm]
                    else:
                        point[0] = convex_choose(convex_state)
                        key = point[0]
                        mean = env_mean(env_code, env_params, point)
                    y = _pull(mean, pos, noise_key, sigma, level, r_star, acc, checkpoints, curves, r, i)
                    if oracle == ORACLE_TS:
                        gaussian_ts_update(counts, sums, arm, y)
                    elif oracle == ORACLE_UNIFORM_UCB:
                        ucb_update(counts, sums, index, arm, y, log_h)
                    else:
                        convex_update(convex_state, y)
                    step1_key[s - 1] = key
                    step1_reward[s - 1] = y
                    # reservoir sampling: after s steps the candidate is uniform on the trajectory
                    if rng.stream_uniform(stream) * s <= 1.0:
                        cand_key = key
                        cand_mean = mean
                if s < t_i:
                    break  # horizon reached inside Step 1: no candidate this round
            if i <= n_diag:
                round_candidate_mean[r, i - 1] = cand_mean
            # ---- Step 2: forced sampling
            tot = 0.0
            n = 0
            if reuse_step1:
                for q in range(t_i):
                    if step1_key[q] == cand_key:
                        tot += step1_reward[q]
                        n += 1
            if pos[0] >= horizon:
                break
            if not skip_step2:
                phase = PHASE_FORCED
                m = 0
                while m < big_t and pos[0] < horizon:
                    tot += _pull(cand_mean, pos, noise_key, sigma, level, r_star, acc, checkpoints, curves, r, i)
                    n += 1
                    m += 1
                if m < big_t:
                    break
            if skip_step3:
                continue
            # ---- Step 3: LCB test before every further pull
            phase = PHASE_TEST
            passed = 0
            checked = False
            while True:
                if n > 0:
                    checked = True
                    lcb = tot / n - math.sqrt(radius_coef * math.log(n) / n)
                    if lcb < level:
                        break
                    passed += 1
                if pos[0] >= horizon:
                    break
                tot += _pull(cand_mean, pos, noise_key, sigma, level, r_star, acc, checkpoints, curves, r, i)
                n += 1
            if checked:
                # ``passed`` counts checks with LCB >= S; each was followed by a pull unless T was hit
                if i <= n_diag:
                    round_checks_passed[r, i - 1] = passed
                if passed > 0 and first_passing == 0:
                    first_passing = i
        if pos[0] < horizon:
            raise ValueError("SELECT schedule table ended before the horizon")
        finals[r, 0] = i
        finals[r, 1] = phase
        finals[r, 2] = first_passing
        finals[r, 3] = cand_mean
