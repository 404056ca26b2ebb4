"""Simulation builder: an experiment's ``params`` name the instance and the level S, each algorithm
entry names what runs (spec §2, §3)."""

from __future__ import annotations

import dataclasses

from ...algorithms.select import ORACLES, SelectVariant
from ...engine import SimulationOutput
from ...environments.continuous import (
    CAPPED_GAUSSIAN_BUMP,
    CONCAVE_QUADRATIC,
    FINITE,
    MeanFunctionEnvironment,
    make_environment,
)
from ...registry import OMITTED, Param, complete, complete_entry, simulation_builder
from .loops import Convex1DSimulation, IndexPolicySimulation, SelectSimulation

VARIANT_KEYS = ("skip_step1", "skip_step2", "skip_step3", "radius_coef", "reuse_step1", "gamma_scale", "warm_start",
                "last_query")
INDEX_POLICIES = ("thompson", "sat_ucb", "sat_ucb_plus", "uniform_ucb", "beta_thompson")

# Keys of each environment kind (environments/continuous.py); the environment's own defaults apply to the
# ones left out, so none is filled in here.
ENVIRONMENT_FIELDS = {
    "kind": Param(str, choices=("finite", "concave_quadratic", "capped_gaussian_bump")),
    "means": Param(list, default=OMITTED, items=Param(float), doc="finite: arm means"),
    "sigma": Param(float, default=OMITTED, doc="reward noise sd (Gaussian rewards)"),
    "rewards": Param(str, default=OMITTED, choices=("gaussian", "bernoulli"),
                     doc="reward distribution around the mean (bernoulli: finite instances, no sigma; sensitivity run)"),
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
    "radii_scaled_by_sigma": Param(bool, default=False,
                                   doc="every confidence radius multiplied by the noise sd (sensitivity run)"),
}
_VARIANT_DEFAULTS = {f.name: f.default for f in dataclasses.fields(SelectVariant)}
ALGORITHM_PARAMS = {
    "algorithm": Param(str, choices=("select", *INDEX_POLICIES, "convex_1d")),
    "oracle": Param(str, default=None, choices=tuple(ORACLES), doc="SELECT's learning oracle"),
    # SELECT's variant switches (sensitivity runs); defaults: Algorithm 1 as printed (SelectVariant)
    **{k: Param(type(_VARIANT_DEFAULTS[k]), default=_VARIANT_DEFAULTS[k]) for k in VARIANT_KEYS},
}

# outputs in reward units, multiplied back by sigma after a unit-noise run (the rest are counts)
REWARD_UNIT_CURVES = ("satisficing_regret", "regret", "reward")
REWARD_UNIT_FINAL_PREFIXES = ("final_candidate_mean", "candidate_mean_round_")


def unit_noise_equivalent(env: MeanFunctionEnvironment, level: float) -> tuple[MeanFunctionEnvironment, float]:
    """The instance r/sigma with unit noise and level S/sigma, on the grids of the original instance.

    Every confidence radius of the kernels (UCB's sqrt(4 ln H/n), SAT-UCB's R_t/sqrt(n), SELECT's LCB
    test) is written for unit noise. On observations y/sigma = r/sigma + eps they act exactly as the
    same radii multiplied by sigma act on y = r + sigma eps: each index and each test is the original
    one divided by sigma, so every decision is the same."""
    s = float(env.sigma)
    p = env.params.copy()
    if env.code == FINITE:
        p = p / s
    elif env.code in (CONCAVE_QUADRATIC, CAPPED_GAUSSIAN_BUMP):  # (top, curvature, centre) / (cap, amplitude, ...)
        p[:2] = p[:2] / s
    else:
        raise ValueError(f"no unit-noise form for environment code {env.code}")
    # lipschitz is kept: it sizes the grids, which must be those of the original instance
    return dataclasses.replace(env, params=p, optimum=env.optimum / s, sigma=1.0), level / s


@dataclasses.dataclass
class RescaledSimulation:
    """Runs ``inner`` (built on :func:`unit_noise_equivalent`) and returns regrets, rewards and
    candidate means in the units of the original instance (multiplied by ``sigma``)."""

    inner: object
    sigma: float

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        out = self.inner.run(noise_keys, policy_keys, checkpoints)
        curves = {k: v * self.sigma if k in REWARD_UNIT_CURVES else v for k, v in out.curves.items()}
        finals = {k: v * self.sigma if k.startswith(REWARD_UNIT_FINAL_PREFIXES) else v for k, v in out.finals.items()}
        return dataclasses.replace(out, curves=curves, finals=finals)


def build_simulation(params: dict, algo: dict):
    """``params``: {environment: {kind, ...}, level: S, radii_scaled_by_sigma?}; ``algo``:
    {algorithm, oracle?, variant keys...}. ``radii_scaled_by_sigma``: every confidence radius is
    multiplied by the noise sd (sensitivity run, issue #10.4) instead of assuming sigma = 1."""
    params = complete(params, PARAMS, "params")
    algo = complete_entry(algo, ALGORITHM_PARAMS)
    env = make_environment(params["environment"])
    level = float(params["level"])
    if params["radii_scaled_by_sigma"]:
        if env.rewards != "gaussian":
            raise ValueError("radii_scaled_by_sigma needs Gaussian rewards")
        sigma = float(env.sigma)
        env, level = unit_noise_equivalent(env, level)
        return RescaledSimulation(_simulation(env, level, algo), sigma)
    return _simulation(env, level, algo)


def _simulation(env: MeanFunctionEnvironment, level: float, algo: dict):
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
