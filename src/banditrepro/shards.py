"""Shard files: one ``.npz`` per block of replications of one experiment (every algorithm).

Neutral ground between the simulation side (:mod:`banditrepro.experiments.runner` writes shards)
and the reading side (:mod:`banditrepro.report`, aggregation), so neither imports the other.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .simulation_output import SimulationOutput


def save_shard(path: Path | str, results: dict[str, SimulationOutput], start: int, stop: int, prov: dict) -> None:
    """One .npz per shard; written to a temporary name and renamed, so no half-written shard survives."""
    arrays: dict[str, np.ndarray] = {"replications": np.array([start, stop], dtype=np.int64),
                                     "provenance": np.array(json.dumps(prov, sort_keys=True, default=str))}
    for algorithm, out in results.items():  # row-major on disk whatever layout a builder's arithmetic left
        arrays[f"{algorithm}/checkpoints"] = out.checkpoints
        for name, arr in out.curves.items():
            arrays[f"{algorithm}/curve/{name}"] = np.ascontiguousarray(arr)
        for name, arr in out.finals.items():
            arrays[f"{algorithm}/final/{name}"] = np.ascontiguousarray(arr)
        if out.pulls is not None:
            arrays[f"{algorithm}/pulls"] = np.ascontiguousarray(out.pulls)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_bytes(buf.getvalue())
        tmp.replace(path)
    except BaseException:
        # a failed write (disk full, interrupt) leaves neither a partial shard nor its temporary file
        tmp.unlink(missing_ok=True)
        raise


class ShardError(ValueError):
    """A shard file that cannot be read: truncated, corrupted or not a shard."""


def read_shard(path: Path | str) -> dict[str, np.ndarray]:
    """Every array of one shard; a truncated or corrupted file raises ShardError naming it."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        raise ShardError(f"shard {path} is truncated or corrupted ({type(exc).__name__}: {exc}); "
                         f"delete it and rerun to simulate it again") from exc
    if "replications" not in arrays:
        raise ShardError(f"shard {path} is not a banditrepro shard (no 'replications' array); "
                         f"delete it and rerun")
    return arrays


def read_shard_provenance(path: Path | str) -> dict:
    """The provenance of one shard, read without decompressing its arrays."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return json.loads(str(z["provenance"]))
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        raise ShardError(f"shard {path} has no readable provenance ({type(exc).__name__}: {exc}); "
                         f"delete it and rerun") from exc


def _rows(parts: list[np.ndarray]) -> np.ndarray:
    """The shards' blocks one after the other, always row-major: numpy's mean and sum over replications add in
    another order for a column-major array (pairwise instead of row by row), so a builder whose arrays came out
    column-major in one job and row-major in the next gave summaries that differed in the last bits."""
    return np.ascontiguousarray(np.concatenate(parts))


def load_shards(paths: list[Path | str], first: int = 0) -> dict[str, SimulationOutput]:
    """Concatenate shards (sorted by first replication) into one SimulationOutput per algorithm; together they
    must tile the replications from ``first`` (0: an experiment's whole set; a mutant job reads one shard)."""
    if not paths:
        raise ShardError("no shard files given")
    loaded = [read_shard(p) for p in paths]
    loaded.sort(key=lambda d: int(d["replications"][0]))
    expected = first
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
            curves={c: _rows([d[f"{algo}/curve/{c}"] for d in loaded]) for c in curves},
            finals={f: _rows([d[f"{algo}/final/{f}"] for d in loaded]) for f in finals},
            pulls=_rows([d[f"{algo}/pulls"] for d in loaded]) if has_pulls else None,
        )
    return merged
