"""Shared set-up of the suite (docs/testing.md says how to run it and which fixture to use when).

- Two loops: ``pytest`` runs every test (CI, README); ``pytest -m "not slow"`` leaves out the tests marked
  ``slow`` (a Snakemake run or dry run, or a simulation of more than a few seconds) for daily work.
- pytest-xdist runs the tests in one worker per core (pyproject.toml: ``-n auto``; ``-n 0`` runs them in this
  process), a test file at a time (``--dist loadfile``): a file's module-scoped fixtures are made once, and
  the kernels its tests compile are compiled by one worker, not by both at once (with the tests of a file
  spread over two workers on an empty cache, 38 of the first 85 CPU-s of compiling were the same kernels
  compiled twice). The files with slow tests go first (``pytest_collection_modifyitems``), so that the long
  Snakemake runs start early and the short tests fill the gaps.
- numba's cache (NUMBA_CACHE_DIR, below) is shared by the workers and every child process they start, so a
  kernel is compiled once per run, not once per worker; ``numba_cache`` subdivides it by the package's sources.
- ``smoke_build(paper)``: a copy of the project in which ``snakemake --cores 2 <paper> --config scale=smoke``
  has run, made once per test run for every test and worker that asks (the first builds, the others wait).
  It is read-only: a test that changes it, or runs Snakemake in it, works on
  ``copy_build(smoke_build(paper), tmp_path / "repo")`` (Snakemake finds the copy up to date).
  ``cheap_paper_reference`` is ``smoke_build(CHEAP_PAPER)``. Other builds made once per run:
  ``repo_copy.shared_build(shared_tmp, name, make)``.
- A *per-paper test* is a test parametrized with ``paper`` (over ``discover_papers``), or whose parametrization id
  names a paper (``papers_of_item``); ``pytest --paper <paper>`` runs a paper's per-paper tests alone, and refuses
  to run while a test that runs for every other paper leaves it out (tests/test_new_paper.py runs the guide's new
  paper this way).
- Child processes start from ``child_env.user_environ()`` (or ``fresh_target_environ()`` where the child
  must choose numba's vector width itself), not from ``os.environ``, which importing banditrepro changed.
"""

import os
import re
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

import child_env  # noqa: E402,F401 - after the sys.path entry above, before any test module imports banditrepro
from repo_copy import CHEAP_PAPER, copy_repo, run_snakemake, shared_build  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--paper", action="append", default=[], metavar="PAPER",
                     help="run only the per-paper tests of PAPER (tests/conftest.py: papers_of_item), and fail if a "
                          "test that runs for every other paper does not run for it")


def papers_of_item(item) -> set[str]:
    """The papers a collected test is a *per-paper test* of: the value of its ``paper`` parameter, and every
    paper (config/papers/*.yaml, discover_papers) its parametrization id names as one of its parts (ids are
    joined by ``-``, a band case's label by ``:``). A test over several papers is parametrized over
    ``discover_papers(REPO_ROOT)`` (tests/test_new_paper.py fails on a written-out list), so a new paper gets
    every per-paper test a committed one runs, and ``pytest --paper <paper>`` runs exactly those."""
    from banditrepro.experiments.spec import discover_papers

    spec = getattr(item, "callspec", None)
    if spec is None:
        return set()
    papers = set(discover_papers(REPO_ROOT))
    found = {spec.params["paper"]} if isinstance(spec.params.get("paper"), str) else set()
    return found | (set(re.split(r"[-:\[\]/]", spec.id)) & papers)


def select_per_paper_tests(config, items) -> None:
    """``--paper P``: keep the per-paper tests of P, and refuse a run in which a test function that runs for every
    other paper has no test of P (a new paper missing from a test's parametrization)."""
    from banditrepro.experiments.spec import discover_papers

    wanted = config.getoption("--paper")
    if not wanted:
        return
    known = set(discover_papers(REPO_ROOT))
    if unknown := set(wanted) - known:
        raise pytest.UsageError(f"--paper: no config/papers/<paper>.yaml for {sorted(unknown)}")
    by_function: dict[str, set[str]] = {}
    for item in items:
        by_function.setdefault(item.nodeid.split("[", 1)[0], set()).update(papers_of_item(item))
    for paper in wanted:
        others = known - {paper}
        missed = sorted(f for f, covered in by_function.items() if others and others <= covered and paper not in covered)
        if missed:
            raise pytest.UsageError(f"--paper {paper}: these tests run for every other paper but not for {paper} "
                                    f"(parametrize them over discover_papers): {', '.join(missed)}")
    keep = [item for item in items if papers_of_item(item) & set(wanted)]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


def pytest_collection_modifyitems(config, items):
    """``--paper``: the per-paper tests of a paper only; then the costliest files first, then the other files with
    slow tests, then the rest (tests/run_order.py; every worker sorts alike)."""
    from run_order import run_order

    select_per_paper_tests(config, items)
    items[:] = run_order(items)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory) -> Path:
    """The run's temporary folder, seen by every pytest-xdist worker (each worker's own is inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def compiled_once():
    """``compiled_once(name, compile)``: ``compile()`` (a call that compiles a kernel, or loads it from numba's
    cache) run once per worker under ``banditrepro.numba_cache.compiling(name)``, the lock a simulation job takes
    around its first call (``<paper>-<builder>``). The first process to ask compiles and writes the cache; one
    that asks meanwhile -- the other pytest-xdist worker, or a job of a smoke build -- waits and loads it, instead
    of compiling the same kernel at the same time (on an empty cache, censored_resources' ``loops.simulate``,
    about 60 CPU-s, was compiled by both workers at once)."""
    from banditrepro import numba_cache

    done: set[str] = set()

    def once(name: str, compile) -> None:
        if name in done:
            return
        with numba_cache.compiling(name):
            compile()
        done.add(name)

    return once


@pytest.fixture(scope="session")
def censored_simulate(compiled_once):
    """censored_resources' simulation loop (``loops.simulate``), compiled by one worker (``compiled_once``)."""

    def compile() -> None:
        import numpy as np

        from banditrepro.algorithms import rcucb
        from banditrepro.environments import censored as ce
        from banditrepro.experiments.censored_resources.loops import CensoredSimulation

        taus = ce.resource_grid(1.0, 4)
        arms = ce.beta_exp_arms(np.array([0.8, 0.8]), np.array([0.2, 0.4]), [1.8, 1.8])
        sim = CensoredSimulation(arms, taus, ce.penalty_values(taus, "linear", high_slope=1.0), 0.1, "rcucb",
                                 rcucb.rcucb_params())
        sim.run(np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.uint64), [1])

    compiled_once("censored_resources-censored_synthetic", compile)  # the runner's lock name


@pytest.fixture(scope="session")
def smoke_build(shared_tmp):
    """``smoke_build(paper)``: the folder of a read-only smoke build of ``paper`` (module docstring)."""

    def build(paper: str) -> Path:
        def make(repo: Path) -> None:
            copy_repo(repo)
            run_snakemake(repo, "--cores", "2", paper, "--config", "scale=smoke")

        return shared_build(shared_tmp, f"smoke-{paper}", make)

    return build


@pytest.fixture(scope="session")
def cheap_paper_reference(smoke_build) -> Path:
    """An uninterrupted local smoke build of the cheapest paper, for byte comparisons (read-only)."""
    return smoke_build(CHEAP_PAPER)
