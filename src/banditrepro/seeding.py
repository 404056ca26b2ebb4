"""Seeds: one root seed, one ``SeedSequence`` child per (paper, experiment, [algorithm,] replication).

A path of names is mapped to a ``spawn_key`` with a stable 32-bit hash of each name, and the
replications of that path are ``SeedSequence(root, spawn_key=path).spawn(n_total)``. Replication
r always gets child r whatever shard it runs in, so sharding and ``--cores`` cannot change results.
"""

from __future__ import annotations

import hashlib

import numpy as np


def name_id(name: str) -> int:
    """Stable 32-bit id of a name (sha256 prefix; Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "little")


def replication_keys(root_seed: int, path: tuple[str, ...], n_total: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """64-bit Philox keys of replications ``start..stop-1`` of the stream named by ``path``."""
    if stop is None:
        stop = n_total
    if not (0 <= start <= stop <= n_total):
        raise ValueError(f"replication range [{start}, {stop}) is outside [0, {n_total})")
    parent = np.random.SeedSequence(root_seed, spawn_key=tuple(name_id(p) for p in path))
    children = parent.spawn(n_total)[start:stop]
    return np.array([c.generate_state(1, np.uint64)[0] for c in children], dtype=np.uint64)
