"""Which vector width numba's compiler may use: 512 bits on CPUs with AVX-512.

LLVM's tuning for the Intel CPUs with AVX-512 ("prefer-256-bit") keeps vectorised loops at 256 bits,
so that a loop with a few wide instructions does not lower the clock of the whole core on the oldest of
them (Skylake-SP). This package's hottest vectorised loop, the first attempt of Thompson sampling's
Beta draws (beta_sampler.beta_ge1_first_attempts: a Philox block, two ziggurat lookups and the gammas'
arithmetic per pair, no branches), runs 26 % faster at 512 bits on the reference machine (Rocket
Lake, 2 cores: 6.0 -> 4.5 ns per pair; Thompson sampling of the censored-resources paper 171 -> 153
CPU-s in that paper's kernel bench). Element-wise floating-point code gives the same bits at any
vector width (numba compiles without fast-math, so no reduction is reordered); the smoke and paper
locks check that every number is unchanged.

numba reads its target CPU features from NUMBA_CPU_FEATURES when it is imported, so the package's
``__init__`` calls :func:`configure` before any kernel module; child processes (Snakemake jobs)
inherit the variable. numba's cache is keyed by the CPU name and features, so code compiled under
another setting is never loaded. An explicit NUMBA_CPU_NAME or NUMBA_CPU_FEATURES wins, and
BANDITREPRO_VECTOR_WIDTH=256 keeps LLVM's default.
"""

from __future__ import annotations

import os
import sys

OPT_OUT = "BANDITREPRO_VECTOR_WIDTH"


def wide_vector_features(host_features: str) -> str | None:
    """The host's feature string with 512-bit vectors allowed, or None where there is no AVX-512."""
    features = [f for f in host_features.split(",") if f]
    if "+avx512f" not in features:
        return None
    features = [f for f in features if f not in ("+prefer-256-bit", "-prefer-256-bit")]
    return ",".join(features + ["-prefer-256-bit"])


def configure(environ=os.environ, host_features: str | None = None) -> str | None:
    """Set NUMBA_CPU_FEATURES for 512-bit vectors where the CPU has AVX-512; returns the value set, if any."""
    if environ.get("NUMBA_CPU_NAME") or environ.get("NUMBA_CPU_FEATURES"):
        return None  # the user's (or a parent process's) choice
    if environ.get(OPT_OUT, "512") == "256":
        return None
    if host_features is None:
        import llvmlite.binding as llvm

        host_features = llvm.get_host_cpu_features().flatten()
    value = wide_vector_features(host_features)
    if value is None:
        return None
    environ["NUMBA_CPU_FEATURES"] = value
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before this package: its config has been read already
        numba.config.CPU_FEATURES = value
    return value
