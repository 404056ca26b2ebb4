"""Simulation builder: an experiment's ``params`` name the instance and the level S, each algorithm
entry names what runs (spec §2, §3)."""

from __future__ import annotations

from ...algorithms.select import SelectVariant
from ...environments.continuous import make_environment
from ...registry import simulation_builder
from .simulations import Convex1DSimulation, IndexPolicySimulation, SelectSimulation

VARIANT_KEYS = ("skip_step1", "skip_step2", "skip_step3", "radius_coef", "reuse_step1", "gamma_scale", "warm_start")


def build_simulation(params: dict, algo: dict):
    """``params``: {environment: {kind, ...}, level: S}; ``algo``: {algorithm, oracle?, variant keys...}."""
    env = make_environment(params["environment"])
    level = float(params["level"])
    kind = algo["algorithm"]
    if kind == "select":
        variant = SelectVariant(**{k: algo[k] for k in VARIANT_KEYS if k in algo})
        return SelectSimulation(algo["oracle"], env, level, variant)
    if kind in ("thompson", "sat_ucb", "sat_ucb_plus", "uniform_ucb"):
        # horizon-dependent: Uniform UCB always (ln H), grids on continuous instances (delta(T))
        per_horizon = kind == "uniform_ucb" or not env.n_arms
        return IndexPolicySimulation(kind, env, level, per_horizon=per_horizon)
    if kind == "convex_1d":
        return Convex1DSimulation(env, level)
    raise ValueError(f"unknown algorithm kind {kind!r}")


@simulation_builder("satisficing_select")
def build(experiment, algorithm: str):
    return build_simulation(experiment.params, experiment.algorithms[algorithm])
