"""Penalized-fairness bandits (Fang, Li and Samorodnitsky, "On Penalization in Stochastic MAB").

Three single-play policies (spec ``penalized_fairness`` §2) and the penalized-regret estimator:

* **HT-UCB** (hard-threshold UCB, eq. 11):
  ``i_k(n) = m_k(n-1) + A_k 1{N_k(n-1) < tau_k n} + sqrt(2 ln n / N_k(n-1))`` (strict inequality,
  tau_k n not floored, ln n of the current round: eq. 11, not Algorithm 1 line 8's off-by-one).
* **LFG** (Li, Liu and Ji 2019, single-play form of the paper): pull
  ``argmax_k Q_k(n-1) + eta0 * min(m_k + sqrt(2 ln n / N_k), rcap)`` and then update every
  virtual queue ``Q_k <- max(Q_k + tau_k - 1{k pulled}, 0)`` (start-of-round queue in the argmax).
* **Flearn** (Patil et al. 2020, UCB1 learner): deficits ``D_k = tau_k (n-1) - N_k(n-1)``; if
  ``max_k D_k > alpha`` pull ``argmax_k D_k``, else the UCB1 arm. UCB statistics use every reward.

Common conventions: rounds 1..K pull arm n (initialisation; LFG queues are still updated);
ties are broken uniformly at random among exact maxima with the policy stream.

Kernels follow the engine protocol (``select(t, state, params, stream)``,
``update(t, state, params, arm, obs)``) so each runs in :class:`banditrepro.engine.StepSimulation`.
The ``*_core`` selectors take the exploration scale ``sqrt(2 ln n)`` as an argument so that a
sweep kernel can tabulate it once per horizon instead of once per (row, step).

``params`` is a float64 (3, K) array:

* HT-UCB: row 0 tau_k, row 1 A_k;
* Flearn: row 0 tau_k, row 1 alpha (same value in every column);
* LFG: row 0 tau_k, row 1 eta0, row 2 rcap (same value in every column).

``state`` is a float64 (6, K) array, zero at the start: N_k, reward sums S_k, and cached
S_k/N_k and 1/sqrt(N_k) (only the pulled arm's change, so a step costs one multiply-add per arm),
the LFG queue Q_k, and a scratch row for the step's scores.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng
from ..engine import PolicyKernel

# state rows
COUNT = 0
SUM = 1
MEAN = 2
INV_SQRT_N = 3
QUEUE = 4
SCRATCH = 5  # per-step scores (no allocation inside the step loop)
STATE_ROWS = 6
PARAM_ROWS = 3

# Algorithm ids used by the sweep kernel's dispatch.
HT_UCB_ID = 0
LFG_ID = 1
FLEARN_ID = 2
ALGORITHM_IDS = {"ht_ucb": HT_UCB_ID, "lfg": LFG_ID, "flearn": FLEARN_ID}


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


def _fairness(tau, n_arms: int | None = None) -> np.ndarray:
    tau = np.asarray(tau, dtype=np.float64)
    if n_arms is not None:
        tau = np.broadcast_to(tau, (n_arms,))
    if tau.ndim != 1 or np.any(tau < 0) or tau.sum() > 1.0 + 1e-12:
        raise ValueError("fairness proportions tau_k must be >= 0 with sum_k tau_k <= 1")
    return tau


def ht_ucb_params(tau, penalty) -> np.ndarray:
    """(3, K) params of HT-UCB; ``penalty`` = A_k (scalar or per arm). A = 0 gives UCB1."""
    tau = _fairness(tau)
    penalty = np.broadcast_to(np.asarray(penalty, dtype=np.float64), tau.shape)
    if np.any(penalty < 0):
        raise ValueError("penalty rates A_k must be >= 0")
    params = np.zeros((PARAM_ROWS, tau.size))
    params[0] = tau
    params[1] = penalty
    return params


def flearn_params(tau, alpha: float) -> np.ndarray:
    """(3, K) params of Flearn; alpha >= 0 is the allowed fairness deficit (0: any-time fair)."""
    tau = _fairness(tau)
    if alpha < 0:
        raise ValueError("alpha must be >= 0")
    params = np.zeros((PARAM_ROWS, tau.size))
    params[0] = tau
    params[1] = alpha
    return params


def lfg_params(tau, eta0: float, rcap: float = 1.0) -> np.ndarray:
    """(3, K) params of LFG; eta0 >= 0 weights the (capped) UCB against the queues."""
    tau = _fairness(tau)
    if eta0 < 0:
        raise ValueError("eta0 must be >= 0")
    params = np.zeros((PARAM_ROWS, tau.size))
    params[0] = tau
    params[1] = eta0
    params[2] = rcap
    return params


# --- metrics from final pull counts -------------------------------------------------------


def penalized_regret(pulls, means, tau, penalty, horizon) -> np.ndarray:
    """Per-run penalized pseudo-regret (spec §1, eq. 10 with true means):

    ``Rhat = sum_k [Delta_k N_k + A_k (tau_k T - N_k)_+] - T sum_k min(Delta_k, A_k) tau_k``.

    ``pulls`` (..., K); ``means``, ``tau``, ``penalty`` broadcast against it; ``horizon`` broadcasts
    against the leading axes. It is >= 0 whenever sum_k N_k = T and sum_k tau_k <= 1, because
    T sum_k min(Delta_k, A_k) tau_k is the minimum of the loss over the LP relaxation.
    """
    pulls = np.asarray(pulls, dtype=np.float64)
    means = np.broadcast_to(np.asarray(means, dtype=np.float64), pulls.shape)
    tau = np.broadcast_to(np.asarray(tau, dtype=np.float64), pulls.shape)
    penalty = np.broadcast_to(np.asarray(penalty, dtype=np.float64), pulls.shape)
    horizon = np.asarray(horizon, dtype=np.float64)[..., None]
    gaps = means.max(axis=-1, keepdims=True) - means
    loss = (gaps * pulls + penalty * np.maximum(tau * horizon - pulls, 0.0)).sum(axis=-1)
    optimal = horizon[..., 0] * (np.minimum(gaps, penalty) * tau).sum(axis=-1)
    return loss - optimal


def arm_unfairness(pulls, tau, horizon) -> np.ndarray:
    """u_k = (tau_k T - N_k(T))_+ per arm (end of horizon, not a running maximum)."""
    pulls = np.asarray(pulls, dtype=np.float64)
    horizon = np.asarray(horizon, dtype=np.float64)[..., None]
    return np.maximum(np.asarray(tau, dtype=np.float64) * horizon - pulls, 0.0)


def unfairness_level(pulls, tau, horizon) -> np.ndarray:
    """U = sum_k u_k."""
    return arm_unfairness(pulls, tau, horizon).sum(axis=-1)


def expected_reward(pulls, means) -> np.ndarray:
    """W = sum_t mu_{pi_t} = sum_k mu_k N_k(T) (the paper's 'total expected reward')."""
    return (np.asarray(pulls, dtype=np.float64) * np.asarray(means, dtype=np.float64)).sum(axis=-1)


def oracle_allocation(means, tau, penalty) -> np.ndarray:
    """Oracle fractions y_k (spec §1): tau_k for critical arms and optimal arms other than k*,
    0 for non-critical arms, the rest for k* (the lowest-index optimal arm)."""
    means = np.asarray(means, dtype=np.float64)
    tau = np.broadcast_to(np.asarray(tau, dtype=np.float64), means.shape)
    penalty = np.broadcast_to(np.asarray(penalty, dtype=np.float64), means.shape)
    gaps = means.max() - means
    star = int(np.argmax(means))
    y = np.where(penalty >= gaps, tau, 0.0)  # optimal (gap 0) and critical arms get tau_k
    y[star] = 0.0
    y[star] = 1.0 - y.sum()
    return y
