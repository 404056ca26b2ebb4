"""Compiled simulation of the censored-resources bandit: one loop over replications and rounds.

Each round the policy picks a flat pair index p = i * m + j (arm i, limit taus[j]); the arm's next
(R, C) is drawn with common random numbers (the k-th pull of arm i is the same for every
algorithm); the pull is censored when C > tau_j. Recorded per round, cumulatively:

* ``regret``: nu* - nu_{i, tau_j} from the exact ground truth (eq. 4);
* ``censored``: 1{C > tau_j} (the tables' censored proportion is its final value / T);
* ``reward``: R 1{C <= tau_j} (Figure 5's "reward 1 - NRMSE, 0 if censored");
* ``gain``: Y = (R - c(C)) 1{C <= tau_j} - lambda(tau_j) 1{C > tau_j} (eq. 7);
* ``optimal``: 1{(i, j) = (i*, j*)}.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ... import rng
from ...algorithms import censored_baselines as cb
from ...algorithms import rcucb
from ...engine import SimulationOutput
from ...environments import censored as ce

POLICY_RCUCB = 0
POLICY_UCB = 1
POLICY_TS = 2
POLICY_CODES = {"rcucb": POLICY_RCUCB, "ucb": POLICY_UCB, "ts": POLICY_TS}

# The loops below inline the kernels of rcucb.py, censored_baselines.py and censored.py; they can be
# cached because the package caches by the hash of all its sources (banditrepro.numba_cache), so an
# edit of any of those modules never leaves a stale loop behind.

METRICS = ("regret", "censored", "reward", "gain", "optimal")


# The fast kernels keep derived per-pair terms in extra state rows; their choices and random draws
# are those of the printed kernels (reference.py of this package), which the
# unit tests check by hand and tests/censored_resources/test_fast_kernels.py compares with the fast ones.
STATE_ROWS = max(rcucb.FAST_STATE_ROWS, cb.UCB_FAST_STATE_ROWS, cb.TS_FAST_STATE_ROWS)


@njit(cache=True, inline="always")
def _select(code, t, state, taus, lam, params, scores, stream):
    if code == POLICY_RCUCB:
        return rcucb.rcucb_select_fast(t, state, taus, lam, params, scores, stream)
    if code == POLICY_UCB:
        return cb.ucb_select_fast(t, state, taus, lam, params, scores, stream)
    return cb.ts_select_fast(t, state, taus, lam, params, scores, stream)


@njit(cache=True, inline="always")
def _update(code, t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream):
    if code == POLICY_RCUCB:
        rcucb.rcucb_update_fast(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)
    elif code == POLICY_UCB:
        cb.ucb_update_fast(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)
    else:
        cb.ts_update_fast(t, state, taus, lam, params, arm, j, reward, consumption, cost_slope, stream)


@njit(cache=True)
def simulate(policy_code, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
             optimal_pair, noise_keys, policy_keys, checkpoints, curves):
    """curves: (R, 5, C) filled with the cumulative METRICS at the checkpoints.

    One inlined copy of the loop per policy, each with a constant code, so that the compiler drops the
    other policies' branches and state from the loop (profiling: the shared loop cost about 40 ns per
    round more than a loop with one policy, 15 % of an RCUCB round).
    """
    if policy_code == POLICY_RCUCB:
        _simulate(POLICY_RCUCB, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
                  optimal_pair, noise_keys, policy_keys, checkpoints, curves)
    elif policy_code == POLICY_UCB:
        _simulate(POLICY_UCB, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
                  optimal_pair, noise_keys, policy_keys, checkpoints, curves)
    else:
        _simulate(POLICY_TS, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
                  optimal_pair, noise_keys, policy_keys, checkpoints, curves)


@njit(cache=True, inline="always")
def _simulate(policy_code, policy_params, env_code, env_params, env_table, taus, lam, cost_slope, gaps,
              optimal_pair, noise_keys, policy_keys, checkpoints, curves):
    n_reps = noise_keys.shape[0]
    n_arms = env_params.shape[0]
    m = taus.shape[0]
    horizon = checkpoints[-1]
    n_chk = checkpoints.shape[0]
    acc = np.zeros(5)
    scores = np.empty(n_arms * m)
    # each arm's next pulls, drawn BLOCK_PULLS at a time (ce.draw_block: the values of ce.draw)
    draws = np.empty((n_arms, ce.BLOCK_ROWS, ce.BLOCK_PULLS))
    for r in range(n_reps):
        state = np.zeros((STATE_ROWS, n_arms, m))
        pulls = np.zeros(n_arms, dtype=np.int64)
        stream = np.empty(4, dtype=np.uint64)
        stream[0] = policy_keys[r]
        stream[1] = rng.TAG_POLICY
        stream[2] = 0
        stream[3] = 0
        key = noise_keys[r]
        acc[:] = 0.0
        c = 0
        for t in range(1, horizon + 1):
            p = _select(policy_code, t, state, taus, lam, policy_params, scores, stream)
            i = p // m
            j = p - i * m
            k = pulls[i]
            q = k % ce.BLOCK_PULLS
            if q == 0:
                ce.draw_block(env_code, env_params, env_table, key, i, k, draws[i])
            reward = draws[i, 0, q]
            consumption = draws[i, 1, q]
            pulls[i] = k + 1
            _update(policy_code, t, state, taus, lam, policy_params, i, j, reward, consumption, cost_slope, stream)
            acc[0] += gaps[i, j]
            if consumption > taus[j]:
                acc[1] += 1.0
                acc[3] -= lam[j]
            else:
                acc[2] += reward
                acc[3] += reward - cost_slope * consumption
            if p == optimal_pair:
                acc[4] += 1.0
            if t == checkpoints[c]:
                for k in range(5):
                    curves[r, k, c] = acc[k]
                c += 1
                if c == n_chk:
                    break


@dataclass
class CensoredSimulation:
    """One (instance, algorithm) cell; implements the engine's ``Simulation`` protocol."""

    arms: ce.CensoredArms
    taus: np.ndarray
    lam: np.ndarray
    cost_slope: float
    policy: str
    policy_params: np.ndarray
    # the loop that plays the policy (None: simulate); the differential sanity claims swap in reference.simulate
    simulator: object = None

    def __post_init__(self):
        if self.policy not in POLICY_CODES:
            raise ValueError(f"unknown policy {self.policy!r}; expected one of {sorted(POLICY_CODES)}")
        self.taus = np.ascontiguousarray(self.taus, dtype=np.float64)
        self.lam = np.ascontiguousarray(self.lam, dtype=np.float64)
        if np.any(np.diff(self.taus) <= 0):
            raise ValueError("the limit grid must be strictly increasing")
        self.truth = ce.ground_truth(self.arms, self.taus, self.lam, self.cost_slope)

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        if checkpoints.ndim != 1 or checkpoints.size == 0 or np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 1:
            raise ValueError("checkpoints must be a non-empty strictly increasing sequence of steps >= 1")
        n_reps = len(noise_keys)
        curves = np.zeros((n_reps, len(METRICS), len(checkpoints)))
        m = self.taus.size
        play = simulate if self.simulator is None else self.simulator
        play(POLICY_CODES[self.policy], np.ascontiguousarray(self.policy_params, dtype=np.float64),
                 self.arms.code, np.ascontiguousarray(self.arms.params), np.ascontiguousarray(self.arms.table),
                 self.taus, self.lam, float(self.cost_slope), np.ascontiguousarray(self.truth.gaps),
                 self.truth.best_arm * m + self.truth.best_grid_index,
                 np.asarray(noise_keys, dtype=np.uint64), np.asarray(policy_keys, dtype=np.uint64),
                 checkpoints, curves)
        out = {name: curves[:, k, :] for k, name in enumerate(METRICS)}
        horizon = float(checkpoints[-1])
        finals = {
            "censored_proportion": out["censored"][:, -1] / horizon,
            "optimal_share": out["optimal"][:, -1] / horizon,
            "final_regret": out["regret"][:, -1].copy(),
        }
        return SimulationOutput(checkpoints=checkpoints, curves=out, finals=finals)


# --- z-RCUCB (Sec. 4; no figure of the paper uses it) ----------------------------------------


@njit(cache=True)
def simulate_zrcucb(env_code, env_params, env_table, tau_max, lam_params, cost_slope, alpha, delta, refine_m,
                    horizon, capacity, noise_key, policy_key):
    """One run of z-RCUCB (Algorithm 1) for ``horizon`` rounds.

    Returns (grids (n, capacity, 5), counts (n,), chosen arms (T,), chosen limits (T,)); the output
    pair is :func:`banditrepro.algorithms.rcucb.zrcucb_finest` of the final grids.
    """
    n_arms = env_params.shape[0]
    grids = np.zeros((n_arms, capacity, rcucb.ZCOLS))
    counts = np.ones(n_arms, dtype=np.int64)
    for i in range(n_arms):
        grids[i, 0, 0] = tau_max
        grids[i, 0, 4] = 1.0
    n0 = np.zeros(n_arms)
    pulls = np.zeros(n_arms, dtype=np.int64)
    arms_out = np.empty(horizon, dtype=np.int64)
    taus_out = np.empty(horizon)
    log_level = np.log(n_arms * float(horizon) * float(horizon) / delta)
    stream = np.empty(4, dtype=np.uint64)
    stream[0] = policy_key
    stream[1] = rng.TAG_POLICY
    stream[2] = 0
    stream[3] = 0
    for t in range(horizon):
        arm, k = rcucb.zrcucb_select(grids, counts, n0, lam_params, alpha, log_level, stream)
        tau = grids[arm, k, 0]
        reward, consumption = ce.draw(env_code, env_params, env_table, noise_key, arm, pulls[arm])
        pulls[arm] += 1
        rcucb.zrcucb_update(grids, counts, n0, arm, tau, reward, consumption, cost_slope, lam_params, alpha,
                            log_level, refine_m)
        arms_out[t] = arm
        taus_out[t] = tau
    return grids, counts, arms_out, taus_out
