"""Reference: the penalized-fairness experiments end to end, written from the paper (Fang, Li, Samorodnitsky).

A second implementation of every experiment of config/papers/penalized_fairness.yaml, for the reference guards
C1.8, C2.7, C3.3, C4.6 and C5.3 (:class:`banditrepro.experiments.reference.ReferenceImplementation`,
docs/mutants.md "Guards"). It is written from the paper and the digest's resolutions, not from the build:

* ``SETTINGS``: Sec. 6.1's five settings transcribed -- arm means, fairness proportions tau_k, reward laws, the
  penalty rates and the baselines' tuning (the digest's table 2.4), and the resolutions where the paper is silent
  (Gaussian sd 1/K, Setting 3's tau_k = 1/(2K) and cap 5, Setting 4's N(mu, 1/81), UCB1 as HT-UCB with A = 0).
  Only what a scale changes comes from the experiment: its horizon, checkpoints (Setting 1's T grid) and eta grid;
* :func:`instance_means`, :func:`movielens_arms`: U(0, 1)^K instances per replication, fixed means, and the
  MovieLens movies with more than m0 ratings from the per-movie rating counts;
* :func:`reward`: Gaussian, Bernoulli, Beta (Johnk's method) and categorical rewards from raw Philox draws;
* :func:`play`: HT-UCB (Algorithm 1 with eq. 11), LFG and Flearn as Sec. 3 states them, one run on a table of
  the replication's rewards (:func:`reward_table`: pull i of arm k);
* :func:`unfairness`, :func:`penalized_regret`: u_k = (tau_k T - N_k(T))_+ and eq. (10) with the true means.

Shared with the build, and nothing else (tests/test_reference_independence.py checks the imports):

* random numbers: ``rng.uniform`` / ``uniform2`` / ``normal_pair`` / ``stream_integer`` (Philox4x32) at the keys
  ``experiments.runner.keys_for`` gives each replication, with the build's counter layout: arm means on the noise
  key's TAG_AUX stream (sub-stream k, draw index from 0, a draw of exactly 1 skipped); pull i (from 0) of arm k
  on TAG_ARM sub-stream k: counter i (Bernoulli, categorical), normal pair i // 2 (Gaussian: pulls 2j and 2j + 1
  share pair j), counters 32 i + j for Johnk's j-th attempt (Beta); tie-breaking coins on the policy key's
  TAG_POLICY stream, one coin per tied round, sub-stream ``case * runs + run`` (a run is one T or eta of a case;
  an algorithm whose parameters do not depend on eta runs once per case);
* the data file the experiment names (MovieLens' per-movie rating counts);
* floating-point order: the build's curves are compared to the bit, so sums over arms are numpy sums over a
  contiguous arms axis, and every formula is evaluated in the order written in the paper, with the UCB radius as
  sqrt(2 ln n) times 1/sqrt(N_k) and HT-UCB's penalty added to the UCB1 index (an index one rounding apart could
  turn a near tie the other way).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from ... import rng
from ...simulation_output import SimulationOutput

HT_UCB, LFG, FLEARN = 0, 1, 2
GAUSSIAN, BERNOULLI, BETA, CATEGORICAL = 0, 1, 2, 3
JOHNK_ATTEMPTS = 32  # Beta draws: attempts per pull (the mean after 31 rejections, probability < 1e-20)
RATINGS = np.arange(1.0, 6.0)  # MovieLens ratings 1..5


# --- the paper's settings (Sec. 6.1, digest §2.4 and §3) ----------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What a tuning rule may read: the eta of the run (NaN outside eta sweeps), its horizon T, the case's tau
    and the replication's means."""

    eta: float
    T: int
    tau: np.ndarray
    mu: np.ndarray


@dataclass(frozen=True)
class Policy:
    """An algorithm of a setting: HT-UCB's A_k, Flearn's alpha or LFG's eta0 as a rule of the run."""

    name: str  # ht_ucb | flearn | lfg
    parameter: Callable[[Run], float]
    rcap: float = 1.0  # LFG's cap of the UCB index
    per_eta: bool = False  # the parameter changes with eta (else one run per case serves every eta)


@dataclass(frozen=True)
class Case:
    """One (tau, reward law) panel of a setting; ``name`` suffixes its curves."""

    name: str
    tau: Callable[[int], np.ndarray]  # of K
    law: str  # gaussian | bernoulli | beta | empirical

    def curve(self, metric: str) -> str:
        """The build's name of the case's curve (a setting with one case names none)."""
        return f"{metric}_{self.name}" if self.name else metric


@dataclass(frozen=True)
class Setting:
    sweep: str  # "T": one run per horizon of the checkpoints (Setting 1); "eta": one per eta; "none": Setting 4
    arms: tuple  # ("uniform", K) | ("means", (mu_1, ...)) | ("movielens", m0)
    cases: tuple[Case, ...]
    policies: dict[str, Policy]
    regret_rate: Callable[[np.ndarray], float] | None = None  # A_k of Setting 1's penalized regret, of the means


def half_range(mu: np.ndarray) -> float:
    """Setting 1's A_k = (max_k mu_k - min_k mu_k) / 2."""
    return (mu.max() - mu.min()) / 2.0


def equal_shares(total: float) -> Callable[[int], np.ndarray]:
    """tau_k = tau / K."""
    return lambda K: np.full(K, total / K)


SETTING_1 = {"ht_ucb": Policy("ht_ucb", lambda r: half_range(r.mu)), "flearn": Policy("flearn", lambda r: 0.0),
             "lfg": Policy("lfg", lambda r: math.sqrt(r.T))}


def sweep_policies(rcap: float) -> dict[str, Policy]:
    """Settings 2, 3, 5: A_k = eta, alpha = (1 - eta) tau_1 T, eta0 = (1 - eta) T."""
    return {"ht_ucb": Policy("ht_ucb", lambda r: r.eta, per_eta=True),
            "flearn": Policy("flearn", lambda r: (1.0 - r.eta) * r.tau[0] * r.T, per_eta=True),
            "lfg": Policy("lfg", lambda r: (1.0 - r.eta) * r.T, rcap=rcap, per_eta=True)}


def setting_1(K: int) -> Setting:
    cases = tuple(Case(f"tau{tau}", equal_shares(tau), "gaussian") for tau in (0.2, 0.4, 0.8))
    return Setting("T", ("uniform", K), cases, SETTING_1, regret_rate=half_range)


def setting_2(mu: tuple, tau: tuple) -> Setting:
    ucb1 = {"ucb1": Policy("ht_ucb", lambda r: 0.0)}  # claim C2.4's plain UCB1: HT-UCB with A = 0
    return Setting("eta", ("means", mu), (Case("", lambda K: np.array(tau), "gaussian"),), sweep_policies(1.0) | ucb1)


def setting_3(m0: int) -> Setting:
    return Setting("eta", ("movielens", m0), (Case("", lambda K: np.full(K, 1.0 / (2 * K)), "empirical"),),
                   sweep_policies(5.0))


def setting_4(mu: tuple, A: float) -> Setting:
    return Setting("none", ("means", mu), (Case("", lambda K: np.full(K, 1.0 / 20), "gaussian"),),
                   {"ht_ucb": Policy("ht_ucb", lambda r: A)})


def setting_5(K: int) -> Setting:
    cases = tuple(Case(f"tau{tau}_{law}", equal_shares(tau), law)
                  for tau in (0.2, 0.5) for law in ("gaussian", "beta", "bernoulli"))
    return Setting("eta", ("uniform", K), cases, sweep_policies(1.0))


SETTINGS = {
    "s1_K5": setting_1(5),
    "s1_K20": setting_1(20),
    "s2_case1": setting_2((0.9, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1), (1.0 / 16,) * 8),  # tau_k = 1/(2K)
    # tau_1..4 = 0.8/K = 0.1, tau_5..8 = 0.4 tau_1 = 0.04
    "s2_case2": setting_2((0.95, 0.7, 0.65, 0.6, 0.2, 0.15, 0.1, 0.05), (0.1,) * 4 + (0.04,) * 4),
    "s3_m2500": setting_3(2500),
    "s3_m2000": setting_3(2000),
    "s3_m1250": setting_3(1250),
    "s4_nc1": setting_4((0.9, 0.8, 0.7, 0.6, 0.6, 0.4, 0.3, 0.2, 0.1), 0.45),
    "s4_nc2": setting_4((0.95, 0.8, 0.7, 0.6, 0.6, 0.4, 0.3, 0.2, 0.1), 0.41),
    "s4_nc3": setting_4((0.9, 0.8, 0.7, 0.6, 0.6, 0.425, 0.4, 0.375, 0.35), 0.45),
    "s4_cr1": setting_4((0.9, 0.86, 0.84, 0.82, 0.6, 0.4, 0.3, 0.2, 0.1), 0.45),
    "s4_cr2": setting_4((0.9, 0.85, 0.84, 0.83, 0.82, 0.4, 0.3, 0.2, 0.1), 0.45),
    "s4_cr3": setting_4((0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1), 0.45),
    "s5_K5": setting_5(5),
    "s5_K20": setting_5(20),
}


def eta_grid(spec) -> np.ndarray:
    """The experiment's eta grid ([eta, ...] or {range: [start, stop, step], extra: [...]}, stop included) in
    thousandths, sorted and without repeats: eta = code / 1000 (the summary's x column)."""
    if isinstance(spec, dict):
        start, stop, step = (round(1000 * float(v)) for v in spec["range"])
        codes = list(range(start, stop + 1, step)) + [round(1000 * float(v)) for v in spec.get("extra", [])]
    else:
        codes = [round(1000 * float(v)) for v in spec]
    return np.array(sorted(set(codes)), dtype=np.int64)


# --- instances ----------------------------------------------------------------------------------------------


@njit(cache=True)
def uniform_mean(noise_key, k):
    """mu_k ~ U(0, 1) of the replication: 1 - u for the first draw u < 1 of the noise key's TAG_AUX sub-stream
    k (mu = 0 would make Beta(mu, 1 - mu) and Bernoulli(mu) degenerate)."""
    idx = 0
    while True:
        u = rng.uniform(noise_key, rng.TAG_AUX, k, idx)
        if u < 1.0:
            return 1.0 - u
        idx += 1


def instance_means(arms: tuple, noise_key) -> np.ndarray:
    kind, value = arms
    if kind == "uniform":
        return np.array([uniform_mean(np.uint64(noise_key), k) for k in range(value)])
    return np.array(value, dtype=np.float64)


def movielens_arms(histograms: Path, m0: int) -> np.ndarray:
    """P(rating = j), j = 1..5, of every movie with more than ``m0`` ratings, most rated first (ties: movie id),
    from the per-movie rating counts (columns movie_id, count, n1..n5)."""
    with open(histograms, newline="", encoding="utf-8") as f:
        movies = [(int(row["count"]), int(row["movie_id"]), [int(row[f"n{j}"]) for j in range(1, 6)])
                  for row in csv.DictReader(f)]
    popular = sorted((m for m in movies if m[0] > m0), key=lambda m: (-m[0], m[1]))
    counts = np.array([m[2] for m in popular], dtype=np.float64)
    return counts / counts.sum(axis=1, keepdims=True)


def reward_law(law: str, mu: np.ndarray, probs: np.ndarray | None) -> tuple[int, np.ndarray]:
    """(law code, its parameter rows per arm) for :func:`reward`."""
    K = mu.size
    if law == "gaussian":  # N(mu_k, 1/K^2): sd 1/K
        return GAUSSIAN, np.stack([mu, np.full(K, 1.0 / K)])
    if law == "bernoulli":
        return BERNOULLI, mu[None, :].copy()
    if law == "beta":  # Beta(mu_k, 1 - mu_k)
        return BETA, np.stack([mu, 1.0 - mu])
    return CATEGORICAL, np.ascontiguousarray(np.cumsum(probs, axis=1).T)  # P(rating <= j) per arm


# --- rewards from the raw draws -----------------------------------------------------------------------------


@njit(cache=True)
def johnk(a, b, noise_key, arm, pull):
    """Beta(a, b) for a + b <= 1 by Johnk's method: X = U^(1/a), Y = V^(1/b), accepted when X + Y <= 1, then
    X / (X + Y); in logs (U^(1/a) underflows for small a), both scaled by the larger so one is 1."""
    for attempt in range(JOHNK_ATTEMPTS):
        u, v = rng.uniform2(noise_key, rng.TAG_ARM, arm, np.uint64(pull * JOHNK_ATTEMPTS + attempt))
        log_x = math.log(u) / a
        log_y = math.log(v) / b
        top = max(log_x, log_y)
        x = math.exp(log_x - top)
        total = x + math.exp(log_y - top)
        if top + math.log(total) <= 0.0:
            return x / total
    return a / (a + b)


@njit(cache=True)
def reward(law, params, noise_key, arm, pull):
    """Reward of pull ``pull`` (from 0) of ``arm``: a function of (noise key, arm, pull) alone."""
    if law == GAUSSIAN:
        z_even, z_odd = rng.normal_pair(noise_key, rng.TAG_ARM, arm, pull // 2)
        return params[0, arm] + params[1, arm] * (z_even if pull % 2 == 0 else z_odd)
    if law == BERNOULLI:
        return 1.0 if rng.uniform(noise_key, rng.TAG_ARM, arm, pull) <= params[0, arm] else 0.0
    if law == BETA:
        return johnk(params[0, arm], params[1, arm], noise_key, arm, pull)
    u = rng.uniform(noise_key, rng.TAG_ARM, arm, pull)
    n_values = params.shape[0]
    for j in range(n_values):
        if u <= params[j, arm]:
            return RATINGS[j]
    return RATINGS[n_values - 1]


@njit(cache=True)
def reward_table(law, params, noise_key, n_pulls):
    """rewards[k, i] = :func:`reward` of pull i of arm k, i < ``n_pulls``: drawn once per replication and case,
    read by every run of it (the rewards do not depend on the algorithm, T or eta)."""
    K = params.shape[1]
    rewards = np.empty((K, n_pulls))
    for k in range(K):
        for i in range(n_pulls):
            rewards[k, i] = reward(law, params, noise_key, k, i)
    return rewards


# --- the algorithms (Sec. 3), one run --------------------------------------------------------------------------


@njit(cache=True)
def uniform_argmax(score, coins):
    """An index of the largest score, uniform among exact ties (one coin of the stream per tied round)."""
    best = score.max()
    ties = 0
    for k in range(score.size):
        if score[k] == best:
            ties += 1
    pick = 0 if ties == 1 else rng.stream_integer(coins, ties)
    for k in range(score.size):
        if score[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1


@njit(cache=True)
def ucb_index(total, pulls, k, radius):
    """m_k + sqrt(2 ln n / N_k), with ``radius`` = sqrt(2 ln n)."""
    return total[k] / pulls[k] + radius * (1.0 / math.sqrt(pulls[k]))


@njit(cache=True)
def play(policy, horizon, tau, penalty, alpha, eta0, rcap, rewards, policy_key, coin_sub, checkpoints):
    """N_k at each checkpoint of one run of ``policy`` (HT_UCB with rates ``penalty``, FLEARN with ``alpha``,
    LFG with ``eta0`` and cap ``rcap``): rounds n = 1..K pull arm n, then

    * HT-UCB (eq. 11): argmax m_k + sqrt(2 ln n / N_k) + A_k 1{N_k < tau_k n};
    * Flearn: the largest deficit tau_k (n - 1) - N_k if it exceeds alpha, else UCB1's arm;
    * LFG: argmax Q_k + eta0 min(m_k + sqrt(2 ln n / N_k), rcap), then Q_k <- max(Q_k + tau_k - 1{k pulled}, 0)
      for every arm (every round, the first K too).

    Pull i of arm k earns ``rewards[k, i]`` (:func:`reward_table`)."""
    K = tau.size
    pulls = np.zeros(K)
    total = np.zeros(K)
    queue = np.zeros(K)
    score = np.zeros(K)
    coins = np.zeros(4, dtype=np.uint64)
    coins[0] = policy_key
    coins[1] = rng.TAG_POLICY
    coins[2] = coin_sub
    counts = np.zeros((checkpoints.size, K), dtype=np.int64)
    c = 0
    for n in range(1, horizon + 1):
        if n <= K:
            k = n - 1
        else:
            radius = math.sqrt(2.0 * math.log(n))
            if policy == HT_UCB:
                for j in range(K):
                    score[j] = ucb_index(total, pulls, j, radius)
                    if pulls[j] < tau[j] * n:
                        score[j] += penalty[j]
            elif policy == FLEARN:
                for j in range(K):
                    score[j] = tau[j] * (n - 1) - pulls[j]
                if not score.max() > alpha:
                    for j in range(K):
                        score[j] = ucb_index(total, pulls, j, radius)
            else:
                for j in range(K):
                    score[j] = queue[j] + eta0 * min(ucb_index(total, pulls, j, radius), rcap)
            k = uniform_argmax(score, coins)
        x = rewards[k, int(pulls[k])]
        pulls[k] += 1.0
        total[k] += x
        if policy == LFG:
            for j in range(K):
                queue[j] = max(queue[j] + tau[j] - (1.0 if j == k else 0.0), 0.0)
        while c < checkpoints.size and checkpoints[c] == n:
            for j in range(K):
                counts[c, j] = int(pulls[j])
            c += 1
    return counts


POLICY_CODES = {"ht_ucb": HT_UCB, "flearn": FLEARN, "lfg": LFG}


def run_policy(policy: Policy, run: Run, rewards: np.ndarray, policy_key, coin_sub: int,
               checkpoints: np.ndarray) -> np.ndarray:
    """N_k at the checkpoints of one run; the policy's parameter is HT-UCB's A_k (every arm), Flearn's alpha or
    LFG's eta0, whichever the policy reads."""
    value = policy.parameter(run)
    K = run.tau.size
    return play(POLICY_CODES[policy.name], int(run.T), run.tau, np.full(K, float(value)), float(value),
                float(value), float(policy.rcap), rewards, np.uint64(policy_key), np.uint64(coin_sub),
                np.asarray(checkpoints, dtype=np.int64))


# --- metrics (Sec. 2, eq. 10) ------------------------------------------------------------------------------------


def unfairness(N: np.ndarray, tau: np.ndarray, T: np.ndarray) -> np.ndarray:
    """u_k = (tau_k T - N_k(T))_+ (N: (..., K); T: N's leading shape)."""
    return np.maximum(tau * T[..., None] - N, 0.0)


def penalized_regret(N: np.ndarray, mu: np.ndarray, tau: np.ndarray, A: float, T: np.ndarray) -> np.ndarray:
    """Eq. (10) per run with the true means: sum_k [Delta_k N_k + A_k (tau_k T - N_k)_+] - T sum_k min(Delta_k,
    A_k) tau_k."""
    gap = mu.max() - mu
    loss = (gap * N + A * unfairness(N, tau, T)).sum(axis=-1)
    return loss - T * (np.minimum(gap, A) * tau).sum(axis=-1)


# --- the reference ----------------------------------------------------------------------------------------------


class PenalizedFairnessReference:
    """:class:`banditrepro.experiments.reference.ReferenceImplementation` of every experiment in ``SETTINGS``."""

    tolerances: dict[str, float] = {}  # every array to the bit

    def run(self, experiment, algorithm: str, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        setting = SETTINGS.get(experiment.id)
        if setting is None or algorithm not in setting.policies:
            raise ValueError(f"the penalized_fairness reference has no {experiment.id}/{algorithm}")
        policy = setting.policies[algorithm]
        probs = None
        if setting.arms[0] == "movielens":
            histograms = Path(experiment.repo_root) / experiment.params["movielens"]["histograms"]
            probs = movielens_arms(histograms, setting.arms[1])
        if setting.sweep == "none":
            return self._fixed_instance(setting, policy, noise_keys, policy_keys, np.asarray(checkpoints))
        return self._sweep(setting, policy, experiment, probs, noise_keys, policy_keys, np.asarray(checkpoints))

    @staticmethod
    def _means(setting: Setting, probs, noise_keys) -> np.ndarray:
        if probs is not None:  # a movie's mean rating
            return np.repeat((probs * RATINGS).sum(axis=1)[None, :], len(noise_keys), axis=0)
        return np.stack([instance_means(setting.arms, key) for key in noise_keys])

    def _sweep(self, setting, policy, experiment, probs, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        """Settings 1, 2, 3, 5: N_k(T) of one run per (replication, case, T or eta)."""
        if setting.sweep == "T":
            horizons, etas, x_axis = checkpoints.astype(np.int64), np.full(checkpoints.size, math.nan), checkpoints
        else:
            x_axis = eta_grid(experiment.params["etas"])
            horizons, etas = np.full(x_axis.size, int(experiment.horizon)), x_axis / 1000
        runs = horizons.size if (setting.sweep == "T" or policy.per_eta) else 1
        mu = self._means(setting, probs, noise_keys)
        R, K = mu.shape
        curves = {}
        for ci, case in enumerate(setting.cases):
            tau = case.tau(K)
            N = np.zeros((R, horizons.size, K))
            for r in range(R):
                rewards = reward_table(*reward_law(case.law, mu[r], probs), np.uint64(noise_keys[r]), horizons.max())
                for x in range(runs):
                    run = Run(float(etas[x]), int(horizons[x]), tau, mu[r])
                    T_only = np.array([horizons[x]])
                    N[r, x] = run_policy(policy, run, rewards, policy_keys[r], ci * runs + x, T_only)[0]
                N[r, runs:] = N[r, 0]  # an eta-free algorithm: its one run serves every eta
            T = np.broadcast_to(horizons.astype(np.float64), (R, horizons.size))
            u = unfairness(N, tau, T)
            curves[case.curve("U")] = u.sum(axis=-1)
            curves[case.curve("W")] = (N * mu[:, None, :]).sum(axis=-1)
            curves[case.curve("W_round_robin")] = T * mu.mean(axis=1)[:, None]
            if setting.regret_rate is not None:
                curves[case.curve("regret")] = np.stack([
                    penalized_regret(N[r], mu[r], tau, setting.regret_rate(mu[r]), T[r]) for r in range(R)])
            for k in range(K):
                curves[case.curve(f"u{k + 1}")] = u[:, :, k]
                curves[case.curve(f"N{k + 1}")] = N[:, :, k]
        finals = {f"mu{k + 1}": mu[:, k] for k in range(K)}
        return SimulationOutput(checkpoints=np.asarray(x_axis, dtype=np.int64), curves=curves, finals=finals)

    @staticmethod
    def _fixed_instance(setting, policy, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        """Setting 4: HT-UCB's N_k at the checkpoints and the pseudo-regret sum_k Delta_k N_k."""
        mu = np.array(setting.arms[1], dtype=np.float64)
        case = setting.cases[0]
        tau, law = case.tau(mu.size), reward_law(case.law, mu, None)
        run = Run(math.nan, int(checkpoints[-1]), tau, mu)
        pulls = np.stack([run_policy(policy, run, reward_table(*law, np.uint64(noise), run.T), coins, 0, checkpoints)
                          for noise, coins in zip(noise_keys, policy_keys)])
        regret = (pulls.astype(np.float64) * (mu.max() - mu)).sum(axis=-1)
        return SimulationOutput(checkpoints=checkpoints.astype(np.int64), curves={"pseudo_regret": regret},
                                pulls=pulls)


REFERENCE = PenalizedFairnessReference()
