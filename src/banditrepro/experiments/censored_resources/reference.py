"""Reference: the censored-resources experiments end to end, written from the paper (Bengs & Hüllermeier).

A second implementation of the experiments of config/papers/censored_resources.yaml, for the reference guards
S_reference_fig4 and S_reference_fig5 (:class:`banditrepro.experiments.reference.ReferenceImplementation`,
docs/mutants.md "Guards"). It is written from the paper and the digest's resolutions, not from the build:

* ``SETTINGS``: the instances of App. E.2 and F (means, x_i of eq. 35, sigma, Beta/Exp parameters), their grids
  of limits, c and lambda of Sec. 5.1 and F.1, and Sec. 5.2's AmesHousing set-up (672 forest configurations
  replayed from the surrogate table: reward 1 - RMSE / range of y_test, cost the training time, limits
  linspace(Q1, Q3, 10) of run 1's times, c(x) = x, lambda(x) = 10 x); with the digest's resolutions: (R, C)
  truncated to [0, inf)^2 (A1), sigma a variance (A2), grids linspace(0, tau_max, m) (A3), lambda(0.5) = 0.05
  (A4), RCUCB's survival count from the latent C (A5);
* :func:`gaussian_pull`, :func:`pull`: (R, C) of a pull from raw Philox draws;
* :func:`ground_truth`: nu_{i,tau} of eq. (2) -- for the Gaussian arms by quadrature over R (the build
  integrates over C), closed form for Beta/Exp, exact means over the table;
* :func:`play`: RCUCB (eqs. 8-12 and the Sec. 3.2 update rule) and the modified UCB and Thompson sampling of
  App. E.1 (eqs. 31, 32), with the pseudo-regret (eq. 4), censored pulls, rewards, the gain Y of eq. (7) and
  pulls of the optimal pair per round.

Shared with the build, and nothing else (tests/test_reference_independence.py checks the imports):

* random numbers, with the build's counter layout at the keys ``experiments.runner.keys_for`` gives: pull k
  (from 0) of arm i reads, on the noise key's TAG_ARM stream, normal pairs 64 k + a of sub-stream i for its
  rejection attempts a (``rng.normal_pair``), ``rng.beta`` draw k of sub-stream i and uniform k of sub-stream
  2^30 + i (Beta/Exp), or uniform k of sub-stream i (a table run); the policy key's TAG_POLICY stream
  (sub-stream 0) gives the tie-breaking uniforms (``rng.stream_argmax_random_ties``), TS's Bernoulli trials
  (``rng.stream_uniform``) and, one index per TS round, the base u of that round's posterior draws, pair p's at
  counter u n m + p of sub-stream 1 (``algorithms.beta_sampler.beta_ab``, an exact Beta sampler);
* the data file: the AmesHousing surrogate table the experiment names (``requires``);
* floating-point order where the curves are compared to the bit: c(x) = x / 10 and lambda(x) = x / 10 written
  0.1 x, as the build multiplies; each index in the order the paper writes it.

The regret (and final regret) is compared to a relative 1e-9, not to the bit: it sums nu* - nu of the played
pairs, and the reference computes nu by another route (quadrature over R; its own closed form and table means),
which agrees with the build's to a few units of 1e-15 (tests/censored_resources/test_reference_claim.py) but not to
the bit. Every other array -- censored pulls, rewards, gains, optimal pulls, which follow the choices -- must
equal the build's exactly.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit
from scipy import integrate, special

from ... import rng
from ...algorithms import beta_sampler
from ...simulation_output import SimulationOutput

GAUSSIAN, BETA_EXP, TABLE = 0, 1, 2
RCUCB, UCB, TS = 0, 1, 2
ATTEMPTS = 64  # rejection attempts of a truncated Gaussian pull; then the last candidate is moved into the box
EXP_SUB = 1 << 30  # sub-stream offset of the Exp consumptions (rng.beta's gammas use 2 i and 2 i + 1)
TS_POSTERIOR_SUB = np.uint64(1)  # sub-stream of TS's posterior draws on the policy key


# --- the paper's settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arms:
    """``family`` GAUSSIAN: rows (mu_R, mu_C, sqrt(sigma), rho, sqrt(1 - rho^2)) per arm; BETA_EXP: rows (a, b,
    rate); TABLE: ``table`` (arms, runs, 2) of recorded (R, C)."""

    family: int
    params: np.ndarray
    table: np.ndarray


def gaussian(mu_r, mu_c, x, sigma: float) -> Arms:
    """App. E.2: (R, C) ~ N(mu_i, sigma [[1, rho_i], [rho_i, 1]]) with rho_i = 2 x_i sqrt(1 - x_i^2) (eq. 35)."""
    mu_r = np.asarray(mu_r, dtype=np.float64)
    shape = mu_r.shape
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), shape)
    rho = 2.0 * x * np.sqrt(1.0 - x * x)
    params = np.stack([mu_r, np.broadcast_to(np.asarray(mu_c, dtype=np.float64), shape),
                       np.full(shape, math.sqrt(sigma)), rho, np.sqrt(1.0 - rho * rho)], axis=1)
    return Arms(GAUSSIAN, np.ascontiguousarray(params), np.zeros((1, 1, 2)))


def poscorr() -> Arms:
    return gaussian([0.6] + [0.5] * 9, [0.45] + [0.5] * 9, [0.2, 0.3, 0.4, 0.4] + [0.6] * 6, 0.2)


def negcorr() -> Arms:
    return gaussian([0.9] + [0.8] * 9, [0.8] * 10, [-0.2] * 10, 0.2)


def indep() -> Arms:
    """R ~ Beta(a_i, b_i), C ~ Exp(lambda_i), lambda_i = a_i / (a_i + b_i) + 1 (a rate)."""
    a = np.array([0.8] * 10)
    b = np.array([0.2] + [0.3] * 9)
    return Arms(BETA_EXP, np.stack([a, b, a / (a + b) + 1.0], axis=1), np.zeros((1, 1, 2)))


def many_arms(n: int, sigma: float, mu_c_rises: bool) -> Arms:
    """F.2: mu_i = (0.9 (1 - (i-1)/n), 0.3 + 0.7 (i-1)/n); F.3: mu_i = (0.9 (1 - (i-1)/n), 0); x_i = 0.2."""
    i = np.arange(1, n + 1)
    mu_c = 0.3 + 0.7 * (i - 1) / n if mu_c_rises else np.zeros(n)
    return gaussian(0.9 * (1 - (i - 1) / n), mu_c, [0.2] * n, sigma)


def synthetic_penalty(tau: np.ndarray) -> np.ndarray:
    """Sec. 5.1: lambda(x) = c(x) = x / 10 for x <= 0.5, 10 x above (written 0.1 x: the build's rounding)."""
    return np.where(tau <= 0.5, 0.1 * tau, 10.0 * tau)


@dataclass(frozen=True)
class Synthetic:
    arms: Callable[[], Arms]
    taus: tuple  # the grid M
    tau_max: float  # M is a subset of (0, tau_max]: the baselines' scale L = lambda(tau_max)

    def setting(self, experiment) -> tuple[Arms, np.ndarray, np.ndarray, float, float]:
        """(arms, grid, lambda on it, L, cost slope c)."""
        taus = np.array(self.taus, dtype=np.float64)
        return self.arms(), taus, synthetic_penalty(taus), float(synthetic_penalty(np.array([self.tau_max]))[0]), 0.1


@dataclass(frozen=True)
class AmesHousing:
    """Sec. 5.2: the 672 forest configurations, replayed from the surrogate table of recorded runs."""

    grid_size: int = 10

    def setting(self, experiment) -> tuple[Arms, np.ndarray, np.ndarray, float, float]:
        rewards, times = forest_runs(Path(experiment.repo_root) / experiment.requires[0])
        q1, q3 = np.percentile(times[:, 0], [25, 75])  # run 1's training times; R's type 7 quantiles
        taus = np.linspace(q1, q3, self.grid_size)
        lam = 10.0 * taus
        return Arms(TABLE, np.zeros((rewards.shape[0], 1)), np.stack([rewards, times], axis=2)), taus, lam, lam[-1], 1.0


def forest_runs(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(1 - RMSE / (max - min of y_test), training seconds), (arms, runs): arms in the paper's listing order
    (number of trees, mtry, minimal node size, sample fraction, each ascending), runs in order."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    config = lambda row: (int(row["num_trees"]), int(row["mtry"]), int(row["min_node_size"]),  # noqa: E731
                          float(row["sample_fraction"]))
    arms = sorted({config(row) for row in rows})
    runs = sorted({int(row["run"]) for row in rows})
    arm_of, run_of = {a: i for i, a in enumerate(arms)}, {r: k for k, r in enumerate(runs)}
    rewards = np.full((len(arms), len(runs)), np.nan)
    times = np.full((len(arms), len(runs)), np.nan)
    for row in rows:
        i, k = arm_of[config(row)], run_of[int(row["run"])]
        rewards[i, k] = 1.0 - float(row["rmse"]) / float(row["y_test_range"])
        times[i, k] = float(row["train_seconds"])
    if np.isnan(rewards).any():
        raise ValueError(f"{path}: some configuration lacks a run")
    return rewards, times


SIZE_10, SIZE_20, SIZE_5 = (tuple(np.linspace(0.0, 1.0, m)) for m in (10, 20, 5))
M1 = (0.5, 0.9)
SETTINGS = {
    "s51_poscorr": Synthetic(poscorr, SIZE_10, 1.0),
    "s51_negcorr": Synthetic(negcorr, SIZE_10, 1.0),
    "s51_indep": Synthetic(indep, SIZE_10, 1.0),
    "f1m1_poscorr": Synthetic(poscorr, M1, 1.0),
    "f1m1_negcorr": Synthetic(negcorr, M1, 1.0),
    "f1m1_indep": Synthetic(indep, M1, 1.0),
    "f1m2_poscorr": Synthetic(poscorr, SIZE_20, 1.0),
    "f1m2_negcorr": Synthetic(negcorr, SIZE_20, 1.0),
    "f1m2_indep": Synthetic(indep, SIZE_20, 1.0),
    "f2_n20": Synthetic(lambda: many_arms(20, 0.2, True), SIZE_5, 1.0),
    "f2_n50": Synthetic(lambda: many_arms(50, 0.2, True), SIZE_5, 1.0),
    "f2_n80": Synthetic(lambda: many_arms(80, 0.2, True), SIZE_5, 1.0),
    "f3": Synthetic(lambda: many_arms(5, 0.1, False), tuple(np.linspace(0.0, 0.6, 10)), 0.6),
    "ames": AmesHousing(),
}

# algorithm id -> (policy, alpha, RCUCB's unit penalty bonus (digest A6), TS updating the played pair only (A9))
ALGORITHMS = {"rcucb": (RCUCB, 1.0, False, False), "rcucb_unit": (RCUCB, 1.0, True, False),
              "ucb": (UCB, 1.0, False, False), "ts": (TS, 0.0, False, False), "ts_single": (TS, 0.0, False, True)}


# --- ground truth, eq. (2): nu = E[(R - c(C)) 1{C <= tau}] - lambda(tau) P(C > tau) -----------------------------


def _normal_pdf(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _gaussian_truth(p: np.ndarray, taus: np.ndarray, lam: np.ndarray, cost: float) -> np.ndarray:
    """nu on the grid for (R, C) ~ N(mu, sigma [[1, rho], [rho, 1]]) given R >= 0 and C >= 0, by quadrature over
    R: given R = r, C ~ N(mu_C + rho (r - mu_R), sigma (1 - rho^2)), whose probability and first moment on
    [0, tau] are closed form."""
    mu_r, mu_c, sd, rho, cond = (float(v) for v in p)
    cond_sd = sd * cond

    def on_c(r: float, upper: float) -> tuple[float, float]:
        """(P(0 <= C <= upper | R = r), E[C 1{0 <= C <= upper} | R = r])."""
        m = mu_c + rho * (r - mu_r)
        lo, hi = (0.0 - m) / cond_sd, (upper - m) / cond_sd
        prob = special.ndtr(hi) - special.ndtr(lo) if math.isfinite(upper) else special.ndtr(-lo)
        first = m * prob + cond_sd * (_normal_pdf(lo) - (_normal_pdf(hi) if math.isfinite(upper) else 0.0))
        return prob, first

    def integral(f) -> float:
        return integrate.quad(f, 0.0, math.inf, limit=200, epsabs=1e-14, epsrel=1e-12)[0]

    density = lambda r: _normal_pdf((r - mu_r) / sd) / sd  # noqa: E731
    box = integral(lambda r: density(r) * on_c(r, math.inf)[0])  # P(R >= 0, C >= 0)
    nu = np.empty(taus.size)
    for j, tau in enumerate(taus):
        if tau <= 0.0:  # C <= 0 has probability 0
            nu[j] = -lam[j]
            continue
        below = integral(lambda r, tau=tau: density(r) * on_c(r, tau)[0]) / box  # P(C <= tau | box)
        gain = integral(lambda r, tau=tau: density(r) * (r * on_c(r, tau)[0] - cost * on_c(r, tau)[1])) / box
        nu[j] = gain - lam[j] * (1.0 - below)
    return nu


def ground_truth(arms: Arms, taus: np.ndarray, lam: np.ndarray, cost: float) -> np.ndarray:
    """nu_{i, tau_j} (n, m)."""
    nu = np.empty((arms.params.shape[0], taus.size))
    done: dict[tuple, np.ndarray] = {}
    for i in range(nu.shape[0]):
        if arms.family == GAUSSIAN:
            key = tuple(arms.params[i])
            if key not in done:
                done[key] = _gaussian_truth(arms.params[i], taus, lam, cost)
            nu[i] = done[key]
        elif arms.family == BETA_EXP:  # independent: E[R] P(C <= tau) - c E[C 1{C <= tau}] - lambda P(C > tau)
            a, b, rate = arms.params[i]
            survival = np.exp(-rate * taus)
            consumed = (1.0 - survival * (1.0 + rate * taus)) / rate
            nu[i] = a / (a + b) * (1.0 - survival) - cost * consumed - lam * survival
        else:  # the table's runs are equally likely
            r, c = arms.table[i, :, 0], arms.table[i, :, 1]
            within = c[None, :] <= taus[:, None]
            nu[i] = ((r - cost * c)[None, :] * within).mean(axis=1) - lam * (1.0 - within.mean(axis=1))
    return nu


# --- (R, C) of a pull, from the raw draws ---------------------------------------------------------------------------


@njit(cache=True)
def gaussian_pull(p, noise_key, arm, k):
    """(R, C) = mu + sqrt(sigma) (z1, rho z1 + sqrt(1 - rho^2) z2), redrawn until R >= 0 and C >= 0."""
    r, c = p[0], p[1]
    for attempt in range(ATTEMPTS):
        z1, z2 = rng.normal_pair(noise_key, rng.TAG_ARM, arm, np.uint64(k * ATTEMPTS + attempt))
        r = p[0] + p[2] * z1
        c = p[1] + p[2] * (p[3] * z1 + p[4] * z2)
        if r >= 0.0 and c >= 0.0:
            return r, c
    return max(r, 0.0), max(c, 0.0)


@njit(cache=True)
def pull(family, params, table, noise_key, arm, k):
    """(R, C) of pull ``k`` (from 0) of ``arm``: a function of (noise key, arm, k) alone."""
    if family == GAUSSIAN:
        return gaussian_pull(params[arm], noise_key, arm, k)
    if family == BETA_EXP:
        reward = rng.beta(params[arm, 0], params[arm, 1], noise_key, rng.TAG_ARM, arm, k)
        u = rng.uniform(noise_key, rng.TAG_ARM, np.uint64(EXP_SUB + arm), k)
        return reward, -math.log(u) / params[arm, 2]
    runs = table.shape[1]
    run = min(int(rng.uniform(noise_key, rng.TAG_ARM, arm, k) * runs), runs - 1)  # U{1..runs}
    return table[arm, run, 0], table[arm, run, 1]


# --- the algorithms, one run ---------------------------------------------------------------------------------------


@njit(cache=True)
def virtual_reward(reward, consumption, tau, lam_tau, cost):
    """Y of eq. (7): (R - c(C)) 1{C <= tau} - lambda(tau) 1{C > tau}."""
    if consumption <= tau:
        return reward - cost * consumption
    return -lam_tau


@njit(cache=True)
def play(policy, alpha, unit_bonus, single_pair, taus, lam, scale, cost, family, params, table, gaps, best_pair,
         noise_key, policy_key, checkpoints):
    """Curves (5, checkpoints): cumulative regret, censored pulls, reward R 1{C <= tau}, gain Y, pulls of the
    optimal pair, of one run. Pair p = i m + j is (arm i, limit taus[j]); L = ``scale``.

    * RCUCB: rounds t = 1..n play (t, tau_max); then argmax of ghat - Lambdahat + sqrt(2 alpha ln t / N_{i,tau})
      + lambda(tau) sqrt(2 alpha ln t / N_{i,0}) (eq. 12; ``unit_bonus``: without lambda(tau)), with
      ghat = G_{i,tau} / N_{i,tau} (eq. 8) and Lambdahat = lambda(tau) S_{i,tau} / N_{i,0} (eq. 9); the pull
      counts in N and G of every limit up to the played one (censored: nothing added to G), in S of every limit
      its C exceeds, and in N_{i,0}.
    * UCB (eq. 31): rounds 1..n m play every pair once; then argmax (Ybar + L) / (1 + L) + sqrt(alpha ln t /
      (2 T)) over the pairs' own pulls.
    * TS (eq. 32): rounds 1..n m play every pair once; then argmax of a Beta(1 + S, 1 + F) draw per pair; after
      a pull every limit up to the played one (``single_pair``: the played one only) gets a Bernoulli trial of
      probability (Y + L) / (1 + L) clipped to [0, 1]: success S += 1, else F += 1."""
    n_arms, m = gaps.shape
    n_pairs = n_arms * m
    N = np.zeros((n_arms, m))  # RCUCB N_{i,tau}; UCB T; TS S
    G = np.zeros((n_arms, m))  # RCUCB G; UCB the sum of Y; TS F
    S = np.zeros((n_arms, m))  # RCUCB S
    N0 = np.zeros(n_arms)  # RCUCB N_{i,0}
    pulls = np.zeros(n_arms, dtype=np.int64)
    score = np.zeros(n_pairs)
    coins = np.zeros(4, dtype=np.uint64)
    coins[0] = policy_key
    coins[1] = rng.TAG_POLICY
    curves = np.zeros((5, checkpoints.size))
    regret = censored = rewards = gain = optimal = 0.0
    c = 0
    for t in range(1, checkpoints[-1] + 1):
        if policy == RCUCB and t <= n_arms:
            p = (t - 1) * m + m - 1
        elif policy != RCUCB and t <= n_pairs:
            p = t - 1
        else:
            if policy == RCUCB:
                explore = 2.0 * alpha * math.log(t)  # c(t; alpha) = sqrt(2 alpha ln t / N) + lambda sqrt(2 alpha ln t / N0)
                for i in range(n_arms):
                    bonus = math.sqrt(explore / N0[i])
                    for j in range(m):
                        score[i * m + j] = (G[i, j] / N[i, j] - lam[j] * S[i, j] / N0[i] + math.sqrt(explore / N[i, j])
                                            + (bonus if unit_bonus else lam[j] * bonus))
            elif policy == UCB:
                explore = alpha * math.log(t)  # sqrt(alpha ln t / (2 T))
                for i in range(n_arms):
                    for j in range(m):
                        score[i * m + j] = ((G[i, j] / N[i, j] + scale) / (1.0 + scale)
                                            + math.sqrt(explore / (2.0 * N[i, j])))
            else:
                base = coins[3]  # this round's posterior draws: counters base n m + p
                coins[3] = base + np.uint64(1)
                for i in range(n_arms):
                    for j in range(m):
                        score[i * m + j] = beta_sampler.beta_ab(1.0 + N[i, j], 1.0 + G[i, j], coins[0],
                                                                coins[1], TS_POSTERIOR_SUB,
                                                                base * np.uint64(n_pairs) + np.uint64(i * m + j))
            p = rng.stream_argmax_random_ties(coins, score)
        i, j = p // m, p % m
        reward, consumption = pull(family, params, table, noise_key, i, pulls[i])
        pulls[i] += 1
        if policy == RCUCB:
            for jj in range(m):
                if jj <= j:
                    N[i, jj] += 1.0
                    if consumption <= taus[jj]:
                        G[i, jj] += reward - cost * consumption
                if consumption > taus[jj]:
                    S[i, jj] += 1.0
            N0[i] += 1.0
        elif policy == UCB:
            N[i, j] += 1.0
            G[i, j] += virtual_reward(reward, consumption, taus[j], lam[j], cost)
        else:
            for jj in range(j if single_pair else 0, j + 1):
                success = (virtual_reward(reward, consumption, taus[jj], lam[jj], cost) + scale) / (1.0 + scale)
                if rng.stream_uniform(coins) <= min(max(success, 0.0), 1.0):
                    N[i, jj] += 1.0
                else:
                    G[i, jj] += 1.0
        regret += gaps[i, j]
        if consumption > taus[j]:
            censored += 1.0
        else:
            rewards += reward
        gain += virtual_reward(reward, consumption, taus[j], lam[j], cost)
        if p == best_pair:
            optimal += 1.0
        if t == checkpoints[c]:
            curves[0, c], curves[1, c], curves[2, c], curves[3, c], curves[4, c] = regret, censored, rewards, gain, optimal
            c += 1
            if c == checkpoints.size:
                break
    return curves


# --- the reference ----------------------------------------------------------------------------------------------------


class CensoredResourcesReference:
    """:class:`banditrepro.experiments.reference.ReferenceImplementation` of every experiment in ``SETTINGS``."""

    tolerances = {"regret": 1e-9, "final_regret": 1e-9}  # nu by another numerical route (module docstring)

    def run(self, experiment, algorithm: str, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        if experiment.id not in SETTINGS or algorithm not in ALGORITHMS:
            raise ValueError(f"the censored_resources reference has no {experiment.id}/{algorithm}")
        arms, taus, lam, scale, cost = SETTINGS[experiment.id].setting(experiment)
        nu = ground_truth(arms, taus, lam, cost)
        best = int(np.argmax(nu))  # the first optimal pair, arm-major
        policy, alpha, unit_bonus, single_pair = ALGORITHMS[algorithm]
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        runs = np.stack([play(policy, alpha, unit_bonus, single_pair, taus, lam, float(scale), cost, arms.family,
                              arms.params, arms.table, nu.flat[best] - nu, best, np.uint64(noise), np.uint64(coins),
                              checkpoints)
                         for noise, coins in zip(noise_keys, policy_keys)])
        curves = {name: runs[:, k, :] for k, name in enumerate(("regret", "censored", "reward", "gain", "optimal"))}
        T = float(checkpoints[-1])
        finals = {"censored_proportion": curves["censored"][:, -1] / T, "optimal_share": curves["optimal"][:, -1] / T,
                  "final_regret": curves["regret"][:, -1].copy()}
        return SimulationOutput(checkpoints=checkpoints, curves=curves, finals=finals)


REFERENCE = CensoredResourcesReference()
