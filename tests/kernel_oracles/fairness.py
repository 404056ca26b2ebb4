"""Test oracle: the penalized-fairness policies in the engine protocol, one (6, K) state array per run.

An independent form of HT-UCB, LFG and Flearn (:mod:`banditrepro.algorithms.fairness` holds the
production kernels that the batch loop runs). Each policy here is a
:class:`banditrepro.engine.PolicyKernel`, so the generic :class:`banditrepro.engine.StepSimulation`
runs it one row at a time. tests/penalized_fairness/test_policies.py compares the production batch loop with
these, step for step (same arms, same tie-breaking draws). (The paper's reference guards use the end-to-end
reference ``experiments/penalized_fairness/reference.py`` instead.)

``state`` is a float64 (6, K) array, zero at the start: N_k, reward sums S_k, cached S_k/N_k and
1/sqrt(N_k), the LFG queue Q_k, and a scratch row for the step's scores. ``params`` are those of
``fairness.ht_ucb_params`` / ``flearn_params`` / ``lfg_params``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from banditrepro import rng
from banditrepro.engine import EnvironmentKernel, PolicyKernel, StepSimulation
from banditrepro.environments import finite

# state rows
COUNT = 0
SUM = 1
MEAN = 2
INV_SQRT_N = 3
QUEUE = 4
SCRATCH = 5  # per-step scores (no allocation inside the step loop)
STATE_ROWS = 6

@njit(cache=True, inline="always")
def _tie_pick(scores, best, count, stream):
    """The j-th of the ``count`` entries equal to ``best``, j uniform (one coin per tied step)."""
    j = rng.stream_integer(stream, count)
    for k in range(scores.shape[0]):
        if scores[k] == best:
            if j == 0:
                return k
            j -= 1
    return 0


@njit(cache=True)
def argmax_random_ties(scores, stream):
    """Index of the maximum of ``scores``, uniformly random among exact maxima.

    One policy coin per tied step rather than one per tied arm (Flearn's deficits tie across all
    arms with equal counts)."""
    best = -math.inf
    count = 0
    choice = 0
    for k in range(scores.shape[0]):
        s = scores[k]
        if s > best:
            best = s
            count = 1
            choice = k
        elif s == best:
            count += 1
    if count == 1:
        return choice
    return _tie_pick(scores, best, count, stream)


# The selectors below fuse the score computation with the argmax (one pass over the arms; the
# scores are kept in the scratch row for the rare second pass over exact ties).


@njit(cache=True)
def ht_ucb_select_core(t, state, params, stream, radius_scale):
    """HT-UCB arm for round ``t`` (1-based); ``radius_scale`` = sqrt(2 ln t)."""
    n_arms = state.shape[1]
    if t <= n_arms:
        return t - 1
    scores = state[SCRATCH]
    best = -math.inf
    count = 0
    choice = 0
    for k in range(n_arms):
        index = state[MEAN, k] + radius_scale * state[INV_SQRT_N, k]
        if state[COUNT, k] < params[0, k] * t:  # hard threshold: arm below its fair share tau_k * t
            index += params[1, k]
        scores[k] = index
        if index > best:
            best = index
            count = 1
            choice = k
        elif index == best:
            count += 1
    if count == 1:
        return choice
    return _tie_pick(scores, best, count, stream)


@njit(cache=True)
def ucb_argmax_core(state, stream, radius_scale):
    """UCB1 arm (random ties) from the shared statistics; all arms must have N_k >= 1."""
    scores = state[SCRATCH]
    best = -math.inf
    count = 0
    choice = 0
    for k in range(state.shape[1]):
        index = state[MEAN, k] + radius_scale * state[INV_SQRT_N, k]
        scores[k] = index
        if index > best:
            best = index
            count = 1
            choice = k
        elif index == best:
            count += 1
    if count == 1:
        return choice
    return _tie_pick(scores, best, count, stream)


@njit(cache=True)
def flearn_select_core(t, state, params, stream, radius_scale):
    """Flearn arm for round ``t``: largest fairness deficit if it exceeds alpha, else UCB1."""
    n_arms = state.shape[1]
    if t <= n_arms:
        return t - 1
    scores = state[SCRATCH]
    best = -math.inf
    count = 0
    choice = 0
    for k in range(n_arms):
        deficit = params[0, k] * (t - 1) - state[COUNT, k]
        scores[k] = deficit
        if deficit > best:
            best = deficit
            count = 1
            choice = k
        elif deficit == best:
            count += 1
    if best > params[1, 0]:  # some deficit exceeds alpha: serve the largest
        if count == 1:
            return choice
        return _tie_pick(scores, best, count, stream)
    return ucb_argmax_core(state, stream, radius_scale)


@njit(cache=True)
def lfg_select_core(t, state, params, stream, radius_scale):
    """LFG arm for round ``t``: argmax Q_k + eta0 * min(UCB_k, rcap) with the start-of-round queue."""
    n_arms = state.shape[1]
    if t <= n_arms:
        return t - 1
    eta0 = params[1, 0]
    rcap = params[2, 0]
    scores = state[SCRATCH]
    best = -math.inf
    count = 0
    choice = 0
    for k in range(n_arms):
        ucb = state[MEAN, k] + radius_scale * state[INV_SQRT_N, k]
        if ucb > rcap:
            ucb = rcap
        score = state[QUEUE, k] + eta0 * ucb
        scores[k] = score
        if score > best:
            best = score
            count = 1
            choice = k
        elif score == best:
            count += 1
    if count == 1:
        return choice
    return _tie_pick(scores, best, count, stream)


@njit(cache=True)
def _radius_scale(t):
    return math.sqrt(2.0 * math.log(t)) if t > 1 else 0.0


@njit(cache=True)
def _ht_ucb_select(t, state, params, stream):
    return ht_ucb_select_core(t, state, params, stream, _radius_scale(t))


@njit(cache=True)
def _flearn_select(t, state, params, stream):
    return flearn_select_core(t, state, params, stream, _radius_scale(t))


@njit(cache=True)
def _lfg_select(t, state, params, stream):
    return lfg_select_core(t, state, params, stream, _radius_scale(t))


@njit(cache=True)
def record_pull(state, arm, reward):
    """Pull count, reward sum and the cached mean and 1/sqrt(N) of the pulled arm."""
    n = state[COUNT, arm] + 1.0
    state[COUNT, arm] = n
    state[SUM, arm] += reward
    state[MEAN, arm] = state[SUM, arm] / n
    state[INV_SQRT_N, arm] = 1.0 / math.sqrt(n)


@njit(cache=True)
def update_queues(state, params, arm):
    """LFG virtual queues: Q_k <- max(Q_k + tau_k - 1{k = arm}, 0) for every arm."""
    for k in range(state.shape[1]):
        q = state[QUEUE, k] + params[0, k] - (1.0 if k == arm else 0.0)
        state[QUEUE, k] = q if q > 0.0 else 0.0


@njit(cache=True)
def _statistics_update(t, state, params, arm, obs):
    record_pull(state, arm, obs[0])


@njit(cache=True)
def _lfg_update(t, state, params, arm, obs):
    record_pull(state, arm, obs[0])
    update_queues(state, params, arm)


HT_UCB = PolicyKernel("ht_ucb", _ht_ucb_select, _statistics_update, state_rows=STATE_ROWS)
FLEARN = PolicyKernel("flearn", _flearn_select, _statistics_update, state_rows=STATE_ROWS)
LFG = PolicyKernel("lfg", _lfg_select, _lfg_update, state_rows=STATE_ROWS)
KERNELS = {"ht_ucb": HT_UCB, "lfg": LFG, "flearn": FLEARN}


def _environment_kernels() -> dict[str, EnvironmentKernel]:
    """The batch loop's reward models as engine kernels (the same draws: tests/penalized_fairness)."""
    from banditrepro.experiments.penalized_fairness import loops

    return {"gaussian": finite.GAUSSIAN, "bernoulli": finite.BERNOULLI, "beta": finite.BETA,
            "categorical": finite.CATEGORICAL, "beta_johnk": EnvironmentKernel("beta_johnk", loops._beta_johnk_step)}


def run_batch(algorithm: str, env_kind: str, pol_params, env_params, env_rows, noise_keys, policy_keys,
              policy_subs, horizons, checkpoints) -> np.ndarray:
    """What ``experiments.penalized_fairness.loops.run_batch`` returns (pulls (B, C, K), -1 past a row's
    horizon), computed row by row by the generic engine running this module's kernels."""
    pol_params = np.asarray(pol_params, dtype=np.float64)
    env_params = np.asarray(env_params, dtype=np.float64)
    n_rows, _, n_arms = pol_params.shape
    checkpoints = np.asarray(checkpoints, dtype=np.int64)
    horizons = np.broadcast_to(np.asarray(horizons, dtype=np.int64), (n_rows,))
    env_rows = np.broadcast_to(np.asarray(env_rows, dtype=np.int64), (n_rows,))
    noise_keys = np.broadcast_to(np.asarray(noise_keys, dtype=np.uint64), (n_rows,))
    policy_keys = np.broadcast_to(np.asarray(policy_keys, dtype=np.uint64), (n_rows,))
    policy_subs = np.broadcast_to(np.asarray(policy_subs, dtype=np.uint64), (n_rows,))
    env = _environment_kernels()[env_kind]
    pulls = np.full((n_rows, checkpoints.size, n_arms), -1, dtype=np.int64)
    for b in range(n_rows):
        chk = checkpoints[checkpoints <= horizons[b]]
        sim = StepSimulation(env, env_params[env_rows[b]], np.zeros((0, n_arms)), (), KERNELS[algorithm],
                             pol_params[b])
        out = sim.run(noise_keys[b:b + 1], policy_keys[b:b + 1], chk, policy_subs=policy_subs[b:b + 1])
        pulls[b, :chk.size] = out.pulls[0]
    return pulls
