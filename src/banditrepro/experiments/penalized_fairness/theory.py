"""Arm classes and Theorem 4.2 quantities of a fixed instance (spec §1 and Setting 4)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .builders import fairness_vector


@dataclass
class FixedInstance:
    means: np.ndarray
    tau: np.ndarray
    penalty: np.ndarray
    horizon: int

    @property
    def gaps(self) -> np.ndarray:
        return self.means.max() - self.means


def fixed_instance(experiment, algorithm: str) -> FixedInstance:
    """Means, tau, A_k and T of a fixed-instance experiment (numeric penalty only)."""
    means = np.asarray(experiment.params["means"], dtype=np.float64)
    tau = fairness_vector(experiment.params["tau"], means.size)
    penalty = np.broadcast_to(np.asarray(float(experiment.algorithms[algorithm]["penalty"])), means.shape).copy()
    return FixedInstance(means, tau, penalty, int(experiment.horizon))


def arm_classes(means, penalty) -> np.ndarray:
    """'optimal' (Delta = 0), 'critical' (0 < Delta <= A) or 'noncritical' (Delta > A) per arm."""
    means = np.asarray(means, dtype=np.float64)
    penalty = np.broadcast_to(np.asarray(penalty, dtype=np.float64), means.shape)
    gaps = means.max() - means
    out = np.where(gaps > penalty, "noncritical", "critical").astype(object)
    out[gaps == 0] = "optimal"
    return out


def theorem_42_upper_bounds(inst: FixedInstance) -> np.ndarray:
    """Leading terms of Theorem 4.2's E N_k(T) bounds (without the O(1)):
    (b) critical arms max{8 ln T / Delta^2, tau T};
    (c) non-critical arms max{min{8 ln T / (Delta - A)^2, tau T}, 8 ln T / Delta^2}. The outer max
    is UCB1's own exploration: an arm is pulled about 8 ln T / Delta^2 times whatever its penalty."""
    log_t = math.log(inst.horizon)
    classes = arm_classes(inst.means, inst.penalty)
    gaps = inst.gaps
    out = np.full(gaps.shape, np.nan)
    for k, c in enumerate(classes):
        if c == "critical":
            out[k] = max(8 * log_t / gaps[k] ** 2, inst.tau[k] * inst.horizon)
        elif c == "noncritical":
            out[k] = max(min(8 * log_t / (gaps[k] - inst.penalty[k]) ** 2, inst.tau[k] * inst.horizon),
                         8 * log_t / gaps[k] ** 2)
    return out
