"""Provenance records attached to every result file (no timestamps: outputs stay byte-stable)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from . import __version__


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def config_hash(obj) -> str:
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()


def git_commit(repo_root: Path | str = ".") -> str:
    """HEAD commit, suffixed '-dirty' when tracked files differ from it; 'unknown' outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo_root,
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# Settings that decide how the work is split into jobs, not what is computed. They are left out of the
# recorded config so that a result (and the figure carrying its hash) is byte-identical however it was sharded.
EXECUTION_ONLY_KEYS = frozenset({"shard_size"})


def _without_execution_settings(obj):
    if isinstance(obj, dict):
        return {k: _without_execution_settings(v) for k, v in obj.items() if k not in EXECUTION_ONLY_KEYS}
    if isinstance(obj, (list, tuple)):
        return [_without_execution_settings(v) for v in obj]
    return obj


def record(config_subset: dict, seed: int, repo_root: Path | str = ".", sources: dict | None = None,
           **extra) -> dict:
    """Provenance of a result: the config it came from (and its hash), seed, version, commit and, from the
    workflow, ``sources``: the digest of the package sources its job ran with and how many files it covers
    (``{"sha256", "files"}``, banditrepro.sources.sources_record), which `verify` compares with the tree's."""
    config_subset = _without_execution_settings(config_subset)
    return {
        "package": "banditrepro",
        "package_version": __version__,
        "git_commit": git_commit(repo_root),
        "seed": int(seed),
        "config_sha256": config_hash(config_subset),
        "config": config_subset,
        **({"sources": dict(sources)} if sources is not None else {}),
        **extra,
    }


def recorded_sources(prov: dict) -> str | None:
    """The sources digest a provenance record holds; None for a result made outside the workflow or before
    results recorded their sources."""
    sources = prov.get("sources")
    return sources.get("sha256") if isinstance(sources, dict) else None


def write_sidecar(result_path: Path | str, prov: dict) -> Path:
    """Write ``<result>.provenance.json`` next to a result file."""
    path = Path(str(result_path) + ".provenance.json")
    path.write_text(json.dumps(prov, indent=2, sort_keys=True, default=str) + "\n")
    return path
