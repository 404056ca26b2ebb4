"""Thompson sampling with Gaussian priors (Agrawal and Goyal, JACM 2017), satisficing_select spec §2.2,
and with Beta(1, 1) priors for Bernoulli rewards (spec §5.2, the Fig 2 sensitivity run).

No initial round-robin. Arm j keeps k_j pulls and the reward sum s_j; its posterior mean is
mu_j = s_j / (k_j + 1) (prior N(0, 1) folded in), and each step draws
theta_j ~ N(mu_j, 1 / (k_j + 1)) -- 1/(k_j+1) is the *variance* -- and pulls argmax theta
(first index on exact ties). Anytime; alpha = 1/2 in Condition 1.

The kernel draws theta_j from the policy stream in arm order, one standard normal per arm.

Beta-Bernoulli TS (Agrawal and Goyal 2012/2017, Algorithm 1): with k_j pulls and s_j successes
(rewards in {0, 1}) the posterior of arm j under a Beta(1, 1) prior is Beta(1 + s_j, 1 + k_j - s_j);
each step draws theta_j from it (arm order, :func:`banditrepro.rng.stream_beta`) and pulls argmax theta
(first index on exact ties). The update is the same bookkeeping as the Gaussian one (k_j, s_j).

The kernels are compiled without reference counts (:mod:`.arm_trees`).
"""

from __future__ import annotations

import math

from numba import njit

from .. import rng


@njit(cache=True, _nrt=False)
def gaussian_ts_choose(counts, sums, n_arms, stream):
    """Arm with the largest posterior draw; ``counts``/``sums`` hold k_j and s_j (first n_arms used)."""
    best = 0
    best_theta = -math.inf
    for j in range(n_arms):
        k1 = counts[j] + 1.0
        theta = sums[j] / k1 + rng.stream_normal(stream) / math.sqrt(k1)
        if theta > best_theta:
            best_theta = theta
            best = j
    return best


@njit(cache=True, _nrt=False)
def gaussian_ts_update(counts, sums, arm, reward):
    counts[arm] += 1.0
    sums[arm] += reward


@njit(cache=True)
def beta_posterior(count, successes):
    """(a, b) of the Beta posterior of an arm with ``count`` pulls and ``successes`` ones, prior Beta(1, 1)."""
    return 1.0 + successes, 1.0 + count - successes


@njit(cache=True, _nrt=False)
def beta_ts_choose(counts, sums, n_arms, stream):
    """Arm with the largest Beta(1 + s_j, 1 + k_j - s_j) draw (``sums`` = successes s_j, first n_arms used)."""
    best = 0
    best_theta = -math.inf
    for j in range(n_arms):
        a, b = beta_posterior(counts[j], sums[j])
        theta = rng.stream_beta(stream, a, b)
        if theta > best_theta:
            best_theta = theta
            best = j
    return best


# k_j += 1, s_j += reward: Beta-Bernoulli TS keeps the same statistics as the Gaussian one
beta_ts_update = gaussian_ts_update

# The units a builder or loop dispatches to for each policy, keyed by the policy's name as the experiments
# name it (banditrepro.codegraph: what a planted bug here reruns; tests/test_policy_ownership.py checks it).
POLICY_ENTRIES = {
    "thompson": ("gaussian_ts_choose", "gaussian_ts_update"),
    "beta_thompson": ("beta_ts_choose", "beta_ts_update"),
}
