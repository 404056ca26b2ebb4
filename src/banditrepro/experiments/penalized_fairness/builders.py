"""Simulation builders for the penalized-fairness paper (spec ``penalized_fairness`` §3).

Every experiment is a batch of rows run by :func:`banditrepro.experiments.penalized_fairness.loops.run_batch`:
a row is one (replication, case, x-value), where the x-value is a horizon T (Setting 1) or a scale
parameter eta (Settings 2, 3, 5), and a case is a (tau, reward law) combination that shares the
replication's random instance mu^(r) (spec: common random instances across tau, T, law, eta and
algorithm). Results are returned as ``SimulationOutput`` curves over the x-axis:

* Setting 1 (``fairness_horizon_sweep``): ``checkpoints`` = the T grid (true horizons);
* eta sweeps (``fairness_eta_sweep``): ``checkpoints`` = round(1000 * eta), i.e. the summary's ``t``
  column is eta in units of 1/1000 (eta = 0.995 -> 995), the only integer encoding the generic
  aggregation accepts. Plotters and checks divide by 1000.

Curves per case (suffix ``_<case>`` unless the experiment has a single unnamed case):
``regret`` (penalized regret Rhat, Setting 1), ``U`` (unfairness level), ``W`` (total expected reward
sum_k mu_k N_k), ``W_round_robin`` (T * mean_k mu_k), ``u<k>`` (unfairness of arm k, 1-based) and
``N<k>`` (pull counts, so every metric can be recomputed from the shards).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from ... import portable, rng
from ...algorithms import fairness as fair
from ...engine import SimulationOutput
from ...environments.movielens import movielens_arms
from ...registry import OMITTED, Param, complete, complete_entry, simulation_builder
from . import loops

ETA_UNITS = 1000  # summary t = round(ETA_UNITS * eta) for eta sweeps

# --- declared parameters -----------------------------------------------------------------------

DISTRIBUTIONS = ("gaussian", "bernoulli", "beta", "empirical")
TAU = Param((float, list, dict), items=Param(float), fields={"total": Param(float)},
            doc="per-arm tau: a number, a list per arm, or {total: tau} meaning tau_k = tau / K")
CASE_FIELDS = {
    "id": Param(str, default="", doc="suffix of the case's metrics"),
    "tau": TAU,
    "distribution": Param(str, default="gaussian", choices=DISTRIBUTIONS),
}
INSTANCE_PARAMS = {  # exactly one of means / random_uniform / movielens (see Instances)
    "means": Param(list, default=OMITTED, items=Param(float), doc="fixed arm means"),
    "random_uniform": Param(int, default=OMITTED, doc="K arms with U(0, 1) means drawn per replication"),
    "movielens": Param(dict, default=OMITTED, fields={"histograms": Param(str), "m0": Param(int)},
                       doc="MovieLens popular movies: {histograms: processed table, m0: rating threshold}"),
    "noise_sd": Param((float, str), default="1/K", doc="Gaussian reward sd; '1/K' = 1 / number of arms"),
}
CASES_PARAMS = {  # read by cases_from
    "cases": Param(list, default=None, items=Param(dict, fields=CASE_FIELDS),
                   doc="(tau, law) combinations sharing each replication's instance; default: one unnamed case"),
    "tau": Param(TAU.types, default=OMITTED, items=TAU.items, fields=TAU.fields, doc="tau of the single case"),
    "distribution": Param(str, default="gaussian", choices=DISTRIBUTIONS, doc="law of the single case"),
}
SWEEP_PARAMS = {**INSTANCE_PARAMS, **CASES_PARAMS}
HORIZON_SWEEP_PARAMS = {
    **SWEEP_PARAMS,
    "regret_penalty": Param((float, str), doc="A_k of the penalized regret: a number or a tuning rule"),
}
ETA_SWEEP_PARAMS = {
    **SWEEP_PARAMS,
    "etas": Param((list, dict), items=Param(float),
                  fields={"range": Param(list, items=Param(float)),
                          "extra": Param(list, default=[], items=Param(float))},
                  doc="[eta, ...] or {range: [start, stop, step], extra: [...]}"),
}
FIXED_INSTANCE_PARAMS = {
    "means": Param(list, items=Param(float)),
    "tau": TAU,
    "noise_sd": Param((float, str), default="1/K", doc="Gaussian reward sd; '1/K' = 1 / number of arms"),
    "distribution": Param(str, default="gaussian", choices=("gaussian", "bernoulli", "beta")),
}
TUNING = (float, str)  # a number, or the name of a tuning rule (see _tuning)
ALGORITHM_PARAMS = {
    "policy": Param(str, choices=("ht_ucb", "lfg", "flearn")),
    "penalty": Param(TUNING, default=None, doc="HT-UCB penalty"),
    "alpha": Param(TUNING, default=None, doc="Flearn alpha"),
    "eta0": Param(TUNING, default=None, doc="LFG eta0"),
    "rcap": Param(float, default=1.0, doc="LFG reward cap"),
}


# --- configuration helpers ---------------------------------------------------------------------


def eta_grid(spec) -> np.ndarray:
    """``[0.1, 0.5, ...]`` or ``{range: [start, stop, step], extra: [...]}`` (stop included)."""
    if isinstance(spec, dict):
        spec = ETA_SWEEP_PARAMS["etas"].check(spec, "params/etas")
        start, stop, step = (float(x) for x in spec["range"])
        n = int(round((stop - start) / step)) + 1
        grid = np.round(start + step * np.arange(n), 6)
        grid = np.concatenate([grid, np.asarray(spec["extra"], dtype=np.float64)])
    else:
        grid = np.asarray(spec, dtype=np.float64)
    grid = np.unique(grid)
    if grid.size == 0 or grid.min() < 0 or grid.max() > 1:
        raise ValueError("eta grid must be non-empty within [0, 1]")
    codes = np.round(grid * ETA_UNITS)
    if np.any(np.abs(codes - grid * ETA_UNITS) > 1e-6) or np.unique(codes).size != grid.size:
        raise ValueError(f"eta grid values must be distinct multiples of 1/{ETA_UNITS}")
    return grid


def fairness_vector(tau, n_arms: int) -> np.ndarray:
    """tau given as a scalar per arm, a list per arm, or {total: tau} meaning tau_k = tau / K."""
    if isinstance(tau, dict):
        return np.full(n_arms, float(tau["total"]) / n_arms)
    tau = np.broadcast_to(np.asarray(tau, dtype=np.float64), (n_arms,)).copy()
    return tau


@dataclass
class Case:
    """One (tau, reward law) combination of an experiment."""

    id: str
    tau: np.ndarray
    distribution: str

    def metric(self, name: str) -> str:
        return f"{name}_{self.id}" if self.id else name


def cases_from(params: dict, n_arms: int) -> list[Case]:
    """The experiment's ``cases``, or its single unnamed case (``tau``, ``distribution``)."""
    own = complete({k: v for k, v in params.items() if k in CASES_PARAMS}, CASES_PARAMS, "params")
    if own["cases"]:
        raw = own["cases"]
    elif "tau" in own:
        raw = [complete({"tau": own["tau"], "distribution": own["distribution"]}, CASE_FIELDS, "params")]
    else:
        raise ValueError("experiment params need 'cases' or 'tau'")
    cases = [Case(str(c["id"]), fairness_vector(c["tau"], n_arms), c["distribution"]) for c in raw]
    if len({c.id for c in cases}) != len(cases):
        raise ValueError("case ids must be distinct")
    for c in cases:
        if c.tau.sum() > 1 + 1e-12 or np.any(c.tau < 0):
            raise ValueError(f"case {c.id!r}: tau must be >= 0 with sum <= 1")
    return cases


class Instances:
    """Arm means per replication: fixed (``means``), uniform random (``random_uniform``: K), or
    MovieLens popular movies (``movielens``: {m0, histograms})."""

    def __init__(self, params: dict, repo_root: Path):
        params = complete({k: v for k, v in params.items() if k in INSTANCE_PARAMS}, INSTANCE_PARAMS, "params")
        self.kind = "fixed"
        self.movies = None
        if "means" in params:
            self.fixed = np.asarray(params["means"], dtype=np.float64)
            self.n_arms = self.fixed.size
        elif "random_uniform" in params:
            self.kind = "random_uniform"
            self.n_arms = int(params["random_uniform"])
        elif "movielens" in params:
            self.kind = "movielens"
            ml = params["movielens"]
            self.movies = movielens_arms(Path(repo_root) / ml["histograms"], int(ml["m0"]))
            self.fixed = self.movies.means
            self.n_arms = self.movies.n_arms
        else:
            raise ValueError("experiment params need 'means', 'random_uniform' or 'movielens'")
        self.noise_sd = params["noise_sd"]

    def sd(self) -> float:
        if self.noise_sd == "1/K":  # spec: N(mu_k, 1/K^2) has variance 1/K^2
            return 1.0 / self.n_arms
        return float(self.noise_sd)

    def means(self, noise_keys: np.ndarray) -> np.ndarray:
        """(R, K); random instances come from each replication's key on the TAG_AUX stream."""
        if self.kind == "random_uniform":
            return uniform_means(noise_keys, self.n_arms)
        return np.repeat(self.fixed[None, :], len(noise_keys), axis=0)

    def env(self, distribution: str, means: np.ndarray) -> tuple[str, np.ndarray]:
        if self.kind == "movielens":
            if distribution != "empirical":
                raise ValueError("MovieLens arms use distribution 'empirical'")
            _, env_params = self.movies.env()
            return "categorical", np.repeat(env_params[None], means.shape[0], axis=0)
        return reward_params(distribution, means, self.sd() if distribution == "gaussian" else None)


# Tuning rules (spec §2.4): numbers, or names evaluated per row.
def _tuning(value, *, eta: float, horizon: int, tau: np.ndarray, means: np.ndarray) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    rules = {
        "eta": lambda: eta,
        "one_minus_eta_times_T": lambda: (1.0 - eta) * horizon,
        "one_minus_eta_times_tau1_T": lambda: (1.0 - eta) * tau[0] * horizon,
        "sqrt_T": lambda: math.sqrt(horizon),
        "half_mean_range": lambda: (means.max() - means.min()) / 2.0,
    }
    if value not in rules:
        raise ValueError(f"unknown tuning rule {value!r} (known: {sorted(rules)})")
    return float(rules[value]())


def policy_params(algo: dict, *, eta: float, horizon: int, tau: np.ndarray, means: np.ndarray) -> np.ndarray:
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    policy = algo["policy"]
    kw = dict(eta=eta, horizon=horizon, tau=tau, means=means)
    if policy == "ht_ucb":
        return fair.ht_ucb_params(tau, _tuning(algo["penalty"], **kw))
    if policy == "flearn":
        return fair.flearn_params(tau, _tuning(algo["alpha"], **kw))
    if policy == "lfg":
        return fair.lfg_params(tau, _tuning(algo["eta0"], **kw), float(algo["rcap"]))
    raise ValueError(f"unknown policy {policy!r} (known: ht_ucb, lfg, flearn)")


def _depends_on_eta(algo: dict) -> bool:
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    return any(isinstance(algo[k], str) and "eta" in algo[k] for k in ("penalty", "alpha", "eta0"))


# --- instances and reward laws -----------------------------------------------------------------


@njit(cache=True)
def _uniform_means(keys, n_arms, out):
    for r in range(keys.shape[0]):
        for k in range(n_arms):
            idx = 0
            u = 1.0
            while u == 1.0:  # 1 - u lies in [0, 1); reject exactly 0 (Beta/Bernoulli need (0, 1))
                u = rng.uniform(keys[r], rng.TAG_AUX, k, idx)
                idx += 1
            out[r, k] = 1.0 - u


def uniform_means(instance_keys, n_arms: int) -> np.ndarray:
    """Random instances mu^(r) ~ U(0, 1)^K, one row per key (TAG_AUX stream of the key)."""
    keys = np.ascontiguousarray(instance_keys, dtype=np.uint64)
    out = np.empty((keys.size, n_arms))
    _uniform_means(keys, n_arms, out)
    return out


def reward_params(distribution: str, means: np.ndarray, noise_sd: float | None = None) -> tuple[str, np.ndarray]:
    """(env kind, env_params (E, rows, K)) for per-instance means (E, K).

    gaussian: N(mu_k, noise_sd^2); beta: Beta(mu_k, 1 - mu_k) (Johnk's sampler, exact and faster than
    the generic two-gamma one for a + b = 1); bernoulli: Bernoulli(mu_k).
    """
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    if distribution == "gaussian":
        if noise_sd is None or noise_sd < 0:
            raise ValueError("gaussian rewards need a noise_sd >= 0")
        return "gaussian", np.stack([means, np.full_like(means, noise_sd)], axis=1)
    if np.any((means <= 0) | (means >= 1)):
        raise ValueError(f"{distribution} rewards need means in (0, 1)")
    if distribution == "beta":
        return "beta_johnk", np.stack([means, 1.0 - means], axis=1)
    if distribution == "bernoulli":
        return "bernoulli", means[:, None, :].copy()
    raise ValueError(f"unknown reward distribution {distribution!r}")


# --- the sweep simulation ---------------------------------------------------------------------


@dataclass
class FairnessSweep:
    """Rows = replication x case x x-value; ``x_kind`` is 'horizon' (Setting 1) or 'eta'."""

    instances: Instances
    cases: list[Case]
    algo: dict
    x_kind: str
    x_values: np.ndarray  # horizons (int) or etas
    horizon: int  # for eta sweeps
    penalty_for_regret: object = None  # A_k of the penalized regret (Setting 1)
    # the batch loop that runs the rows; the sanity claims swap in reference.run_batch (this package)
    run_batch: Callable = field(default=loops.run_batch, repr=False)

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        noise_keys = np.asarray(noise_keys, dtype=np.uint64)
        policy_keys = np.asarray(policy_keys, dtype=np.uint64)
        n_reps = noise_keys.size
        means = self.instances.means(noise_keys)
        k = self.instances.n_arms
        # An algorithm whose tuning does not involve eta is run once per replication and case and
        # repeated along the eta axis (e.g. the plain UCB1 reference of Setting 2).
        x_run = self.x_values if (self.x_kind == "horizon" or _depends_on_eta(self.algo)) else self.x_values[:1]
        n_x, n_run = self.x_values.size, x_run.size
        blocks = []
        for ci, case in enumerate(self.cases):
            env_kind, env_params = self.instances.env(case.distribution, means)  # (R, rows, K)
            rows_p, rows_h = [], []
            for x in x_run:
                horizon = int(x) if self.x_kind == "horizon" else self.horizon
                eta = float(x) if self.x_kind == "eta" else float("nan")
                for r in range(n_reps):
                    rows_p.append(policy_params(self.algo, eta=eta, horizon=horizon, tau=case.tau, means=means[r]))
                    rows_h.append(horizon)
            horizons = np.asarray(rows_h, dtype=np.int64)
            chk = np.unique(horizons)
            reps = np.tile(np.arange(n_reps), n_run)
            subs = ci * n_run + np.repeat(np.arange(n_run), n_reps)  # independent tie-breaking coins per row
            pulls = self.run_batch(self.algo["policy"], env_kind, np.stack(rows_p), env_params, reps,
                                 noise_keys[reps], policy_keys[reps], subs.astype(np.uint64), horizons, chk)
            own = pulls[np.arange(horizons.size), np.searchsorted(chk, horizons)]  # N_k at the row's horizon
            blocks.append(own.reshape(n_run, n_reps, k).transpose(1, 0, 2))  # (R, x, K)
        own = np.stack(blocks)  # (case, R, x, K)
        if n_run != n_x:
            own = np.repeat(own, n_x, axis=2)
        curves: dict[str, np.ndarray] = {}
        x_horizons = (self.x_values.astype(np.float64) if self.x_kind == "horizon"
                      else np.full(n_x, float(self.horizon)))
        for ci, case in enumerate(self.cases):
            n = own[ci].astype(np.float64)  # (R, x, K)
            h = np.broadcast_to(x_horizons[None, :], n.shape[:2])
            u = fair.arm_unfairness(n, case.tau, h)
            curves[case.metric("U")] = u.sum(axis=-1)
            curves[case.metric("W")] = fair.expected_reward(n, means[:, None, :])
            curves[case.metric("W_round_robin")] = h * means.mean(axis=1)[:, None]
            if self.penalty_for_regret is not None:
                penalty = np.array([_tuning(self.penalty_for_regret, eta=float("nan"), horizon=0, tau=case.tau,
                                            means=m) for m in means])
                curves[case.metric("regret")] = fair.penalized_regret(n, means[:, None, :], case.tau,
                                                                      penalty[:, None, None], h)
            for arm in range(k):
                curves[case.metric(f"u{arm + 1}")] = u[:, :, arm]
                curves[case.metric(f"N{arm + 1}")] = n[:, :, arm]
        x_axis = (self.x_values.astype(np.int64) if self.x_kind == "horizon"
                  else np.round(self.x_values * ETA_UNITS).astype(np.int64))
        finals = {f"mu{arm + 1}": means[:, arm] for arm in range(k)}
        return SimulationOutput(checkpoints=x_axis, curves=curves, finals=finals, pulls=None)


@simulation_builder("fairness_horizon_sweep", params=HORIZON_SWEEP_PARAMS, algorithm=ALGORITHM_PARAMS)
def build_horizon_sweep(experiment, algorithm: str) -> FairnessSweep:
    """Setting 1: every T of ``params.horizons`` is a separate run (LFG's eta0 = sqrt(T) depends on T)."""
    params = experiment.params
    instances = Instances(params, experiment.repo_root)
    horizons = np.asarray(experiment.checkpoints, dtype=np.int64)
    return FairnessSweep(instances, cases_from(params, instances.n_arms), experiment.algorithms[algorithm],
                         "horizon", horizons, int(horizons[-1]), penalty_for_regret=params["regret_penalty"])


@simulation_builder("fairness_eta_sweep", params=ETA_SWEEP_PARAMS, algorithm=ALGORITHM_PARAMS)
def build_eta_sweep(experiment, algorithm: str) -> FairnessSweep:
    """Settings 2, 3 and 5: one run per eta of ``params.etas`` at horizon T."""
    params = experiment.params
    instances = Instances(params, experiment.repo_root)
    return FairnessSweep(instances, cases_from(params, instances.n_arms), experiment.algorithms[algorithm],
                         "eta", eta_grid(params["etas"]), int(experiment.horizon))


@dataclass
class FixedInstanceRun:
    """One policy on fixed arms, all replications in one cached compiled call; pulls at checkpoints."""

    algorithm: str
    params: np.ndarray  # (3, K)
    env_kind: str
    env_params: np.ndarray  # (1, rows, K)
    gaps: np.ndarray
    run_batch: Callable = field(default=loops.run_batch, repr=False)  # as FairnessSweep.run_batch

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        noise_keys = np.asarray(noise_keys, dtype=np.uint64)
        n_reps = noise_keys.size
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        pulls = self.run_batch(self.algorithm, self.env_kind, np.repeat(self.params[None], n_reps, axis=0),
                             self.env_params, np.zeros(n_reps, dtype=np.int64), noise_keys,
                             np.asarray(policy_keys, dtype=np.uint64), np.zeros(n_reps, dtype=np.uint64),
                             int(checkpoints[-1]), checkpoints)
        # Σ_k Δ_k N_k without BLAS (``pulls @ gaps`` rounds differently with each CPU's kernel)
        regret = portable.dot_last(pulls, self.gaps)
        return SimulationOutput(checkpoints=checkpoints, curves={"pseudo_regret": regret}, pulls=pulls)


@simulation_builder("fairness_fixed_instance", params=FIXED_INSTANCE_PARAMS, algorithm=ALGORITHM_PARAMS)
def build_fixed_instance(experiment, algorithm: str) -> FixedInstanceRun:
    """Setting 4: HT-UCB on fixed Gaussian arms; pull counts at the checkpoints (last = T)."""
    params = complete(experiment.params, FIXED_INSTANCE_PARAMS, "params")
    means = np.asarray(params["means"], dtype=np.float64)
    k = means.size
    tau = fairness_vector(params["tau"], k)
    algo = experiment.algorithms[algorithm]
    pol = policy_params(algo, eta=float("nan"), horizon=experiment.horizon, tau=tau, means=means)
    sd = 1.0 / k if params["noise_sd"] == "1/K" else float(params["noise_sd"])
    env_kind, env_params = reward_params(params["distribution"], means[None, :], sd)
    return FixedInstanceRun(algo["policy"], pol, env_kind, env_params, means.max() - means)
