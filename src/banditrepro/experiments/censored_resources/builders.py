"""Problem instances of Sec. 5 and App. E.2/F (digest §3.1) and the simulation builders."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...algorithms import censored_baselines as cb
from ...algorithms import rcucb
from ...environments import censored as ce
from ...registry import OMITTED, Param, complete, complete_entry, simulation_builder
from . import forest_model
from .loops import CensoredSimulation

if TYPE_CHECKING:  # annotations only: the jobs that load the paper need not import pandas
    import pandas as pd

INSTANCES = ("poscorr", "negcorr", "indep", "many_arms", "low_censoring")
GRID_FIELDS = {
    "values": Param(list, default=OMITTED, items=Param(float),
                    doc="explicit limits tau (instead of size); tau_max must still be given"),
    "tau_max": Param(float, default=OMITTED, doc="largest admissible limit: M is a subset of (0, tau_max]"),
    "size": Param(int, default=OMITTED, doc="m"),
    "reading": Param(str, default="linspace", choices=("linspace", "k_over_m", "interior"),
                     doc="reading of 'equidistant grid of size m' (digest A3)"),
}
SYNTHETIC_PARAMS = {
    "instance": Param(str, choices=INSTANCES, doc="Sec. 5.1 / App. F instance"),
    "n_arms": Param(int, default=OMITTED, doc="many_arms and low_censoring only"),
    "truncation": Param(str, default="lower0", choices=ce.TRUNCATIONS),
    "grid": Param(dict, fields=GRID_FIELDS, doc="the resource limits tau"),
    "penalty": Param(str, default="piecewise", choices=("piecewise", "linear"), doc="lambda(tau)"),
    "cost_slope": Param(float, default=0.1, doc="c of the cost c * tau"),
}
FOREST_FIELDS = {  # the surrogate-table grid (forest_model.py, workflow/rules/papers/censored_resources.smk)
    "num_trees": Param(list, items=Param(int)),
    "mtry": Param(list, items=Param(int)),
    "min_node_size": Param(list, items=Param(int)),
    "sample_fraction": Param(list, items=Param(float)),
    "runs": Param(int),
}
AMES_PARAMS = {
    "grid_size": Param(int, doc="m of the limit grid linspace(Q1, Q3, m)"),
    "normaliser": Param(str, default="range", choices=("range", "sd", "mean"),
                        doc="reward normalisation of the surrogate table (forest_model.arm_tables)"),
    "penalty_slope": Param(float, default=10.0, doc="lambda(tau) = slope * tau"),
    "cost_slope": Param(float, default=1.0),
    "forest": Param(dict, fields=FOREST_FIELDS, doc="random-forest configuration grid"),
    # Two choices the paper leaves open (Sec. 5.2), each a labelled alternative reading beside the headline:
    "arm_order": Param(str, default="table", choices=("table", "shuffled"),
                       doc="order of the 672 arms: the paper's listing (num.trees-major, which sets the order of "
                           "UCB's and TS's initial round-robin) or one fixed random permutation (arm_order_seed)"),
    "arm_order_seed": Param(int, default=0, doc="seed of the permutation of arm_order = shuffled"),
    "time_scale": Param(float, default=1.0,
                        doc="unit of the training times: C = seconds x time_scale (1: seconds, digest A11; the "
                            "paper's footnote 4 asks c to map C onto the rewards' scale [0, 1])"),
}
ALGORITHM_PARAMS = {
    "policy": Param(str, choices=("rcucb", "ucb", "ts")),
    "alpha": Param(float, default=1.0, doc="exploration constant (RCUCB, UCB)"),
    "unit_bonus": Param(bool, default=False, doc="RCUCB: unit penalty bonus (sensitivity)"),
    "observable": Param(bool, default=False, doc="RCUCB: censoring observable"),
    "single_pair_update": Param(bool, default=False, doc="TS: update one (arm, limit) pair per step"),
}


def synthetic_arms(params: dict) -> ce.CensoredArms:
    """PosCorr / NegCorr / Indep (n = 10), F.2 (n arms, grid 5) and F.3 (n arms, sigma 0.1)."""
    params = complete(params, SYNTHETIC_PARAMS, "params")
    name = params["instance"]
    truncation = params["truncation"]
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


def grid_from(params: dict) -> tuple[np.ndarray, float]:
    """The limit grid and tau_max, the largest admissible limit (the grid's last point or above)."""
    g = complete(params["grid"], GRID_FIELDS, "params/grid")
    if "tau_max" not in g:
        raise ValueError("params/grid: tau_max is required (the baselines' scale L = lambda(tau_max) needs it)")
    tau_max = float(g["tau_max"])
    if "values" in g:
        taus = np.asarray(g["values"], dtype=np.float64)
        if taus.size == 0 or taus[-1] > tau_max:
            raise ValueError(f"params/grid: values {g['values']} must be non-empty and <= tau_max = {tau_max}")
        return taus, tau_max
    return ce.resource_grid(tau_max, int(g["size"]), g["reading"]), tau_max


def policy_from(algo: dict, scale: float) -> tuple[str, np.ndarray]:
    """Kernel name and parameters; ``scale`` is L = lambda(tau_max) of the UCB/TS rescaling."""
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    policy = algo["policy"]
    if policy == "rcucb":
        return policy, rcucb.rcucb_params(float(algo["alpha"]), bool(algo["unit_bonus"]), bool(algo["observable"]))
    if policy == "ucb":
        return policy, cb.ucb_params(float(algo["alpha"]), scale=scale)
    if policy == "ts":
        return policy, cb.ts_params(bool(algo["single_pair_update"]), scale=scale)
    raise ValueError(f"unknown policy {policy!r}")


@simulation_builder("censored_synthetic", params=SYNTHETIC_PARAMS, algorithm=ALGORITHM_PARAMS)
def build_synthetic(experiment, algorithm: str) -> CensoredSimulation:
    params = experiment.params
    taus, tau_max = grid_from(params)
    lam = ce.penalty_values(taus, params["penalty"])
    scale = float(ce.penalty_values([tau_max], params["penalty"])[0])
    policy, pparams = policy_from(experiment.algorithms[algorithm], scale)
    return CensoredSimulation(synthetic_arms(params), taus, lam, float(params["cost_slope"]), policy, pparams)


# --- AmesHousing -----------------------------------------------------------------------------


def ames_table(experiment) -> tuple[pd.DataFrame, dict]:
    """The surrogate table the experiment replays and its provenance, after the sha256 check."""
    return forest_model.read_verified(Path(experiment.repo_root) / experiment.requires[0])


def ames_arms(rewards: np.ndarray, times: np.ndarray, arm_list: pd.DataFrame, params: dict
              ) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """The arms in the reading's order and time unit: ``time_scale`` multiplies every training time (the
    grid of limits, read from the times, scales with them); ``arm_order = shuffled`` permutes the arms
    with one fixed seeded permutation (every algorithm and replication sees the same order)."""
    params = complete(params, AMES_PARAMS, "params")
    times = times * float(params["time_scale"])
    if params["arm_order"] == "shuffled":
        order = np.random.default_rng(int(params["arm_order_seed"])).permutation(len(arm_list))
        rewards, times, arm_list = rewards[order], times[order], arm_list.iloc[order].reset_index(drop=True)
    return rewards, times, arm_list


def ames_setting(experiment) -> tuple[ce.CensoredArms, np.ndarray, np.ndarray, pd.DataFrame]:
    """Arms replaying the surrogate table, the limit grid linspace(Q1, Q3, m) of run 0's times, lambda."""
    params = experiment.params
    table, _ = ames_table(experiment)
    rewards, times, arm_list = ames_arms(*forest_model.arm_tables(table, params["normaliser"]), params)
    first_run = times[:, 0]  # "if each possible configuration is run once": run k = 1
    q1, q3 = np.percentile(first_run, [25, 75])  # numpy default = R type 7
    taus = ce.resource_grid(float(q3), int(params["grid_size"]), "linspace", tau_min=float(q1))
    lam = ce.penalty_values(taus, "linear", high_slope=float(params["penalty_slope"]))
    return ce.table_arms(rewards, times), taus, lam, arm_list


@simulation_builder("censored_ames", params=AMES_PARAMS, algorithm=ALGORITHM_PARAMS)
def build_ames(experiment, algorithm: str) -> CensoredSimulation:
    arms, taus, lam, _ = ames_setting(experiment)
    expected = 2 * arms.n_arms * taus.size
    if experiment.horizon != expected:
        raise ValueError(f"{experiment.id}: horizon {experiment.horizon} != T = 2 n m = {expected} (Sec. 5.2)")
    # tau_max = Q3 is the grid's last point, so L = lambda(Q3) = 10 Q3 (digest: "10 Q3 for Ames")
    policy, pparams = policy_from(experiment.algorithms[algorithm], float(lam[-1]))
    return CensoredSimulation(arms, taus, lam, float(experiment.params["cost_slope"]), policy, pparams)
