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
``ORACLE_BETA_TS`` Beta(1, 1) Thompson sampling on a finite instance with Bernoulli rewards
(sensitivity run, spec §5.2);
``ORACLE_UNIFORM_UCB`` uniformly discretized UCB, the grid of round i given as row i-1 of a
padded table of grid means (the grid depends on t_i); ``ORACLE_CONVEX_1D`` Agarwal et al.'s 1-D
algorithm on a concave mean function.

Variants (all off = Algorithm 1 as printed): ``skip_step1`` (candidate ~ Uniform([0,1]^d), no
oracle), ``skip_step2`` (LCB test from n = 1: pull once, then check before every further pull),
``skip_step3`` (a round ends after its T_i forced pulls), ``radius_coef`` c, and two
sensitivity variants that are not the paper's algorithm: ``reuse_step1`` (the round's Step-1
rewards of the candidate arm also enter the LCB test) and ``warm_start`` (the oracle is not
restarted: its data carry over from round to round; the Thompson-sampling and convex oracles keep
their arm sets and only the convex oracle's horizon becomes t_i, while Uniform UCB, whose grid would
change with t_i, is one UCB(H) on the grid of the run's horizon H, paused outside Step 1) and ``last_query``
(the candidate is the oracle's last query instead of a uniform draw from its trajectory: the reading
of Step 1 under which the Agarwal oracle, which never finishes its first epoch within t_i <= 64 steps,
hands over its current point).

This module holds SELECT's schedule, oracle codes and variant switches; the compiled loop that runs
rounds against an environment (``run_select``) is in
:mod:`banditrepro.experiments.satisficing_select.loops`, beside the paper's other loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .lipschitz_ucb import guarded_ceil

ORACLE_TS = 0
ORACLE_UNIFORM_UCB = 1
ORACLE_CONVEX_1D = 2
ORACLE_BETA_TS = 3
ORACLES = {"thompson": ORACLE_TS, "uniform_ucb": ORACLE_UNIFORM_UCB, "convex_1d": ORACLE_CONVEX_1D,
           "beta_thompson": ORACLE_BETA_TS}
# uniform_ucb: (d+1)/(d+2); Beta TS's O(sqrt(K T log T)) regret gives alpha = 1/2 up to the log (spec §5.2)
ORACLE_ALPHA = {"thompson": 0.5, "convex_1d": 0.5, "beta_thompson": 0.5}



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
    last_query: bool = False

    def __post_init__(self):
        if self.radius_coef < 0 or self.gamma_scale <= 0:
            raise ValueError("radius_coef must be >= 0 and gamma_scale > 0")
        if self.skip_step1 and (self.reuse_step1 or self.warm_start or self.last_query):
            raise ValueError("reuse_step1, warm_start and last_query need Step 1")

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "select": ("schedule_table", "SelectVariant"),
}
