"""Analytic regret bounds of Theorems 7, 8, 10, 11 (spec §3), as reference curves."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from ... import portable
from ...registry import reference_curve
from .builders import GaussianInstance


def thm7_pull_bounds(gaps: np.ndarray, sigma: float, t) -> np.ndarray:
    """Theorem 7: E[n_i^T] <= (8 sigma^2 / Delta_i^2 + 2) log T + 3 for suboptimal arms."""
    gaps = gaps[gaps > 0]
    return (8 * sigma**2 / gaps**2 + 2) * portable.log(t) + 3


def sufficing_pull_bounds(gaps: np.ndarray, sigma: float, delta: float, divisor: int) -> np.ndarray:
    """Theorems 10 (divisor 2) and 11 (divisor 3): n_i^T < 4 sigma^2 Phi^-1(1 - delta/divisor)^2 / Delta_i^2 + 1
    for each non-satisfying arm."""
    gaps = gaps[gaps > 0]
    q = float(ndtri(1 - delta / divisor))
    return 4 * sigma**2 * q**2 / gaps**2 + 1


def _equal_sigma(instance: GaussianInstance) -> float:
    if not np.allclose(instance.sigma, instance.sigma[0]):
        raise ValueError("Theorems 7, 8, 10, 11 are stated for equal sigma_s")
    return float(instance.sigma[0])


@reference_curve("ucl_thm7")
def thm7(t, experiment, threshold=None):
    """Sum_i Delta_i ((8 sigma^2/Delta_i^2 + 2) log t + 3) (UCL, K = 1)."""
    inst = GaussianInstance.from_params(experiment.params)
    sigma = _equal_sigma(inst)
    gaps = inst.gaps(False, threshold)
    gaps = gaps[gaps > 0]
    return sum(d * ((8 * sigma**2 / d**2 + 2) * portable.log(t) + 3) for d in gaps)


@reference_curve("ucl_thm8")
def thm8(t, experiment, threshold):
    """Sum_i Delta_i^M ((8/Delta_i^2 + 3) log t + 4) (satisfaction-in-mean-reward UCL, K = 1, sigma = 1)."""
    inst = GaussianInstance.from_params(experiment.params)
    sigma = _equal_sigma(inst)
    gaps = inst.gaps(False, threshold)
    gaps = gaps[gaps > 0]
    return sum(d * ((8 * sigma**2 / d**2 + 3) * portable.log(t) + 4) for d in gaps)


def _sufficing_bound(experiment, threshold, delta, divisor):
    inst = GaussianInstance.from_params(experiment.params)
    sigma = _equal_sigma(inst)
    q = float(ndtri(1 - delta / divisor))
    gaps = inst.gaps(False, threshold)
    gaps = gaps[gaps > 0]
    return float(np.sum(gaps * (4 * sigma**2 * q**2 / gaps**2 + 1)))


@reference_curve("ucl_thm10")
def thm10(t, experiment, delta):
    """Constant sum_i Delta_i (4 sigma^2 Phi^-1(1 - delta/2)^2 / Delta_i^2 + 1)."""
    return np.full_like(t, _sufficing_bound(experiment, None, delta, 2), dtype=np.float64)


@reference_curve("ucl_thm11")
def thm11(t, experiment, threshold, delta):
    """Constant sum_i Delta_i^M (4 sigma^2 Phi^-1(1 - delta/3)^2 / (Delta_i^M)^2 + 1)."""
    return np.full_like(t, _sufficing_bound(experiment, threshold, delta, 3), dtype=np.float64)


@reference_curve("ucl_thm7_robust")
def thm7_robust(t, experiment, units="p"):
    """Theorem 7 in standardised units (sigma~ = 1, gaps Delta x_i), weighted by Delta p_i (p-units)
    or Delta x_i (x-units): the Fig. 4 bound 'implied by Theorem 7 and definition (19)'."""
    inst = GaussianInstance.from_params(experiment.params)
    dx = inst.x_gaps(None)
    dp = inst.gaps(True, None)
    weights = dp if units == "p" else dx
    keep = dx > 0
    return sum(w * ((8 / d**2 + 2) * portable.log(t) + 3) for w, d in zip(weights[keep], dx[keep]))
