"""Simulation builders: round-by-round composite anonymous feedback (stochastic) and reward-matrix replays."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...algorithms import ars, clw, odaaf
from ...engine import SimulationOutput
from ...environments import composite as ce
from ...registry import simulation_builder
from . import loops

ROUND_FUNCTIONS = {  # name -> (kind, scale, power): the paper's examples c k^β and 2^(k+c)
    "k": (ars.ROUND_POWER, 1, 1),
    "k^2": (ars.ROUND_POWER, 1, 2),
    "k^3": (ars.ROUND_POWER, 1, 3),
    "2^k": (ars.ROUND_EXPONENTIAL, 0, 0),
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
        policy = self.algo["policy"]
        if policy == "ars_ucb":
            kind, scale, power = ROUND_FUNCTIONS[self.algo.get("f", "k^2")]
            regret, rounds, pulls = loops.ars_ucb_run(*env, float(self.algo.get("alpha", 4.0)), kind, scale, power,
                                                    keys, cps)
            finals = {"rounds": rounds}
        elif policy == "odaaf":
            variant = odaaf.VARIANTS[self.algo["variant"]]
            regret, phases, pulls = loops.odaaf_run(*env, variant, float(self.algo["mean_delay"]),
                                                    float(self.algo.get("var_delay", 0.0)),
                                                    float(self.algo.get("bound", self.algo["mean_delay"])), keys, cps)
            finals = {"phases": phases}
        else:
            raise ValueError(f"unknown stochastic policy {policy!r}")
        finals["pulls_optimal_fraction"] = pulls[:, int(np.argmax(self.means))] / self.horizon
        return SimulationOutput(cps, {"regret": regret}, finals)


@simulation_builder("composite_stochastic")
def build_stochastic(experiment, algorithm: str) -> CompositeStochasticSimulation:
    p = experiment.params
    return CompositeStochasticSimulation(make_shape(p["shape"]), np.asarray(p["means"], dtype=np.float64),
                                         experiment.horizon, experiment.algorithms[algorithm])


# ----------------------------------------------------------------------------------------------------
# Fig 5: adversarial replays of the Outbrain / Coupon reward matrices

PROCESSED_DIRS = ("data/processed", "data/standin/processed")


def reward_matrix_path(repo_root: Path, dataset: str, file: str) -> Path:
    """Real processed matrix if it was built, else the stand-in one (the workflow built whichever applies)."""
    for base in PROCESSED_DIRS:
        path = Path(repo_root) / base / dataset / file
        if path.is_file():
            return path
    raise FileNotFoundError(f"{dataset}/{file} not found under {', '.join(PROCESSED_DIRS)} "
                            "(run the workflow, which fetches or builds it)")


def is_standin(path: Path) -> bool:
    """Stand-in matrices sit in a folder with a STANDIN marker file (see banditrepro.data)."""
    return (path.parent / "STANDIN").exists() or "standin" in path.parts


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
        dl = self.delays
        mode = ce.DELAY_NON_OBLIVIOUS if dl["mode"] == "non_oblivious" else ce.DELAY_OBLIVIOUS
        d = int(dl["d"])
        low, high = int(dl.get("low", 1)), int(dl.get("high", d))
        best = ce.best_in_hindsight(S)
        policy = self.algo["policy"]
        if policy == "ars_exp3":
            sizes, gamma = ars.ars_exp3_schedule(T, N, float(self.algo.get("beta", 0.5)))
            reward, rounds = loops.ars_exp3_run(S, mode, d, low, high, best, sizes, gamma, nk, pk, cps)
        elif policy in ("clw", "ars_clw"):
            rule = clw.RULE_LOOKBACK if self.algo.get("rule", "lookahead") == "lookback" else clw.RULE_LOOKAHEAD
            if policy == "clw":
                d_hat = self.d_hat(d)
                ends, guesses = np.array([T], dtype=np.int64), np.array([d_hat], dtype=np.int64)
            else:
                power = float(self.algo.get("h_power", 0.25))
                ends, guesses = ars.ars_clw_phases(T, int(self.algo.get("first_phase", 1024)),
                                                   lambda x: math.ceil(x ** power))
            gammas = np.array([clw.clw_gamma(int(g), N, int(e)) for g, e in zip(guesses, ends)])
            reward, rounds = loops.clw_run(S, mode, d, low, high, best, ends, guesses, gammas, rule, nk, pk, cps)
        else:
            raise ValueError(f"unknown adversarial policy {policy!r}")
        comparator = ce.best_cumulative(S, cps)
        return SimulationOutput(cps, {"regret": comparator[None, :] - reward, "reward": reward},
                                {"rounds": rounds})

    def d_hat(self, d: int) -> int:
        """CLW's delay estimate: d·factor rounded as the config says (floor for 0.9, ceil for 1.1)."""
        factor = float(self.algo.get("d_factor", 1.0))
        value = d * factor
        return max(1, int(math.floor(value + 1e-9)) if factor <= 1.0 else int(math.ceil(value - 1e-9)))


@simulation_builder("composite_adversarial")
def build_adversarial(experiment, algorithm: str) -> CompositeAdversarialSimulation:
    p = experiment.params
    path = reward_matrix_path(experiment.repo_root, p["dataset"], p["file"])
    rewards = np.load(path, mmap_mode="r")
    T = min(int(experiment.horizon), rewards.shape[0])
    if T < experiment.horizon:
        raise ValueError(f"{path} has {rewards.shape[0]} rows < horizon {experiment.horizon}")
    return CompositeAdversarialSimulation(np.ascontiguousarray(rewards[:T], dtype=np.int8), p["delays"],
                                          experiment.algorithms[algorithm])

