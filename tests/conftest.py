import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


os.environ.setdefault("NUMBA_CACHE_DIR", str(REPO_ROOT / ".numba_cache"))
# the workflow tests share tests/repo_copy.py (temporary copies of the project)
sys.path.insert(0, str(Path(__file__).resolve().parent))

from repo_copy import CHEAP_PAPER, copy_repo, run_snakemake  # noqa: E402 - after the sys.path entry above


@pytest.fixture(scope="session")
def cheap_paper_reference(tmp_path_factory) -> Path:
    """An uninterrupted local smoke build of the cheapest paper, for byte comparisons."""
    root = tmp_path_factory.mktemp("reference")
    repo = copy_repo(root / "repo")
    run_snakemake(repo, "--cores", "2", CHEAP_PAPER, "--config", "scale=smoke")
    return repo
