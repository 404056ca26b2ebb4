"""The sha256 of a set of files: what a result records of the code that made it, and what keys numba's cache.

One function, :func:`files_digest`, over each file's path (relative to a folder) and bytes in sorted order, so
that a file renamed, added, removed or edited gives another digest. Its users: banditrepro.sources (the package
sources a paper's jobs run with, and the workflow scripts a job ran) and banditrepro.numba_cache (one cache
directory per state of the package's sources). It lives apart from both so that neither imports the other.

Standard library only (ground floor).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def files_digest(paths: Iterable[str], base_dir: Path | str) -> str:
    """sha256 over the (relative path, bytes) of each of ``paths`` (relative to ``base_dir``) in sorted order."""
    base_dir = Path(base_dir)
    digest = hashlib.sha256()
    for rel in sorted(set(paths)):
        digest.update(rel.encode())
        digest.update(b"\0")
        digest.update((base_dir / rel).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def file_sha256(path: Path | str) -> str:
    """sha256 of one file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
