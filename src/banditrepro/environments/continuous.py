"""Mean-reward functions on finite and continuous arm sets, with N(0, sigma^2) noise
(satisficing_select spec §1, §3), or Bernoulli rewards on a finite arm set (spec §5.2, sensitivity).

An environment here is a mean function r(x) plus additive noise. Kernels only ever need
r at the arm they pull: regret is pseudo-regret computed from the true mean (spec §1), and the
observation is ``r(x) + sigma * eps_t`` (Gaussian rewards) or ``1{u_t <= r(x)}`` (Bernoulli rewards,
:func:`.finite.bernoulli_draw`; ``u_t`` is the uniform at counter (t, sub=1, TAG_ENV), shared by all
algorithms like ``eps_t``). :func:`observe` draws either.

Noise. ``eps_t`` is the standard normal at counter (t, sub=0, TAG_ENV) of the replication's
noise key: every algorithm of an experiment sees the same noise at step t (common random
numbers), whatever arm it pulls and whatever its arm set is (grids of different sizes,
continuous points). Per-(arm, pull) noise, as in :mod:`.finite`, would not be defined for
continuous arms.

Environment codes (``env_code``) and their ``env_params`` layouts:

* ``FINITE`` (0): ``params = means``; the point is ``(arm index,)``.
* ``CONCAVE_QUADRATIC`` (1): ``params = (top, curvature, centre)``;
  r(x) = top - curvature * (x - centre)^2 on [0, 1] (Section 6.2: 1, 16, 0.25).
* ``CAPPED_GAUSSIAN_BUMP`` (2): ``params = (cap, amplitude, rate, centre_x, centre_y)``;
  r(x, y) = min{cap, amplitude * exp(-rate * ((x - cx)^2 + (y - cy)^2))} on [0, 1]^2
  (Section 6.3: 1, 3, 100, 0.5, 0.7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import rng
from .finite import bernoulli_draw, check_probabilities

FINITE = 0
CONCAVE_QUADRATIC = 1
CAPPED_GAUSSIAN_BUMP = 2

# reward distributions around the mean r(x) (``reward_code``)
GAUSSIAN_REWARDS = 0
BERNOULLI_REWARDS = 1
REWARD_CODES = {"gaussian": GAUSSIAN_REWARDS, "bernoulli": BERNOULLI_REWARDS}


@njit(cache=True)
def env_mean(env_code, env_params, point):
    """True mean reward r(point)."""
    if env_code == FINITE:
        return env_params[int(point[0])]
    if env_code == CONCAVE_QUADRATIC:
        d = point[0] - env_params[2]
        return env_params[0] - env_params[1] * d * d
    if env_code == CAPPED_GAUSSIAN_BUMP:
        dx = point[0] - env_params[3]
        dy = point[1] - env_params[4]
        return min(env_params[0], env_params[1] * math.exp(-env_params[2] * (dx * dx + dy * dy)))
    return math.nan


@njit(cache=True)
def noise(noise_key, t):
    """Standard normal noise of step t (1-based); the same for every algorithm (CRN)."""
    return rng.normal(noise_key, rng.TAG_ENV, 0, t)


@njit(cache=True)
def step_draw(reward_code, noise_key, t):
    """The draw of step t (1-based) that every algorithm's observation of that step is made of: ``eps_t``
    (Gaussian rewards) or ``u_t`` (Bernoulli rewards). Common random numbers by step."""
    if reward_code == BERNOULLI_REWARDS:
        return rng.uniform(noise_key, rng.TAG_ENV, 1, t)
    return noise(noise_key, t)


@njit(cache=True)
def fill_step_draws(reward_code, noise_key, draws):
    """``draws[t]`` = :func:`step_draw` of step t for t = 1..len(draws) - 1 (``draws[0]`` unused).

    A draw depends on the step only, not on the arm or the run, so a loop that replays the first steps of a
    replication several times (one run per horizon) draws them once per replication here."""
    for t in range(1, draws.shape[0]):
        draws[t] = step_draw(reward_code, noise_key, t)


@njit(cache=True)
def observe_draw(reward_code, mean, sigma, draw):
    """Observed reward at an arm of true mean ``mean`` from its step's :func:`step_draw`: ``mean + sigma *
    eps_t`` or, for Bernoulli rewards, 1{u_t <= mean} (``sigma`` unused)."""
    if reward_code == BERNOULLI_REWARDS:
        return bernoulli_draw(draw, mean)
    return mean + sigma * draw


@njit(cache=True)
def observe(reward_code, mean, sigma, noise_key, t):
    """Observed reward of step t (1-based) at an arm of true mean ``mean`` (:func:`observe_draw` of the
    step's :func:`step_draw`)."""
    return observe_draw(reward_code, mean, sigma, step_draw(reward_code, noise_key, t))


@dataclass(frozen=True)
class MeanFunctionEnvironment:
    """A bandit instance: mean function (code + params), arm-space dimension, optimum r*, noise sd.

    ``lipschitz`` is the sup-norm Lipschitz constant used to size uniform grids (spec §3);
    ``n_arms`` is set for finite instances only; ``rewards`` names the reward distribution
    (``REWARD_CODES``; Bernoulli instances have no noise sd: ``sigma`` is nan).
    """

    name: str
    code: int
    params: np.ndarray
    dim: int
    optimum: float
    sigma: float = 1.0
    lipschitz: float = math.nan
    n_arms: int = 0
    rewards: str = "gaussian"

    @property
    def reward_code(self) -> int:
        return REWARD_CODES[self.rewards]

    def mean(self, points) -> np.ndarray:
        """r at each row of ``points`` (shape (n, dim)); for finite instances rows are (index,)."""
        points = np.atleast_2d(np.asarray(points, dtype=np.float64))
        return np.array([env_mean(self.code, self.params, p) for p in points])


def finite_gaussian(means, sigma: float = 1.0) -> MeanFunctionEnvironment:
    means = np.asarray(means, dtype=np.float64)
    if means.ndim != 1 or means.size < 1:
        raise ValueError("means must be a non-empty vector")
    return MeanFunctionEnvironment("finite", FINITE, means.copy(), dim=1, optimum=float(means.max()),
                                   sigma=sigma, n_arms=means.size)


def finite_bernoulli(means) -> MeanFunctionEnvironment:
    """Finite instance with Bernoulli rewards of success probabilities ``means`` (in [0, 1])."""
    means = check_probabilities(means)
    if means.ndim != 1 or means.size < 1:
        raise ValueError("means must be a non-empty vector")
    return MeanFunctionEnvironment("finite_bernoulli", FINITE, means.copy(), dim=1, optimum=float(means.max()),
                                   sigma=math.nan, n_arms=means.size, rewards="bernoulli")


def concave_quadratic(top: float = 1.0, curvature: float = 16.0, centre: float = 0.25,
                      sigma: float = 1.0) -> MeanFunctionEnvironment:
    """r(x) = top - curvature (x - centre)^2 on [0, 1]; L = sup |r'| = 2 curvature max(centre, 1 - centre)."""
    if not 0.0 <= centre <= 1.0 or curvature <= 0:
        raise ValueError("need centre in [0, 1] and curvature > 0")
    lipschitz = 2.0 * curvature * max(centre, 1.0 - centre)
    return MeanFunctionEnvironment("concave_quadratic", CONCAVE_QUADRATIC, np.array([top, curvature, centre]),
                                   dim=1, optimum=top, sigma=sigma, lipschitz=lipschitz)


def capped_gaussian_bump(cap: float = 1.0, amplitude: float = 3.0, rate: float = 100.0,
                         centre=(0.5, 0.7), sigma: float = 1.0) -> MeanFunctionEnvironment:
    """min{cap, A exp(-k |x - c|^2)} on [0, 1]^2; r* = cap (the plateau lies inside the square).

    Sup-norm Lipschitz constant (spec §3): the l1 norm of the gradient, 2kA rho e^{-k rho^2}(|u|+|v|)
    with |u|+|v| <= sqrt(2) rho, is maximal at the plateau edge rho0 = sqrt(ln(A/cap)/k) once
    rho0 >= 1/sqrt(2k), where it equals 2 sqrt(2) k cap rho0 (= 20 sqrt(2 ln 3) for the paper).
    """
    if amplitude <= cap or rate <= 0:
        raise ValueError("need amplitude > cap > and rate > 0")
    rho0 = math.sqrt(math.log(amplitude / cap) / rate)
    rho = max(rho0, 1.0 / math.sqrt(2.0 * rate))
    lipschitz = 2.0 * math.sqrt(2.0) * rate * amplitude * rho * math.exp(-rate * rho * rho)
    return MeanFunctionEnvironment("capped_gaussian_bump", CAPPED_GAUSSIAN_BUMP,
                                   np.array([cap, amplitude, rate, centre[0], centre[1]], dtype=np.float64),
                                   dim=2, optimum=cap, sigma=sigma, lipschitz=lipschitz)


def make_environment(spec: dict) -> MeanFunctionEnvironment:
    """Environment from a config mapping ``{kind: finite|concave_quadratic|capped_gaussian_bump, ...}``;
    ``rewards: bernoulli`` (finite only, no ``sigma``) gives Bernoulli instead of Gaussian rewards."""
    spec = dict(spec)
    kind = spec.pop("kind")
    rewards = spec.pop("rewards", "gaussian")
    if rewards not in REWARD_CODES:
        raise ValueError(f"unknown rewards {rewards!r} (one of {sorted(REWARD_CODES)})")
    if rewards == "bernoulli":
        if kind != "finite" or "sigma" in spec:
            raise ValueError("Bernoulli rewards need a finite instance (means in [0, 1]) and no 'sigma'")
        return finite_bernoulli(spec["means"])
    if kind == "finite":
        return finite_gaussian(spec["means"], spec.get("sigma", 1.0))
    if kind == "concave_quadratic":
        return concave_quadratic(**spec)
    if kind == "capped_gaussian_bump":
        if "centre" in spec:
            spec["centre"] = tuple(spec["centre"])
        return capped_gaussian_bump(**spec)
    raise ValueError(f"unknown environment kind {kind!r}")
