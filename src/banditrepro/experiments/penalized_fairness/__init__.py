"""Fang, Li and Samorodnitsky, "On Penalization in Stochastic Multi-armed Bandits" (arXiv 2211.08311).

Registers the batch simulations of Settings 1-5 (hard-threshold UCB, LFG, Flearn), the special
panels of Figures 2-5 and the claim checks C1.1-C5.2. Spec: shared/specs/penalized_fairness.md.
"""

from . import builders, checks, plots, theory  # noqa: F401
