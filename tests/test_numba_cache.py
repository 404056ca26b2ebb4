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
