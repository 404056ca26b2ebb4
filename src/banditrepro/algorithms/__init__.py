"""Bandit policies as compiled kernels (see :mod:`banditrepro.engine` for the protocol).

Each module holds one family; a factory function returns ``(PolicyKernel, params)`` so that
policy configuration is plain data and the kernels stay free of Python objects.
"""

from .ucb import UCB1, ucb1  # noqa: F401
from .ucl import UCL, ucl  # noqa: F401
