"""The numba kernels behind :mod:`banditrepro.portable` for large arrays: the C library's scalar functions
applied element by element (imported only where a large array needs them, so that small jobs never load
numba's code generator)."""

import math

from numba import njit


@njit(cache=True)
def exp(x, out):
    for i in range(x.size):
        out[i] = math.exp(x[i])


@njit(cache=True)
def log(x, out):
    for i in range(x.size):
        out[i] = math.log(x[i])


@njit(cache=True)
def log10(x, out):
    for i in range(x.size):
        out[i] = math.log10(x[i])


@njit(cache=True)
def power(x, y, out):
    for i in range(x.size):
        out[i] = math.pow(x[i], y[i])
