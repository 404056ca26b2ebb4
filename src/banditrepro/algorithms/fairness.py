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

These are the policies the paper's results come from: the experiments' batch loop
(:mod:`banditrepro.experiments.penalized_fairness.loops`) runs many rows in one compiled call and
calls a ``*_choose`` selector, :func:`record_pull` and (LFG) :func:`update_queues` on every step.
They only read and write the arrays they are handed, so they are compiled without numba's reference
counting (``_nrt=False``) and called, not inlined (see :mod:`banditrepro.algorithms.arm_trees`): inlined,
each array argument became a variable of the batch loop that numba incremented and decremented
atomically around every step, which cost 10-45% of the loop (issue 41). (Measured earlier, inlined: one
more level, a ``choose_arm`` dispatching to the three selectors, made the loop about 17% slower, so the
loop dispatches itself.) The loop draws rewards, so it lives with the paper (algorithms/ imports
no environment). ``tests/penalized_fairness/test_policies.py`` compares it, pull for pull, with the paper's
reference implementation (``experiments/penalized_fairness/reference.py``).

``params`` is a float64 (3, K) array:

* HT-UCB: row 0 tau_k, row 1 A_k;
* Flearn: row 0 tau_k, row 1 alpha (same value in every column);
* LFG: row 0 tau_k, row 1 eta0, row 2 rcap (same value in every column).

A policy's state is five float64 arrays of length K, zero at the start: N_k, reward sums S_k,
the cached S_k/N_k and 1/sqrt(N_k) (only the pulled arm's change, so a step costs one multiply-add
per arm), LFG's queues Q_k; and a scratch array ``scores`` for the step's scores.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import rng

PARAM_ROWS = 3

# Algorithm ids of the batch loop's dispatch.
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


# Each selector fuses the score computation with the argmax (one pass over the arms; the scores
# are kept in ``scores`` for the rare second pass over exact ties). They are called for rounds
# t > K (rounds 1..K pull arm t) with ``radius_scale`` = sqrt(2 ln t).


@njit(cache=True, _nrt=False)
def ht_ucb_choose(t, count, mean, inv_sqrt_n, tau, penalty, scores, stream, radius_scale):
    """HT-UCB arm: argmax m_k + A_k 1{N_k < tau_k t} + sqrt(2 ln t) / sqrt(N_k)."""
    best = -math.inf
    ties = 0
    arm = 0
    for k in range(count.shape[0]):
        index = mean[k] + radius_scale * inv_sqrt_n[k]
        if count[k] < tau[k] * t:  # hard threshold: arm below its fair share tau_k * t
            index += penalty[k]
        scores[k] = index
        if index > best:
            best = index
            ties = 1
            arm = k
        elif index == best:
            ties += 1
    if ties == 1:
        return arm
    return _tie_pick(scores, best, ties, stream)


@njit(cache=True, _nrt=False)
def ucb_choose(mean, inv_sqrt_n, scores, stream, radius_scale):
    """UCB1 arm from the same statistics (every N_k >= 1)."""
    best = -math.inf
    ties = 0
    arm = 0
    for k in range(mean.shape[0]):
        index = mean[k] + radius_scale * inv_sqrt_n[k]
        scores[k] = index
        if index > best:
            best = index
            ties = 1
            arm = k
        elif index == best:
            ties += 1
    if ties == 1:
        return arm
    return _tie_pick(scores, best, ties, stream)


@njit(cache=True, _nrt=False)
def flearn_choose(t, count, mean, inv_sqrt_n, tau, alpha, scores, stream, radius_scale):
    """Flearn arm: the largest deficit tau_k (t-1) - N_k if it exceeds alpha, else the UCB1 arm."""
    best = -math.inf
    ties = 0
    arm = 0
    for k in range(count.shape[0]):
        deficit = tau[k] * (t - 1) - count[k]
        scores[k] = deficit
        if deficit > best:
            best = deficit
            ties = 1
            arm = k
        elif deficit == best:
            ties += 1
    if not best > alpha:  # no deficit exceeds alpha
        return ucb_choose(mean, inv_sqrt_n, scores, stream, radius_scale)
    if ties == 1:
        return arm
    return _tie_pick(scores, best, ties, stream)


@njit(cache=True, _nrt=False)
def lfg_choose(mean, inv_sqrt_n, queue, eta0, rcap, scores, stream, radius_scale):
    """LFG arm: argmax Q_k + eta0 min(m_k + sqrt(2 ln t) / sqrt(N_k), rcap), start-of-round queues."""
    best = -math.inf
    ties = 0
    arm = 0
    for k in range(mean.shape[0]):
        ucb = mean[k] + radius_scale * inv_sqrt_n[k]
        if ucb > rcap:
            ucb = rcap
        score = queue[k] + eta0 * ucb
        scores[k] = score
        if score > best:
            best = score
            ties = 1
            arm = k
        elif score == best:
            ties += 1
    if ties == 1:
        return arm
    return _tie_pick(scores, best, ties, stream)


@njit(cache=True, _nrt=False)
def record_pull(count, total, mean, inv_sqrt_n, arm, reward, inv_sqrt_count):
    """Pull count, reward sum and the cached mean and 1/sqrt(N) (``inv_sqrt_count``, the caller's
    table value of 1/sqrt(N_k + 1)) of the pulled arm."""
    n = count[arm] + 1.0
    count[arm] = n
    s = total[arm] + reward
    total[arm] = s
    mean[arm] = s / n
    inv_sqrt_n[arm] = inv_sqrt_count


@njit(cache=True, _nrt=False)
def update_queues(queue, tau, arm):
    """LFG virtual queues: Q_k <- max(Q_k + tau_k - 1{k = arm}, 0) for every arm."""
    for k in range(queue.shape[0]):
        q = queue[k] + tau[k] - (1.0 if k == arm else 0.0)
        queue[k] = q if q > 0.0 else 0.0


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

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "ht_ucb": ("ht_ucb_choose", "ht_ucb_params", "record_pull"),
    "lfg": ("lfg_choose", "lfg_params", "update_queues", "record_pull"),
    "flearn": ("flearn_choose", "flearn_params", "record_pull"),
}
