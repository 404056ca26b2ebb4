"""Reference: composite_anonymous' stochastic experiments end to end, written from the papers.

A second implementation of the synthetic experiments of config/papers/composite_anonymous.yaml (Figs 2-4 of
Wang, Wang & Huang, AAAI 2021), for the reference guard C6_reference
(:class:`banditrepro.experiments.reference.ReferenceImplementation`, docs/mutants.md "Guards"). It is written
from the papers and the spec's resolutions, not from the build:

* ``SETTINGS``: each experiment's instance as the paper prints it (nine Bernoulli arms s_i = 0.9, 0.8, ...,
  0.1, §5) and its shape (Fig 2: the whole reward after z ~ U{lo..hi}; Fig 3: equal shares at lags
  d_min..d_max-1, w_tau = 2(d+1-tau)/(d(d+1)) or 2 tau/(d(d+1)), tau = 1..d; Fig 4a/b: w_tau =
  (1-gamma) gamma^(tau-1), tau >= 1); ``ALGORITHMS``: ARS-UCB's (alpha, f) of the sweeps and the ODAAF
  baselines, whose delay statistics (E[tau], Var(tau), the bound d) are derived here from the shape (ODAAF-V and
  ODAAF-B: the true E[tau], Var(tau) and bound hi of U{lo..hi}; the generalized ODAAF: E[tau] := d := D, the
  interval's d_max). The polynomial shapes (Fig 4c/d) are not covered: the build pays their infinite tail
  through a sum of exponentials (the resolution infinite_shapes), another numerical route whose 5e-9 weights
  could flip a decision, so this reference raises ``ValueError`` for them; the data-set figures (Fig 5) are
  not built here.
* :func:`pull_draws`: the draws of pull n of arm i, at the counters the build reads. Philox4x32-10 with the
  replication's noise key, counter (b mod 2^32, b div 2^32, i, TAG_ARM); each 32-bit word w is the uniform
  (w + 1) / 2^32. With a random delay a block serves two pulls (b = n div 2; pull n uses words 2(n mod 2) for
  the total and 2(n mod 2) + 1 for the delay), otherwise four (b = n div 4, word n mod 4 for the total). The
  total is X = 1{u <= s_i}, the delay z = lo + floor(u' (hi - lo + 1)), at most hi.
* :func:`observe_block`: the feedback of a block of slots, from the definition Y(u) = sum_s X_s w_{u-s} (every
  pull's payments are booked into the slots they fall in; the discounted shape by its recursion
  Y(u+1) = gamma Y(u) + (1-gamma) X_u). Only sums of Y over the slots of a round enter the policies.
* :func:`ars_ucb`: Algorithm 1 of the paper (ARS-UCB): round k of arm i lasts f(k) slots (c k^beta, or
  2^(k+c) with f(1) = 2^(2+c)); one round of every arm in index order, then the round goes to argmax_i
  min(S_i / N_i + sqrt(alpha ln t / N_i), 1) (t: slots elapsed, N_i: arm i's slots, S_i: the feedback received
  in them), indices within 1e-9 tied and broken by fewer slots, then lower index (resolution ties).
* :func:`odaaf`: Pike-Burke et al. (ICML 2018) Algorithm 1 with the spec's resolutions: Delta_1 = 1/2; phase m
  plays each active arm in index order for n_m - n_{m-1} slots, eliminates the arms whose mean + Delta_m is
  below the best mean, halves Delta, then plays a bridge of n_m - n_{m-1} slots on the best arm with its
  feedback discarded; one arm left, or T Delta^2 <= e, the (empirically best) arm plays to T. n_m =
  ceil(Delta^-2 (sqrt(2L) + sqrt(2L + 8/3 Delta L + X))^2), L = ln(T Delta^2), X = 6 Delta m E[tau] (eq. 3),
  4 Delta (E[tau] + 2 Var(tau)) (ODAAF-V); ODAAF-B takes the larger of the X = 4 Delta E[tau] value and
  ceil(m min(d, n_m^(3) / m)), n_m^(3) the eq. (3) value.
* the metrics: the pseudo-regret sum_t (max_j s_j - s_{a_t}) at the checkpoints (rounds the build's way: one
  round of L slots on arm i adds L Delta_i to the running sum, a checkpoint c inside it reads the sum before
  it + (c - t0) Delta_i), the rounds (ARS-UCB) or phases (ODAAF) played, and the share of the T slots spent on
  the best arm.

The feedback sums are computed by another route than the build's (which sums cumulative weights over a
window); for the random delays they are integers and agree exactly, for the other shapes they may differ in
the last bits, which reach no output unless a decision hinges on them: none does in the guard's runs, so
every array is compared exactly (``tolerances`` empty).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ... import rng
from ...simulation_output import SimulationOutput

MEANS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1)  # §5: nine Bernoulli arms
TIE = 1e-9  # resolution ties
_WORD = 1.0 / 4294967296.0  # a 32-bit word w is the uniform (w + 1) / 2^32
_M32 = np.uint64(0xFFFFFFFF)

DELAY, WEIGHTS, DISCOUNTED = 0, 1, 2  # how a total is paid


@dataclass(frozen=True)
class Shape:
    """How one pull's total is paid: after a U{lo..hi} delay, by lag weights w[0..L], or discounted."""

    how: int
    lo: int = 0
    hi: int = 0
    weights: tuple = (0.0,)
    gamma: float = 0.0
    bound: int = 0  # the generalized ODAAF's D (its E[tau] and d)

    def delay_statistics(self) -> tuple[float, float, float]:
        """(E[tau], Var(tau), d) the ODAAF baselines are given: the true ones of U{lo..hi}, else (D, 0, D)."""
        if self.how == DELAY:
            return (self.lo + self.hi) / 2, ((self.hi - self.lo + 1) ** 2 - 1) / 12, float(self.hi)
        return float(self.bound), 0.0, float(self.bound)


def delay(lo: int, hi: int) -> Shape:
    return Shape(DELAY, lo=lo, hi=hi)


def interval(d_min: int, d_max: int) -> Shape:
    """Equal shares 1/(d_max - d_min) at lags d_min..d_max-1."""
    return Shape(WEIGHTS, weights=tuple(1.0 / (d_max - d_min) if d_min <= tau else 0.0 for tau in range(d_max)),
                 bound=d_max)


def linear(d: int, increasing: bool) -> Shape:
    """w_tau = 2 tau / (d (d+1)) (increasing) or 2 (d+1-tau) / (d (d+1)), tau = 1..d."""
    share = [2.0 * (tau if increasing else d + 1 - tau) / (d * (d + 1)) for tau in range(1, d + 1)]
    return Shape(WEIGHTS, weights=(0.0, *share), bound=d)


SETTINGS = {
    "delay_10_30": delay(10, 30),
    "delay_0_60": delay(0, 60),
    "interval_30_40": interval(30, 40),
    "interval_10_20": interval(10, 20),
    "lindec_100": linear(100, False),
    "lindec_50": linear(50, False),
    "lininc_100": linear(100, True),
    "lininc_50": linear(50, True),
    "discounted_08": Shape(DISCOUNTED, gamma=0.8),
    "discounted_09": Shape(DISCOUNTED, gamma=0.9),
}

POWER, EXPONENTIAL = 0, 1
ODAAF, ODAAF_V, ODAAF_B = 0, 1, 2
# algorithm id -> ("ars", alpha, f = (kind, c, beta)) or ("odaaf", variant)
ALGORITHMS = {
    "ars_a2": ("ars", 2.0, (POWER, 1, 2)), "ars_a4": ("ars", 4.0, (POWER, 1, 2)),
    "ars_a6": ("ars", 6.0, (POWER, 1, 2)), "ars_a8": ("ars", 8.0, (POWER, 1, 2)),
    "ars_fk": ("ars", 4.0, (POWER, 1, 1)), "ars_fk3": ("ars", 4.0, (POWER, 1, 3)),
    "ars_f2k": ("ars", 4.0, (EXPONENTIAL, 0, 0)),
    "odaaf_v": ("odaaf", ODAAF_V), "odaaf_b": ("odaaf", ODAAF_B),
    "odaaf_gen": ("odaaf", ODAAF), "odaaf_gen_b": ("odaaf", ODAAF_B),
}


# --- the environment: draws, payments, feedback -------------------------------------------------------------


@njit(cache=True)
def pull_draws(key, arm, n, with_delay):
    """(u for the total, u' for the delay) of pull ``n`` (from 0) of ``arm`` (module docstring)."""
    per = 2 if with_delay else 4
    b = np.uint64(n // per)
    words = rng.philox4x32(b & _M32, b >> np.uint64(32), arm, rng.TAG_ARM, key)
    slot = n % per
    if with_delay:
        return (float(words[2 * slot]) + 1.0) * _WORD, (float(words[2 * slot + 1]) + 1.0) * _WORD
    u = (float(words[slot]) + 1.0) * _WORD
    return u, u


@njit(cache=True)
def observe_block(how, lo, hi, weights, gamma, mean, key, arm, pulls, t0, length, paid, state):
    """Play ``arm`` in slots t0..t0+length-1; return sum_{u=t0}^{t0+length-1} Y(u). ``paid[u]``: what has been
    booked for slot u so far; ``state[0]``: Y of the next slot (discounted); ``pulls[arm]`` advances."""
    for j in range(length):
        s = t0 + j
        u, u_delay = pull_draws(key, arm, pulls[arm], how == DELAY)
        pulls[arm] += 1
        x = 1.0 if u <= mean else 0.0
        if how == DELAY:
            z = min(lo + int(u_delay * (hi - lo + 1)), hi)
            paid[s + z] += x
        elif how == WEIGHTS and x > 0.0:
            for tau in range(weights.size):
                paid[s + tau] += weights[tau]
        elif how == DISCOUNTED:
            paid[s] = state[0]
            state[0] = gamma * state[0] + (1.0 - gamma) * x
    total = 0.0
    for s in range(t0, t0 + length):
        total += paid[s]
    return total


@njit(cache=True)
def book_regret(regret, checkpoints, c, t0, length, before, gap):
    """Write the regret at the checkpoints inside slots t0+1..t0+length; return the next checkpoint index."""
    while c < checkpoints.size and checkpoints[c] <= t0 + length:
        regret[c] = before + gap * (checkpoints[c] - t0)
        c += 1
    return c


# --- ARS-UCB (the paper's Algorithm 1) -------------------------------------------------------------------------


@njit(cache=True)
def round_length(kind, c, beta, k):
    if kind == EXPONENTIAL:
        return 2 ** (2 + c) if k == 1 else 2 ** (k + c)
    return c * k ** beta


@njit(cache=True)
def ars_index_arm(feedback, slots, t, alpha):
    best, best_index = -1, 0.0
    for i in range(feedback.size):
        index = min(feedback[i] / slots[i] + math.sqrt(alpha * math.log(t) / slots[i]), 1.0)
        if best < 0 or index > best_index + TIE:
            best, best_index = i, index
        elif index >= best_index - TIE and slots[i] < slots[best]:
            best, best_index = i, max(index, best_index)
    return best


@njit(cache=True)
def ars_ucb(how, lo, hi, weights, gamma, means, horizon, alpha, f_kind, f_c, f_beta, key, checkpoints, regret):
    """One run: (rounds played, slots per arm); ``regret`` (checkpoints) filled."""
    n_arms = means.size
    gaps = means.max() - means
    paid = np.zeros(horizon + hi + weights.size + 1)
    state = np.zeros(1)
    pulls = np.zeros(n_arms, dtype=np.int64)
    feedback, slots, rounds_of = np.zeros(n_arms), np.zeros(n_arms), np.zeros(n_arms, dtype=np.int64)
    t, rounds, c, total = 0, 0, 0, 0.0
    while t < horizon:
        arm = rounds if rounds < n_arms else ars_index_arm(feedback, slots, t, alpha)
        rounds_of[arm] += 1
        length = min(round_length(f_kind, f_c, f_beta, rounds_of[arm]), horizon - t)
        feedback[arm] += observe_block(how, lo, hi, weights, gamma, means[arm], key, arm, pulls, t, length, paid,
                                       state)
        slots[arm] += length
        c = book_regret(regret, checkpoints, c, t, length, total, gaps[arm])
        total += gaps[arm] * length
        t += length
        rounds += 1
    return rounds, slots


# --- ODAAF (Pike-Burke et al., Algorithm 1) ----------------------------------------------------------------------


@njit(cache=True)
def eq3(delta, log_term, extra):
    return math.ceil((math.sqrt(2.0 * log_term) + math.sqrt(2.0 * log_term + (8.0 / 3.0) * delta * log_term + extra))
                     ** 2 / (delta * delta))


@njit(cache=True)
def phase_end(variant, m, delta, horizon, mean_delay, var_delay, bound):
    """n_m."""
    log_term = math.log(horizon * delta * delta)
    if variant == ODAAF_V:
        return eq3(delta, log_term, 4.0 * delta * (mean_delay + 2.0 * var_delay))
    plain = eq3(delta, log_term, 6.0 * delta * m * mean_delay)
    if variant == ODAAF:
        return plain
    return max(eq3(delta, log_term, 4.0 * delta * mean_delay), math.ceil(m * min(bound, plain / m)))


@njit(cache=True)
def best_active(feedback, slots, active):
    best, best_mean = -1, -np.inf
    for i in range(feedback.size):
        if active[i] and feedback[i] / slots[i] > best_mean:
            best, best_mean = i, feedback[i] / slots[i]
    return best, best_mean


@njit(cache=True)
def odaaf(how, lo, hi, weights, gamma, means, horizon, variant, mean_delay, var_delay, bound, key, checkpoints,
          regret):
    """One run: (phases, slots per arm, bridges and the last stretch included); ``regret`` filled."""
    n_arms = means.size
    gaps = means.max() - means
    paid = np.zeros(horizon + hi + weights.size + 1)
    state = np.zeros(1)
    pulls = np.zeros(n_arms, dtype=np.int64)
    feedback, slots, played = np.zeros(n_arms), np.zeros(n_arms), np.zeros(n_arms)
    active = np.ones(n_arms, dtype=np.bool_)
    t, c, total, delta, previous, m = 0, 0, 0.0, 0.5, 0, 1
    while t < horizon:
        if active.sum() == 1 or horizon * delta * delta <= math.e:  # one arm to the horizon
            arm = np.flatnonzero(active)[0] if active.sum() == 1 else best_active(feedback, slots, active)[0]
            length = horizon - t
            observe_block(how, lo, hi, weights, gamma, means[arm], key, arm, pulls, t, length, paid, state)
            c = book_regret(regret, checkpoints, c, t, length, total, gaps[arm])
            played[arm] += length
            break
        n_m = phase_end(variant, m, delta, horizon, mean_delay, var_delay, bound)
        for i in range(n_arms):
            if active[i] and t < horizon:
                length = min(n_m - previous, horizon - t)
                feedback[i] += observe_block(how, lo, hi, weights, gamma, means[i], key, i, pulls, t, length, paid,
                                             state)
                slots[i] += length
                played[i] += length
                c = book_regret(regret, checkpoints, c, t, length, total, gaps[i])
                total += gaps[i] * length
                t += length
        if t >= horizon:
            break
        best, best_mean = best_active(feedback, slots, active)
        for i in range(n_arms):
            if active[i] and feedback[i] / slots[i] + delta < best_mean:
                active[i] = False
        delta /= 2.0
        length = min(n_m - previous, horizon - t)  # the bridge, its feedback discarded
        observe_block(how, lo, hi, weights, gamma, means[best], key, best, pulls, t, length, paid, state)
        played[best] += length
        c = book_regret(regret, checkpoints, c, t, length, total, gaps[best])
        total += gaps[best] * length
        t += length
        previous = n_m
        m += 1
    return m, played


# --- the reference ----------------------------------------------------------------------------------------------


class CompositeAnonymousReference:
    """:class:`banditrepro.experiments.reference.ReferenceImplementation` of every experiment in ``SETTINGS``."""

    tolerances: dict = {}  # every array exactly (module docstring)

    def run(self, experiment, algorithm: str, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        if experiment.id not in SETTINGS or algorithm not in ALGORITHMS:
            raise ValueError(f"the composite_anonymous reference has no {experiment.id}/{algorithm}")
        shape, policy = SETTINGS[experiment.id], ALGORITHMS[algorithm]
        means, horizon = np.array(MEANS), int(experiment.horizon)
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        env = (shape.how, shape.lo, shape.hi, np.array(shape.weights), shape.gamma, means, horizon)
        regret = np.zeros((len(noise_keys), checkpoints.size))
        counts, slots = np.zeros(len(noise_keys)), np.zeros((len(noise_keys), means.size))
        for r, key in enumerate(noise_keys):
            if policy[0] == "ars":
                counts[r], slots[r] = ars_ucb(*env, policy[1], *policy[2], np.uint64(key), checkpoints, regret[r])
            else:
                counts[r], slots[r] = odaaf(*env, policy[1], *shape.delay_statistics(), np.uint64(key), checkpoints,
                                            regret[r])
        count_name = "rounds" if policy[0] == "ars" else "phases"
        finals = {count_name: counts, "pulls_optimal_fraction": slots[:, int(np.argmax(means))] / horizon}
        return SimulationOutput(checkpoints=checkpoints, curves={"regret": regret}, finals=finals)


REFERENCE = CompositeAnonymousReference()
