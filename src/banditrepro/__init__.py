"""banditrepro: reproducible replications of five multi-armed-bandit papers."""

from .numba_cache import configure as _configure_numba_cache

__version__ = "0.1.0"

# before any kernel module is imported: see numba_cache
_configure_numba_cache()
