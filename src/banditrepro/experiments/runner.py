"""Run one shard (a block of replications of one experiment, every algorithm) and save it."""

from __future__ import annotations

import contextlib
import sys
import time

import numpy as np

from .. import numba_cache, provenance
from ..engine import SimulationOutput
from ..registry import SIMULATION_BUILDERS, lookup
from ..seeding import replication_keys
from .spec import ExperimentSpec


def keys_for(exp: ExperimentSpec, algorithm: str, seed: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Noise keys (shared by all algorithms when the experiment uses common random numbers)
    and policy keys for replications [start, stop)."""
    noise_path = (exp.paper, exp.id, "noise") if exp.common_random_numbers else (exp.paper, exp.id, algorithm, "noise")
    # replication r gets child r of its stream whatever the total: a sequential look's extra replications
    # (report/sequential.py) are blocks r >= exp.replications of the same streams
    n_total = max(exp.replications, stop)
    noise = replication_keys(seed, noise_path, n_total, start, stop)
    policy = replication_keys(seed, (exp.paper, exp.id, algorithm, "policy"), n_total, start, stop)
    return noise, policy


# Progress: the replications of each algorithm run in blocks, so that the job can say between blocks
# how far it is. A block's size is chosen from the measured time per replication so that a block
# takes about PROGRESS_TARGET_S; every replication has its own keys, so blocks change no number.
PROGRESS_TARGET_S = 3.0


def run_experiment_block(exp: ExperimentSpec, seed: int, start: int, stop: int, log=None,
                         progress_target_s: float = PROGRESS_TARGET_S,
                         algorithms: list[str] | None = None) -> dict[str, SimulationOutput]:
    """Replications [start, stop) of every algorithm of ``exp`` (or of ``algorithms``, a subset).

    Each algorithm's runs depend only on its own keys (:func:`keys_for`), so running a subset gives those
    algorithms exactly the numbers a full run gives them (the mutant rules rerun only a mutated algorithm).
    """
    log = log if log is not None else sys.stderr
    build = lookup(SIMULATION_BUILDERS, "simulation builder", exp.builder)
    chosen = list(exp.algorithms) if algorithms is None else list(algorithms)
    unknown = [a for a in chosen if a not in exp.algorithms]
    if unknown:
        raise ValueError(f"[{exp.paper}/{exp.id}] no algorithm {unknown} in this experiment "
                         f"(it runs {list(exp.algorithms)})")
    progress = Progress(exp, start, stop, log, chosen)
    results = {}
    for algorithm in chosen:
        t0 = time.perf_counter()
        sim = build(exp, algorithm)
        noise, policy = keys_for(exp, algorithm, seed, start, stop)
        parts = []
        done = 0
        n = stop - start
        block = 1  # the first block measures the cost of one replication
        while done < n:
            size = min(block, n - done)
            b0 = time.perf_counter()
            # the first call compiles the builder's loops on an empty cache: one job at a time
            with numba_cache.compiling(f"{exp.paper}-{exp.builder}") if done == 0 else contextlib.nullcontext():
                parts.append(sim.run(noise[done:done + size], policy[done:done + size], exp.checkpoints))
            per_rep = max((time.perf_counter() - b0) / size, 1e-6)
            done += size
            progress.advance(algorithm, size, per_rep)
            block = max(1, int(progress_target_s / per_rep))
        out = concatenate_outputs(parts)
        _validate_output(out, n, exp, algorithm)
        results[algorithm] = out
        print(f"[{exp.paper}/{exp.id}] {algorithm}: replications {start}-{stop - 1} of {exp.replications}, "
              f"T={exp.horizon}, {time.perf_counter() - t0:.2f} s", file=log, flush=True)
    return results


class Progress:
    """Writes "k/n replication runs done, elapsed, about x s left" lines to the job's log.

    The estimate of the rest counts the current algorithm's remaining replications at its measured
    rate and each algorithm not yet started at the mean rate seen so far (algorithms differ in
    cost, so it is an estimate; it is exact once the last algorithm runs).
    """

    def __init__(self, exp: ExperimentSpec, start: int, stop: int, log, algorithms: list[str] | None = None):
        self.exp = exp
        self.log = log
        self.reps = stop - start
        self.algorithms = list(exp.algorithms) if algorithms is None else list(algorithms)
        self.total = self.reps * len(self.algorithms)
        self.done = 0
        self.done_by_algorithm: dict[str, int] = {}
        self.rate: dict[str, float] = {}  # seconds per replication, latest block
        self.t0 = time.perf_counter()

    def advance(self, algorithm: str, n_done: int, seconds_per_rep: float) -> None:
        self.done += n_done
        self.done_by_algorithm[algorithm] = self.done_by_algorithm.get(algorithm, 0) + n_done
        self.rate[algorithm] = seconds_per_rep
        print(self.line(algorithm), file=self.log, flush=True)

    def remaining_seconds(self, algorithm: str) -> float:
        mean_rate = sum(self.rate.values()) / len(self.rate)
        left = (self.reps - self.done_by_algorithm.get(algorithm, 0)) * self.rate[algorithm]
        started = set(self.done_by_algorithm)
        left += sum(self.reps * mean_rate for a in self.algorithms if a not in started)
        return left

    def line(self, algorithm: str) -> str:
        elapsed = time.perf_counter() - self.t0
        return (f"[{self.exp.paper}/{self.exp.id}] progress: {self.done}/{self.total} replication runs done "
                f"({algorithm} {self.done_by_algorithm[algorithm]}/{self.reps}), elapsed {elapsed:.1f} s, "
                f"about {self.remaining_seconds(algorithm):.0f} s left")


def concatenate_outputs(parts: list[SimulationOutput]) -> SimulationOutput:
    """One SimulationOutput from consecutive blocks of replications (in order)."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    for p in parts[1:]:
        if not np.array_equal(p.checkpoints, first.checkpoints) or set(p.curves) != set(first.curves) \
                or set(p.finals) != set(first.finals) or (p.pulls is None) != (first.pulls is None):
            raise ValueError("blocks of one simulation disagree in checkpoints, curves, finals or pulls")
    return SimulationOutput(
        checkpoints=first.checkpoints,
        curves={k: np.concatenate([p.curves[k] for p in parts]) for k in first.curves},
        finals={k: np.concatenate([p.finals[k] for p in parts]) for k in first.finals},
        pulls=None if first.pulls is None else np.concatenate([p.pulls for p in parts]),
    )


def _validate_output(out: SimulationOutput, n_reps: int, exp: ExperimentSpec, algorithm: str) -> None:
    where = f"{exp.paper}/{exp.id}/{algorithm}"
    for name, arr in out.curves.items():
        if arr.shape[0] != n_reps or arr.shape[1] != len(out.checkpoints):
            raise ValueError(f"{where}: curve {name!r} has shape {arr.shape}, expected ({n_reps}, {len(out.checkpoints)})")
    for name, arr in out.finals.items():
        if arr.shape[0] != n_reps:
            raise ValueError(f"{where}: final {name!r} has {arr.shape[0]} rows, expected {n_reps}")


def shard_provenance(exp: ExperimentSpec, seed: int, start: int, stop: int, scale: str,
                     sources: dict | None = None) -> dict:
    """A shard's provenance; ``sources``: the digest of the package sources the job ran with (the rule's param)."""
    return provenance.record({"experiment": exp.config, "scale": scale}, seed, exp.repo_root, sources,
                             paper=exp.paper, experiment=exp.id, replications=[start, stop])
