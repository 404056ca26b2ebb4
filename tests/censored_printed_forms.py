"""The censored-resources indices as Bengs & Hüllermeier print them, recomputed from the counts every round.

Written from the paper for the unit tests (not from the production kernels, nor copied from the paper's
reference ``experiments/censored_resources/reference.py``, which runs whole experiments): RCUCB's index
(Sec. 3.2, eqs. 8-12), the modified UCB index of App. E.1 (eq. 31), the Thompson-sampling draws of eq. (32)
and its Bernoulli update, and the gain Y of eq. (7), vectorised over the (arm, limit) pairs with numpy.
The state is the ``(4, n_arms, m)`` array of the production count updates: for RCUCB the rows N_{i,tau},
G_{i,tau}, S_{i,tau} and N_{i,0} (in column 0); for UCB T and the sum of Y; for TS successes and failures.
Pair p = i m + j is (arm i, limit taus[j]).

tests/censored_resources/test_policies.py checks these forms on hand-computed cases; test_fast_kernels.py
checks that the production fast kernels make their choices, with the same draws, and evaluate the same scores
to the bit (each score is evaluated in the order the paper writes it: gain, minus penalty, plus the two
confidence terms).
"""

from __future__ import annotations

import math

import numpy as np

from banditrepro import rng
from banditrepro.algorithms import beta_sampler


def gain_y(reward, consumption, tau, lam_tau, cost_slope):
    """Y of eq. (7): (R - c(C)) if C <= tau, else -lambda(tau)."""
    if consumption > tau:
        return -lam_tau
    return reward - cost_slope * consumption


def rcucb_index(t, state, lam, alpha, unit_bonus, observable):
    """Eq. (12) for every pair, flattened arm-major: ghat - Lambdahat + sqrt(2 alpha ln t / N_{i,tau})
    + lambda(tau) sqrt(2 alpha ln t / N_{i,0}); ``unit_bonus`` drops the lambda(tau) factor; ``observable``
    divides the survival estimate and its bonus by N_{i,tau} instead of N_{i,0}."""
    counts, gains, survivals = state[0], state[1], state[2]
    base = counts if observable else state[3][:, :1]
    c_t = 2.0 * alpha * math.log(t)
    penalty_bonus = np.sqrt(c_t / base)
    if not unit_bonus:
        penalty_bonus = penalty_bonus * lam
    ghat = gains / counts
    lambda_hat = lam * survivals / base
    return (ghat - lambda_hat + np.sqrt(c_t / counts) + penalty_bonus).ravel()


def rcucb_select(t, state, taus, lam, params, scores, stream):
    """RCUCB's pair for round t: rounds 1..n play arm t with the largest limit; then eq. (12)'s argmax, exact ties
    broken by the stream. ``params`` = (alpha, unit bonus, observable)."""
    n_arms, m = state.shape[1], state.shape[2]
    if t > n_arms:
        scores[:] = rcucb_index(t, state, lam, params[0], params[1] != 0.0, params[2] != 0.0)
        return rng.stream_argmax_random_ties(stream, scores)
    return m * t - 1


def ucb_select(t, state, taus, lam, params, scores, stream):
    """Eq. (31): every pair once, then argmax (Ybar + L) / (1 + L) + sqrt(alpha ln t / (2 T)); ``params`` =
    (alpha, L)."""
    pairs = state.shape[1] * state.shape[2]
    if t > pairs:
        alpha, scale = params[0], params[1]
        pulled, y_sum = state[0], state[1]
        scores[:] = ((y_sum / pulled + scale) / (1.0 + scale) + np.sqrt(alpha * math.log(t) / (2.0 * pulled))).ravel()
        return rng.stream_argmax_random_ties(stream, scores)
    return t - 1


def ts_select(t, state, taus, lam, params, scores, stream):
    """Eq. (32): every pair once, then argmax of one Beta(1 + S, 1 + F) draw per pair. Round u of draws
    (the stream's fourth word, then advanced) reads pair p's at counter u n m + p of the policy stream's
    posterior sub-stream 2 s + 1 (s: the stream's sub-stream)."""
    pairs = state.shape[1] * state.shape[2]
    if t <= pairs:
        return t - 1
    u = int(stream[3])
    stream[3] = np.uint64(u + 1)
    successes, failures = state[0].ravel(), state[1].ravel()
    posterior_sub = np.uint64(2 * int(stream[2]) + 1)
    for p in range(pairs):
        scores[p] = beta_sampler.beta_ab(1.0 + successes[p], 1.0 + failures[p], stream[0], stream[1], posterior_sub,
                                         np.uint64(u * pairs + p))
    return rng.stream_argmax_random_ties(stream, scores)


def ts_update(t, state, taus, lam, params, arm, j_played, reward, consumption, cost_slope, stream):
    """App. E.1's update: each limit from the smallest (``params[0]`` set: the played one only) to the played one
    gets a Bernoulli trial, success probability (Y + L) / (1 + L) clipped to [0, 1], success when the stream's
    uniform is <= it; a success counts in row 0, a failure in row 1. ``params`` = (single pair, L)."""
    scale = params[1]
    lowest = j_played if params[0] != 0.0 else 0
    for j in range(lowest, j_played + 1):
        y = gain_y(reward, consumption, taus[j], lam[j], cost_slope)
        success = min(1.0, max(0.0, (y + scale) / (1.0 + scale)))
        row = 0 if rng.stream_uniform(stream) <= success else 1
        state[row, arm, j] += 1.0
