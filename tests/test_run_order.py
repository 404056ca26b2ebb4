"""The files go to the pytest-xdist workers costliest first (tests/run_order.py, conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from run_order import HEAVY_FILES, KERNEL_SHARERS, LONG_FAST_FILES, run_order

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Item:
    """The part of a pytest item that run_order reads."""

    nodeid: str
    markers: set = field(default_factory=set)

    def get_closest_marker(self, name: str):
        return name if name in self.markers else None


def files_in_order(items: list[Item]) -> list[str]:
    seen: list[str] = []
    for item in items:
        name = item.nodeid.split("::")[0]
        if name not in seen:
            seen.append(name)
    return seen


def test_heavy_files_first_in_their_order_then_slow_files_then_the_rest():
    collected = [Item("tests/test_a.py::test_fast"),
                 Item("tests/test_b.py::test_slow", {"slow"}),
                 Item(f"{HEAVY_FILES[2]}::test_one", {"slow"}),
                 Item("tests/test_b.py::test_fast"),
                 Item(f"{HEAVY_FILES[0]}::test_one", {"slow"}),
                 Item(f"{HEAVY_FILES[2]}::test_two"),
                 Item(f"{HEAVY_FILES[0]}::test_two", {"slow"}),
                 Item("tests/test_c.py::test_slow", {"slow"})]
    ordered = run_order(collected)
    assert files_in_order(ordered) == [HEAVY_FILES[0], HEAVY_FILES[2], "tests/test_b.py", "tests/test_c.py",
                                       "tests/test_a.py"]
    # a file's tests keep their collected order, so its module fixtures and their users stay together
    assert [i.nodeid for i in ordered][:4] == [f"{HEAVY_FILES[0]}::test_one", f"{HEAVY_FILES[0]}::test_two",
                                               f"{HEAVY_FILES[2]}::test_one", f"{HEAVY_FILES[2]}::test_two"]


def test_a_shared_kernel_is_compiled_by_the_first_file_and_reused_by_the_last():
    (first, *others), = [files for files in KERNEL_SHARERS.values()][:1]
    collected = [Item(f"{others[0]}::test_x"), Item("tests/test_a.py::test_fast"), Item(f"{first}::test_y"),
                 Item("tests/test_b.py::test_slow", {"slow"}), Item(f"{HEAVY_FILES[0]}::test_one", {"slow"})]
    assert files_in_order(run_order(collected)) == [HEAVY_FILES[0], first, "tests/test_b.py", "tests/test_a.py",
                                                    others[0]]


def test_the_kernel_sharers_exist_and_ask_for_their_kernel():
    for kernel, files in KERNEL_SHARERS.items():
        for name in files:
            path = REPO_ROOT / name
            assert path.is_file(), f"tests/run_order.py names {name}, which does not exist"
            folder_conftest = path.parent / "conftest.py"
            here = path.read_text() + (folder_conftest.read_text() if folder_conftest.exists() else "")
            assert kernel in here, f"{name} does not ask for {kernel} (itself or in its folder's conftest.py)"


def test_the_long_fast_files_go_out_after_the_compiling_files_and_before_the_other_files():
    (first, *_), = [files for files in KERNEL_SHARERS.values()][:1]
    collected = [Item("tests/test_a.py::test_fast"), Item(f"{LONG_FAST_FILES[1]}::test_x"),
                 Item("tests/test_b.py::test_slow", {"slow"}), Item(f"{LONG_FAST_FILES[0]}::test_y"),
                 Item(f"{first}::test_z"), Item(f"{HEAVY_FILES[0]}::test_one", {"slow"})]
    assert files_in_order(run_order(collected)) == [HEAVY_FILES[0], first, LONG_FAST_FILES[0], LONG_FAST_FILES[1],
                                                    "tests/test_b.py", "tests/test_a.py"]


def test_the_long_fast_files_exist():
    for name in LONG_FAST_FILES:
        assert (REPO_ROOT / name).is_file(), f"tests/run_order.py names {name}, which does not exist"
    assert len(set(LONG_FAST_FILES)) == len(LONG_FAST_FILES)


def test_the_heavy_files_exist_and_hold_slow_tests():
    """A renamed or removed file must leave the table, else the order silently stops applying to it."""
    for name in HEAVY_FILES:
        path = REPO_ROOT / name
        assert path.is_file(), f"tests/run_order.py names {name}, which does not exist"
        assert "mark.slow" in path.read_text(), f"{name} holds no slow test: it belongs after the slow files"
    assert len(set(HEAVY_FILES)) == len(HEAVY_FILES)


def test_this_session_runs_its_heavy_files_first(request):
    """The hook is applied: in this run's collection the heavy files selected come first, in the table's order."""
    files = files_in_order(request.session.items)
    heavy = [f for f in files if f in HEAVY_FILES]
    assert files[: len(heavy)] == sorted(heavy, key=HEAVY_FILES.index)


def test_the_workers_get_the_files_in_this_order_not_by_their_number_of_tests(tmp_path):
    """pytest-xdist hands out whole files by their number of tests, most first, unless told not to
    (``--no-loadscope-reorder``, pyproject.toml): run_order alone then decides nothing but ties. A toy suite whose
    conftest puts a one-test file before a five-test file, run by one worker under the project's addopts, must
    run the one-test file first."""
    import subprocess
    import sys
    import tomllib

    addopts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    log = tmp_path / "ran.txt"
    (tmp_path / "conftest.py").write_text(
        "def pytest_collection_modifyitems(config, items):\n"
        "    items.sort(key=lambda item: 'test_few' not in item.nodeid)\n")
    body = f"def test_{{n}}():\n    open({str(log)!r}, 'a').write(__name__.rsplit('.', 1)[-1] + '\\n')\n"
    (tmp_path / "test_many.py").write_text("".join(body.format(n=i) for i in range(5)))
    (tmp_path / "test_few.py").write_text(body.format(n=0))
    (tmp_path / "pytest.ini").write_text(f"[pytest]\naddopts = {addopts.replace('-n auto', '-n 1')}\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert log.read_text().split()[0] == "test_few", \
        f"xdist reordered the files (addopts {addopts!r} lacks --no-loadscope-reorder?): {log.read_text().split()}"
