"""Feng, Ma and Zhu, "Satisficing Regret Minimization in Bandits" (SELECT), arXiv 2406.06802 v2.

Registers the simulation builder (SELECT and its variants, Thompson sampling, SAT-UCB(+), Uniform
UCB, Agarwal et al.'s 1-D algorithm), the claim checks of spec §3, the SELECT diagnostics tables and
the rounds-distribution panel. Spec: shared/specs/satisficing_select.md.
"""

from . import builders, checks, plots, tables  # noqa: F401
