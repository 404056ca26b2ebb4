"""Reverdy, Srivastava and Leonard (2017), "Satisficing in multi-armed bandit problems".

Registers the Gaussian UCL simulations (A1-A8), the theorem bounds drawn in Figs 1, 2 and 4,
the paper-specific claim checks and Tables I and II. Spec: shared/specs/satisficing_ucl.md.
"""

from . import bounds, builders, checks, tables  # noqa: F401
