import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy import stats

from banditrepro import rng
from banditrepro.algorithms import beta_sampler


@pytest.mark.parametrize(
    "counter,key,expected",
    [
        # Random123 known-answer vectors for Philox4x32-10 (kat_vectors)
        ((0, 0, 0, 0), 0, (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, 0xFFFFFFFFFFFFFFFF, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), 0xA4093822 | (0x299F31D0 << 32),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ],
)
def test_philox_known_answers(counter, key, expected):
    out = rng.philox4x32(*counter, np.uint64(key))
    assert tuple(int(x) for x in out) == expected


_DRAWS = (
    lambda key, i: rng.uniform(key, rng.TAG_ARM, 3, i),
    lambda key, i: rng.normal(key, rng.TAG_ARM, 3, i),
    lambda key, i: rng.exponential(key, rng.TAG_ARM, 3, i),
    lambda key, i: rng.gamma(0.4, key, rng.TAG_ARM, 3, i),
    lambda key, i: rng.gamma(3.0, key, rng.TAG_ARM, 3, i),
    lambda key, i: rng.beta(2.0, 5.0, key, rng.TAG_ARM, 3, i),
)


def _draw(kind, key, n):
    # Python loops over the package's kernels (100000 calls take 0.3 s): an @njit helper re-optimised all
    # five samplers inside it (8 CPU-s on an empty cache, against 6 for the samplers on their own)
    one = _DRAWS[kind]
    return np.array([one(key, np.uint64(i)) for i in range(n)])


@pytest.mark.parametrize(
    "kind,dist",
    [(0, stats.uniform()), (1, stats.norm()), (2, stats.expon()), (3, stats.gamma(0.4)), (4, stats.gamma(3.0)),
     (5, stats.beta(2.0, 5.0))],
)
def test_distributions_pass_kolmogorov_smirnov(kind, dist):
    x = _draw(kind, np.uint64(20261122), 20000)
    assert stats.kstest(x, dist.cdf).pvalue > 1e-3


def test_uniform_is_in_open_zero_closed_one():
    x = _draw(0, np.uint64(7), 100000)
    assert x.min() > 0.0 and x.max() <= 1.0


@njit(cache=True)
def _pairs(key, n):
    a = np.empty(n)
    b = np.empty(n)
    for i in range(n):
        a[i], b[i] = rng.normal_pair(key, rng.TAG_ARM, 0, i)
    return a, b


def test_normal_pair_members_are_uncorrelated_standard_normals():
    a, b = _pairs(np.uint64(11), 50000)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.02
    assert stats.kstest(b, "norm").pvalue > 1e-3


def test_normal_pair_counters_and_box_muller_fallback():
    """Attempt a reads counter 16 idx + a; after 15 rejected attempts the 16th block goes to Box-Muller.
    (The fallback has probability 1e-10, so the Python body runs here with a scripted uniform2.)"""
    import math
    import types

    seen = []

    def scripted_uniform2(key, tag, sub, counter):
        seen.append(int(counter))
        return (1.0, 1.0) if len(seen) < 16 else (0.25, 0.125)  # (1, 1): s = 2, rejected

    fn = rng.normal_pair_from.py_func  # normal_pair is normal_pair_from(..., first_try=0)
    scripted = types.FunctionType(fn.__code__, {**fn.__globals__, "uniform2": scripted_uniform2})
    z1, z2 = scripted(5, rng.TAG_ARM, 0, 3, 0)
    assert seen == list(range(48, 64))
    radius = math.sqrt(-2.0 * math.log(0.25))
    assert (z1, z2) == (radius * math.cos(2 * math.pi * 0.125), radius * math.sin(2 * math.pi * 0.125))
    # resumed at a later try, it reads only the counters from that try on
    seen.clear()
    seen.extend([0] * 10)  # the scripted rejections end after 15 calls in all
    assert scripted(5, rng.TAG_ARM, 0, 3, 10) == (z1, z2)
    assert seen[10:] == list(range(58, 64))
    # the compiled function on real counters: pair 3 of this stream is accepted at its first attempt (48),
    # pair 4 only at a later one (64 is rejected)
    for idx, accepted_at in ((3, 48), (4, None)):
        u1, u2 = rng.uniform2(5, rng.TAG_ARM, 0, 16 * idx)
        v1, v2 = 2 * u1 - 1, 2 * u2 - 1
        s = v1 * v1 + v2 * v2
        assert (0 < s < 1) == (accepted_at is not None)
        if accepted_at is not None:
            f = math.sqrt(-2.0 * math.log(s) / s)
            assert rng.normal_pair(5, rng.TAG_ARM, 0, idx) == (v1 * f, v2 * f)


def test_draws_are_pure_functions_of_key_and_counter():
    a = _draw(1, np.uint64(5), 100)
    b = _draw(1, np.uint64(5), 100)
    c = _draw(1, np.uint64(6), 100)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


@njit(cache=True)
def _stream_ints(key, n, m):
    st = np.array([key, rng.TAG_POLICY, 0, 0], dtype=np.uint64)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = rng.stream_integer(st, m)
    return out, st[3]


def test_stream_integer_is_uniform_and_advances_counter():
    out, used = _stream_ints(np.uint64(3), 60000, 6)
    assert used == 60000
    counts = np.bincount(out, minlength=6)
    assert stats.chisquare(counts).pvalue > 1e-3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=12), st.integers(0, 2**32))
def test_choice_from_mask_returns_a_true_entry(mask, key):
    m = np.array(mask)
    s = rng.new_stream(key)
    i = rng.stream_choice_from_mask(s, m)
    if m.any():
        assert m[i]
    else:
        assert i == -1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=10), st.integers(0, 2**32))
def test_argmax_random_ties_returns_a_maximum(values, key):
    v = np.array(values, dtype=np.float64)
    i = rng.stream_argmax_random_ties(rng.new_stream(key), v)
    assert v[i] == v.max()


def test_argmax_random_ties_is_uniform_over_ties():
    v = np.array([1.0, 3.0, 0.0, 3.0, 3.0])
    s = rng.new_stream(99)
    picks = [rng.stream_argmax_random_ties(s, v) for _ in range(6000)]
    counts = np.bincount(picks, minlength=5)
    assert counts[0] == counts[2] == 0
    assert stats.chisquare(counts[[1, 3, 4]]).pvalue > 1e-3


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(0, 2**32), st.integers(1, 5))
def test_deferred_tie_draws_make_the_same_choice(values, key, width):
    """Same choice and stream position as the reservoir that draws at every tie, ties at smaller
    running maxima included."""
    v = np.array(values, dtype=np.float64)
    # the reservoir draws at every value equal to the maximum of the values before it
    before = np.maximum.accumulate(np.concatenate([[-np.inf], v[:-1]]))
    draws_at = np.flatnonzero(v == before)
    first = int(np.argmax(v))
    tied = np.flatnonzero(v == v.max())[1:]
    ties = np.zeros((len(v), width))
    ties.ravel()[:tied.size] = tied
    eager, deferred = rng.new_stream(key), rng.new_stream(key)
    for _ in range(3):  # a few choices on the same streams
        start = deferred[3]
        deferred[3] = start + np.uint64(draws_at.size)
        tie_draw = start + np.uint64(np.count_nonzero(draws_at < first))
        assert rng.stream_tie_choice(deferred, tie_draw, first, ties, tied.size + 1) == rng.stream_argmax_random_ties(eager, v)
        assert np.array_equal(eager, deferred)


def test_categorical_frequencies():
    s = rng.new_stream(5)
    p = np.array([0.2, 0.5, 0.3])
    picks = [rng.stream_categorical(s, p) for _ in range(20000)]
    counts = np.bincount(picks, minlength=3)
    assert stats.chisquare(counts, 20000 * p).pvalue > 1e-3


# --- Beta for shapes >= 1 (Thompson sampling of Bernoulli posteriors): ziggurat + Marsaglia-Tsang ------


def _phi(e):
    """phi(e) = 1 - (1 + e)^3 + 3 ln(1 + e) + 9 e^2 / 2 = 3 sum_{k>=4} (-1)^(k+1) e^k / k; the series
    where the closed form cancels (|e| < 0.05)."""
    e = np.asarray(e, dtype=np.float64)
    series = sum(3.0 * (-1.0) ** (k + 1) * e**k / k for k in range(4, 30))
    closed = 1.0 - (1.0 + e) ** 3 + 3.0 * np.log1p(e) + 4.5 * e * e
    return np.where(np.abs(e) < 0.05, series, closed)


def test_ziggurat_tables_close_at_the_top_with_equal_layer_areas():
    """r = 4.0388... makes the 1024 layers' recursion end with a top layer of the common area v."""
    import math

    x, f = beta_sampler.ZIG_X, beta_sampler.ZIG_F
    r = x[1]
    v = r * math.exp(-0.5 * r * r) + math.sqrt(math.pi / 2) * math.erfc(r / math.sqrt(2))
    assert len(x) == 1025 and x[1024] == 0.0 and np.all(np.diff(x) < 0)
    areas = x[1:1024] * (f[2:1025] - f[1:1024])  # layers 1..1023: width x[i], height f(x[i+1]) - f(x[i])
    np.testing.assert_allclose(areas, v, rtol=1e-9)
    assert x[0] * f[1] == pytest.approx(v, rel=1e-12)  # base strip: rectangle plus tail, as a pseudo-width


def test_gamma_squeezes_lie_below_the_exact_acceptance_probability():
    """exp(g(z)) with g = z^2/2 + d - d v + d ln v, v = (1 + c z)^3, is Marsaglia-Tsang's acceptance
    probability; u < 1 - k z^4 may accept without logarithms only where 1 - k z^4 <= exp(g). Checked for
    k = 0.0331 everywhere and k = min(0.016 / d, 0.0331) where c z >= -1/2, with g = d phi(c z)."""
    for d in [2 / 3, 0.8, 1.0, 1.7, 3.0, 10.0, 60.0, 1e3, 1e5]:
        c = 1.0 / np.sqrt(9.0 * d)
        z = np.concatenate([np.linspace(-1.0 / c, 0.0, 20001)[1:], np.linspace(0.0, 40.0, 20001)])
        e = c * z
        accept = np.exp(d * _phi(e))
        assert np.all(1.0 - beta_sampler.MT_SQUEEZE * z**4 <= accept + 1e-13)
        tight = e >= -0.5
        k = beta_sampler.squeeze_coefficient(d)
        assert np.all(1.0 - k * z[tight] ** 4 <= accept[tight] + 1e-13)
    # the constant behind 0.016: sup of -phi(e) / (81 e^4) over [-1/2, oo) is phi's value at -1/2
    e = np.concatenate([np.linspace(-0.5, -1e-3, 5000), np.linspace(1e-3, 100.0, 5000)])
    ratio = -_phi(e) / (81.0 * e**4)
    assert ratio.max() == pytest.approx(0.015692, abs=1e-6) and ratio.max() < beta_sampler.SQUEEZE_KAPPA


@njit(cache=True)
def _normals_lane(key, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = beta_sampler.normal_lane(key, rng.TAG_POLICY, 7, np.uint64(i) * np.uint64(beta_sampler.BETA_GE1_WORDS), i % 2)
    return out


def test_ziggurat_normal_matches_the_normal_law_in_body_and_tail():
    z = _normals_lane(np.uint64(4242), 2_000_000)
    assert stats.kstest(z[:200_000], "norm").pvalue > 1e-3
    # fine bins over the layers' range test the wedges; beyond r = 4.04 the tail branch (5.4e-5 of draws)
    edges = np.concatenate([[-np.inf], np.linspace(-4.5, 4.5, 181), [np.inf]])
    counts, _ = np.histogram(z, edges)
    expected = np.diff(stats.norm.cdf(edges)) * z.size
    keep = expected > 20
    assert stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue > 1e-3
    tail = np.sum(np.abs(z) > beta_sampler.ZIG_X[1])
    p_tail = 2 * stats.norm.sf(beta_sampler.ZIG_X[1])
    assert abs(tail - z.size * p_tail) < 5 * np.sqrt(z.size * p_tail)
    assert np.mean(z > 0) == pytest.approx(0.5, abs=5 * 0.5 / np.sqrt(z.size))


def _betas(a, b, key, n):
    # a Python loop over the package's kernel (40000 calls take 0.1 s), not an @njit helper: compiling a
    # helper re-optimises beta_ab inside it (15 CPU-s on an empty cache), and beta_ab itself is compiled for
    # test_first_attempts_give_beta_ge1_bit_for_bit_or_leave_the_draw_open anyway
    return np.array([beta_sampler.beta_ab(a, b, key, rng.TAG_POLICY, 3, np.uint64(i)) for i in range(n)])


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.0, 5.0), (2.0, 7.0), (40.0, 3.0), (900.0, 60.0), (3000.0, 9000.0)])
def test_beta_ab_follows_the_beta_law(a, b):
    x = _betas(a, b, np.uint64(20261124), 40000)
    assert stats.kstest(x, stats.beta(a, b).cdf).pvalue > 1e-3
    assert x.mean() == pytest.approx(a / (a + b), abs=5 * stats.beta(a, b).std() / np.sqrt(x.size))


def _first_attempts_and_reference(da, ca, ka, db, cb, kb, key, first, n):
    # a Python loop over the package's kernels, not an @njit helper (which re-optimised them all inside it,
    # 17 CPU-s on an empty cache); beta_ge1 and the finishes are compiled with beta_ab, once
    table = np.full((beta_sampler.FIRST_ATTEMPT_ROWS + 1, n), np.nan)  # row 0 unused: the table's rows start at row0 = 1
    for row, values in ((beta_sampler.FA_DA, da), (beta_sampler.FA_CA, ca), (beta_sampler.FA_KA, ka),
                        (beta_sampler.FA_DB, db), (beta_sampler.FA_CB, cb), (beta_sampler.FA_KB, kb)):
        table[1 + row] = values
    out = np.empty(n)
    beta_sampler.beta_ge1_first_attempts(table, 1, key, rng.TAG_POLICY, 9, first, out)
    lanes = np.stack([table[1 + beta_sampler.FA_X], table[1 + beta_sampler.FA_Y]])
    ref = np.empty(n)
    finished = np.empty(n)
    for p in range(n):
        idx = first + np.uint64(p)
        constants = da[p], ca[p], ka[p], db[p], cb[p], kb[p]
        ref[p] = beta_sampler.beta_ge1(*constants, key, rng.TAG_POLICY, 9, idx)
        word_a, word_b = (np.uint64(w) for w in beta_sampler.first_attempt_words(table, 1, p))
        finished[p] = beta_sampler.beta_ge1_finish_words(*constants, lanes[0, p], lanes[1, p], word_a, word_b, key,
                                                         rng.TAG_POLICY, 9, idx)
        # the form that recomputes the block agrees
        if beta_sampler.beta_ge1_finish(*constants, lanes[0, p], lanes[1, p], key, rng.TAG_POLICY, 9, idx) != finished[p]:
            finished[p] = np.nan
    return out, ref, lanes, finished


def _constants(shapes):
    d = np.asarray(shapes, dtype=np.float64) - 1.0 / 3.0
    return d, 1.0 / np.sqrt(9.0 * d), np.array([beta_sampler.squeeze_coefficient(x) for x in d])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 100000), st.integers(1, 100000)), min_size=1, max_size=300),
       st.integers(0, 2**40), st.integers(0, 2**30))
def test_first_attempts_give_beta_ge1_bit_for_bit_or_leave_the_draw_open(shapes, key, first):
    """The vectorised first attempt settles most draws; those it settles are exactly beta_ge1's value
    (and beta_ab's), the others are marked -1 for beta_ge1 to finish."""
    a = [s[0] for s in shapes]
    b = [s[1] for s in shapes]
    da, ca, ka = _constants(a)
    db, cb, kb = _constants(b)
    out, ref, lanes, finished = _first_attempts_and_reference(da, ca, ka, db, cb, kb, np.uint64(key),
                                                              np.uint64(first), len(shapes))
    settled = out >= 0.0
    assert np.array_equal(out[settled], ref[settled])
    assert np.all(out[~settled] == -1.0) and np.all((ref > 0.0) & (ref < 1.0))
    # a draw is settled exactly when both its gammas are; an open lane is -1, a settled one positive
    assert np.array_equal(settled, (lanes[0] > 0.0) & (lanes[1] > 0.0))
    assert np.all((lanes == -1.0) | (lanes > 0.0))
    # finishing only the open lanes (from the words the first attempt read, or recomputing them) gives
    # beta_ge1's value for every draw
    assert np.array_equal(finished, ref)
    assert beta_sampler.beta_ab(float(a[0]), float(b[0]), np.uint64(key), rng.TAG_POLICY, 9, np.uint64(first)) == ref[0]


_VECTOR_ASM_CHECK = """
import re
from numba import types
from banditrepro.algorithms import beta_sampler
sig = (types.float64[:, ::1], types.int64, types.uint64, types.uint64, types.uint64, types.uint64, types.float64[::1])
beta_sampler.beta_ge1_first_attempts.compile(sig)
asm = beta_sampler.beta_ge1_first_attempts.inspect_asm(sig)
print(len(re.findall(r"\\bvpmuludq\\s[^\\n]*%ymm", asm)), len(re.findall(r"\\bvcvtdq2pd\\s[^\\n]*%ymm", asm)))
"""


def test_first_attempts_are_vectorised_on_avx2(tmp_path):
    """Compiled for an AVX2 CPU without AVX-512 (Haswell; the code is only compiled, so any x86-64 host
    checks it), the first attempt's Philox blocks use packed 32 x 32 -> 64-bit multiplies and its
    integer-to-float conversions packed int32 ones: the loops are vectorised. Fused into one loop with
    uint64 conversions (before 2026-11) they compiled to none of either (scalar imulq and vcvtsi2sd) on
    AVX2, and Thompson sampling's draws took about twice their time on the AVX2 build VM."""
    import os
    import platform
    import subprocess
    import sys

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("x86-64 code generation only")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_FEATURES", "NUMBA_CPU_NAME")}
    # numba adds the host's features where NUMBA_CPU_FEATURES is unset: with the CPU name alone an AVX-512 host
    # compiled 512-bit loops (zmm, none of the ymm counted below). A feature Haswell has makes it Haswell's own.
    env.update(NUMBA_CPU_NAME="haswell", NUMBA_CPU_FEATURES="+avx2", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", _VECTOR_ASM_CHECK], capture_output=True, text=True, check=True,
                         env=env)
    multiplies, conversions = map(int, out.stdout.split())
    assert multiplies >= 10  # Philox4x32-10: two multiplies a round
    assert conversions >= 2


def test_first_attempts_settle_almost_every_draw():
    n = 20000
    shapes = np.random.default_rng(0).integers(1, 500, size=(n, 2))
    da, ca, ka = _constants(shapes[:, 0])
    db, cb, kb = _constants(shapes[:, 1])
    out, _, lanes, _ = _first_attempts_and_reference(da, ca, ka, db, cb, kb, np.uint64(5), np.uint64(0), n)
    assert 0.005 < np.mean(out < 0) < 0.03  # ziggurat wedges/tail of either normal, squeeze misses
    one_lane_open = (lanes[0] < 0.0) != (lanes[1] < 0.0)
    assert np.mean(one_lane_open) > 0.5 * np.mean(out < 0)  # mostly one lane is open: finish reruns only it



@njit(cache=True)
def _gamma_without_squeeze(shape, key, tag, sub, idx):
    """rng.gamma as it was before its squeeze: the logarithmic test decides every draw."""
    boost = 1.0
    base = np.uint64(idx) * np.uint64(64)
    ubase = (np.uint64(1) << np.uint64(62)) + base
    if shape < 1.0:
        boost = rng.uniform(key, tag, sub, ubase + np.uint64(63)) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    for j in range(63):
        z = rng.normal(key, tag, sub, base + np.uint64(j))
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        u = rng.uniform(key, tag, sub, ubase + np.uint64(j))
        if math.log(u) < 0.5 * z * z + d - d * v + d * math.log(v):
            return d * v * boost
    return d * boost


@njit(cache=True)
def _gammas_both_ways(shapes, key, n):
    same = 0
    for s in shapes:
        for i in range(n):
            if rng.gamma(s, key, rng.TAG_ARM, 3, np.uint64(i)) == _gamma_without_squeeze(s, key, rng.TAG_ARM, 3,
                                                                                          np.uint64(i)):
                same += 1
    return same


def test_gamma_squeeze_changes_no_draw():
    """The squeeze only spares the logarithms: every draw is the one the logarithmic test alone gives."""
    shapes = np.array([0.05, 0.3, 0.8, 1.0, 1.7, 3.0, 12.0, 300.0])
    n = 20000
    assert _gammas_both_ways(shapes, np.uint64(20261124), n) == shapes.size * n


def _polar_resumed(key, n):
    """Per pair index: (normal_pair, its value rebuilt from polar_first_try and normal_pair_from(..., 1)).
    A Python loop over the package's kernels (2 CPU-s to compile on an empty cache; as an @njit helper, 6)."""
    out = np.empty((n, 4))
    rejected = 0
    for i in range(n):
        idx = np.uint64(i)
        z1, z2 = rng.normal_pair(key, rng.TAG_ARM, 7, idx)
        v1, v2, s = rng.polar_first_try(key, rng.TAG_ARM, 7, idx)
        if 0.0 < s < 1.0:
            f = math.sqrt(-2.0 * math.log(s) / s)
            w1, w2 = v1 * f, v2 * f
        else:
            rejected += 1
            w1, w2 = rng.normal_pair_from(key, rng.TAG_ARM, 7, idx, 1)
        out[i] = z1, z2, w1, w2
    return out, rejected


def test_polar_first_try_and_resume_give_normal_pair():
    out, rejected = _polar_resumed(np.uint64(21), 20000)
    assert np.array_equal(out[:, :2], out[:, 2:])
    assert 0.15 < rejected / 20000 < 0.28  # 1 - pi/4 of first tries are rejected: both paths are exercised


@njit(cache=True)
def _gammas_split(shapes, key, n):
    """(gamma, gamma_from_first_try on gamma_first_try's values) for n draws of each shape."""
    out = np.empty((shapes.size, n, 2))
    for k in range(shapes.size):
        for i in range(n):
            idx = np.uint64(i)
            boost_u, v1, s, u = rng.gamma_first_try(key, rng.TAG_ARM, 3, idx)
            out[k, i, 0] = rng.gamma(shapes[k], key, rng.TAG_ARM, 3, idx)
            out[k, i, 1] = rng.gamma_from_first_try(shapes[k], boost_u, v1, s, u, key, rng.TAG_ARM, 3, idx)
    return out


def test_gamma_from_its_first_try_is_gamma():
    """Every draw, including those whose first attempt is rejected (the polar try, v <= 0 for small shapes,
    or the acceptance test), and shape <= 0."""
    shapes = np.array([0.0, 0.2, 0.8, 1.0, 1.7, 25.0])
    out = _gammas_split(shapes, np.uint64(8), 20000)
    assert np.array_equal(out[..., 0], out[..., 1])
