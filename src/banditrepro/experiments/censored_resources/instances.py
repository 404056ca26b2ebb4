"""Problem instances of Sec. 5 and App. E.2/F (digest §3.1) and the simulation builders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...algorithms import censored_baselines as cb
from ...algorithms import rcucb
from ...environments import censored as ce
from ...registry import simulation_builder
from . import forest
from .simulation import CensoredSimulation


def synthetic_arms(params: dict) -> ce.CensoredArms:
    """PosCorr / NegCorr / Indep (n = 10), F.2 (n arms, grid 5) and F.3 (n arms, sigma 0.1)."""
    name = params["instance"]
    truncation = params.get("truncation", "lower0")
    if name == "poscorr":
        return ce.gaussian_arms([0.6] + [0.5] * 9, [0.45] + [0.5] * 9, [0.2, 0.3, 0.4, 0.4] + [0.6] * 6, 0.2,
                                truncation)
    if name == "negcorr":
        return ce.gaussian_arms([0.9] + [0.8] * 9, 0.8, -0.2, 0.2, truncation)
    if name == "indep":
        a = np.full(10, 0.8)
        b = np.array([0.2] + [0.3] * 9)
        return ce.beta_exp_arms(a, b, a / (a + b) + 1.0)  # rate parameter: reproduces 1-P = e^-0.9 (F.1)
    if name == "many_arms":  # F.2: mu_i = (0.9 (1 - (i-1)/n), 0.3 + 0.7 (i-1)/n)
        n = int(params["n_arms"])
        i = np.arange(n)
        return ce.gaussian_arms(0.9 * (1 - i / n), 0.3 + 0.7 * i / n, 0.2, 0.2, truncation)
    if name == "low_censoring":  # F.3: mu_i = (0.9 (1 - (i-1)/n), 0), sigma = 0.1
        n = int(params["n_arms"])
        i = np.arange(n)
        return ce.gaussian_arms(0.9 * (1 - i / n), 0.0, 0.2, 0.1, truncation)
    raise ValueError(f"unknown censored_resources instance {name!r}")


def grid_from(params: dict) -> np.ndarray:
    g = params["grid"]
    if "values" in g:
        return np.asarray(g["values"], dtype=np.float64)
    return ce.resource_grid(float(g["tau_max"]), int(g["size"]), g.get("reading", "linspace"))


def policy_from(algo: dict) -> tuple[str, np.ndarray]:
    policy = algo["policy"]
    if policy == "rcucb":
        return policy, rcucb.rcucb_params(float(algo.get("alpha", 1.0)), bool(algo.get("unit_bonus", False)),
                                          bool(algo.get("observable", False)))
    if policy == "ucb":
        return policy, cb.ucb_params(float(algo.get("alpha", 1.0)))
    if policy == "ts":
        return policy, cb.ts_params(bool(algo.get("single_pair_update", False)))
    raise ValueError(f"unknown policy {policy!r}")


@simulation_builder("censored_synthetic")
def build_synthetic(experiment, algorithm: str) -> CensoredSimulation:
    params = experiment.params
    taus = grid_from(params)
    lam = ce.penalty_values(taus, params.get("penalty", "piecewise"))
    policy, pparams = policy_from(experiment.algorithms[algorithm])
    return CensoredSimulation(synthetic_arms(params), taus, lam, float(params.get("cost_slope", 0.1)), policy, pparams)


# --- AmesHousing -----------------------------------------------------------------------------


def ames_setting(experiment) -> tuple[ce.CensoredArms, np.ndarray, np.ndarray, pd.DataFrame]:
    """Arms replaying the surrogate table, the limit grid linspace(Q1, Q3, m) of run 0's times, lambda."""
    params = experiment.params
    path = Path(experiment.repo_root) / experiment.requires[0]
    table = pd.read_csv(path)
    rewards, times, arm_list = forest.arm_tables(table, params.get("normaliser", "range"))
    first_run = times[:, 0]  # "if each possible configuration is run once": run k = 1
    q1, q3 = np.percentile(first_run, [25, 75])  # numpy default = R type 7
    taus = ce.resource_grid(float(q3), int(params["grid_size"]), "linspace", tau_min=float(q1))
    lam = ce.penalty_values(taus, "linear", high_slope=float(params.get("penalty_slope", 10.0)))
    return ce.table_arms(rewards, times), taus, lam, arm_list


@simulation_builder("censored_ames")
def build_ames(experiment, algorithm: str) -> CensoredSimulation:
    arms, taus, lam, _ = ames_setting(experiment)
    expected = 2 * arms.n_arms * taus.size
    if experiment.horizon != expected:
        raise ValueError(f"{experiment.id}: horizon {experiment.horizon} != T = 2 n m = {expected} (Sec. 5.2)")
    policy, pparams = policy_from(experiment.algorithms[algorithm])
    return CensoredSimulation(arms, taus, lam, float(experiment.params.get("cost_slope", 1.0)), policy, pparams)
