"""Run one shard (a block of replications of one experiment, every algorithm) and save it."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import numpy as np

from .. import provenance
from ..engine import SimulationOutput
from ..seeding import replication_keys
from .registry import SIMULATION_BUILDERS, lookup
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


def save_shard(path: Path | str, results: dict[str, SimulationOutput], start: int, stop: int, prov: dict) -> None:
    """One .npz per shard; written to a temporary name and renamed, so no half-written shard survives."""
    arrays: dict[str, np.ndarray] = {"replications": np.array([start, stop], dtype=np.int64),
                                     "provenance": np.array(json.dumps(prov, sort_keys=True, default=str))}
    for algorithm, out in results.items():
        arrays[f"{algorithm}/checkpoints"] = out.checkpoints
        for name, arr in out.curves.items():
            arrays[f"{algorithm}/curve/{name}"] = arr
        for name, arr in out.finals.items():
            arrays[f"{algorithm}/final/{name}"] = arr
        if out.pulls is not None:
            arrays[f"{algorithm}/pulls"] = out.pulls
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)


def load_shards(paths: list[Path | str]) -> dict[str, SimulationOutput]:
    """Concatenate shards (sorted by first replication) into one SimulationOutput per algorithm."""
    loaded = []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            loaded.append({k: z[k] for k in z.files})
    loaded.sort(key=lambda d: int(d["replications"][0]))
    expected = 0
    for d in loaded:
        start, stop = (int(x) for x in d["replications"])
        if start != expected:
            raise ValueError(f"shards do not tile the replications: gap or overlap at replication {expected}")
        expected = stop
    algorithms = sorted({k.split("/")[0] for k in loaded[0] if "/" in k})
    merged = {}
    for algo in algorithms:
        curves = sorted({k.split("/", 2)[2] for k in loaded[0] if k.startswith(f"{algo}/curve/")})
        finals = sorted({k.split("/", 2)[2] for k in loaded[0] if k.startswith(f"{algo}/final/")})
        has_pulls = f"{algo}/pulls" in loaded[0]
        merged[algo] = SimulationOutput(
            checkpoints=loaded[0][f"{algo}/checkpoints"],
            curves={c: np.concatenate([d[f"{algo}/curve/{c}"] for d in loaded]) for c in curves},
            finals={f: np.concatenate([d[f"{algo}/final/{f}"] for d in loaded]) for f in finals},
            pulls=np.concatenate([d[f"{algo}/pulls"] for d in loaded]) if has_pulls else None,
        )
    return merged


def shard_provenance(exp: ExperimentSpec, seed: int, start: int, stop: int, scale: str) -> dict:
    return provenance.record({"experiment": exp.config, "scale": scale}, seed, exp.repo_root,
                             paper=exp.paper, experiment=exp.id, replications=[start, stop])
