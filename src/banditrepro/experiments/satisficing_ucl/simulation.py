"""Simulation builder: a UCL variant on independent Gaussian arms (compiled step loop)."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ...algorithms.ucl import CHOICE_RULES, ucl
from ...engine import StepSimulation
from ...environments import gaussian_arms
from ...registry import Param, complete_entry, simulation_builder
from .instance import INSTANCE_PARAMS, VARIANTS, GaussianInstance

ALGORITHM_PARAMS = {
    "variant": Param(str, choices=tuple(VARIANTS), doc="A1-A8 (spec §2)"),
    "K": Param(float, default=1.0, doc="UCL exploration constant K of the index"),
    "threshold": Param(float, default=None, doc="M (A2/A4) or Pi (A6/A8); only the satisficing variants take one"),
    "delta": Param(float, default=None, doc="delta of the sufficing variants A3/A4/A7/A8"),
    "choice_rule": Param(str, default="random", choices=tuple(CHOICE_RULES), doc="choice within the eligible set"),
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


@simulation_builder("gaussian_ucl", params=INSTANCE_PARAMS, algorithm=ALGORITHM_PARAMS)
def build(experiment, algorithm: str) -> StepSimulation:
    instance = GaussianInstance.from_params(experiment.params)
    algo = experiment.algorithms[algorithm]
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
