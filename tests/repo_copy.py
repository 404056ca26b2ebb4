"""Temporary copies of the project for workflow tests (imported by conftest.py and the workflow tests)."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

from child_env import user_environ

REPO_ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]



def copy_repo(dest: Path) -> Path:
    """A copy of the project as a fresh clone holds it (tracked and untracked-but-not-ignored files), with
    ../shared beside it when the repository has one, so the data mirror resolves as it does here. Without a
    mirror the copy is configured offline (data.allow_download: false): figures that need data nobody has
    are skipped with the workflow's one-line reason instead of a download job failing."""
    from banditrepro.data import resolve_mirror

    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO_ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = REPO_ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    shared = REPO_ROOT.parent / "shared"
    if shared.exists() and not (dest.parent / "shared").exists():
        (dest.parent / "shared").symlink_to(shared)
    if resolve_mirror({"data": {"mirror": None}}, dest) is None:
        config = dest / "config" / "config.yaml"
        text = config.read_text()
        assert "allow_download: true" in text, "config/config.yaml no longer has data.allow_download: true"
        config.write_text(text.replace("allow_download: true", "allow_download: false"))
    return dest


def copy_build(build: Path, dest: Path) -> Path:
    """A copy of a built project (a ``smoke_build``, conftest.py) for a test that changes it or runs Snakemake
    in it: files keep their times, so Snakemake finds the copy up to date; ../shared is linked beside it as
    beside ``build``."""
    shutil.copytree(build, dest, symlinks=True)
    shared = build.parent / "shared"
    if shared.exists() and not (dest.parent / "shared").exists():
        (dest.parent / "shared").symlink_to(shared.resolve())
    return dest


def shared_build(root: Path, name: str, make) -> Path:
    """``root/name/repo``, made by ``make(repo)`` once for every process that asks (the pytest-xdist workers
    share ``root``): the first caller makes it under a file lock, the others wait for it and reuse it. A failed
    ``make`` is remembered: every caller fails with its message, and nobody makes it again."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    repo, done, failed = folder / "repo", folder / "done", folder / "failed"
    with open(folder / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not done.exists() and not failed.exists():
            try:
                make(repo)
            except BaseException:
                failed.write_text(traceback.format_exc())
                raise
            done.touch()
    if failed.exists():
        raise AssertionError(f"the shared build {name} failed (in this or another pytest worker):\n"
                             f"{failed.read_text()[-8000:]}")
    return repo


def snakemake_env(repo: Path) -> dict[str, str]:
    """The environment of a Snakemake run in a copy: this process's, with numba's target variables as the user
    gave them (child_env.py)."""
    env = user_environ()
    if (repo.parent / "shared").exists():
        env.pop("BANDITREPRO_DATA_MIRROR", None)
    return env


def run_snakemake(repo: Path, *args: str, check: bool = True, timeout: float | None = None
                  ) -> subprocess.CompletedProcess:
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(repo), "--snakefile", str(repo / "Snakefile"), *args],
                          capture_output=True, text=True, env=snakemake_env(repo), timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    return proc


def result_bytes(repo: Path, paper: str) -> dict[str, bytes]:
    """Every result and figure file of a paper (shards, CSVs, Markdown, PNG, PDF, provenance), by path."""
    files = {}
    for top in ("results", "figures"):
        base = repo / top / paper
        for path in sorted(base.rglob("*")):
            if path.is_file():
                files[str(path.relative_to(repo))] = path.read_bytes()
    return files


# The cheapest paper: satisficing_ucl at smoke scale (5 simulation shards, about 30 jobs).
CHEAP_PAPER = "satisficing_ucl"
