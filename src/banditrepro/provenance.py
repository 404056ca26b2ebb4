"""Provenance records attached to every result file (no timestamps: outputs stay byte-stable)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from contextlib import contextmanager
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


def config_sha256(config_subset) -> str:
    """The ``config_sha256`` a result records of ``config_subset``: without the execution-only settings, of its
    canonical JSON. `verify` computes it from the current config to compare (banditrepro.lock)."""
    return config_hash(_without_execution_settings(config_subset))


def recorded_config(config_subset):
    """``config_subset`` as a result records it and reads back: without the execution-only settings, through
    JSON (tuples become lists, other objects their text)."""
    return json.loads(canonical_json(_without_execution_settings(config_subset)))


# What the job that is running records in every result it writes, beside what its script passes to record():
# the workflow scripts it runs (banditrepro.workflow_io.run sets it around a script's main, banditrepro.sources
# .scripts_record). One job per process (or per fork of the build's worker), so a module-level value.
_JOB: dict = {}


@contextmanager
def recording(**fields):
    """Within it, every :func:`record` also holds ``fields`` (``scripts``: the workflow scripts of the job)."""
    saved = dict(_JOB)
    _JOB.update(fields)
    try:
        yield
    finally:
        _JOB.clear()
        _JOB.update(saved)


def record(config_subset: dict, seed: int, repo_root: Path | str = ".", sources: dict | None = None,
           **extra) -> dict:
    """Provenance of a result: the config it came from (and its hash), seed, version, commit and, from the
    workflow, ``sources``: the digest of the package sources its job ran with and how many files it covers
    (``{"sha256", "files"}``, banditrepro.sources.sources_record), and ``scripts``: the rule and the digest of
    the workflow scripts it ran (:func:`recording`); `verify` compares the config hash, sources and scripts with
    the tree's."""
    config_subset = _without_execution_settings(config_subset)
    return {
        "package": "banditrepro",
        "package_version": __version__,
        "git_commit": git_commit(repo_root),
        "seed": int(seed),
        "config_sha256": config_hash(config_subset),
        "config": config_subset,
        **({"sources": dict(sources)} if sources is not None else {}),
        **{k: v for k, v in _JOB.items() if v is not None},
        **extra,
    }


def recorded_sources(prov: dict) -> str | None:
    """The sources digest a provenance record holds; None for a result made outside the workflow or before
    results recorded their sources."""
    sources = prov.get("sources")
    return sources.get("sha256") if isinstance(sources, dict) else None


def recorded_scripts(prov: dict) -> dict | None:
    """The ``scripts`` a provenance record holds (``{"rule", "sha256", "files": {path: sha256}}``); None for a
    result made outside a workflow script or before results recorded their scripts."""
    scripts = prov.get("scripts")
    return scripts if isinstance(scripts, dict) and isinstance(scripts.get("files"), dict) else None


def write_sidecar(result_path: Path | str, prov: dict) -> Path:
    """Write ``<result>.provenance.json`` next to a result file."""
    path = Path(str(result_path) + ".provenance.json")
    path.write_text(json.dumps(prov, indent=2, sort_keys=True, default=str) + "\n")
    return path
