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


def record(config_subset: dict, seed: int, repo_root: Path | str = ".", **extra) -> dict:
    """Provenance of a result: the config it came from (and its hash), seed, version, commit."""
    return {
        "package": "banditrepro",
        "package_version": __version__,
        "git_commit": git_commit(repo_root),
        "seed": int(seed),
        "config_sha256": config_hash(config_subset),
        "config": config_subset,
        **extra,
    }


def write_sidecar(result_path: Path | str, prov: dict) -> Path:
    """Write ``<result>.provenance.json`` next to a result file."""
    path = Path(str(result_path) + ".provenance.json")
    path.write_text(json.dumps(prov, indent=2, sort_keys=True, default=str) + "\n")
    return path
