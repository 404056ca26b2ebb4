"""The environment of the child processes the tests start (imported by conftest.py before any test module).

Importing banditrepro writes numba's settings into ``os.environ`` (``banditrepro/__init__.py``):
``numba_cache.configure`` sets NUMBA_CACHE_DIR to the cache folder of the current sources (a child resolves
the same folder from it), and ``numba_target.configure`` sets NUMBA_CPU_FEATURES on CPUs with AVX-512. A
child that inherits NUMBA_CPU_FEATURES takes it for the user's choice: it keeps 512-bit vectors even when
started with BANDITREPRO_VECTOR_WIDTH=256 (issue 40: the portability test's 256-bit case failed on an
AVX-512 CPU only). So the tests start children from:

- :func:`user_environ`: this process's environment with the numba target variables as the user gave them
  to pytest (what a shell would pass to a command): Snakemake runs in copies of the project;
- :func:`fresh_target_environ`: without any numba target variable, so that the child chooses its vector
  width from its CPU and the settings given (BANDITREPRO_VECTOR_WIDTH), as a user's shell with neither
  set would: the portability children, which emulate another CPU.
"""

from __future__ import annotations

import os
import sys

# what pins numba's target in a child: numba_target.configure writes the first (and reads both as the user's
# choice); tests/test_portability.py checks that configure writes no other variable
TARGET_VARIABLES = ("NUMBA_CPU_FEATURES", "NUMBA_CPU_NAME")

# The target variables pytest was started with, taken before any test module imports banditrepro: conftest.py
# imports this module first (an xdist worker inherits the environment of the controller, which collects no
# test module and so never imports banditrepro).
assert "banditrepro" not in sys.modules, "tests/child_env.py must be imported before banditrepro"
GIVEN_TARGET = {name: os.environ.get(name) for name in TARGET_VARIABLES}


def user_environ(**settings: str) -> dict[str, str]:
    """``os.environ`` (with whatever a test set in it) whose numba target variables are those pytest was started
    with, plus ``settings``."""
    env = dict(os.environ)
    for name, value in GIVEN_TARGET.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    env.update(settings)
    return env


def fresh_target_environ(**settings: str) -> dict[str, str]:
    """:func:`user_environ` without any numba target variable, plus ``settings``: the child's numba target is
    chosen by the package in the child, from its CPU and ``settings``."""
    env = {k: v for k, v in user_environ().items() if k not in TARGET_VARIABLES}
    env.update(settings)
    return env
