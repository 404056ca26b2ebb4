"""Upper-credible-limit (UCL) algorithms of Reverdy, Srivastava and Leonard (IEEE TAC 2017).

One kernel covers the paper's eight algorithms A1-A8 (spec ``satisficing_ucl`` §2). With the
uninformative prior of Sec. VII the Gaussian posterior of arm i is N(s_i/n_i, sd_i^2/n_i),
sd_i = sigma_s,i (raw rewards) or 1 (robust variants on r~ = (r - M)/sigma_s,i, Lemma 5).

Index Q_i = mu_i + sd_i/sqrt(n_i) * z_t with
  z_t = Phi^-1(1 - 1/(K t))   (A1, A2, A5, A6: UCL schedule), or
  z   = Phi^-1(1 - delta/2)   (A3, A7: delta-sufficing), Phi^-1(1 - delta/3) (A4, A8).
Satisficing variants (A2, A4, A6, A8) pick from the eligible set E = {i : Q_i >= threshold},
uniformly at random (resolution of the spec) or the lowest index (ablation), and fall back to
argmax Q when E is empty. Arms are first pulled once each in index order (resolution: the index
is undefined for unpulled arms under the uninformative prior). Ties: lowest index.

``step_metric`` is the satisficing regret (12): Delta_{i_t} unless the posterior probability
Pr[m_{i_t} >= threshold] before the pull exceeds 1 - delta (0.5 for an unpulled arm).

params layout: [K, z_fixed (nan = UCL schedule), eligibility threshold (nan = none), choice rule
(0 random, 1 lowest index), robust (0/1), happiness threshold M, delta for (12), threshold of (12)],
then sigma_s (n_arms), then regret gaps Delta_i (n_arms). State rows: 0 counts, 1 sums of the
(possibly standardised) observations, 2 posterior means, 3 posterior sds sd_i/sqrt(n_i). ``prepare`` appends the z_t table (t = 1..T).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import ndtri

from .. import rng
from ..engine import PolicyKernel
from ..special import norm_cdf

_HEADER = 8
CHOICE_RULES = {"random": 0.0, "lowest_index": 1.0}


@njit(cache=True)
def _noise_sd(params, arm):
    if params[4] != 0.0:  # robust: standardised observations have unit variance
        return 1.0
    return params[_HEADER + arm]


@njit(cache=True)
def _select(t, state, params, stream):
    n_arms = state.shape[1]
    if t <= n_arms:
        return t - 1
    z = params[1]
    if math.isnan(z):  # UCL schedule, tabulated by _prepare after the per-arm blocks
        z = params[_HEADER + 2 * n_arms + t - 1]
    threshold = params[2]
    best = 0
    best_q = -math.inf
    n_eligible = 0
    for i in range(n_arms):
        q = state[2, i] + state[3, i] * z
        if q > best_q:
            best_q = q
            best = i
        if q >= threshold:  # False when threshold is nan
            n_eligible += 1
    if n_eligible == 0:
        return best
    if params[3] == 1.0:
        pick = 0
    else:
        pick = rng.stream_integer(stream, n_eligible)
    for i in range(n_arms):
        q = state[2, i] + state[3, i] * z
        if q >= threshold:
            if pick == 0:
                return i
            pick -= 1
    return best


@njit(cache=True)
def _update(t, state, params, arm, obs):
    value = obs[0]
    if params[4] != 0.0:
        value = (value - params[5]) / params[_HEADER + arm]
    n = state[0, arm] + 1.0
    state[0, arm] = n
    state[1, arm] += value
    state[2, arm] = state[1, arm] / n
    state[3, arm] = _noise_sd(params, arm) / math.sqrt(n)


@njit(cache=True)
def _satisficing_regret(t, state, params, arm):
    n_arms = state.shape[1]
    gap = params[_HEADER + n_arms + arm]
    if state[0, arm] == 0.0:
        prob_satisfied = 0.5
    else:
        prob_satisfied = 1.0 - norm_cdf((params[7] - state[2, arm]) / state[3, arm])
    if prob_satisfied > 1.0 - params[6]:
        return 0.0
    return gap


def _prepare(params, horizon):
    """Append z_t = Phi^-1(1 - 1/(K t)) for t = 1..horizon (same for every replication)."""
    t = np.arange(1, horizon + 1, dtype=np.float64)
    return np.concatenate([params, ndtri(np.clip(1.0 - 1.0 / (params[0] * t), 0.0, 1.0))])


UCL = PolicyKernel("ucl", _select, _update, state_rows=4, step_metric=_satisficing_regret,
                   step_metric_name="satisficing_regret", prepare=_prepare)


def ucl(sigma_s, gaps, *, K: float = 1.0, delta: float | None = None, delta_divisor: int = 2,
        eligibility_threshold: float | None = None, choice_rule: str = "random", robust: bool = False,
        happiness_threshold: float = 0.0, regret_threshold: float = math.nan) -> tuple[PolicyKernel, np.ndarray]:
    """Parameters of one UCL variant.

    ``delta=None`` uses the UCL schedule alpha_t = 1/(K t); otherwise the fixed quantile
    Phi^-1(1 - delta/delta_divisor) (2 for A3/A7, 3 for A4/A8). ``eligibility_threshold`` is the
    satisficing threshold (M, or X = Phi^-1(Pi) for robust variants), None for A1/A3/A5/A7.
    ``gaps`` and ``regret_threshold`` (in the agent's units) define the satisficing regret (12).
    """
    sigma_s = np.asarray(sigma_s, dtype=np.float64)
    gaps = np.asarray(gaps, dtype=np.float64)
    if sigma_s.shape != gaps.shape:
        raise ValueError("sigma_s and gaps need one entry per arm")
    if np.any(sigma_s <= 0):
        raise ValueError("sigma_s must be > 0")
    if K <= 0:
        raise ValueError("K must be > 0")
    if delta is not None and not 0 < delta <= 1:
        raise ValueError("delta must lie in (0, 1]")
    if choice_rule not in CHOICE_RULES:
        raise ValueError(f"choice_rule must be one of {sorted(CHOICE_RULES)}")
    z_fixed = math.nan if delta is None else float(ndtri(1.0 - delta / delta_divisor))
    header = [K, z_fixed, math.nan if eligibility_threshold is None else eligibility_threshold,
              CHOICE_RULES[choice_rule], 1.0 if robust else 0.0, happiness_threshold,
              0.0 if delta is None else delta, regret_threshold]
    return UCL, np.concatenate([np.array(header, dtype=np.float64), sigma_s, gaps])

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "A1": ("ucl",),
    "A2": ("ucl",),
    "A3": ("ucl",),
    "A4": ("ucl",),
    "A5": ("ucl",),
    "A6": ("ucl",),
    "A7": ("ucl",),
    "A8": ("ucl",),
}
