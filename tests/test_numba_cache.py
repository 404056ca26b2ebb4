"""The package's numba cache directory follows its sources (banditrepro.numba_cache)."""

import shutil
from pathlib import Path

import numba

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
