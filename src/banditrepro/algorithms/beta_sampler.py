"""Beta(a, b) for a, b >= 1 in one Philox block: the Thompson draws of Bernoulli posteriors.

Thompson sampling over many (arm, limit) pairs (censored_resources' TS baseline,
:mod:`banditrepro.algorithms.censored_baselines`) draws one Beta per pair per round; this sampler is
built for that throughput, and its first-attempt table (``FIRST_ATTEMPT_ROWS``, ``FA_*``) is laid out
as rows of that policy's state. It lives beside the policies rather than in :mod:`banditrepro.rng`,
which keeps the generic counter-based generators (Philox, uniforms, normals, gamma, beta, streams)
that environments and policies share. Draws are keyed like every other draw of the package: (key,
tag, sub, counter) words of :func:`banditrepro.rng.philox4x32`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import portable
from ..rng import MT_SQUEEZE, philox4x32

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_INV_2_53 = 1.0 / 9007199254740992.0


# --- Beta(a, b) for a, b >= 1 in one Philox block: the Thompson draws of Bernoulli posteriors --------
#
# Thompson sampling over many (arm, limit) pairs draws one Beta per pair per round, so this sampler is
# built for throughput: its first attempt reads ONE Philox block and no transcendental function, and
# runs as branch-free vectorised loops over all pairs (beta_ge1_first_attempts); the few draws it does not settle
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
SQUEEZE_KAPPA = 0.016  # k = kappa / d where c z >= -1/2 (see above)
_U_LEAD = 1.0 / 32768.0
_M15 = np.uint64(0x7FFF)
_M7 = np.uint64(0x7F)
_MANTISSA_HIGH_SHIFT = np.uint64(33)


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
FIRST_ATTEMPT_ROWS = 10
FA_DA, FA_CA, FA_KA, FA_DB, FA_CB, FA_KB = 0, 1, 2, 3, 4, 5  # read: the gammas' constants
FA_X, FA_Y = 6, 7  # written: the gammas where their lane settled, -1 where not
FA_WORDS = 8  # written: rows 8-9, the first Philox block's two 64-bit words (uint64 bits, see first_attempt_words)


@njit(cache=True, inline="always")
def _small_float(x):
    """float(x) for an integer 0 <= x < 2^31 held in a uint64, through int32: AVX2 converts int32 lanes
    (vcvtdq2pd) but has no instruction for uint64 or int64, so a loop converting those is not vectorised."""
    return float(np.int32(x))


@njit(cache=True, inline="always")
def first_attempt_word_rows(table, row0):
    """Rows FA_WORDS, FA_WORDS + 1 of the table as uint64 (the two 64-bit words of each draw's first block)."""
    return table[row0 + FA_WORDS:row0 + FA_WORDS + 2].view(np.uint64)


@njit(cache=True, error_model="numpy", boundscheck=False)
def beta_ge1_first_attempts(table, row0, key, tag, sub, first_idx, out):
    """Draws first_idx + p (p < len(out)) where their first attempt settles both gammas, else -1.

    ``table`` rows row0 + FA_*: da, ca, ka, db, cb, kb of draw p in column p are read; X, Y and the
    block's words are written. The first attempt of :func:`gamma_ge1_lane`
    for both lanes, without branches or transcendental functions: a ziggurat candidate inside its
    rectangle, v > 0 and a squeeze decided by u's first 15 bits.
    ``out[p]`` is then bit for bit beta_ge1's value; where any of these fails it is -1 (no Beta
    draw is negative). Rows FA_X and FA_Y get the gammas X and Y where their lane settled, -1
    where not: the caller finishes the draw with :func:`beta_ge1_finish_words`, which reruns only
    the open lanes (profiling: rerunning both, with beta_ge1, was a fifth of the Thompson rounds'
    time) from the block's words in rows FA_WORDS.. (:func:`first_attempt_words` reads them back)
    instead of recomputing the block.

    Two loops, so that both vectorise on AVX2 as well as on AVX-512: the Philox blocks (their 64-bit words
    go to rows FA_WORDS.. as uint64 bits), then the gammas from those words, every integer converted to a
    float through int32 (:func:`_small_float`). Written as one loop converting uint64 words, it compiled
    to vector code only with AVX-512's 64-bit instructions and stayed scalar on AVX2 CPUs such as the
    AMD EPYC build VM, where the split takes Thompson sampling's choice to 0.46x the time and the
    censored-resources TS kernels to 0.53x (docs/papers/censored_resources.md, "Cost");
    tests/test_rng.py checks the vector instructions of an AVX2 build.
    """
    words = first_attempt_word_rows(table, row0)
    for p in range(out.shape[0]):
        counter = (first_idx + np.uint64(p)) * np.uint64(BETA_GE1_WORDS)
        w0, w1, w2, w3 = philox4x32(counter & _M32, counter >> _S32, sub, tag, key)
        words[0, p] = w0 | (w1 << _S32)
        words[1, p] = w2 | (w3 << _S32)
    for p in range(out.shape[0]):
        word_a = words[0, p]
        word_b = words[1, p]
        layer_a = np.int32(word_a & _ZIG_MASK)
        layer_b = np.int32(word_b & _ZIG_MASK)
        # the 38-bit mantissa word >> 26 as 2^7 (word >> 33) + (its low 7 bits): both below 2^31
        mantissa_a = _small_float(word_a >> _MANTISSA_HIGH_SHIFT) * 128.0 + _small_float((word_a >> _MANTISSA_SHIFT) & _M7)
        mantissa_b = _small_float(word_b >> _MANTISSA_HIGH_SHIFT) * 128.0 + _small_float((word_b >> _MANTISSA_SHIFT) & _M7)
        za = mantissa_a * _ZIG_SCALE[layer_a]
        zb = mantissa_b * _ZIG_SCALE[layer_b]
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
        lead_a = _small_float((word_a >> _LEAD_SHIFT) & _M15)
        lead_b = _small_float((word_b >> _LEAD_SHIFT) & _M15)
        settled_a = inside_a & (va > 0.0) & ((lead_a + 1.0) * _U_LEAD <= 1.0 - coefficient_a * za2 * za2)
        settled_b = inside_b & (vb > 0.0) & ((lead_b + 1.0) * _U_LEAD <= 1.0 - coefficient_b * zb2 * zb2)
        x = table[row0 + FA_DA, p] * (va * va * va)
        y = table[row0 + FA_DB, p] * (vb * vb * vb)
        table[row0 + FA_X, p] = x if settled_a else -1.0
        table[row0 + FA_Y, p] = y if settled_b else -1.0
        out[p] = x / (x + y) if settled_a & settled_b else -1.0


@njit(cache=True, inline="always")
def first_attempt_words(table, row0, p):
    """The two 64-bit words of column p's first block, as beta_ge1_first_attempts read them."""
    words = first_attempt_word_rows(table, row0)
    return words[0, p], words[1, p]
