"""Run one shard (a block of replications of one experiment, every algorithm) and save it."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from .. import provenance
from ..engine import SimulationOutput
from ..seeding import replication_keys
from ..registry import SIMULATION_BUILDERS, lookup
from .spec import ExperimentSpec


def keys_for(exp: ExperimentSpec, algorithm: str, seed: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Noise keys (shared by all algorithms when the experiment uses common random numbers)
    and policy keys for replications [start, stop)."""
    noise_path = (exp.paper, exp.id, "noise") if exp.common_random_numbers else (exp.paper, exp.id, algorithm, "noise")
    noise = replication_keys(seed, noise_path, exp.replications, start, stop)
    policy = replication_keys(seed, (exp.paper, exp.id, algorithm, "policy"), exp.replications, start, stop)
    return noise, policy


def run_experiment_block(exp: ExperimentSpec, seed: int, start: int, stop: int, log=None) -> dict[str, SimulationOutput]:
    log = log if log is not None else sys.stderr
    build = lookup(SIMULATION_BUILDERS, "simulation builder", exp.builder)
    results = {}
    for algorithm in exp.algorithms:
        t0 = time.perf_counter()
        sim = build(exp, algorithm)
        noise, policy = keys_for(exp, algorithm, seed, start, stop)
        out = sim.run(noise, policy, exp.checkpoints)
        _validate_output(out, stop - start, exp, algorithm)
        results[algorithm] = out
        print(f"[{exp.paper}/{exp.id}] {algorithm}: replications {start}-{stop - 1} of {exp.replications}, "
              f"T={exp.horizon}, {time.perf_counter() - t0:.2f} s", file=log, flush=True)
    return results


def _validate_output(out: SimulationOutput, n_reps: int, exp: ExperimentSpec, algorithm: str) -> None:
    where = f"{exp.paper}/{exp.id}/{algorithm}"
    for name, arr in out.curves.items():
        if arr.shape[0] != n_reps or arr.shape[1] != len(out.checkpoints):
            raise ValueError(f"{where}: curve {name!r} has shape {arr.shape}, expected ({n_reps}, {len(out.checkpoints)})")
    for name, arr in out.finals.items():
        if arr.shape[0] != n_reps:
            raise ValueError(f"{where}: final {name!r} has {arr.shape[0]} rows, expected {n_reps}")


def shard_provenance(exp: ExperimentSpec, seed: int, start: int, stop: int, scale: str) -> dict:
    return provenance.record({"experiment": exp.config, "scale": scale}, seed, exp.repo_root,
                             paper=exp.paper, experiment=exp.id, replications=[start, stop])
