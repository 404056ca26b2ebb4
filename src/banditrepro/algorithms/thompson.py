"""Thompson sampling with Gaussian priors (Agrawal and Goyal, JACM 2017), satisficing_select spec §2.2.

No initial round-robin. Arm j keeps k_j pulls and the reward sum s_j; its posterior mean is
mu_j = s_j / (k_j + 1) (prior N(0, 1) folded in), and each step draws
theta_j ~ N(mu_j, 1 / (k_j + 1)) -- 1/(k_j+1) is the *variance* -- and pulls argmax theta
(first index on exact ties). Anytime; alpha = 1/2 in Condition 1.

The kernel draws theta_j from the policy stream in arm order, one standard normal per arm.
"""

from __future__ import annotations

import math

from numba import njit

from .. import rng


@njit(cache=True)
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


@njit(cache=True)
def gaussian_ts_update(counts, sums, arm, reward):
    counts[arm] += 1.0
    sums[arm] += reward
