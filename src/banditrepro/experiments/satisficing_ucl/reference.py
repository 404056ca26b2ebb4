"""Reference: the satisficing-UCL experiments end to end, written from the paper (Reverdy, Srivastava, Leonard).

A second implementation of the experiments of config/papers/satisficing_ucl.yaml, for the reference guards
F1_reference and F4_reference (:class:`banditrepro.experiments.reference.ReferenceImplementation`,
docs/mutants.md "Guards"). It is written from the paper (IEEE TAC 2017) and the digest's resolutions (spec
``satisficing_ucl`` §1-§6), not from the build:

* ``INSTANCES`` and ``SETTINGS``: Sec. VII's instances (m = [1, 2, 3, 4], sigma_s = 1 for Figs 1-3; sigma =
  [1, 1, 1, 3] for Figs 4-5 (resolution sigma_fig45), the printed [1, 1, 3, 4] as a sensitivity run; happiness
  threshold M = 2) and, per experiment, which of A1-A8 each algorithm id runs with its K, threshold and delta
  (M = 2.5 for P2/P4, delta = 0.05; K = sqrt(2 pi e) the sensitivity run); "standardised" is Lemma 5's instance:
  means x_i = (m_i - M) / sigma_i, unit variance, happiness threshold 0;
* :func:`reward`: pull k (from 0) of arm i is m_i + sigma_i Z, Z member k mod 2 of ``rng.normal_pair`` at
  counter k // 2 of sub-stream i on the noise key's TAG_ARM stream;
* :func:`play`: the UCL algorithms of Secs. IV-VI from their definitions -- posterior N(s_i / n_i, sd_i^2 / n_i)
  under the uninformative prior (sd_i = sigma_i, or 1 for the robust A5-A8, which observe r~ = (r - M) /
  sigma_i, Lemma 5), index Q_i = s_i / n_i + sd_i / sqrt(n_i) z with z = Phi^-1(1 - 1/(K t)) (A1, A2, A5, A6),
  Phi^-1(1 - delta/2) (A3, A7: Theorem 10) or Phi^-1(1 - delta/3) (A4, A8: Theorem 11); A1/A3/A5/A7 pull the
  arm of largest index (the lowest on ties), the satisficing A2/A4/A6/A8 one of the arms with Q_i >= the
  threshold (M, or Phi^-1(Pi) for the robust ones) drawn uniformly (the lowest, an ablation), the arm of
  largest index when there is none; every arm once first, in index order (resolution initialization);
* the metrics: pseudo-regret against the threshold or the best value (means, or p_i = Phi(x_i) for the robust
  problems, eq. 19; regret_x in x-units), expected and realised reward, happiness (r >= M), switches (round-robin
  included) and the satisficing regret (12): Delta_{i_t} unless the posterior probability, before the pull, that
  m_{i_t} reaches the agent's threshold exceeds 1 - delta (0.5 for an unpulled arm; delta = 0, no exemption, for
  the algorithms without one).

Shared with the build, and nothing else (tests/test_reference_independence.py checks the imports): the random
numbers at the keys ``experiments.runner.keys_for`` gives -- the rewards above, and the policy key's TAG_POLICY
stream (sub-stream 0), one ``rng.stream_integer`` over the eligible arms whenever a satisficing algorithm draws
among them. Every array is compared to the bit: each formula is evaluated in the order written above and every
cumulative metric summed step by step. The one exception in route, not in tolerance: (12)'s probability is
computed as Phi((mu - threshold) / sd) with ``math.erfc``; it is compared with 1 - delta only, so a difference in
its last bit could change a number only if the probability sat on 1 - delta to the bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import ndtr, ndtri

from ... import rng
from ...simulation_output import SimulationOutput

SCHEDULE = 0.0  # the quantile of A1, A2, A5, A6 (Phi^-1(1 - 1/(K t)))

# algorithm: (divisor of delta in the fixed quantile, or SCHEDULE; satisficing (eligible set); robust (r~))
ALGORITHMS = {
    "A1": (SCHEDULE, False, False),
    "A2": (SCHEDULE, True, False),
    "A3": (2.0, False, False),
    "A4": (3.0, True, False),
    "A5": (SCHEDULE, False, True),
    "A6": (SCHEDULE, True, True),
    "A7": (2.0, False, True),
    "A8": (3.0, True, True),
}


@dataclass(frozen=True)
class Instance:
    """Gaussian arms N(means_i, sigma_i^2) and the happiness threshold M (eq. 17)."""

    means: tuple
    sigma: tuple
    M: float

    def standardised(self) -> Instance:
        """Lemma 5: x_i = (m_i - M) / sigma_i, unit variance, threshold 0."""
        return Instance(tuple((m - self.M) / s for m, s in zip(self.means, self.sigma)), (1.0,) * len(self.means), 0.0)


@dataclass(frozen=True)
class Policy:
    """One curve: algorithm A1-A8, K of the schedule, satisficing threshold (M or Pi), delta, the lowest eligible
    arm instead of a random one, on Lemma 5's standardised instance."""

    algorithm: str
    K: float = 1.0
    threshold: float | None = None
    delta: float | None = None
    lowest: bool = False
    standardised: bool = False


FIGS_1_3 = Instance((1.0, 2.0, 3.0, 4.0), (1.0, 1.0, 1.0, 1.0), 2.0)
FIGS_4_5 = Instance((1.0, 2.0, 3.0, 4.0), (1.0, 1.0, 1.0, 3.0), 2.0)  # resolution sigma_fig45
PRINTED_SIGMA = Instance((1.0, 2.0, 3.0, 4.0), (1.0, 1.0, 3.0, 4.0), 2.0)  # sigma as printed in Sec. VII
M_P2 = 2.5  # the satisficing threshold of P2 and P4 (Figs 1-2)
DELTA = 0.05
K_EARLIER = math.sqrt(2.0 * math.pi * math.e)  # the earlier UCL paper's K (sensitivity run)

FIGS_1_3_POLICIES = {"A1_P1": Policy("A1"), "A2_P2": Policy("A2", threshold=M_P2), "A3_P3": Policy("A3", delta=DELTA),
                     "A4_P4": Policy("A4", delta=DELTA, threshold=M_P2)}
ROBUST_POLICIES = {"A1_P1_het": Policy("A1"), "A5_P5": Policy("A5"), "A7_P7": Policy("A7", delta=DELTA)}

# experiment id: (instance, {algorithm id: policy})
SETTINGS = {
    "mean_reward": (FIGS_1_3, FIGS_1_3_POLICIES),
    "mean_reward_T5000": (FIGS_1_3, {**FIGS_1_3_POLICIES,
                                     "A2_P2_lowest": Policy("A2", threshold=M_P2, lowest=True)}),
    "mean_reward_K": (FIGS_1_3, {"A1_P1_K": Policy("A1", K=K_EARLIER),
                                 "A2_P2_K": Policy("A2", K=K_EARLIER, threshold=M_P2)}),
    "robust": (FIGS_4_5, {**ROBUST_POLICIES, "A1_std": Policy("A1", standardised=True)}),
    "robust_literal_sigma": (PRINTED_SIGMA, ROBUST_POLICIES),
}


# --- the loop ------------------------------------------------------------------------------------------------


@njit(cache=True)
def reward(means, sigma, noise_key, arm, k):
    """Pull k (from 0) of ``arm``: m_i + sigma_i Z, Z member k mod 2 of normal pair k // 2 of sub-stream i."""
    first, second = rng.normal_pair(noise_key, rng.TAG_ARM, arm, k // 2)
    return means[arm] + sigma[arm] * (first if k % 2 == 0 else second)


@njit(cache=True)
def _upper_limit(s, n, sd, z):
    return s / n + (sd / math.sqrt(n)) * z


@njit(cache=True)
def play(means, sigma, M, robust, quantiles, threshold, lowest, gaps, gaps_x, exemption_delta, exemption_level,
         noise_key, policy_key, checkpoints):
    """One run: curves (7, C) -- regret, expected reward, regret_x, reward, happiness, switches, satisficing
    regret (12) -- and pulls (C, n) at the checkpoints. ``quantiles[t - 1]`` is z at step t; ``threshold`` the
    eligibility threshold in the agent's units (nan: none)."""
    n_arms = means.shape[0]
    sd = np.ones(n_arms) if robust else sigma
    count = np.zeros(n_arms)
    total = np.zeros(n_arms)
    pulls = np.zeros(n_arms, dtype=np.int64)
    coins = np.zeros(4, dtype=np.uint64)  # (key, tag, sub-stream 0, next counter)
    coins[0], coins[1] = policy_key, rng.TAG_POLICY
    eligible = np.empty(n_arms, dtype=np.int64)
    curves = np.zeros((7, checkpoints.size))
    pulls_at = np.zeros((checkpoints.size, n_arms), dtype=np.int64)
    regret = expected = regret_x = realised = happy = switches = satisficing = 0.0
    last, c = -1, 0
    for t in range(1, checkpoints[-1] + 1):
        if t <= n_arms:
            arm = t - 1
        else:
            z = quantiles[t - 1]
            arm, best_q, m = 0, -math.inf, 0
            for i in range(n_arms):
                q = _upper_limit(total[i], count[i], sd[i], z)
                if q > best_q:
                    arm, best_q = i, q
                if q >= threshold:
                    eligible[m] = i
                    m += 1
            if m > 0:
                arm = eligible[0] if lowest else eligible[rng.stream_integer(coins, m)]
        # (12): exempt when the posterior puts more than 1 - delta on m_arm >= the agent's level
        satisfied = 0.5
        if count[arm] > 0.0:
            satisfied = 0.5 * math.erfc((exemption_level - total[arm] / count[arm])
                                        / (sd[arm] / math.sqrt(count[arm])) / math.sqrt(2.0))
        if not satisfied > 1.0 - exemption_delta:
            satisficing += gaps[arm]
        r = reward(means, sigma, noise_key, arm, pulls[arm])
        pulls[arm] += 1
        count[arm] += 1.0
        total[arm] += (r - M) / sigma[arm] if robust else r
        regret += gaps[arm]
        expected += means[arm]
        regret_x += gaps_x[arm]
        realised += r
        if r >= M:
            happy += 1.0
        if last >= 0 and arm != last:
            switches += 1.0
        last = arm
        if t == checkpoints[c]:
            curves[0, c], curves[1, c], curves[2, c], curves[3, c] = regret, expected, regret_x, realised
            curves[4, c], curves[5, c], curves[6, c] = happy, switches, satisficing
            pulls_at[c] = pulls
            c += 1
            if c == checkpoints.size:
                break
    return curves, pulls_at


# --- the reference ----------------------------------------------------------------------------------------------


def problem(instance: Instance, policy: Policy) -> dict:
    """What one policy's run needs, in floats: the arms it plays, its quantiles' divisor, its eligibility
    threshold (agent's units), the regret gaps (p-units for the robust problems, eq. 19), regret_x and (12)."""
    divisor, satisficing, robust = ALGORITHMS[policy.algorithm]
    if policy.standardised:
        instance = instance.standardised()
    means, sigma = np.array(instance.means), np.array(instance.sigma)
    x = (means - instance.M) / sigma  # eq. 20
    values = ndtr(x) if robust else means  # p_i = Phi(x_i) (eq. 21) or m_i
    level = float(policy.threshold) if satisficing else float(values.max())
    x_level = float(ndtri(policy.threshold)) if satisficing and robust else float(x.max())  # Phi^-1(Pi)
    agent_level = x_level if robust else level  # what the agent's posterior is compared to
    return {"means": means, "sigma": sigma, "M": instance.M, "robust": robust, "divisor": divisor,
            "threshold": agent_level if satisficing else math.nan,
            "gaps": np.maximum(level - values, 0.0), "gaps_x": np.maximum(x_level - x, 0.0),
            "exemption_delta": 0.0 if policy.delta is None else float(policy.delta), "exemption_level": agent_level}


def quantiles(policy: Policy, divisor: float, horizon: int) -> np.ndarray:
    """z at steps t = 1..T: Phi^-1(1 - 1/(K t)) (the schedule; -inf at K t = 1, unused: round robin) or the
    fixed Phi^-1(1 - delta / divisor)."""
    if divisor == SCHEDULE:
        t = np.arange(1, horizon + 1, dtype=np.float64)
        return ndtri(1.0 - 1.0 / (policy.K * t))
    return np.full(horizon, float(ndtri(1.0 - policy.delta / divisor)))


class SatisficingUCLReference:
    """:class:`banditrepro.experiments.reference.ReferenceImplementation` of every experiment in ``SETTINGS``."""

    tolerances: dict = {}  # every array to the bit (module docstring)

    def run(self, experiment, algorithm: str, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        if experiment.id not in SETTINGS or algorithm not in SETTINGS[experiment.id][1]:
            raise ValueError(f"the satisficing_ucl reference has no {experiment.id}/{algorithm}")
        instance, policies = SETTINGS[experiment.id]
        policy = policies[algorithm]
        p = problem(instance, policy)
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        z = quantiles(policy, p["divisor"], int(checkpoints[-1]))
        runs = [play(p["means"], p["sigma"], p["M"], p["robust"], z, p["threshold"], policy.lowest, p["gaps"],
                     p["gaps_x"], p["exemption_delta"], p["exemption_level"], np.uint64(noise), np.uint64(coins),
                     checkpoints)
                for noise, coins in zip(noise_keys, policy_keys)]
        curves = np.stack([c for c, _ in runs])
        names = ["regret", "expected_reward", "regret_x", "reward", "happiness", "switches", "satisficing_regret"]
        out = {name: curves[:, k, :] for k, name in enumerate(names) if name != "regret_x" or p["robust"]}
        return SimulationOutput(checkpoints=checkpoints, curves=out, pulls=np.stack([u for _, u in runs]))


REFERENCE = SatisficingUCLReference()
