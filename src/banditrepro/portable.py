"""Numerics whose last bits do not depend on the CPU, for every number that reaches a locked result.

The locks (config/locks/, docs/locks.md) compare results bit for bit, so a number must come out the same
on any x86-64 CPU with AVX2 or AVX-512, Intel or AMD. Two kinds of NumPy calls break that:

* ufuncs that NumPy dispatches by CPU at run time (``np.lib.introspect.opt_func_info()`` lists the
  targets). On a CPU with AVX-512 (NumPy 2.4's X86_V4 target) float64 ``exp`` and ``log`` run NumPy's own
  AVX512F kernels and ``power``, ``log10``, ``log2``, ``log1p``, ``expm1``, ``exp2``, ``cbrt``, ``tan``,
  ``sinh``, ``cosh``, ``arctan2`` and the inverse trigonometric functions run Intel's SVML; with AVX2
  they call the C library. ``tanh`` has NumPy's own kernels for AVX2 and AVX-512 and the C library's
  below. Each of these is within about an ulp of the others, not equal to them. (``np.geomspace`` and
  ``np.logspace`` call ``log10`` and ``power``; ``x ** 2``, ``sqrt``, ``+ - * /``, ``maximum`` and
  the like are exactly rounded everywhere.)
* anything that reaches BLAS or LAPACK: ``@``, ``np.dot``, ``np.cov``, ``np.polyfit`` (``lstsq``).
  OpenBLAS picks its kernels by CPU (``OPENBLAS_CORETYPE`` overrides the choice), and they accumulate
  in different orders, with or without FMA.

A third kind depends on the library version, not the CPU: pandas' own C parser of decimal text
(``read_csv``'s ``float_precision="high"``, its default before pandas 3.1) is not correctly rounded, so
a table read with an older pandas can differ in the last bit from the one the locks saw
(:func:`csv_float_options`).

The functions here evaluate the C library's scalar functions element by element, with Python's math
module for small arrays and in numba for large ones (numba
calls the same glibc ``exp``/``log``/``pow`` as Python's math module; glibc selects its FMA variant on
every CPU with AVX2, AVX-512 CPUs included; without fast-math LLVM neither reorders nor fuses the
arithmetic) and reduce with element-wise products and NumPy's pairwise sums (``add`` has no AVX-512
loop in NumPy 2.4: AVX2 and AVX-512 CPUs run the same code). Where NumPy calls the C library itself
(any CPU without AVX-512) they give the same bits as the NumPy calls they replace.
tests/test_portability.py checks them against math and runs the smoke ``verify`` under other
BLAS kernels and NumPy targets.
"""

from __future__ import annotations

import math
import re

import numpy as np

# Arrays up to this size are evaluated with Python's math module, which calls the same C library
# functions as the numba kernels (so the same bits): a job that needs only a few hundred values (a
# checkpoint grid, the Beta sampler's ziggurat table, a claim's statistics) then loads no compiled kernel,
# which costs a process about 0.3 s (numba's code generator starts on the first kernel call).
SMALL_ARRAY = 65536


def _elementwise(name: str, fn, args: tuple[np.ndarray, ...], out: np.ndarray) -> None:
    """out[i] = fn(args[0][i], ...) over flat contiguous float64 arrays: in Python for small arrays,
    else (or where Python's math raises instead of returning inf/nan: overflow, log of 0) in numba."""
    if out.size <= SMALL_ARRAY:
        try:
            out[...] = [fn(*vals) for vals in zip(*(a.tolist() for a in args))]
            return
        except (OverflowError, ValueError):
            pass
    from . import portable_kernels  # imports numba: only here, where a kernel runs

    getattr(portable_kernels, name)(*args, out)


def _unary(name: str, fn, x) -> np.ndarray:
    a = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(a)
    _elementwise(name, fn, (a.reshape(-1),), out.reshape(-1))
    return out


def exp(x) -> np.ndarray:
    """e^x element-wise (the C library's ``exp``), as a float64 array of x's shape."""
    return _unary("exp", math.exp, x)


def log(x) -> np.ndarray:
    """ln x element-wise (the C library's ``log``)."""
    return _unary("log", math.log, x)


def log10(x) -> np.ndarray:
    """log10 x element-wise (the C library's ``log10``)."""
    return _unary("log10", math.log10, x)


def power(x, y) -> np.ndarray:
    """x^y element-wise with broadcasting (the C library's ``pow``)."""
    a, b = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    out = np.empty(a.shape)
    _elementwise("power", math.pow, (a.reshape(-1), b.reshape(-1)), out.reshape(-1))
    return out


def geomspace(start: float, stop: float, num: int) -> np.ndarray:
    """``np.geomspace(start, stop, num)`` for positive start and stop, computed as NumPy does (10 to the
    power of a linspace of log10 values, ends set exactly) with the C library's log10 and pow."""
    if start <= 0 or stop <= 0:
        raise ValueError("geomspace needs positive start and stop")
    exponents = np.linspace(math.log10(start), math.log10(stop), num)
    out = power(10.0, exponents)
    if num > 0:
        out[0] = start
        if num > 1:
            out[-1] = stop
    return out


def dot_last(a, b) -> np.ndarray:
    """Σ_k a[..., k] b[..., k] (``a @ b`` for a vector b) without BLAS: an element-wise product summed
    along the last axis."""
    return (np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)).sum(axis=-1)


def linear_fit(x, y) -> tuple[float, float]:
    """Least-squares (slope, intercept) of y on x (``np.polyfit(x, y, 1)`` without LAPACK): centred sums."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    dx = x - x.mean()
    y_mean = y.mean()
    slope = float((dx * (y - y_mean)).sum() / (dx * dx).sum())
    return slope, float(y_mean - slope * x.mean())


def covariance(a, b) -> float:
    """Sample covariance of paired values (n - 1 divisor; ``np.cov(a, b)[0, 1]`` without BLAS)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(((a - a.mean()) * (b - b.mean())).sum() / (a.size - 1))


# --- CSV text to float64, correctly rounded with every pandas ---------------------------------------
#
# pandas' fast C parser ("high", the default before pandas 3.1) is not correctly rounded: read with pandas
# 3.0, 2,697 of the 26,880 decimals of the shipped Ames surrogate table (data/ames_forest/) come out one or
# two ulps from their nearest float64, which moves the Ames bandits' costs and so their regret curves in the last
# bits (found on a machine with pandas 3.0.6: the paper-scale `verify` failed on censored_resources' fig5
# and reading_ames summaries). pandas 3.1 made the correctly rounded parser the default and deprecates the
# option, so it is passed only where the default is still the fast one.
CORRECTLY_ROUNDED_SINCE = (3, 1)


def csv_float_options(pandas_version: str) -> dict:
    """``pandas.read_csv`` keywords that make its float parsing correctly rounded under ``pandas_version``:
    every CSV whose floats reach a result is read as ``pd.read_csv(path, **csv_float_options(pd.__version__))``
    (tests/test_portability.py checks the calls; this module imports no pandas)."""
    major, minor = (int(part) for part in re.match(r"(\d+)\.(\d+)", pandas_version).groups())
    return {} if (major, minor) >= CORRECTLY_ROUNDED_SINCE else {"float_precision": "round_trip"}
