"""Simulation builders: round-by-round composite anonymous feedback (stochastic) and reward-matrix replays."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...algorithms import ars, clw, odaaf
from ...engine import SimulationOutput
from ...environments import composite as ce
from ...registry import OMITTED, Param, complete, complete_entry, simulation_builder
from . import loops

ROUND_FUNCTIONS = {  # name -> (kind, scale, power): the paper's examples c k^β and 2^(k+c)
    "k": (ars.ROUND_POWER, 1, 1),
    "k^2": (ars.ROUND_POWER, 1, 2),
    "k^3": (ars.ROUND_POWER, 1, 3),
    "2^k": (ars.ROUND_EXPONENTIAL, 0, 0),
}


SHAPE_FIELDS = {  # which keys a kind reads: see make_shape
    "kind": Param(str, choices=("random_delay", "bounded_interval", "linear_decreasing", "linear_increasing",
                                "discounted", "polynomial")),
    "low": Param(int, default=OMITTED, doc="random_delay"),
    "high": Param(int, default=OMITTED, doc="random_delay"),
    "d_min": Param(int, default=OMITTED, doc="bounded_interval"),
    "d_max": Param(int, default=OMITTED, doc="bounded_interval"),
    "d": Param(int, default=OMITTED, doc="linear_decreasing, linear_increasing"),
    "gamma": Param(float, default=OMITTED, doc="discounted, polynomial"),
}
STOCHASTIC_PARAMS = {
    "means": Param(list, items=Param(float), doc="Bernoulli means of the arms"),
    "shape": Param(dict, fields=SHAPE_FIELDS, doc="how each reward is spread over later rounds"),
}
STOCHASTIC_ALGORITHM_PARAMS = {
    "policy": Param(str, choices=("ars_ucb", "odaaf")),
    "f": Param(str, default="k^2", choices=tuple(ROUND_FUNCTIONS), doc="ARS-UCB round length f(k)"),
    "alpha": Param(float, default=4.0, doc="ARS-UCB exploration constant"),
    "variant": Param(str, default=None, choices=tuple(odaaf.VARIANTS), doc="ODAAF variant"),
    "mean_delay": Param(float, default=None, doc="ODAAF: E[tau]"),
    "var_delay": Param(float, default=0.0, doc="ODAAF-V: Var[tau]"),
    "bound": Param(float, default=None, doc="ODAAF-B: delay bound (default: mean_delay)"),
}


def make_shape(spec: dict) -> ce.SpreadShape:
    """Spread shape from the experiment's ``params.shape`` entry."""
    kind = spec["kind"]
    if kind == "random_delay":
        return ce.random_delay(int(spec["low"]), int(spec["high"]))
    if kind == "bounded_interval":
        return ce.bounded_interval(int(spec["d_min"]), int(spec["d_max"]))
    if kind == "linear_decreasing":
        return ce.linear_decreasing(int(spec["d"]))
    if kind == "linear_increasing":
        return ce.linear_increasing(int(spec["d"]))
    if kind == "discounted":
        return ce.discounted(float(spec["gamma"]))
    if kind == "polynomial":
        return ce.polynomial(float(spec["gamma"]))
    raise ValueError(f"unknown shape kind {kind!r}")


@dataclass
class CompositeStochasticSimulation:
    """One policy (ARS-UCB or ODAAF-type) on Bernoulli totals spread by one shape; pseudo-regret curve."""

    shape: ce.SpreadShape
    means: np.ndarray
    horizon: int
    algo: dict

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        sh = self.shape
        gaps = self.means.max() - self.means
        env = (sh.kind, sh.cumulative, sh.exp_coef, sh.exp_rate, sh.delay_low, sh.delay_high, sh.discount,
               self.means, gaps, int(self.horizon))
        cps = np.asarray(checkpoints, dtype=np.int64)
        keys = np.asarray(noise_keys, dtype=np.uint64)
        algo = complete_entry(self.algo, STOCHASTIC_ALGORITHM_PARAMS)
        policy = algo["policy"]
        if policy == "ars_ucb":
            kind, scale, power = ROUND_FUNCTIONS[algo["f"]]
            regret, rounds, pulls = loops.ars_ucb_run(*env, float(algo["alpha"]), kind, scale, power, keys, cps)
            finals = {"rounds": rounds}
        elif policy == "odaaf":
            if algo["variant"] is None or algo["mean_delay"] is None:
                raise ValueError("ODAAF needs a 'variant' and a 'mean_delay'")
            variant = odaaf.VARIANTS[algo["variant"]]
            bound = algo["mean_delay"] if algo["bound"] is None else algo["bound"]
            regret, phases, pulls = loops.odaaf_run(*env, variant, float(algo["mean_delay"]), float(algo["var_delay"]),
                                                    float(bound), keys, cps)
            finals = {"phases": phases}
        else:
            raise ValueError(f"unknown stochastic policy {policy!r}")
        finals["pulls_optimal_fraction"] = pulls[:, int(np.argmax(self.means))] / self.horizon
        return SimulationOutput(cps, {"regret": regret}, finals)


@simulation_builder("composite_stochastic", params=STOCHASTIC_PARAMS, algorithm=STOCHASTIC_ALGORITHM_PARAMS)
def build_stochastic(experiment, algorithm: str) -> CompositeStochasticSimulation:
    p = experiment.params
    return CompositeStochasticSimulation(make_shape(p["shape"]), np.asarray(p["means"], dtype=np.float64),
                                         experiment.horizon, experiment.algorithms[algorithm])


# ----------------------------------------------------------------------------------------------------
# Fig 5: adversarial replays of the Outbrain / Coupon reward matrices

PROCESSED_DIRS = ("data/processed", "data/standin/processed")

DELAY_FIELDS = {
    "mode": Param(str, choices=("oblivious", "non_oblivious")),
    "d": Param(int, doc="maximal delay"),
    "low": Param(int, default=1, doc="smallest random delay"),
    "high": Param(int, default=None, doc="largest random delay (default: d)"),
}
ADVERSARIAL_PARAMS = {
    "dataset": Param(str, choices=("outbrain", "coupon")),
    "file": Param(str, doc="processed reward matrix (T x N int8 .npy) of the dataset"),
    "delays": Param(dict, fields=DELAY_FIELDS),
}
ADVERSARIAL_ALGORITHM_PARAMS = {
    "policy": Param(str, choices=("ars_exp3", "clw", "ars_clw")),
    "beta": Param(float, default=0.5, doc="ARS-EXP3 round schedule"),
    "rule": Param(str, default="lookahead", choices=("lookahead", "lookback"), doc="CLW's update rule"),
    "d_factor": Param(float, default=1.0, doc="CLW's delay estimate d_hat = d * factor"),
    "h_power": Param(float, default=0.25, doc="ARS-CLW: h(T) = ceil(T^power)"),
    "first_phase": Param(int, default=1024, doc="ARS-CLW: T^(1)"),
}


def reward_matrix_path(repo_root: Path, dataset: str, file: str) -> Path:
    """Real processed matrix if it was built, else the stand-in one (the workflow built whichever applies)."""
    for base in PROCESSED_DIRS:
        path = Path(repo_root) / base / dataset / file
        if path.is_file():
            return path
    raise FileNotFoundError(f"{dataset}/{file} not found under {', '.join(PROCESSED_DIRS)} "
                            "(run the workflow, which fetches or builds it)")


@dataclass
class CompositeAdversarialSimulation:
    rewards: np.ndarray  # (T, N) int8
    delays: dict
    algo: dict

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        S = self.rewards
        T, N = S.shape
        cps = np.asarray(checkpoints, dtype=np.int64)
        nk = np.asarray(noise_keys, dtype=np.uint64)
        pk = np.asarray(policy_keys, dtype=np.uint64)
        dl = complete(self.delays, DELAY_FIELDS, "params/delays")
        algo = complete_entry(self.algo, ADVERSARIAL_ALGORITHM_PARAMS)
        mode = ce.DELAY_NON_OBLIVIOUS if dl["mode"] == "non_oblivious" else ce.DELAY_OBLIVIOUS
        d = int(dl["d"])
        low, high = int(dl["low"]), int(d if dl["high"] is None else dl["high"])
        best = ce.best_in_hindsight(S)
        policy = algo["policy"]
        if policy == "ars_exp3":
            sizes, gamma = ars.ars_exp3_schedule(T, N, float(algo["beta"]))
            reward, rounds = loops.ars_exp3_run(S, mode, d, low, high, best, sizes, gamma, nk, pk, cps)
        elif policy in ("clw", "ars_clw"):
            rule = clw.RULE_LOOKBACK if algo["rule"] == "lookback" else clw.RULE_LOOKAHEAD
            if policy == "clw":
                d_hat = self.d_hat(d)
                ends, guesses = np.array([T], dtype=np.int64), np.array([d_hat], dtype=np.int64)
            else:
                power = float(algo["h_power"])
                ends, guesses = ars.ars_clw_phases(T, int(algo["first_phase"]), lambda x: math.ceil(x ** power))
            gammas = np.array([clw.clw_gamma(int(g), N, int(e)) for g, e in zip(guesses, ends)])
            reward, rounds = loops.clw_run(S, mode, d, low, high, best, ends, guesses, gammas, rule, nk, pk, cps)
        else:
            raise ValueError(f"unknown adversarial policy {policy!r}")
        comparator = ce.best_cumulative(S, cps)
        return SimulationOutput(cps, {"regret": comparator[None, :] - reward, "reward": reward},
                                {"rounds": rounds})

    def d_hat(self, d: int) -> int:
        """CLW's delay estimate: d·factor rounded as the config says (floor for 0.9, ceil for 1.1)."""
        factor = float(complete_entry(self.algo, ADVERSARIAL_ALGORITHM_PARAMS)["d_factor"])
        value = d * factor
        return max(1, int(math.floor(value + 1e-9)) if factor <= 1.0 else int(math.ceil(value - 1e-9)))


@simulation_builder("composite_adversarial", params=ADVERSARIAL_PARAMS, algorithm=ADVERSARIAL_ALGORITHM_PARAMS)
def build_adversarial(experiment, algorithm: str) -> CompositeAdversarialSimulation:
    p = experiment.params
    path = reward_matrix_path(experiment.repo_root, p["dataset"], p["file"])
    rewards = np.load(path, mmap_mode="r")
    T = min(int(experiment.horizon), rewards.shape[0])
    if experiment.horizon > T:
        raise ValueError(f"{path} has {rewards.shape[0]} rows < horizon {experiment.horizon}")
    return CompositeAdversarialSimulation(np.ascontiguousarray(rewards[:T], dtype=np.int8), p["delays"],
                                          experiment.algorithms[algorithm])

