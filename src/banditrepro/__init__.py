"""banditrepro: reproducible replications of five multi-armed-bandit papers."""

from .numba_cache import configure as _configure_numba_cache
from .numba_target import configure as _configure_numba_target

__version__ = "0.1.0"

# before any kernel module is imported: see numba_cache and numba_target
_configure_numba_cache()
_configure_numba_target()
