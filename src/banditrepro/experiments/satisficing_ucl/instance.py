"""Ground truth of a Gaussian satisficing instance (spec §1): gaps, satisfying sets, Lemma 5."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

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


@dataclass(frozen=True)
class GaussianInstance:
    means: np.ndarray
    sigma: np.ndarray
    happiness_threshold: float  # M of eq (17)

    @classmethod
    def from_params(cls, params: dict) -> "GaussianInstance":
        means = np.asarray(params["means"], dtype=np.float64)
        sigma = np.broadcast_to(np.asarray(params["sigma"], dtype=np.float64), means.shape).copy()
        return cls(means, sigma, float(params.get("happiness_threshold", 0.0)))

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
