"""What a simulation returns and how it is read: the per-replication output of one (experiment,
algorithm) cell, the steps at which its curves are recorded, their mean and standard error.

numpy only (no numba): the modules that read results -- shards, summaries, the report context -- import
this, not the compiled engine (:mod:`banditrepro.engine`, which re-exports these names for the simulation
side), so reading results needs no numba (issue 27). A workflow job may still import numba with its paper's
package, which registers the paper's kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import portable


@dataclass
class SimulationOutput:
    """Per-replication results of one (experiment, algorithm) cell.

    ``curves[name]`` has shape (R, C) aligned with ``checkpoints``; ``finals[name]`` has
    shape (R,) (one number per replication, e.g. rounds reached); ``pulls`` has shape
    (R, C, n_arms) or is None.
    """

    checkpoints: np.ndarray
    curves: dict[str, np.ndarray]
    finals: dict[str, np.ndarray] = field(default_factory=dict)
    pulls: np.ndarray | None = None


def checkpoint_grid(horizon: int, spec: dict | None) -> np.ndarray:
    """Steps at which curves are recorded. spec: {every: k} | {points: n, spacing: linear|log} | {at: [...]}.

    The horizon is always included.
    """
    spec = spec or {"every": 1}
    if "at" in spec:
        pts = np.asarray(spec["at"], dtype=np.int64)
    elif "every" in spec:
        pts = np.arange(int(spec["every"]), horizon + 1, int(spec["every"]), dtype=np.int64)
    else:
        n = int(spec.get("points", 200))
        if spec.get("spacing", "linear") == "log":
            # portable.geomspace: np.geomspace's log10 and power run SVML on AVX-512 CPUs
            pts = np.unique(np.round(portable.geomspace(1, horizon, n)).astype(np.int64))
        else:
            pts = np.unique(np.round(np.linspace(1, horizon, n)).astype(np.int64))
    pts = pts[(pts >= 1) & (pts <= horizon)]
    return np.unique(np.append(pts, horizon)).astype(np.int64)


def summarize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Mean and standard error over replications (axis 0); se uses the n-1 sample sd."""
    n = values.shape[0]
    values = np.ascontiguousarray(values)  # row by row in every layout (see shards._rows)
    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full_like(mean, np.nan)
    return mean, se, n
