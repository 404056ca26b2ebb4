"""Reference: the UCL algorithms A1-A8 of Reverdy, Srivastava and Leonard (IEEE TAC 2017), written apart.

An independent form of :mod:`banditrepro.algorithms.ucl` and of the variant table of
:mod:`banditrepro.experiments.satisficing_ucl.builders`, transcribed from the paper: its own parameter
layout, posterior statistics recomputed from counts and sums at every step, and its own table of which
quantile and which choice rule each algorithm uses. It draws the same random numbers as the production
kernel (the environment's counter-based rewards; one policy coin, ``stream_integer`` over the eligible
arms, whenever a random choice among eligible arms is made), so on the same keys a correct production
kernel chooses exactly the same arms. The sanity claim ``ucl_matches_reference`` reruns the first
replications of an experiment with this kernel and requires the build's numbers (docs/mutants.md).

The paper's definitions, as read here (spec ``satisficing_ucl`` §2 and its resolutions):

* posterior of arm i after n_i pulls (uninformative prior, Sec. VII): N(s_i / n_i, sd_i^2 / n_i), sd_i the
  reward sd sigma_s,i, or 1 for the robust algorithms, which observe r~ = (r - M) / sigma_s,i (Lemma 5);
* index Q_i = s_i / n_i + (sd_i / sqrt(n_i)) z, with z = Phi^-1(1 - 1/(K t)) (A1, A2, A5, A6),
  Phi^-1(1 - delta/2) (A3, A7: Theorem 10) or Phi^-1(1 - delta/3) (A4, A8: Theorem 11);
* A1/A3/A5/A7 pull the arm of largest index (lowest index on ties); the satisficing A2/A4/A6/A8 pull,
  uniformly at random (or the lowest, an ablation), one of the arms with Q_i >= the threshold (M, or
  Phi^-1(Pi) for the robust ones), the arm of largest index when there is none;
* every arm is pulled once first, in index order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import ndtri

from ... import rng
from ...engine import PolicyKernel

# algorithm: (quantile: "schedule" or ("delta", divisor), satisficing choice, robust observations)
DEFINITIONS = {
    "A1": ("schedule", False, False),
    "A2": ("schedule", True, False),
    "A3": (("delta", 2.0), False, False),
    "A4": (("delta", 3.0), True, False),
    "A5": ("schedule", False, True),
    "A6": ("schedule", True, True),
    "A7": (("delta", 2.0), False, True),
    "A8": (("delta", 3.0), True, True),
}

# params: [0] fixed z (nan: the schedule, tabulated by _prepare), [1] K, [2] eligibility threshold (nan: none),
# [3] 1 for the lowest eligible index instead of a random one, [4] 1 for robust observations, [5] M,
# then the reward sds sigma_s,i (n arms), then (after _prepare) z_t for t = 1..T.
_FIXED = 6


@njit(cache=True)
def _index(state, params, i, z):
    n = state[0, i]
    sd = 1.0 if params[4] != 0.0 else params[_FIXED + i]
    return state[1, i] / n + (sd / math.sqrt(n)) * z


@njit(cache=True)
def _select(t, state, params, stream):
    n_arms = state.shape[1]
    if t <= n_arms:  # each arm once, in index order
        return t - 1
    z = params[0]
    if math.isnan(z):
        z = params[_FIXED + n_arms + t - 1]
    best, best_q = 0, -math.inf
    for i in range(n_arms):
        q = _index(state, params, i, z)
        if q > best_q:
            best, best_q = i, q
    threshold = params[2]
    if math.isnan(threshold):
        return best
    eligible = np.empty(n_arms, dtype=np.int64)
    m = 0
    for i in range(n_arms):
        if _index(state, params, i, z) >= threshold:
            eligible[m] = i
            m += 1
    if m == 0:
        return best
    if params[3] != 0.0:
        return eligible[0]
    return eligible[rng.stream_integer(stream, m)]


@njit(cache=True)
def _update(t, state, params, arm, obs):
    value = obs[0]
    if params[4] != 0.0:  # robust: the standardised observation (r - M) / sigma_s,i
        value = (value - params[5]) / params[_FIXED + arm]
    state[0, arm] += 1.0
    state[1, arm] += value


def _prepare(params, horizon):
    t = np.arange(1, horizon + 1, dtype=np.float64)
    return np.concatenate([params, ndtri(np.clip(1.0 - 1.0 / (params[1] * t), 0.0, 1.0))])


UCL_REFERENCE = PolicyKernel("ucl_reference", _select, _update, state_rows=2, prepare=_prepare)


def reference_params(algo: dict, means, sigma, happiness_threshold: float) -> np.ndarray:
    """This module's params for one algorithm entry of the config (variant, K, threshold, delta, choice_rule,
    standardised) on arms with ``means`` and reward sds ``sigma``."""
    quantile, satisficing, robust = DEFINITIONS[algo["variant"]]
    sigma = np.asarray(sigma, dtype=np.float64)
    M = float(happiness_threshold)
    if algo.get("standardised", False):  # Lemma 5's instance: unit variance, threshold 0
        sigma, M = np.ones_like(sigma), 0.0
    z = math.nan if quantile == "schedule" else float(ndtri(1.0 - float(algo["delta"]) / quantile[1]))
    threshold = math.nan
    if satisficing:
        threshold = float(ndtri(float(algo["threshold"]))) if robust else float(algo["threshold"])
    lowest = 1.0 if algo.get("choice_rule", "random") == "lowest_index" else 0.0
    header = [z, float(algo.get("K", 1.0)), threshold, lowest, 1.0 if robust else 0.0, M]
    return np.concatenate([np.array(header, dtype=np.float64), sigma])


def install(sim, experiment, algorithm: str) -> None:
    """Swap the production UCL kernel of a built StepSimulation for this reference (same arms and noise)."""
    params = experiment.params
    means = np.asarray(params["means"], dtype=np.float64)
    sigma = np.broadcast_to(np.asarray(params["sigma"], dtype=np.float64), means.shape)
    sim.policy = UCL_REFERENCE
    sim.policy_params = reference_params(experiment.algorithms[algorithm], means, sigma,
                                         float(params.get("happiness_threshold", 0.0)))
