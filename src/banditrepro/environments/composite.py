"""Composite and anonymous feedback (Wang, Wang & Huang, AAAI 2021; spec shared/specs/composite_anonymous.md).

Stochastic model (spec §1.1, §3.0). Pulling arm i at slot s draws a total X_s ~ Bernoulli(s_i) (common
random numbers: the draw is keyed by (arm, pull index of that arm) on ``TAG_ARM``) and pays X_s·w_τ at slot
s + τ. The player only sees the per-slot sum Y(u) = Σ_s X_s w_{u-s}. Every algorithm of this paper only uses
sums of Y over runs of consecutive slots, so the kernels here return *block sums*
``Σ_{u=a}^{b} Y(u)`` for the block of slots [a, b] just played (0-based slots), which lets the policies
simulate round by round:

* ``SHAPE_WEIGHTS`` – a fixed finite shape w[0..L] (bounded interval, linear decreasing/increasing).
  With cumulative weights W(k) = Σ_{τ≤k} w_τ, Σ_{u=a}^{b} Y(u) = Σ_{s≤b} X_s [W(b-s) - W(a-1-s)]; only the
  L pulls on either side of the block boundary a need the weights, the rest is a prefix sum of X. O(L)
  per block.
* ``SHAPE_RANDOM_DELAY`` – the whole total arrives after z ~ U{lo..hi} slots (z drawn per pull, on the same
  counter as X); an arrival ring of size > hi, O(1) per slot. z = 0 is seen in the same slot (spec §6.4).
* ``SHAPE_DISCOUNTED`` – w_τ = (1-γ)γ^{τ-1}, τ ≥ 1: exact recursion Y(u+1) = γ Y(u) + (1-γ) X_u.
* ``SHAPE_POLYNOMIAL`` – w_τ = τ^{-p}/ζ(p), τ ≥ 1, NOT truncated: lags 1..L0 exactly through the
  prefix-sum formula, lags > L0 through a sum of exponentials a_k ρ_k^τ (trapezoidal rule for
  τ^{-p} = Γ(p)^{-1} ∫ e^{p y} exp(-τ e^y) dy) carried by O(1) recursions (eight slots' sums at a time,
  :func:`_far_tail_batch`). The relative error of every
  weight for L0 < τ ≤ 10^6 is below 5e-9 (checked in the tests), so nothing is cut off; the tail paid after
  the horizon is never observed anyway.

Adversarial model (spec §1.2, §3.4): a fixed 0/1 reward matrix S[t, i] (data), one total per slot, paid
whole after z_t ≥ 0 slots: oblivious delays z_t ~ U{lo..hi} drawn before the game (``TAG_ENV`` counter =
slot), or the paper's non-oblivious adversary (z_t = d when the current pull is at least the (3d+1)-th
consecutive pull of the best arm in hindsight, else 1). See :func:`adversarial_delay`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.special import gamma as gamma_fn
from scipy.special import zeta

from .. import portable
from .. import rng as _rng

SHAPE_WEIGHTS = 0
SHAPE_RANDOM_DELAY = 1
SHAPE_DISCOUNTED = 2
SHAPE_POLYNOMIAL = 3

_M32 = np.uint64(0xFFFFFFFF)
_INV_2_32 = 1.0 / 4294967296.0

DELAY_OBLIVIOUS = 0
DELAY_NON_OBLIVIOUS = 1


@dataclass(frozen=True)
class SpreadShape:
    """How one pull's total is spread over future slots (arrays are what the kernels read)."""

    name: str
    kind: int
    weights: np.ndarray  # lag weights w[0..L] (exact part; all zeros but one for random delay)
    cumulative: np.ndarray  # W[k] = sum_{tau <= k} w[tau]
    exp_coef: np.ndarray  # far-tail coefficients b_k = a_k rho_k^(L+1) (polynomial only)
    exp_rate: np.ndarray  # rho_k
    delay_low: int = 0
    delay_high: int = 0
    discount: float = 0.0

    @property
    def max_lag(self) -> int:
        """Largest lag with mass, or -1 for an infinite shape."""
        if self.kind in (SHAPE_DISCOUNTED, SHAPE_POLYNOMIAL):
            return -1
        if self.kind == SHAPE_RANDOM_DELAY:
            return self.delay_high
        return len(self.weights) - 1

    def lag_weights(self, n: int) -> np.ndarray:
        """Expected share paid at lags 0..n (exact closed forms; for tests and spill constants)."""
        tau = np.arange(n + 1, dtype=float)
        if self.kind == SHAPE_WEIGHTS:
            out = np.zeros(n + 1)
            m = min(n + 1, len(self.weights))
            out[:m] = self.weights[:m]
            return out
        if self.kind == SHAPE_RANDOM_DELAY:
            span = self.delay_high - self.delay_low + 1
            return np.where((tau >= self.delay_low) & (tau <= self.delay_high), 1.0 / span, 0.0)
        if self.kind == SHAPE_DISCOUNTED:
            g = self.discount
            return np.where(tau >= 1, (1 - g) * g ** np.maximum(tau - 1, 0), 0.0)
        p = self.discount  # polynomial exponent
        with np.errstate(divide="ignore"):
            return np.where(tau >= 1, np.maximum(tau, 1.0) ** -p / zeta(p), 0.0)

    def spill(self) -> float:
        """d_1 = Σ_{d'≥1} P(paid at lag ≥ d') = expected lag (the per-boundary spill of a unit total)."""
        if self.kind == SHAPE_RANDOM_DELAY:
            return 0.5 * (self.delay_low + self.delay_high)
        if self.kind == SHAPE_DISCOUNTED:
            return 1.0 / (1.0 - self.discount)
        if self.kind == SHAPE_POLYNOMIAL:
            p = self.discount
            return float(zeta(p - 1) / zeta(p)) if p > 2 else math.inf
        return float(np.dot(np.arange(len(self.weights)), self.weights))


def _finite(name: str, weights) -> SpreadShape:
    w = np.asarray(weights, dtype=np.float64)
    return SpreadShape(name, SHAPE_WEIGHTS, w, np.cumsum(w), np.zeros(0), np.zeros(0))


def random_delay(low: int, high: int) -> SpreadShape:
    """Whole total paid after z ~ U{low..high} slots (Fig 2)."""
    if not 0 <= low <= high:
        raise ValueError("need 0 <= low <= high")
    return SpreadShape(f"delay U{{{low}..{high}}}", SHAPE_RANDOM_DELAY, np.zeros(1), np.zeros(1), np.zeros(0),
                       np.zeros(0), low, high)


def bounded_interval(d_min: int, d_max: int) -> SpreadShape:
    """Equal shares at lags d_min..d_max-1 (Fig 3a, 3b)."""
    if not 0 <= d_min < d_max:
        raise ValueError("need 0 <= d_min < d_max")
    w = np.zeros(d_max)
    w[d_min:d_max] = 1.0 / (d_max - d_min)
    return _finite(f"interval [{d_min},{d_max})", w)


def linear_decreasing(d: int) -> SpreadShape:
    """w_τ = 2(d+1-τ)/(d(d+1)), τ = 1..d (Fig 3c, 3d)."""
    tau = np.arange(1, d + 1)
    return _finite(f"linear decreasing d={d}", np.concatenate([[0.0], 2.0 * (d + 1 - tau) / (d * (d + 1))]))


def linear_increasing(d: int) -> SpreadShape:
    """w_τ = 2τ/(d(d+1)), τ = 1..d (Fig 3e, 3f)."""
    tau = np.arange(1, d + 1)
    return _finite(f"linear increasing d={d}", np.concatenate([[0.0], 2.0 * tau / (d * (d + 1))]))


def discounted(gamma_d: float) -> SpreadShape:
    """w_τ = (1-γ)γ^{τ-1}, τ ≥ 1 (Fig 4a, 4b); exact recursion."""
    if not 0.0 < gamma_d < 1.0:
        raise ValueError("discount must be in (0, 1)")
    return SpreadShape(f"discounted γ={gamma_d}", SHAPE_DISCOUNTED, np.zeros(1), np.zeros(1), np.zeros(0),
                       np.zeros(0), discount=float(gamma_d))


def polynomial(p: float, near: int = 16, step: float = 0.35, horizon: float = 1e6) -> SpreadShape:
    """w_τ = τ^{-p}/ζ(p), τ ≥ 1 (Fig 4c, 4d): lags ≤ ``near`` exact, the infinite tail as exponentials.

    Trapezoidal nodes y_j (step h) on [ln(1/horizon) - 40/p, 0.5]: a_j = h e^{p y_j}/(ζ(p)Γ(p)),
    ρ_j = exp(-e^{y_j}); nodes whose ρ^(near+1) < 1e-18 cannot matter beyond lag ``near`` and are dropped.
    exp and powers come from :mod:`banditrepro.portable` (NumPy's exp and power differ in the last bits
    on AVX-512 CPUs, and these weights drive every observation of the kernel).
    """
    if p <= 1.0:
        raise ValueError("polynomial exponent must exceed 1 (finite total)")
    c = 1.0 / zeta(p)
    tau = np.arange(near + 1, dtype=float)
    w = np.where(tau >= 1, c * portable.power(np.maximum(tau, 1.0), -p), 0.0)
    y = np.arange(math.log(1.0 / horizon) - 40.0 / p, 0.5, step)
    a = c * step * portable.exp(p * y) / gamma_fn(p)
    rho = portable.exp(-portable.exp(y))
    rho_near = portable.power(rho, near + 1)  # ρ^(near+1)
    keep = rho_near > 1e-18
    a, rho, rho_near = a[keep], rho[keep], rho_near[keep]
    return SpreadShape(f"polynomial p={p:g}", SHAPE_POLYNOMIAL, w, np.cumsum(w), a * rho_near, rho, discount=float(p))


def far_tail_weights(shape: SpreadShape, tau: np.ndarray) -> np.ndarray:
    """The exponential-sum weights the polynomial kernel uses at lags tau > near (for tests)."""
    near = len(shape.weights) - 1
    return (shape.exp_coef[None, :] * shape.exp_rate[None, :] ** (np.asarray(tau, float)[:, None] - near - 1)).sum(1)


# ----------------------------------------------------------------------------------------------------
# Stochastic environment state (one replication) and the block kernel


#: slots whose far-tail sums the polynomial kernel adds side by side (:func:`_far_tail_batch`, which has one
#: accumulator per slot: change both together)
TAIL_BATCH = 8


@njit(cache=True)
def new_state(kind, horizon, delay_high, n_exp):
    """(X totals, prefix sums P, arrival buffer A, recursion state, far-tail scratch) for one replication.

    The scratch holds the recursion states of one batch of slots (:func:`_far_tail_batch`); it is written before
    it is read, so it needs no reset.
    """
    x = np.zeros(horizon + 1)
    prefix = np.zeros(horizon + 2)
    arrivals = np.zeros(ring_size(delay_high) if kind == SHAPE_RANDOM_DELAY else 1)
    rec = np.zeros(max(n_exp, 1))
    tail = np.zeros((TAIL_BATCH if kind == SHAPE_POLYNOMIAL else 1, max(n_exp, 1)))
    return x, prefix, arrivals, rec, tail


@njit(cache=True)
def ring_size(delay_high):
    """Power of two > delay_high: the arrival ring of the random-delay shape (cache-friendly)."""
    n = 1
    while n <= delay_high:
        n *= 2
    return n


@njit(cache=True)
def reset_state(arrivals, rec):
    """Start a new replication in reused buffers (x and prefix are always written before they are read)."""
    arrivals[:] = 0.0
    rec[:] = 0.0


@njit(cache=True)
def _window_sum(x, prefix, cum, a, b):
    """Σ_{u=a}^{b} Σ_s X_s w_{u-s} for a finite shape w[0..L] with cumulative W (pulls s ≤ b filled)."""
    L = cum.size - 1
    total = 0.0
    lo = b - L + 1
    if lo < a:
        lo = a
    for s in range(lo, b + 1):  # pulls of this block whose spread is not complete by b
        total += x[s] * cum[b - s]
    if b - L >= a:  # pulls of this block fully paid by b
        total += cum[L] * (prefix[b - L + 1] - prefix[a])
    start = a - L
    if start < 0:
        start = 0
    for s in range(start, a):  # earlier pulls spilling into the block
        hi = b - s
        if hi > L:
            hi = L
        total += x[s] * (cum[hi] - cum[a - 1 - s])
    return total


@njit(cache=True)
def _far_tail_slot(x, exp_coef, exp_rate, rec, src):
    """Far-tail observation of one slot (Σ_k rec[k], k in order), then the recursions' step to the next slot,
    into which the total of pull ``src`` enters (lag near + 1; none before the first pull)."""
    far = 0.0
    for k in range(exp_rate.size):
        far += rec[k]
    xin = x[src] if src >= 0 else 0.0
    for k in range(exp_rate.size):
        rec[k] = exp_rate[k] * rec[k] + exp_coef[k] * xin
    return far


@njit(cache=True)
def _far_tail_batch(x, exp_coef, exp_rate, rec, states, src, total):
    """``total`` plus the far-tail observations of ``TAIL_BATCH`` consecutive slots, the first of which takes in
    pull ``src``; the recursions are left after the last slot. The same bits as that many
    :func:`_far_tail_slot` calls: every rec[k] takes the same steps in the same order, every slot's sum adds
    rec[0], rec[1], ... from 0.0 in order, and the sums enter ``total`` slot by slot.

    Why: each slot's sum is a chain of n_exp additions, each waiting for the last (most of a polynomial slot's
    time). Recording the batch's recursion states first (``states[j]`` = before slot j's step; the steps stay
    vectorised over k) lets the eight chains advance side by side, one accumulator per slot.
    """
    n_exp = exp_rate.size
    for j in range(TAIL_BATCH):
        xin = x[src + j] if src + j >= 0 else 0.0
        row = states[j]
        for k in range(n_exp):
            r = rec[k]
            row[k] = r
            rec[k] = exp_rate[k] * r + exp_coef[k] * xin
    f0 = f1 = f2 = f3 = f4 = f5 = f6 = f7 = 0.0
    for k in range(n_exp):
        f0 += states[0, k]
        f1 += states[1, k]
        f2 += states[2, k]
        f3 += states[3, k]
        f4 += states[4, k]
        f5 += states[5, k]
        f6 += states[6, k]
        f7 += states[7, k]
    total += f0
    total += f1
    total += f2
    total += f3
    total += f4
    total += f5
    total += f6
    total += f7
    return total


@njit(cache=True)
def play_block(kind, cum, exp_coef, exp_rate, delay_low, delay_high, discount, means, key,
               x, prefix, arrivals, rec, tail, pulls, t0, arm, length):
    """Pull ``arm`` in slots t0..t0+length-1 (0-based) and return the sum of the observations Y there.

    ``pulls[arm]`` counts the arm's pulls: pull n of arm i uses counter (n, i) on TAG_ARM, so every
    algorithm sees the same totals (and delays) for the same pull of the same arm.
    """
    mean = means[arm]
    span = delay_high - delay_low + 1
    n0 = pulls[arm]
    # One Philox block (four 32-bit words) serves 4 pulls (total only) or 2 pulls (total and delay): the
    # generator is most of the cost of a slot. Word -> uniform (w + 1)/2^32 in (0, 1].
    per_block = 2 if kind == SHAPE_RANDOM_DELAY else 4
    ring_total = 0.0
    cached = -1
    w0 = w1 = w2 = w3 = np.uint64(0)
    for j in range(length):
        s = t0 + j
        n = n0 + j
        blk = n // per_block
        if blk != cached:
            w0, w1, w2, w3 = _rng.philox4x32(np.uint64(blk) & _M32, np.uint64(blk) >> np.uint64(32), arm,
                                             _rng.TAG_ARM, key)
            cached = blk
        pos = n - blk * per_block
        if per_block == 2:
            wx, wz = (w0, w1) if pos == 0 else (w2, w3)
        else:
            wx = w0 if pos == 0 else (w1 if pos == 1 else (w2 if pos == 2 else w3))
            wz = wx
        u1 = (float(wx) + 1.0) * _INV_2_32
        u2 = (float(wz) + 1.0) * _INV_2_32
        xs = 1.0 if u1 <= mean else 0.0
        x[s] = xs
        prefix[s + 1] = prefix[s] + xs
        if kind == SHAPE_RANDOM_DELAY:
            z = delay_low + int(u2 * span)
            if z > delay_high:
                z = delay_high
            mask = arrivals.size - 1
            arrivals[(s + z) & mask] += xs
            # everything due at slot s has arrived (pulls <= s): read it and free the ring cell
            ring_total += arrivals[s & mask]
            arrivals[s & mask] = 0.0
    pulls[arm] = n0 + length
    b = t0 + length - 1
    total = 0.0
    if kind == SHAPE_WEIGHTS:
        total = _window_sum(x, prefix, cum, t0, b)
    elif kind == SHAPE_RANDOM_DELAY:
        total = ring_total
    elif kind == SHAPE_DISCOUNTED:
        y = rec[0]
        for s in range(t0, b + 1):
            total += y
            y = discount * y + (1.0 - discount) * x[s]
        rec[0] = y
    else:  # polynomial: exact near lags + exponential recursions for the far tail
        total = _window_sum(x, prefix, cum, t0, b)
        near = cum.size - 1  # slot u's step takes in pull u - near (its lag becomes near+1 at slot u+1)
        u = t0
        while u + TAIL_BATCH - 1 <= b:
            total = _far_tail_batch(x, exp_coef, exp_rate, rec, tail, u - near, total)
            u += TAIL_BATCH
        for v in range(u, b + 1):
            total += _far_tail_slot(x, exp_coef, exp_rate, rec, v - near)
    return total


def observations_per_slot(shape: SpreadShape, means, arms, key: int) -> tuple[np.ndarray, np.ndarray]:
    """(Y per slot, X per slot) for a fixed arm sequence, one slot per block (for tests)."""
    arms = np.asarray(arms, dtype=np.int64)
    T = len(arms)
    x, prefix, arrivals, rec, tail = new_state(shape.kind, T, shape.delay_high, len(shape.exp_rate))
    pulls = np.zeros(len(means), dtype=np.int64)
    y = np.zeros(T)
    for t in range(T):
        y[t] = play_block(shape.kind, shape.cumulative, shape.exp_coef, shape.exp_rate, shape.delay_low,
                          shape.delay_high, shape.discount, np.asarray(means, float), np.uint64(key),
                          x, prefix, arrivals, rec, tail, pulls, t, int(arms[t]), 1)
    return y, x[:T]


def delays_of_pulls(shape: SpreadShape, n_arms: int, arms, key: int) -> np.ndarray:
    """The random delay z of each pull in ``arms`` (same counters as :func:`play_block`; for tests)."""
    span = shape.delay_high - shape.delay_low + 1
    pulls = np.zeros(n_arms, dtype=np.int64)
    out = np.zeros(len(arms), dtype=np.int64)
    for t, a in enumerate(arms):
        n = int(pulls[a])
        words = _rng.philox4x32(np.uint64(n // 2), np.uint64(0), int(a), _rng.TAG_ARM, np.uint64(key))
        u2 = (float(words[1 if n % 2 == 0 else 3]) + 1.0) / 2**32
        out[t] = min(shape.delay_low + int(u2 * span), shape.delay_high)
        pulls[a] += 1
    return out


# ----------------------------------------------------------------------------------------------------
# Adversarial replays of a reward matrix


@njit(cache=True)
def adversarial_delay(mode, d, delay_low, delay_high, key, t, arm, best_arm, run_length):
    """Delay z_t of the slot-t pull. ``run_length`` = consecutive pulls of ``arm`` ending at t (this one incl.).

    Oblivious: z_t ~ U{low..high} keyed by the slot only (independent of the actions). Non-oblivious
    (spec §3.4, §6.9): z_t = d iff arm is the best arm in hindsight and it was played in each of the
    previous 3d slots, i.e. run_length ≥ 3d + 1; otherwise z_t = 1.
    """
    if mode == DELAY_NON_OBLIVIOUS:
        if arm == best_arm and run_length >= 3 * d + 1:
            return d
        return 1
    span = delay_high - delay_low + 1
    z = delay_low + int(_rng.uniform(key, _rng.TAG_ENV, 0, t) * span)
    return z if z <= delay_high else delay_high


@njit(cache=True)
def adversarial_slot(rewards, arrivals, mode, d, delay_low, delay_high, key, t, arm, best_arm, run_length):
    """Pay S[t, arm] after its delay; return (the observation Z(t) of slot t, the realised reward S[t, arm])."""
    r = float(rewards[t, arm])
    z = adversarial_delay(mode, d, delay_low, delay_high, key, t, arm, best_arm, run_length)
    arrivals[t + z] += r
    return arrivals[t], r


def best_in_hindsight(rewards: np.ndarray) -> int:
    """i* = argmax_i Σ_t S[t, i] over the whole horizon (ties: smallest index)."""
    return int(np.argmax(rewards.sum(axis=0, dtype=np.int64)))


def best_cumulative(rewards: np.ndarray, checkpoints: np.ndarray) -> np.ndarray:
    """max_i Σ_{u≤t} S[u, i] at each (1-based) checkpoint t: the comparator of the Fig 5 regret."""
    cps = np.asarray(checkpoints, dtype=np.int64)
    out = np.zeros(len(cps))
    acc = np.zeros(rewards.shape[1], dtype=np.int64)
    prev = 0
    for c, t in enumerate(cps):
        acc += rewards[prev:t].sum(axis=0, dtype=np.int64)
        prev = t
        out[c] = acc.max()
    return out
