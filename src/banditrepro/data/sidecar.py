"""Provenance sidecars of processed outputs (``<dataset>.provenance.json``) and the STANDIN marker.

Every processed dataset folder holds ``<dataset>.provenance.json`` with at least::

    {"dataset": ..., "standin": bool, "created_at": ..., "inputs": {file: {sha256, origin}},
     "outputs": {file: {sha256, shape, dtype}}, "parameters": {...}, "summary": {...}}

``standin: true`` means the raw inputs were synthetic stand-ins (banditrepro.data.standin); figures and
claims built on such outputs must be labelled STAND-IN DATA. Stand-in folders also hold a ``STANDIN`` file
so that the marker is visible in a plain directory listing.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np

from .integrity import sha256_file, staged_file

STANDIN_MARKER = "STANDIN"


def sidecar_name(dataset: str) -> str:
    return f"{dataset}.provenance.json"


def describe_output(path: Path) -> dict:
    path = Path(path)
    info: dict = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    if path.suffix == ".npy":
        array = np.load(path, mmap_mode="r")
        info.update(shape=list(array.shape), dtype=str(array.dtype))
    return info


def write_sidecar(out_dir: Path, dataset: str, record: dict, outputs: list[Path], parameters: dict,
                  summary: dict) -> Path:
    out_dir = Path(out_dir)
    standin = bool(record.get("standin"))
    payload = {
        "dataset": dataset,
        "standin": standin,
        "label": "STAND-IN DATA" if standin else "real data",
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "inputs": {name: {"sha256": entry["sha256"], "origin": entry.get("origin")}
                   for name, entry in sorted(record.get("files", {}).items())},
        "outputs": {Path(p).name: describe_output(p) for p in outputs},
        "parameters": parameters,
        "summary": summary,
    }
    target = out_dir / sidecar_name(dataset)
    with staged_file(target) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True, default=_json_default) + "\n",
                       encoding="utf-8")
    marker = out_dir / STANDIN_MARKER
    if standin:
        marker.write_text("These files were built from synthetic stand-in data (same schema as the real "
                          "Kaggle files, random content). Label anything built on them STAND-IN DATA.\n",
                          encoding="utf-8")
    elif marker.exists():
        marker.unlink()
    return target


def read_sidecar(out_dir: Path, dataset: str) -> dict:
    return json.loads((Path(out_dir) / sidecar_name(dataset)).read_text(encoding="utf-8"))


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
