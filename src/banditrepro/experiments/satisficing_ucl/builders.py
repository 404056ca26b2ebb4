"""Builder of the Gaussian satisficing experiments: the instance's ground truth (spec §1: gaps,
satisfying sets, Lemma 5) and a UCL variant on independent Gaussian arms, run by the engine's compiled
step loop (:class:`banditrepro.engine.StepSimulation`; this paper needs no loop of its own)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from ...algorithms.ucl import CHOICE_RULES, ucl
from ...engine import StepSimulation
from ...environments import gaussian_arms
from ...registry import Param, complete, complete_entry, simulation_builder

# variant -> (index rule, uses an eligible set, robust (standardised rewards))
VARIANTS = {
    "A1": ("ucl", False, False),
    "A2": ("ucl", True, False),
    "A3": ("delta2", False, False),
    "A4": ("delta3", True, False),
    "A5": ("ucl", False, True),
    "A6": ("ucl", True, True),
    "A7": ("delta2", False, True),
    "A8": ("delta3", True, True),
}

# The experiment's ``params:`` (declared for the gaussian_ucl builder)
INSTANCE_PARAMS = {
    "means": Param(list, items=Param(float), doc="arm means m_i"),
    "sigma": Param((list, float), items=Param(float), doc="reward standard deviations sigma_i (one number: all arms)"),
    "happiness_threshold": Param(float, default=0.0, doc="M of eq (17)"),
}


@dataclass(frozen=True)
class GaussianInstance:
    means: np.ndarray
    sigma: np.ndarray
    happiness_threshold: float  # M of eq (17)

    @classmethod
    def from_params(cls, params: dict) -> GaussianInstance:
        params = complete(params, INSTANCE_PARAMS, "params")
        means = np.asarray(params["means"], dtype=np.float64)
        sigma = np.broadcast_to(np.asarray(params["sigma"], dtype=np.float64), means.shape).copy()
        return cls(means, sigma, float(params["happiness_threshold"]))

    @property
    def x(self) -> np.ndarray:
        """Standardised means x_i = (m_i - M)/sigma_i (eq 20)."""
        return (self.means - self.happiness_threshold) / self.sigma

    @property
    def p(self) -> np.ndarray:
        """Happiness probabilities p_i = Phi(x_i) (eq 21)."""
        return ndtr(self.x)

    def values(self, robust: bool) -> np.ndarray:
        """What the problem ranks arms by: means (P1-P4) or happiness probabilities (P5-P8)."""
        return self.p if robust else self.means

    def regret_threshold(self, robust: bool, threshold: float | None) -> float:
        """The level regret is measured against: the satisficing threshold (M or Pi), else the best value."""
        return float(threshold) if threshold is not None else float(self.values(robust).max())

    def gaps(self, robust: bool, threshold: float | None) -> np.ndarray:
        return np.maximum(self.regret_threshold(robust, threshold) - self.values(robust), 0.0)

    def x_gaps(self, threshold_p: float | None) -> np.ndarray:
        """Gaps in standardised units (x-units) against Phi^-1(Pi) or the best x."""
        ref = float(ndtri(threshold_p)) if threshold_p is not None else float(self.x.max())
        return np.maximum(ref - self.x, 0.0)

    def satisfying_set(self, robust: bool, threshold: float | None) -> list[int]:
        level = self.regret_threshold(robust, threshold)
        return [int(i) for i in np.flatnonzero(self.values(robust) >= level)]


# --- the simulation builder ----------------------------------------------------------------------

ALGORITHM_PARAMS = {
    "variant": Param(str, choices=tuple(VARIANTS), doc="A1-A8 (spec §2)"),
    "K": Param(float, default=1.0, doc="UCL exploration constant K of the index"),
    "threshold": Param(float, default=None, doc="M (A2/A4) or Pi (A6/A8); only the satisficing variants take one"),
    "delta": Param(float, default=None, doc="delta of the sufficing variants A3/A4/A7/A8"),
    "choice_rule": Param(str, default="random", choices=tuple(CHOICE_RULES), doc="choice within the eligible set"),
    "standardised": Param(bool, default=False,
                          doc="run a raw-reward variant (A1-A4) on the standardised instance of Lemma 5: means "
                              "x_i = (m_i - M)/sigma_i, unit variance, happiness threshold 0; with the experiment's "
                              "shared noise, pull k of arm i draws x_i + Z_ik, the standardised draw of the raw run"),
}


def policy_for(instance: GaussianInstance, algo: dict):
    """(PolicyKernel, params) of one algorithm entry of the config."""
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    variant = algo["variant"]
    rule, eligible, robust = VARIANTS[variant]
    threshold = algo["threshold"]  # M for A2/A4, Pi for A6/A8
    if eligible and threshold is None:
        raise ValueError(f"variant {variant} needs a satisficing 'threshold'")
    if not eligible and threshold is not None:
        raise ValueError(f"variant {variant} has no satisficing threshold (it seeks the best arm)")
    delta = algo["delta"]
    if (rule == "ucl") != (delta is None):
        raise ValueError(f"variant {variant} {'takes no' if rule == 'ucl' else 'needs a'} 'delta'")
    gaps = instance.gaps(robust, threshold)
    if robust:
        # Agent works on r~ = (r - M)/sigma ~ N(x_i, 1): thresholds move to x-units (Lemma 5, eq 23)
        agent_threshold = float(ndtri(threshold)) if eligible else float(instance.x.max())
    else:
        agent_threshold = float(threshold) if eligible else float(instance.means.max())
    return ucl(instance.sigma, gaps, K=float(algo["K"]), delta=delta,
               delta_divisor=3 if rule == "delta3" else 2,
               eligibility_threshold=agent_threshold if eligible else None,
               choice_rule=algo["choice_rule"], robust=robust,
               happiness_threshold=instance.happiness_threshold, regret_threshold=agent_threshold)


def standardised_instance(instance: GaussianInstance) -> GaussianInstance:
    """Lemma 5's instance: means x_i, unit variance, happiness threshold 0 (r~ >= 0 exactly when r >= M)."""
    return GaussianInstance(instance.x, np.ones_like(instance.sigma), 0.0)


@simulation_builder("gaussian_ucl", params=INSTANCE_PARAMS, algorithm=ALGORITHM_PARAMS)
def build(experiment, algorithm: str) -> StepSimulation:
    instance = GaussianInstance.from_params(experiment.params)
    algo = experiment.algorithms[algorithm]
    if algo["standardised"]:
        if VARIANTS[algo["variant"]][2]:
            raise ValueError(f"{algorithm}: 'standardised' runs a raw-reward variant (A1-A4) on Lemma 5's instance; "
                             f"{algo['variant']} already standardises its observations")
        instance = standardised_instance(instance)
    kernel, params = policy_for(instance, algo)
    env, env_params = gaussian_arms(instance.means, instance.sigma)
    _, eligible, robust = VARIANTS[algo["variant"]]
    threshold = algo["threshold"]
    arm_values = [instance.gaps(robust, threshold), instance.means]
    names = ["regret", "expected_reward"]
    if robust:  # Fig 4 stores regret in both p-units (plotted) and x-units
        arm_values.append(instance.x_gaps(threshold))
        names.append("regret_x")
    return StepSimulation(env, env_params, np.vstack(arm_values), tuple(names), kernel, params,
                          happy_threshold=instance.happiness_threshold)
