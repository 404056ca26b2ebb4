"""Simulation engine: R replications of (environment, policy) for T steps, compiled with numba.

Two layers:

* :func:`make_runner` composes an environment kernel and a policy kernel (plain numba
  functions, see :mod:`banditrepro.environments` and :mod:`banditrepro.algorithms`) into one
  compiled loop over replications and steps. It records, at the requested checkpoints,
  cumulative metrics: the environment's per-arm metrics (pseudo-regret, expected reward, ...),
  realised reward, threshold hits ("happiness"), arm switches, an optional policy metric, and
  per-arm pull counts.
* :class:`Simulation` is what the workflow runs for one (experiment, algorithm) cell: anything
  with ``run(noise_keys, policy_keys, checkpoints) -> SimulationOutput``. Papers whose dynamics
  do not fit the step loop (rounds, delays, censoring) provide their own compiled kernels behind
  the same interface.

Where compiled code lives (tests/test_layering.py enforces the first point):

* :mod:`banditrepro.algorithms` holds *decision kernels* -- index computations, select/update
  steps, schedules, elimination rules -- and imports no environment (nor any paper package): a
  policy must not know what it is played against.
* :mod:`banditrepro.environments` holds reward and observation kernels, which know no policy.
* The generic loop, (environment kernel x policy kernel) step by step, is this module's
  :func:`make_runner` / :class:`StepSimulation`.
* A loop that only one paper needs (rounds, delays, censoring, batches of rows, per-horizon
  runs) lives in ``experiments/<paper>/`` beside that paper's builders, e.g.
  ``experiments/composite_anonymous/loops.py``; it imports both the kernels and the environment.

Kernel protocols (all arguments numba-typed arrays/scalars; ``t`` is the 1-based step):

* environment: ``env_step(env_params, env_state, noise_key, t, arm, pull_index, obs)``
  writes the observation into ``obs`` (``obs[0]`` = realised reward);
* policy: ``select(t, state, params, rng) -> arm``, ``update(t, state, params, arm, obs)``
  and optionally ``step_metric(t, state, params, arm) -> float`` evaluated before the update.
  ``state`` is a float64 ``(rows, n_arms)`` array, zero at the start of a replication.

Speed: numba reference-counts the arrays a kernel receives, and it can drop those counts (atomic
calls, on every step) only where no call to another compiled function stays between them. A kernel
that draws on every step should therefore call inlined generators (``rng.uniform2`` and
``rng.normal_pair`` are ``inline="always"``) and may itself be inlined, as the Gaussian arms'
step is: that took the UCB1 benchmark (``python -m banditrepro.bench``) from about 57 to about
47 ns per replication-step with the same numbers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from numba import njit

from . import rng as _rng

# what a simulation returns and how it is read live on the ground floor (numpy only), so that the jobs that
# only read results never import numba; re-exported here, where the simulations make them
from .simulation_output import SimulationOutput, checkpoint_grid, summarize  # noqa: F401


class Simulation(Protocol):
    def run(self, noise_keys: np.ndarray, policy_keys: np.ndarray, checkpoints: np.ndarray) -> SimulationOutput: ...


@dataclass(frozen=True)
class EnvironmentKernel:
    name: str
    step: Callable  # numba dispatcher
    state_size: int = 0  # env_state length = state_size + state_per_arm * n_arms
    obs_size: int = 1
    state_per_arm: int = 0


@dataclass(frozen=True)
class PolicyKernel:
    name: str
    select: Callable
    update: Callable
    state_rows: int
    step_metric: Callable | None = None
    step_metric_name: str | None = None
    # Python-side hook (params, horizon) -> params, e.g. to append a per-step table that
    # would otherwise be recomputed in every replication.
    prepare: Callable | None = None


@njit(cache=True)
def _no_metric(t, state, params, arm):
    return 0.0


_RUNNERS: dict[tuple, Callable] = {}

# The step loop's source, specialised per (environment, policy) pair by the module-level names below: the
# kernels (``env_step``, ``select``, ``update``, ``step_metric``) and the layout constants (``STATE_ROWS``,
# ``ENV_STATE_BASE``, ``ENV_STATE_PER_ARM``, ``OBS_SIZE``), which numba freezes as compile-time constants.
_RUNNER_SOURCE = """
@njit(cache=CACHE)
def run(env_params, arm_values, happy_threshold, pol_params, noise_keys, policy_keys, policy_subs, checkpoints,
        curves, pulls_out, record_pulls):
    \"\"\"curves: (R, n_arm_values + 4, C): arm metrics..., reward, happiness, switches, policy metric.\"\"\"
    n_reps = noise_keys.shape[0]
    n_arms = arm_values.shape[1]
    n_vals = arm_values.shape[0]
    T = checkpoints[-1]
    n_chk = checkpoints.shape[0]
    acc = np.zeros(n_vals + 4)
    for r in range(n_reps):
        state = np.zeros((STATE_ROWS, n_arms))
        env_state = np.zeros(max(ENV_STATE_BASE + ENV_STATE_PER_ARM * n_arms, 1))
        obs = np.zeros(OBS_SIZE)
        pulls = np.zeros(n_arms, dtype=np.int64)
        stream = np.empty(4, dtype=np.uint64)
        stream[0] = policy_keys[r]
        stream[1] = _rng.TAG_POLICY
        stream[2] = policy_subs[r]
        stream[3] = 0
        acc[:] = 0.0
        prev = -1
        c = 0
        noise_key = noise_keys[r]
        for t in range(1, T + 1):
            arm = select(t, state, pol_params, stream)
            acc[n_vals + 3] += step_metric(t, state, pol_params, arm)
            env_step(env_params, env_state, noise_key, t, arm, pulls[arm], obs)
            pulls[arm] += 1
            update(t, state, pol_params, arm, obs)
            for j in range(n_vals):
                acc[j] += arm_values[j, arm]
            acc[n_vals] += obs[0]
            if obs[0] >= happy_threshold:
                acc[n_vals + 1] += 1.0
            if prev >= 0 and arm != prev:
                acc[n_vals + 2] += 1.0
            prev = arm
            if t == checkpoints[c]:
                for j in range(n_vals + 4):
                    curves[r, j, c] = acc[j]
                if record_pulls:
                    for i in range(n_arms):
                        pulls_out[r, c, i] = pulls[i]
                c += 1
                if c == n_chk:
                    break
"""


def _importable(kernel: Callable) -> tuple[str, str] | None:
    """(module, name) under which ``kernel`` (a numba dispatcher) is found again by import, else None."""
    func = getattr(kernel, "py_func", None)
    module, name = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    if not module or "." in name or "<" in name:
        return None
    mod = sys.modules.get(module)
    return (module, name) if mod is not None and getattr(mod, name, None) is kernel else None


def _runner_module_source(kernels: dict[str, tuple[str, str]], constants: dict[str, int]) -> str:
    lines = ["# generated by banditrepro.engine.make_runner: the step loop of one (environment, policy) pair",
             "import numpy as np", "from numba import njit", "from banditrepro import rng as _rng"]
    lines += [f"from {module} import {name} as {alias}" for alias, (module, name) in kernels.items()]
    lines += [f"{name} = {value!r}" for name, value in constants.items()]
    return "\n".join(lines) + "\nCACHE = True\n" + _RUNNER_SOURCE


def _load_cached_runner(source: str) -> Callable | None:
    """The ``run`` of ``source`` written as a module file in numba's cache directory (one directory per state
    of the package's sources, banditrepro.numba_cache), so that numba caches its compiled code like any
    kernel's. The file is written once and never rewritten (numba keys its cache on the file's timestamp);
    None where the directory cannot be written."""
    import numba

    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    folder = Path(numba.config.CACHE_DIR) / "step_runners"
    path = folder / f"step_runner_{digest}.py"
    try:
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{path.name}.{os.getpid()}.tmp"
            tmp.write_text(source, encoding="utf-8")
            try:
                os.link(tmp, path)  # atomic, and never replaces a file another job wrote first
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
    except OSError:
        return None
    name = f"banditrepro_step_runner_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.run


def make_runner(env: EnvironmentKernel, policy: PolicyKernel) -> Callable:
    """Compiled loop for this (environment, policy) pair (built once per process).

    numba cannot cache a closure over dispatchers (it keys its disk cache on the pickled closure, and
    dispatchers pickle with a per-process uuid), so the loop is generated as a module that imports the
    kernels by name and cached like every kernel (otherwise it was recompiled in every job: about 1.7 CPU-s
    per satisficing_ucl shard). Kernels that cannot be imported by name (made inside a function, as tests
    do) get the same loop uncached.
    """
    cache_key = (env.name, env.step, policy.name, policy.select, policy.update, policy.step_metric)
    if cache_key in _RUNNERS:
        return _RUNNERS[cache_key]
    kernel_objects = {"env_step": env.step, "select": policy.select, "update": policy.update,
                      "step_metric": policy.step_metric if policy.step_metric is not None else _no_metric}
    constants = {"STATE_ROWS": int(policy.state_rows), "ENV_STATE_BASE": int(env.state_size),
                 "ENV_STATE_PER_ARM": int(env.state_per_arm), "OBS_SIZE": int(env.obs_size)}
    kernels = {alias: _importable(k) for alias, k in kernel_objects.items()}
    run = None
    if all(kernels.values()):
        run = _load_cached_runner(_runner_module_source(kernels, constants))
    if run is None:
        namespace = {"np": np, "njit": njit, "_rng": _rng, "CACHE": False, **kernel_objects, **constants}
        exec(compile(_RUNNER_SOURCE, "<banditrepro.engine step runner>", "exec"), namespace)
        run = namespace["run"]
    _RUNNERS[cache_key] = run
    return run


@dataclass
class StepSimulation:
    """A finite-armed (environment, policy) cell run by the generic compiled step loop.

    ``arm_values`` rows are per-arm increments of named cumulative metrics (e.g. the
    pseudo-regret gap of each arm) and ``arm_value_names`` names them. ``happy_threshold``
    turns on the count of steps with realised reward >= threshold ("happiness").
    """

    env: EnvironmentKernel
    env_params: np.ndarray
    arm_values: np.ndarray
    arm_value_names: tuple[str, ...]
    policy: PolicyKernel
    policy_params: np.ndarray
    happy_threshold: float | None = None
    record_pulls: bool = True

    def run(self, noise_keys: np.ndarray, policy_keys: np.ndarray, checkpoints: np.ndarray,
            policy_subs: np.ndarray | None = None) -> SimulationOutput:
        """``policy_subs``: the sub-stream of each replication's policy coins (default 0), for callers that
        run several rows of one replication with independent coins (experiments/reference.py)."""
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        if checkpoints.ndim != 1 or checkpoints.size == 0 or np.any(np.diff(checkpoints) <= 0) or checkpoints[0] < 1:
            raise ValueError("checkpoints must be a non-empty strictly increasing sequence of steps >= 1")
        runner = make_runner(self.env, self.policy)
        n_reps = len(noise_keys)
        arm_values = np.ascontiguousarray(self.arm_values, dtype=np.float64)
        n_vals, n_arms = arm_values.shape
        curves = np.zeros((n_reps, n_vals + 4, len(checkpoints)))
        pulls = np.zeros((n_reps, len(checkpoints), n_arms) if self.record_pulls else (1, 1, 1), dtype=np.int64)
        thr = np.inf if self.happy_threshold is None else float(self.happy_threshold)
        pol_params = np.asarray(self.policy_params, dtype=np.float64)
        if self.policy.prepare is not None:
            pol_params = self.policy.prepare(pol_params, int(checkpoints[-1]))
        runner(np.ascontiguousarray(self.env_params, dtype=np.float64), arm_values, thr,
               np.ascontiguousarray(pol_params),
               np.asarray(noise_keys, dtype=np.uint64), np.asarray(policy_keys, dtype=np.uint64),
               np.zeros(n_reps, dtype=np.uint64) if policy_subs is None else np.asarray(policy_subs, dtype=np.uint64),
               checkpoints, curves, pulls, self.record_pulls)
        out = {name: curves[:, j, :] for j, name in enumerate(self.arm_value_names)}
        out["reward"] = curves[:, n_vals, :]
        if self.happy_threshold is not None:
            out["happiness"] = curves[:, n_vals + 1, :]
        out["switches"] = curves[:, n_vals + 2, :]
        if self.policy.step_metric is not None:
            out[self.policy.step_metric_name or "policy_metric"] = curves[:, n_vals + 3, :]
        return SimulationOutput(checkpoints=checkpoints, curves=out, pulls=pulls if self.record_pulls else None)
