"""numba's cache locator for this package's kernels: entries named by the file's path inside the package.

numba imports this module itself, from ``NUMBA_CACHE_LOCATOR_CLASSES`` (set by
:func:`banditrepro.numba_cache.configure`), when it first caches a function; it is kept apart from
``numba_cache`` so that importing the package does not import numba.
"""

from __future__ import annotations

import os

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

from .numba_cache import package_relative_folder


class PackageLocator(UserProvidedCacheLocator):
    """numba's locator for NUMBA_CACHE_DIR, with the cache folder named by the file's path inside the package
    (``<cache dir>/package/<folder>``) instead of a hash of its absolute path; ``from_function`` returns None for
    any other file, and numba tries the next locator (banditrepro.numba_cache, module docstring)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(config.CACHE_DIR, "package",
                                        package_relative_folder(py_func.__module__, py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if package_relative_folder(getattr(py_func, "__module__", None) or "", py_file) is None:
            return None
        return super().from_function(py_func, py_file)
