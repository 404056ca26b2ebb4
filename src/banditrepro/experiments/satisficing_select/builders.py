"""Simulation builder: an experiment's ``params`` name the instance and the level S, each algorithm
entry names what runs (spec §2, §3)."""

from __future__ import annotations

from dataclasses import fields

from ...algorithms.select import ORACLES, SelectVariant
from ...environments.continuous import make_environment
from ...registry import OMITTED, Param, complete, complete_entry, simulation_builder
from .simulations import Convex1DSimulation, IndexPolicySimulation, SelectSimulation

VARIANT_KEYS = ("skip_step1", "skip_step2", "skip_step3", "radius_coef", "reuse_step1", "gamma_scale", "warm_start")
INDEX_POLICIES = ("thompson", "sat_ucb", "sat_ucb_plus", "uniform_ucb")

# Keys of each environment kind (environments/continuous.py); the environment's own defaults apply to the
# ones left out, so none is filled in here.
ENVIRONMENT_FIELDS = {
    "kind": Param(str, choices=("finite", "concave_quadratic", "capped_gaussian_bump")),
    "means": Param(list, default=OMITTED, items=Param(float), doc="finite: arm means"),
    "sigma": Param(float, default=OMITTED, doc="reward noise sd"),
    "top": Param(float, default=OMITTED, doc="concave_quadratic"),
    "curvature": Param(float, default=OMITTED, doc="concave_quadratic"),
    "centre": Param((float, list), default=OMITTED, items=Param(float),
                    doc="concave_quadratic (x), capped_gaussian_bump (x, y)"),
    "cap": Param(float, default=OMITTED, doc="capped_gaussian_bump"),
    "amplitude": Param(float, default=OMITTED, doc="capped_gaussian_bump"),
    "rate": Param(float, default=OMITTED, doc="capped_gaussian_bump"),
}
PARAMS = {
    "environment": Param(dict, fields=ENVIRONMENT_FIELDS, doc="the instance (spec §3)"),
    "level": Param(float, doc="satisficing level S"),
}
_VARIANT_DEFAULTS = {f.name: f.default for f in fields(SelectVariant)}
ALGORITHM_PARAMS = {
    "algorithm": Param(str, choices=("select", *INDEX_POLICIES, "convex_1d")),
    "oracle": Param(str, default=None, choices=tuple(ORACLES), doc="SELECT's learning oracle"),
    # SELECT's variant switches (sensitivity runs); defaults: Algorithm 1 as printed (SelectVariant)
    **{k: Param(type(_VARIANT_DEFAULTS[k]), default=_VARIANT_DEFAULTS[k]) for k in VARIANT_KEYS},
}


def build_simulation(params: dict, algo: dict):
    """``params``: {environment: {kind, ...}, level: S}; ``algo``: {algorithm, oracle?, variant keys...}."""
    params = complete(params, PARAMS, "params")
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    env = make_environment(params["environment"])
    level = float(params["level"])
    kind = algo["algorithm"]
    if kind == "select":
        if algo["oracle"] is None:
            raise ValueError("SELECT needs an 'oracle'")
        variant = SelectVariant(**{k: algo[k] for k in VARIANT_KEYS})
        return SelectSimulation(algo["oracle"], env, level, variant)
    if kind in INDEX_POLICIES:
        # horizon-dependent: Uniform UCB always (ln H), grids on continuous instances (delta(T))
        per_horizon = kind == "uniform_ucb" or not env.n_arms
        return IndexPolicySimulation(kind, env, level, per_horizon=per_horizon)
    if kind == "convex_1d":
        return Convex1DSimulation(env, level)
    raise ValueError(f"unknown algorithm kind {kind!r}")


@simulation_builder("satisficing_select", params=PARAMS, algorithm=ALGORITHM_PARAMS)
def build(experiment, algorithm: str):
    return build_simulation(experiment.params, experiment.algorithms[algorithm])
