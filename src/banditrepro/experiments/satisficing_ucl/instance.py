"""Ground truth of a Gaussian satisficing instance (spec §1): gaps, satisfying sets, Lemma 5."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from ...registry import Param, complete

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
