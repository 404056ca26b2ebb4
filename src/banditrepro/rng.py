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

from . import portable

_M32 = np.uint64(0xFFFFFFFF)
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_S32 = np.uint64(32)
_TWO_PI = 2.0 * math.pi
_UNIFORM_OFFSET = np.uint64(1) << np.uint64(62)
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
    squeezes before _ziggurat_tables; tests/test_rng.py compares both forms)."""
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


# --- Beta(a, b) for a, b >= 1 in one Philox block: the Thompson draws of Bernoulli posteriors --------
#
# Thompson sampling over many (arm, limit) pairs draws one Beta per pair per round, so this sampler is
# built for throughput: its first attempt reads ONE Philox block and no transcendental function, and
# runs as a branch-free loop over all pairs (beta_ge1_first_attempts); the few draws it does not settle
# (1-3 %) finish in beta_ge1, which repeats that attempt and goes on from it: every draw is the value of
# beta_ge1 at its counter. Exact rejection sampling throughout:
#
# * Beta = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b) by Marsaglia-Tsang (d = shape - 1/3, c = 1/sqrt(9d),
#   candidate d (1 + c z)^3 for a standard normal z, accepted by a uniform u);
# * z by a 1024-layer ziggurat (Marsaglia-Tsang 2000) with a 38-bit mantissa; the wedges and the tail
#   beyond r = 4.039 are sampled exactly (99.6 % of candidates fall inside a layer's rectangle, so only
#   1.5 % of Beta draws leave the first attempt's loop, against 3.5 % with 256 layers);
# * the gamma's acceptance test first tries a squeeze u < 1 - k z^4: k = 0.0331 (Marsaglia-Tsang's, valid
#   for every z) or, where c z >= -1/2, the tighter min(0.016 / d, 0.0331) (valid there because
#   exp(d phi(e)) >= 1 + d phi(e) >= 1 - 81 * 0.016 d e^4 with e = c z and
#   phi(e) = 1 - (1 + e)^3 + 3 ln(1 + e) + 9 e^2 / 2, whose ratio -phi(e) / (81 e^4) is at most 0.01570 on
#   [-1/2, oo); tests/test_rng.py checks both squeezes against the exact acceptance probability), and only
#   where the squeeze fails the logarithmic test;
# * u is drawn lazily: its first 15 bits come with the normal's word and decide the squeeze unless the
#   squeeze threshold falls inside their 2^-15 bucket (or the squeeze fails), when 53 more bits are read.
#
# Layout: draw ``idx`` of (sub, tag) owns Philox counters idx * 32 .. idx * 32 + 31. Gamma X reads the
# 64-bit words w0 | w1 << 32 of those blocks in order, gamma Y the words w2 | w3 << 32. A normal's word
# splits into: bits 0-9 layer, bit 10 sign, bits 11-25 the acceptance uniform's first 15 bits, bits 26-63
# the 38-bit mantissa; further uniforms (wedge and tail tests, u's remaining bits) take a whole word each,
# 53 bits. A gamma that exhausts its 32 words (probability far below 1e-20) returns d, its mode's
# neighbourhood, so the stream never runs past its counters.

_ZIG_LAYERS = 1024
# rightmost layer edge of the 1024-layer ziggurat for exp(-x^2/2): the r for which the layers' recursion
# closes at the top (tests/test_rng.py solves for it again)
_ZIG_R = 4.0388498461095045


def _ziggurat_tables():
    """Layer edges x[0..256] (x[0] = v / f(r) is the base strip's pseudo-width, x[256] = 0) and f(x)."""
    r = _ZIG_R
    v = r * math.exp(-0.5 * r * r) + math.sqrt(math.pi / 2.0) * math.erfc(r / math.sqrt(2.0))
    x = np.zeros(_ZIG_LAYERS + 1)
    x[0] = v / math.exp(-0.5 * r * r)
    x[1] = r
    for i in range(1, _ZIG_LAYERS - 1):
        x[i + 1] = math.sqrt(-2.0 * math.log(v / x[i] + math.exp(-0.5 * x[i] * x[i])))
    return x, portable.exp(-0.5 * x * x)  # not np.exp: its float64 kernel differs on AVX-512 CPUs


ZIG_X, ZIG_F = _ziggurat_tables()
_ZIG_SCALE = ZIG_X * 2.0**-38  # mantissa (38 bits, as an integer) -> position in the layer
_ZIG_MASK = np.uint64(_ZIG_LAYERS - 1)
_SIGN_BIT = np.uint64(10)
_LEAD_SHIFT = np.uint64(11)
_MANTISSA_SHIFT = np.uint64(26)
_ZIG_INNER = ZIG_X[1:].copy()  # a candidate below the next edge is inside the layer's rectangle
BETA_GE1_WORDS = 32
MT_SQUEEZE = 0.0331  # Marsaglia-Tsang's squeeze constant
SQUEEZE_KAPPA = 0.016  # k = kappa / d where c z >= -1/2 (see above)
_U_LEAD = 1.0 / 32768.0
_M15 = np.uint64(0x7FFF)


def squeeze_coefficient(d: float) -> float:
    """min(kappa / d, 0.0331): the squeeze coefficient of a gamma with d = shape - 1/3 where c z >= -1/2."""
    return min(SQUEEZE_KAPPA / d, MT_SQUEEZE)


@njit(cache=True, inline="always")
def _lane_word(key, tag, sub, counter_base, n, lane):
    counter = counter_base + np.uint64(n)
    w0, w1, w2, w3 = philox4x32(counter & _M32, counter >> _S32, sub, tag, key)
    if lane == 0:
        return w0 | (w1 << _S32)
    return w2 | (w3 << _S32)


@njit(cache=True, inline="always")
def _word_unit(word):
    """53-bit uniform in (0, 1) from a 64-bit word."""
    return (float(word >> np.uint64(11)) + 0.5) * _INV_2_53


@njit(cache=True, error_model="numpy", inline="always")
def _ziggurat_candidate(word, n, key, tag, sub, counter_base, lane):
    """The ziggurat's answer to a normal's ``word`` (a lane's word n - 1): (accepted, |z|, next n).

    Inside a layer's rectangle the candidate is accepted outright; in a wedge one more word decides;
    in the base strip beyond r the tail is sampled (two words per try). Not accepted: the caller
    starts a new candidate from the next word. The sign is the word's bit 10 (applied by the caller).
    """
    layer = word & _ZIG_MASK
    z = float(word >> _MANTISSA_SHIFT) * _ZIG_SCALE[layer]
    if z < _ZIG_INNER[layer]:
        return True, z, n
    if layer == 0:  # the tail beyond r (Marsaglia 1964)
        while n + 2 <= BETA_GE1_WORDS:
            tx = -math.log(_word_unit(_lane_word(key, tag, sub, counter_base, n, lane))) / _ZIG_R
            ty = -math.log(_word_unit(_lane_word(key, tag, sub, counter_base, n + 1, lane)))
            n += 2
            if 2.0 * ty > tx * tx:
                return True, _ZIG_R + tx, n
        return False, 0.0, BETA_GE1_WORDS
    if n >= BETA_GE1_WORDS:
        return False, 0.0, n
    # a wedge: accept if a uniform height in the layer lies under the curve
    height = _word_unit(_lane_word(key, tag, sub, counter_base, n, lane))
    return ZIG_F[layer] + height * (ZIG_F[layer + 1] - ZIG_F[layer]) < math.exp(-0.5 * z * z), z, n + 1


@njit(cache=True)
def normal_lane(key, tag, sub, counter_base, lane):
    """A standard normal from the ziggurat alone, reading the lane's words as gamma_ge1_lane does (tests)."""
    n = 0
    while n < BETA_GE1_WORDS:
        word = _lane_word(key, tag, sub, counter_base, n, lane)
        accepted, z, n = _ziggurat_candidate(word, n + 1, key, tag, sub, counter_base, lane)
        if accepted:
            return -z if (word >> _SIGN_BIT) & np.uint64(1) else z
    return 0.0


@njit(cache=True, error_model="numpy")
def gamma_ge1_lane(d, c, k, first_word, key, tag, sub, counter_base, lane):
    """Gamma(d + 1/3) (shape >= 1) from the words of one lane of counters counter_base + n; see above.

    ``first_word`` is the lane's word of block counter_base (the caller has the block: both lanes
    start from it). ``c`` = 1 / sqrt(9 d), ``k`` = squeeze_coefficient(d): passed in because
    Thompson sampling keeps them per pair and recomputes them only when the pair's counts change.
    """
    n = 0
    while n < BETA_GE1_WORDS:
        word = first_word if n == 0 else _lane_word(key, tag, sub, counter_base, n, lane)
        accepted, z, n = _ziggurat_candidate(word, n + 1, key, tag, sub, counter_base, lane)
        if not accepted:
            continue
        if (word >> _SIGN_BIT) & np.uint64(1):
            z = -z
        e = c * z
        v = 1.0 + e
        if not v > 0.0:
            continue
        v3 = v * v * v
        z2 = z * z
        coefficient = k if e >= -0.5 else MT_SQUEEZE
        threshold = 1.0 - coefficient * z2 * z2
        lead = float((word >> _LEAD_SHIFT) & _M15)
        if (lead + 1.0) * _U_LEAD <= threshold:
            return d * v3
        if n >= BETA_GE1_WORDS:
            break
        u = (lead + _word_unit(_lane_word(key, tag, sub, counter_base, n, lane))) * _U_LEAD
        n += 1
        if u < threshold or math.log(u) < 0.5 * z2 + d - d * v3 + d * math.log(v3):
            return d * v3
    return d


@njit(cache=True)
def beta_ge1(da, ca, ka, db, cb, kb, key, tag, sub, idx):
    """Beta(da + 1/3, db + 1/3) at draw ``idx`` of (sub, tag): X / (X + Y), X from lane 0, Y from lane 1
    (:func:`beta_ge1_finish` with both gammas still open)."""
    return beta_ge1_finish(da, ca, ka, db, cb, kb, -1.0, -1.0, key, tag, sub, idx)


@njit(cache=True)
def beta_ab(a, b, key, tag, sub, idx):
    """Beta(a, b) for a, b >= 1 with :func:`beta_ge1` (the constants computed here)."""
    da = a - 1.0 / 3.0
    db = b - 1.0 / 3.0
    ka = min(SQUEEZE_KAPPA / da, MT_SQUEEZE)
    kb = min(SQUEEZE_KAPPA / db, MT_SQUEEZE)
    return beta_ge1(da, 1.0 / math.sqrt(9.0 * da), ka, db, 1.0 / math.sqrt(9.0 * db), kb, key, tag, sub, idx)


@njit(cache=True, error_model="numpy")
def beta_ge1_finish(da, ca, ka, db, cb, kb, x, y, key, tag, sub, idx):
    """:func:`beta_ge1` at draw ``idx`` given the gammas its first attempt settled (``x``, ``y``; -1 where
    not): only the open lanes run :func:`gamma_ge1_lane`, from the block's words, so the value is beta_ge1's."""
    base = np.uint64(idx) * np.uint64(BETA_GE1_WORDS)
    w0, w1, w2, w3 = philox4x32(base & _M32, base >> _S32, sub, tag, key)
    return beta_ge1_finish_words(da, ca, ka, db, cb, kb, x, y, w0 | (w1 << _S32), w2 | (w3 << _S32), key, tag, sub,
                                 idx)


@njit(cache=True, error_model="numpy")
def beta_ge1_finish_words(da, ca, ka, db, cb, kb, x, y, word_a, word_b, key, tag, sub, idx):
    """:func:`beta_ge1_finish` given the first block's two 64-bit words (as the first attempt read them), so
    that a caller holding them spares the block's Philox rounds (profiling: about a fifth of finishing
    an open draw)."""
    base = np.uint64(idx) * np.uint64(BETA_GE1_WORDS)
    if x < 0.0:
        x = gamma_ge1_lane(da, ca, ka, word_a, key, tag, sub, base, 0)
    if y < 0.0:
        y = gamma_ge1_lane(db, cb, kb, word_b, key, tag, sub, base, 1)
    return x / (x + y)


# Rows of the table beta_ge1_first_attempts works on (one column per draw). One array, not several:
# every array argument, and every view made to pass one, costs numba's reference counting on every
# call (profiling: passing four views of a Thompson state instead of one cost about 100 ns a round).
FIRST_ATTEMPT_ROWS = 12
FA_DA, FA_CA, FA_KA, FA_DB, FA_CB, FA_KB = 0, 1, 2, 3, 4, 5  # read: the gammas' constants
FA_X, FA_Y = 6, 7  # written: the gammas where their lane settled, -1 where not
FA_WORDS = 8  # written: rows 8-11, the first Philox block's four 32-bit words (exact as floats)


@njit(cache=True, error_model="numpy", boundscheck=False)
def beta_ge1_first_attempts(table, row0, key, tag, sub, first_idx, out):
    """Draws first_idx + p (p < len(out)) where their first attempt settles both gammas, else -1.

    ``table`` rows row0 + FA_*: da, ca, ka, db, cb, kb of draw p in column p are read; X, Y and the
    block's words are written. The first attempt of :func:`gamma_ge1_lane`
    for both lanes, as one loop without branches or transcendental functions (it vectorises): a
    ziggurat candidate inside its rectangle, v > 0 and a squeeze decided by u's first 15 bits.
    ``out[p]`` is then bit for bit beta_ge1's value; where any of these fails it is -1 (no Beta
    draw is negative). Rows FA_X and FA_Y get the gammas X and Y where their lane settled, -1
    where not: the caller finishes the draw with :func:`beta_ge1_finish_words`, which reruns only
    the open lanes (profiling: rerunning both, with beta_ge1, was a fifth of the Thompson rounds'
    time) from the block's words in rows FA_WORDS.. (:func:`first_attempt_words` reads them back)
    instead of recomputing the block.
    """
    for p in range(out.shape[0]):
        counter = (first_idx + np.uint64(p)) * np.uint64(BETA_GE1_WORDS)
        w0, w1, w2, w3 = philox4x32(counter & _M32, counter >> _S32, sub, tag, key)
        word_a = w0 | (w1 << _S32)
        word_b = w2 | (w3 << _S32)
        layer_a = word_a & _ZIG_MASK
        layer_b = word_b & _ZIG_MASK
        za = float(word_a >> _MANTISSA_SHIFT) * _ZIG_SCALE[layer_a]
        zb = float(word_b >> _MANTISSA_SHIFT) * _ZIG_SCALE[layer_b]
        inside_a = za < _ZIG_INNER[layer_a]
        inside_b = zb < _ZIG_INNER[layer_b]
        if (word_a >> _SIGN_BIT) & np.uint64(1):
            za = -za
        if (word_b >> _SIGN_BIT) & np.uint64(1):
            zb = -zb
        ea = table[row0 + FA_CA, p] * za
        eb = table[row0 + FA_CB, p] * zb
        va = 1.0 + ea
        vb = 1.0 + eb
        za2 = za * za
        zb2 = zb * zb
        coefficient_a = table[row0 + FA_KA, p] if ea >= -0.5 else MT_SQUEEZE
        coefficient_b = table[row0 + FA_KB, p] if eb >= -0.5 else MT_SQUEEZE
        lead_a = float((word_a >> _LEAD_SHIFT) & _M15)
        lead_b = float((word_b >> _LEAD_SHIFT) & _M15)
        settled_a = inside_a & (va > 0.0) & ((lead_a + 1.0) * _U_LEAD <= 1.0 - coefficient_a * za2 * za2)
        settled_b = inside_b & (vb > 0.0) & ((lead_b + 1.0) * _U_LEAD <= 1.0 - coefficient_b * zb2 * zb2)
        x = table[row0 + FA_DA, p] * (va * va * va)
        y = table[row0 + FA_DB, p] * (vb * vb * vb)
        table[row0 + FA_X, p] = x if settled_a else -1.0
        table[row0 + FA_Y, p] = y if settled_b else -1.0
        table[row0 + FA_WORDS, p] = float(w0)
        table[row0 + FA_WORDS + 1, p] = float(w1)
        table[row0 + FA_WORDS + 2, p] = float(w2)
        table[row0 + FA_WORDS + 3, p] = float(w3)
        out[p] = x / (x + y) if settled_a & settled_b else -1.0


@njit(cache=True, inline="always")
def first_attempt_words(table, row0, p):
    """The two 64-bit words of column p's first block, as beta_ge1_first_attempts read them."""
    w0 = np.uint64(table[row0 + FA_WORDS, p])
    w1 = np.uint64(table[row0 + FA_WORDS + 1, p])
    w2 = np.uint64(table[row0 + FA_WORDS + 2, p])
    w3 = np.uint64(table[row0 + FA_WORDS + 3, p])
    return w0 | (w1 << _S32), w2 | (w3 << _S32)
