"""Finite-armed stochastic environments with common random numbers.

The k-th pull of arm i in a replication always reads counter (k, i) of the replication's
noise key, so every algorithm sees the same reward sequence per arm (the reward table
Z[s, i, k] of the specs, without storing it).

``env_params`` is a float64 (rows, n_arms) array whose layout each kernel documents.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import rng
from ..engine import EnvironmentKernel


# Inlined into the engine's loop together with rng.normal_pair (see rng.uniform2): with no call
# left in the step, numba drops the per-step reference counting of its array arguments.
@njit(cache=True, inline="always")
def _gaussian_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    # rows: 0 mean, 1 standard deviation. Pulls 2j and 2j+1 of an arm share one Box-Muller
    # pair (counter j); the second normal waits in env_state[arm] (halves the generator cost).
    if pull_index % 2 == 0:
        z, spare = rng.normal_pair(noise_key, rng.TAG_ARM, arm, pull_index // 2)
        env_state[arm] = spare
    else:
        z = env_state[arm]
    obs[0] = env_params[0, arm] + env_params[1, arm] * z


@njit(cache=True)
def bernoulli_draw(u, p):
    """Bernoulli(p) reward from a uniform u in (0, 1]: 1 if u <= p. Coupled by u, a larger p never
    gives a smaller reward (common random numbers across arms and algorithms)."""
    return 1.0 if u <= p else 0.0


@njit(cache=True)
def _bernoulli_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    # rows: 0 success probability
    obs[0] = bernoulli_draw(rng.uniform(noise_key, rng.TAG_ARM, arm, pull_index), env_params[0, arm])


@njit(cache=True)
def _beta_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    # rows: 0 alpha, 1 beta
    obs[0] = rng.beta(env_params[0, arm], env_params[1, arm], noise_key, rng.TAG_ARM, arm, pull_index)


@njit(cache=True)
def _categorical_step(env_params, env_state, noise_key, t, arm, pull_index, obs):
    # rows: 0..V-1 cumulative probabilities of the values, V..2V-1 the values (per arm column)
    n_values = env_params.shape[0] // 2
    u = rng.uniform(noise_key, rng.TAG_ARM, arm, pull_index)
    for v in range(n_values):
        if u <= env_params[v, arm] or v == n_values - 1:
            obs[0] = env_params[n_values + v, arm]
            return


GAUSSIAN = EnvironmentKernel("gaussian", _gaussian_step, state_per_arm=1)
BERNOULLI = EnvironmentKernel("bernoulli", _bernoulli_step)
BETA = EnvironmentKernel("beta", _beta_step)
CATEGORICAL = EnvironmentKernel("categorical", _categorical_step)


def gaussian_arms(means, sigmas) -> tuple[EnvironmentKernel, np.ndarray]:
    means = np.asarray(means, dtype=np.float64)
    sigmas = np.broadcast_to(np.asarray(sigmas, dtype=np.float64), means.shape)
    if np.any(sigmas < 0):
        raise ValueError("Gaussian arm standard deviations must be >= 0")
    return GAUSSIAN, np.vstack([means, sigmas])


def check_probabilities(probs) -> np.ndarray:
    """``probs`` as float64, or ValueError if any lies outside [0, 1]."""
    probs = np.asarray(probs, dtype=np.float64)
    if np.any((probs < 0) | (probs > 1)):
        raise ValueError("Bernoulli arm probabilities must lie in [0, 1]")
    return probs


def bernoulli_arms(probs) -> tuple[EnvironmentKernel, np.ndarray]:
    return BERNOULLI, check_probabilities(probs)[None, :].copy()


def beta_arms(alpha, beta) -> tuple[EnvironmentKernel, np.ndarray]:
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.broadcast_to(np.asarray(beta, dtype=np.float64), alpha.shape)
    if np.any(alpha <= 0) or np.any(beta <= 0):
        raise ValueError("Beta arm parameters must be > 0")
    return BETA, np.vstack([alpha, beta])


def categorical_arms(values, probs) -> tuple[EnvironmentKernel, np.ndarray]:
    """Arms with finite reward distributions: ``probs[i, v]`` = P(reward of arm i = values[v])."""
    values = np.asarray(values, dtype=np.float64)
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != values.size:
        raise ValueError("probs must have shape (n_arms, n_values)")
    if np.any(probs < 0) or not np.allclose(probs.sum(axis=1), 1.0):
        raise ValueError("each arm's probabilities must be >= 0 and sum to 1")
    cum = np.cumsum(probs, axis=1).T
    vals = np.repeat(values[:, None], probs.shape[0], axis=1)
    return CATEGORICAL, np.vstack([cum, vals])


def threshold_gaps(values, threshold) -> np.ndarray:
    """Per-arm pseudo-regret max(threshold - value, 0) (threshold = best value for plain regret)."""
    values = np.asarray(values, dtype=np.float64)
    return np.maximum(float(threshold) - values, 0.0)
