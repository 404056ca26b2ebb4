"""Wang, Wang & Huang (AAAI 2021), "Adaptive Algorithms for Multi-armed Bandit with Composite and Anonymous
Feedback" (spec shared/specs/composite_anonymous.md).

Registers the stochastic composite-feedback simulations (ARS-UCB vs ODAAF / generalised ODAAF, Figs 2-4),
the adversarial replays of the Outbrain / Coupon reward matrices (ARS-EXP3 vs CLW, Fig 5) and the checks of
claims C1-C5.
"""

from . import builders, checks  # noqa: F401
