"""Counter-based random numbers for compiled simulation kernels.

Why counter-based: a draw is a pure function of (key, counter), so

* the k-th reward of arm i in replication r is the same number for every algorithm
  (common random numbers, paired comparisons) without storing a T x N table;
* results do not depend on how replications are split into shards or jobs;
* streams never overlap: each replication's 64-bit key comes from its own
  ``numpy.random.SeedSequence`` child (see :mod:`banditrepro.seeding`), and Philox
  with distinct keys gives independent permutations of the counter space.

The generator is Philox4x32-10 (Salmon et al., SC'11, "Parallel random numbers: as
easy as 1, 2, 3"); ``tests/test_rng.py`` checks it against the Random123 known-answer
vectors. A counter is four 32-bit words ``(idx_lo, idx_hi, sub, tag)``: ``tag`` names
the purpose (arm rewards, policy coins, ...), ``sub`` a sub-stream (e.g. the arm) and
``idx`` the position (e.g. the pull number).

A *stream* is a ``uint64[4]`` array ``(key, tag, sub, next_idx)`` for code that needs
sequential draws (policy randomisation); ``stream_*`` functions advance ``next_idx``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_M32 = np.uint64(0xFFFFFFFF)
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_S32 = np.uint64(32)
_TWO_PI = 2.0 * math.pi
_UNIFORM_OFFSET = np.uint64(1) << np.uint64(62)
MT_SQUEEZE = 0.0331  # Marsaglia-Tsang's squeeze constant of the gamma's acceptance test
_INV_2_53 = 1.0 / 9007199254740992.0

# Purpose tags (the fourth counter word). Environments and policies must not share tags.
TAG_ARM = 1  # per-(arm, pull) reward draws of stochastic environments
TAG_ENV = 2  # per-step exogenous environment randomness
TAG_POLICY = 3  # policy randomisation
TAG_AUX = 4  # anything else (e.g. stand-in data generation)


@njit(cache=True, inline="always")
def philox4x32(c0, c1, c2, c3, key):
    """Philox4x32-10 block: four uint32 words (held in uint64) from a 64-bit key."""
    k0 = np.uint64(key) & _M32
    k1 = np.uint64(key) >> _S32
    c0 = np.uint64(c0) & _M32
    c1 = np.uint64(c1) & _M32
    c2 = np.uint64(c2) & _M32
    c3 = np.uint64(c3) & _M32
    for _rnd in range(10):
        p0 = _PHILOX_M0 * c0
        p1 = _PHILOX_M1 * c2
        n0 = ((p1 >> _S32) ^ c1 ^ k0) & _M32
        n1 = p1 & _M32
        n2 = ((p0 >> _S32) ^ c3 ^ k1) & _M32
        n3 = p0 & _M32
        c0, c1, c2, c3 = n0, n1, n2, n3
        k0 = (k0 + _PHILOX_W0) & _M32
        k1 = (k1 + _PHILOX_W1) & _M32
    return c0, c1, c2, c3


@njit(cache=True, inline="always")
def _to_unit(a, b):
    """53-bit float in (0, 1] from two 32-bit words (never 0, so log() is safe)."""
    return (float((a >> np.uint64(5)) * np.uint64(67108864) + (b >> np.uint64(6))) + 1.0) * _INV_2_53


# uniform2 and normal_pair are inlined (numba IR level) into their callers, like philox4x32: a
# call left inside an environment kernel keeps numba's reference-count calls on the kernel's arrays
# alive on every step (they cannot be pruned across a call), which cost the UCB1 benchmark about
# 10 ns per replication-step. Inlining changes no number: the same operations in the same order.
@njit(cache=True, inline="always")
def uniform2(key, tag, sub, idx):
    """Two independent U(0, 1] variates at counter (idx, sub, tag)."""
    idx = np.uint64(idx)
    r0, r1, r2, r3 = philox4x32(idx & _M32, idx >> _S32, sub, tag, key)
    return _to_unit(r0, r1), _to_unit(r2, r3)


@njit(cache=True)
def uniform(key, tag, sub, idx):
    return uniform2(key, tag, sub, idx)[0]


_POLAR_TRIES = 16


@njit(cache=True, inline="always")
def normal_pair(key, tag, sub, idx):
    """Two independent standard normals at pair index ``idx`` of (sub, tag).

    Marsaglia's polar method (no trigonometry): attempt a uses counter idx*16 + a and is accepted
    with probability pi/4. After 15 rejections (probability 1e-10) the 16th block feeds a
    Box-Muller transform, so the output is exactly normal in every case. (One call site of uniform2:
    it is inlined, and a second copy of Philox in every caller only costs compile time.)
    """
    return normal_pair_from(key, tag, sub, idx, 0)


@njit(cache=True, inline="always")
def polar_first_try(key, tag, sub, idx):
    """(v1, v2, s) of :func:`normal_pair`'s first attempt at pair index ``idx``: one Philox block, no branch,
    no transcendental function, so a loop of them vectorises. Where 0 < s < 1 the pair is
    (v1 f, v2 f) with f = sqrt(-2 ln(s) / s); otherwise :func:`normal_pair_from` with ``first_try = 1``."""
    u1, u2 = uniform2(key, tag, sub, np.uint64(idx) * np.uint64(_POLAR_TRIES))
    v1 = 2.0 * u1 - 1.0
    v2 = 2.0 * u2 - 1.0
    return v1, v2, v1 * v1 + v2 * v2


@njit(cache=True, inline="always")
def normal_pair_from(key, tag, sub, idx, first_try):
    """:func:`normal_pair` from its attempt ``first_try`` (0..15) on: the pair, given that the earlier attempts
    were rejected."""
    base = np.uint64(idx) * np.uint64(_POLAR_TRIES)
    for a in range(first_try, _POLAR_TRIES):
        u1, u2 = uniform2(key, tag, sub, base + np.uint64(a))
        if a == _POLAR_TRIES - 1:
            break  # the 16th block: Box-Muller below
        v1 = 2.0 * u1 - 1.0
        v2 = 2.0 * u2 - 1.0
        s = v1 * v1 + v2 * v2
        if 0.0 < s < 1.0:
            f = math.sqrt(-2.0 * math.log(s) / s)
            return v1 * f, v2 * f
    radius = math.sqrt(-2.0 * math.log(u1))
    return radius * math.cos(_TWO_PI * u2), radius * math.sin(_TWO_PI * u2)


@njit(cache=True)
def normal(key, tag, sub, idx):
    """Standard normal at index ``idx`` of (sub, tag) (first member of pair ``idx``)."""
    return normal_pair(key, tag, sub, idx)[0]


@njit(cache=True)
def exponential(key, tag, sub, idx):
    return -math.log(uniform(key, tag, sub, idx))


@njit(cache=True, inline="always")
def _gamma_counters(idx):
    """(normal index, uniform counter) of attempt 0 of gamma draw ``idx``; attempt j adds j to both, the boost
    uniform is at uniform counter + 63."""
    base = np.uint64(idx) * np.uint64(64)
    return base, _UNIFORM_OFFSET + base


@njit(cache=True)
def gamma(shape, key, tag, sub, idx):
    """Gamma(shape, 1) by Marsaglia-Tsang.

    Draw ``idx`` owns normal indices idx*64 + j and uniform counters 2^62 + idx*64 + j of
    (sub, tag) (the two ranges never meet: normal index i reads counters 16 i .. 16 i + 15 < 2^62).
    Rejections are rare (< 5 % for shape >= 1), so 63 attempts leave a failure probability below
    1e-80, after which the mode is returned.
    """
    if shape <= 0.0:
        return 0.0
    boost = 1.0
    if shape < 1.0:
        # Gamma(a) = Gamma(a + 1) * U^(1/a)
        boost = uniform(key, tag, sub, _gamma_counters(idx)[1] + np.uint64(63)) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    return gamma_attempts(d, 1.0 / math.sqrt(9.0 * d), boost, key, tag, sub, idx, 0)


@njit(cache=True, inline="always")
def _gamma_accepts(u, z, v3, d):
    """Marsaglia-Tsang's acceptance of candidate d v3 (v3 = (1 + c z)^3 > 0) by the uniform u.

    Its squeeze (valid for shape >= 1, which gamma's boost ensures) decides most draws without the
    logarithms; it accepts only where the exact test does, so the draw is the same (the note on the
    squeezes in banditrepro.algorithms.beta_sampler; tests/test_rng.py compares both forms)."""
    return u < 1.0 - MT_SQUEEZE * (z * z) * (z * z) or math.log(u) < 0.5 * z * z + d - d * v3 + d * math.log(v3)


@njit(cache=True)
def gamma_attempts(d, c, boost, key, tag, sub, idx, first):
    """:func:`gamma`'s rejection loop (d = shape - 1/3 >= 2/3, c = 1 / sqrt(9 d)) from attempt ``first`` on."""
    base, ubase = _gamma_counters(idx)
    for j in range(first, 63):
        z = normal(key, tag, sub, base + np.uint64(j))
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        if _gamma_accepts(uniform(key, tag, sub, ubase + np.uint64(j)), z, v, d):
            return d * v * boost
    return d * boost


# gamma's first attempt in two parts, for callers that draw many gammas at once: gamma_first_try reads its
# three Philox blocks without a branch or a transcendental function (a loop of them vectorises), and
# gamma_from_first_try finishes the draw from them, going on with gamma_attempts where that attempt is
# rejected: the value of gamma at (shape, key, tag, sub, idx).
@njit(cache=True, inline="always")
def gamma_first_try(key, tag, sub, idx):
    """(boost uniform, v1 and s of the normal's first polar try, the acceptance uniform) of gamma's attempt 0
    (used only where shape < 1, the boost is read in any case: the loop stays branch-free)."""
    base, ubase = _gamma_counters(idx)
    v1, _v2, s = polar_first_try(key, tag, sub, base)
    return uniform2(key, tag, sub, ubase + np.uint64(63))[0], v1, s, uniform2(key, tag, sub, ubase)[0]


@njit(cache=True, error_model="numpy")
def gamma_from_first_try(shape, boost_u, v1, s, u, key, tag, sub, idx):
    """:func:`gamma` given the values :func:`gamma_first_try` read for it."""
    if shape <= 0.0:
        return 0.0
    boost = 1.0
    if shape < 1.0:
        boost = boost_u ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    if 0.0 < s < 1.0:
        z = v1 * math.sqrt(-2.0 * math.log(s) / s)  # normal_pair's first try
    else:
        z = normal_pair_from(key, tag, sub, _gamma_counters(idx)[0], 1)[0]
    v = 1.0 + c * z
    if v > 0.0:
        v = v * v * v
        if _gamma_accepts(u, z, v, d):
            return d * v * boost
    return gamma_attempts(d, c, boost, key, tag, sub, idx, 1)


@njit(cache=True)
def beta(a, b, key, tag, sub, idx):
    """Beta(a, b) from two gammas on sub-streams 2*sub and 2*sub+1."""
    x = gamma(a, key, tag, np.uint64(2) * np.uint64(sub), idx)
    y = gamma(b, key, tag, np.uint64(2) * np.uint64(sub) + np.uint64(1), idx)
    if x + y == 0.0:
        return 0.5
    return x / (x + y)


# --- sequential streams -------------------------------------------------------------


def new_stream(key: int, tag: int = TAG_POLICY, sub: int = 0) -> np.ndarray:
    """A fresh sequential stream ``(key, tag, sub, next_idx)``."""
    return np.array([key, tag, sub, 0], dtype=np.uint64)


@njit(cache=True)
def stream_uniform(st):
    i = st[3]
    st[3] = i + np.uint64(1)
    return uniform(st[0], st[1], st[2], i)


@njit(cache=True)
def stream_normal(st):
    i = st[3]
    st[3] = i + np.uint64(1)
    return normal(st[0], st[1], st[2], i)


# beta/gamma draws of a stream use sub-stream sub + 2^30 (and the ones :func:`beta` derives from it),
# never on the stream's own sub (its uniforms and normals would share counters with the gammas' draws)
_STREAM_BETA_SUB_OFFSET = np.uint64(1) << np.uint64(30)


@njit(cache=True)
def stream_beta(st, a, b):
    """Beta(a, b) at the stream's next index, on sub-streams apart from the stream's other draws
    (streams' subs are below 2^30)."""
    i = st[3]
    st[3] = i + np.uint64(1)
    return beta(a, b, st[0], st[1], st[2] + _STREAM_BETA_SUB_OFFSET, i)


@njit(cache=True)
def stream_integer(st, n):
    """Uniform integer in [0, n)."""
    k = int(stream_uniform(st) * n)  # u in (0,1] -> k in [0, n]; fold the measure-zero top
    return n - 1 if k >= n else k


@njit(cache=True)
def stream_choice_from_mask(st, mask):
    """Uniformly random index among True entries of ``mask``; -1 if none."""
    m = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            m += 1
    if m == 0:
        return -1
    j = stream_integer(st, m)
    for i in range(mask.shape[0]):
        if mask[i]:
            if j == 0:
                return i
            j -= 1
    return -1


@njit(cache=True)
def stream_categorical(st, probs):
    """Index drawn with probabilities ``probs`` (need not be normalised exactly)."""
    total = 0.0
    for i in range(probs.shape[0]):
        total += probs[i]
    u = stream_uniform(st) * total
    acc = 0.0
    for i in range(probs.shape[0]):
        acc += probs[i]
        if u <= acc:
            return i
    return probs.shape[0] - 1


@njit(cache=True, error_model="numpy", inline="always")
def stream_tie_choice(st, first_tie_idx, first, ties, n_tied):
    """The choice of :func:`stream_argmax_random_ties`'s reservoir among the ``n_tied`` pairs tied at the maximum,
    its draws made after the scan: ``first`` reached the maximum, the k-th entry (k < n_tied - 1) of the 2-D
    ``ties`` in row-major order tied with it in scan order and owns the draw at index ``first_tie_idx + k`` of
    the stream ``st`` (the caller advances the stream past all its ties, those at smaller running maxima
    included).

    The reservoir keeps the last tie k whose draw u (k + 2) <= 1; scanning backwards finds it with the same
    draws, and the draws it never reads (earlier ties, and the ties of running maxima that a larger value
    replaced) could not change the choice. Profiling (UCB on the 400 pairs of f2_n80, about a dozen ties a
    round): one draw per tie in the scan cost a third of the round; drawn here, a tenth of the round is saved."""
    for k in range(n_tied - 2, -1, -1):
        if uniform(st[0], st[1], st[2], first_tie_idx + np.uint64(k)) * (k + 2) <= 1.0:
            return int(ties[k // ties.shape[1], k % ties.shape[1]])
    return first


@njit(cache=True)
def stream_argmax_random_ties(st, values):
    """argmax with uniformly random tie-breaking among exact maxima."""
    best = -np.inf
    count = 0
    choice = 0
    for i in range(values.shape[0]):
        v = values[i]
        if v > best:
            best = v
            count = 1
            choice = i
        elif v == best:
            count += 1
            # reservoir sampling keeps each tied index with probability 1/count
            if stream_uniform(st) * count <= 1.0:
                choice = i
    return choice
