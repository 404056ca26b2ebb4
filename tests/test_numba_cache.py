"""The package's numba cache directory follows its sources (banditrepro.numba_cache)."""

import os
import shutil
from pathlib import Path

import numba
import pytest

import banditrepro
from banditrepro import numba_cache


def test_importing_the_package_points_numba_at_the_source_keyed_directory():
    expected = numba_cache.cache_dir()
    assert expected.name == "banditrepro-" + numba_cache.source_hash()[:16]
    assert str(expected) == numba.config.CACHE_DIR
    assert banditrepro.__version__


def test_any_source_edit_gives_another_directory(tmp_path, monkeypatch):
    copy = tmp_path / "banditrepro"
    shutil.copytree(Path(numba_cache.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(numba_cache, "_PACKAGE_DIR", copy)
    before = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert before.parent == tmp_path / "cache"
    kernel = copy / "algorithms" / "rcucb.py"
    kernel.write_text(kernel.read_text() + "\n# edited\n")
    after = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert after != before and after.parent == before.parent


def test_a_child_process_resolves_the_same_base(tmp_path):
    """configure() exports the hashed directory; a child importing the package must not nest another one in it."""
    parent = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path)})
    child = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(parent)})
    assert child == parent


def test_default_base_is_the_user_cache(tmp_path):
    path = numba_cache.cache_dir({"XDG_CACHE_HOME": str(tmp_path)})
    assert path.parent == tmp_path / "banditrepro" / "numba"


def _held(path: Path) -> bool:
    """Whether another open file holds an exclusive lock on ``path`` (flock locks belong to open files)."""
    import fcntl

    with open(path, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def test_compiling_holds_a_lock_in_the_cache_directory_while_its_body_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "banditrepro-0123456789abcdef"))
    lock = tmp_path / "banditrepro-0123456789abcdef" / "compile-paper-builder.lock"
    with numba_cache.compiling("paper-builder"):
        assert _held(lock)
        assert not _held(tmp_path / "banditrepro-0123456789abcdef" / "compile-other.lock")
    assert not _held(lock)


def test_compiling_goes_on_without_a_lock_where_it_cannot_make_one(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "cache"))  # cannot be a directory
    ran = []
    with numba_cache.compiling("paper-builder"):
        ran.append(True)
    assert ran == [True]


def _run_kernel(package_parent: Path, cache: Path) -> dict:
    """Call a cached kernel of the package copy under ``package_parent`` in a fresh process; its cache stats."""
    import json
    import subprocess
    import sys

    code = "\n".join([
        "import json, numpy as np, banditrepro.algorithms.odaaf as m",
        f"assert m.__file__.startswith({str(package_parent)!r})",
        "m.eliminate(np.ones(3), np.ones(3), np.ones(3, dtype=np.bool_), 0.5)",
        "s = m.eliminate.stats",
        "print(json.dumps({'hits': sum(s.cache_hits.values()), 'misses': sum(s.cache_misses.values()),"
        " 'path': m.eliminate._cache._cache_path}))",
    ])
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", numba_cache.LOCATORS_VARIABLE)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**env, "PYTHONPATH": str(package_parent), "NUMBA_CACHE_DIR": str(cache)})
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # three fresh interpreters, each importing numba (about 7 CPU-s)
def test_two_trees_with_the_same_sources_share_compiled_kernels_and_an_edit_does_not(tmp_path):
    """A kernel compiled from one copy of the package is loaded, not compiled, by a copy at another path with the
    same sources (the package-relative locator); a copy with any other source compiles its own."""
    package = Path(numba_cache.__file__).parent
    trees = {}
    for name in ("first", "second", "edited"):
        trees[name] = tmp_path / name
        shutil.copytree(package, trees[name] / "banditrepro", ignore=shutil.ignore_patterns("__pycache__"))
    other = trees["edited"] / "banditrepro" / "algorithms" / "ucb.py"  # not the kernel called: another file
    other.write_text(other.read_text() + "\n# edited\n")
    cache = tmp_path / "cache"
    first = _run_kernel(trees["first"], cache)
    second = _run_kernel(trees["second"], cache)
    edited = _run_kernel(trees["edited"], cache)
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert second["path"] == first["path"] and first["path"].endswith(os.path.join("package", "algorithms"))
    assert (edited["hits"], edited["misses"]) == (0, 1) and edited["path"] != first["path"]


def test_files_outside_the_package_keep_numba_s_own_locator():
    assert numba_cache.package_relative_folder("banditrepro.algorithms.odaaf", "/x/banditrepro/algorithms/odaaf.py") \
        == "algorithms"
    assert numba_cache.package_relative_folder("banditrepro.experiments.select.loops",
                                                "/x/banditrepro/experiments/select/loops.py") == "experiments/select"
    assert numba_cache.package_relative_folder("generated_runner", "/cache/generated_runner.py") is None
    assert numba_cache.package_relative_folder("banditrepro.algorithms.odaaf", "/x/elsewhere/odaaf_copy.py") is None
