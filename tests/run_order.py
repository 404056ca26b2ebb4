"""The order in which the suite hands its test files to the pytest-xdist workers (conftest.py's
``pytest_collection_modifyitems``; docs/testing.md "Timings").

``--dist loadfile`` gives each worker whole files in the order they were collected. A long file handed out late
runs alone at the end while the other worker idles (a whole-suite run on 2 cores ended with
tests/test_cluster.py and tests/test_mutants_rebuild.py running alone for minutes). So the files go out
longest first (the longest-processing-time-first rule, within 4/3 of the best schedule): the heavy files in
``HEAVY_FILES``' order, then the first file of each ``KERNEL_SHARERS`` entry, then ``LONG_FAST_FILES`` in their
order, then the other files with slow tests, then the rest, then the other ``KERNEL_SHARERS`` files, each group
in collected order. (pytest-xdist keeps this order only with ``--no-loadscope-reorder``, pyproject.toml.)

``HEAVY_FILES`` lists the costliest files, costliest first, by the wall seconds a file took in a whole
``pytest -m slow`` run on 2 cores (``--durations``; the smoke builds shared across files are charged to the
file that asks first). Only the order matters: a file left out runs after them, a file listed that no longer
exists fails ``tests/test_run_order.py``.
"""

from __future__ import annotations

HEAVY_FILES = (
    "tests/test_workflow.py",  # the five papers' smoke builds, shared with the files below
    "tests/test_mutants_rebuild.py",  # a mutants run and two rebuilds of penalized_fairness from scratch
    "tests/test_cluster.py",  # a DAG through the cluster executor, one Snakemake process per job
    "tests/test_faults.py",  # interrupted and resumed runs, failing jobs
    "tests/test_report.py",  # the reports of a smoke build
    "tests/test_new_paper.py",  # a sixth paper built from docs/ADDING_A_PAPER.md
    "tests/test_mutants.py",  # the mutants' dry runs
    "tests/test_robustness.py",
    "tests/test_stale_results.py",
    "tests/test_portability.py",
    "tests/data/test_data_workflow.py",
    "tests/test_readme.py",
)

# Files that run one heavy kernel compiled once for the whole run (conftest.py's ``compiled_once``): the first
# goes out right after the heavy files, so one worker compiles the kernel while the other runs other files, and
# the rest go out last, when numba's cache holds it. Handed out side by side, the second file's worker waited on
# the compile lock instead (101 s of a 465-s fast loop from an empty cache, commit e3e313f).
KERNEL_SHARERS = {
    "censored_simulate": ("tests/censored_resources/test_statistical.py", "tests/test_runner.py",
                          "tests/censored_resources/test_reference_claim.py",
                          "tests/censored_resources/test_kernel_bench.py"),
}


# The longest files of the fast loop (wall seconds of each in a cold `pytest -m "not slow"` on 2 cores, commit
# 6ecc434: 38, 26, 22, 22, 16, 16 s), handed out after the heavy and compiling files: left in collected order,
# test_rng.py went out last and ran alone for the last 22 s of a 180-s fast loop.
LONG_FAST_FILES = (
    "tests/test_rng.py",
    "tests/censored_resources/test_fast_kernels.py",
    "tests/penalized_fairness/test_policies.py",
    "tests/satisficing_select/test_calibrated_checks.py",
    "tests/censored_resources/test_environments.py",
    "tests/composite_anonymous/test_ars.py",
)


def file_of(nodeid: str) -> str:
    """The file of a test's node id, as ``HEAVY_FILES`` names it."""
    return nodeid.split("::")[0]


def run_order(items: list) -> list:
    """``items`` (pytest items: ``nodeid``, ``get_closest_marker``) in the order their files go to the workers;
    the tests of a file keep their collected order."""
    rank = {name: i for i, name in enumerate(HEAVY_FILES)}
    long_fast = {name: i for i, name in enumerate(LONG_FAST_FILES)}
    slow_files = {file_of(item.nodeid) for item in items if item.get_closest_marker("slow")}
    compiling = {files[0] for files in KERNEL_SHARERS.values()}
    reusing = {name for files in KERNEL_SHARERS.values() for name in files[1:]}

    def key(item) -> tuple[int, int]:
        name = file_of(item.nodeid)
        if name in rank:
            return (0, rank[name])
        if name in compiling:
            return (1, 0)
        if name in long_fast:
            return (2, long_fast[name])
        if name in reusing:
            return (5, 0)
        return (3 if name in slow_files else 4, 0)

    return sorted(items, key=key)  # stable: equal keys keep the collected order
