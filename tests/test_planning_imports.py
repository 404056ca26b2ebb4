"""Planning the workflow (`snakemake -n`: reading the Snakefile and building the DAG) imports only what it needs.

Every `snakemake` call plans the whole DAG first, and the Snakefile loads every paper's spec while it does
(issue 41: `snakemake -n` in at most 3 s). The statistics libraries that only jobs use (scipy.stats: about a
second to import; matplotlib) must not be imported then: a module the paper packages import at planning time
imports them where they are used (report/statistics_reference.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from repo_copy import copy_repo, snakemake_env

#: modules that planning must not import (a name and everything below it)
NOT_AT_PLANNING = ("scipy.stats", "matplotlib")

# runs `snakemake -n` in this interpreter, then prints the modules it imported
PLAN = textwrap.dedent("""
    import json, sys
    from snakemake.cli import main
    try:
        main(sys.argv[1:])
    except SystemExit as end:
        code = end.code
    print(json.dumps({"rc": code, "modules": sorted(sys.modules)}))
""")


def planning_modules(repo, *args: str) -> set[str]:
    """The modules imported by `snakemake -n ARGS` in ``repo`` (which must plan without an error)."""
    argv = ["--directory", str(repo), "--snakefile", str(repo / "Snakefile"), *args, "-n", "--quiet", "all"]
    proc = subprocess.run([sys.executable, "-c", PLAN, *argv], capture_output=True, text=True,
                          env=snakemake_env(repo), timeout=300, check=False)
    assert proc.stdout.strip(), f"the dry run printed nothing:\n{proc.stderr[-4000:]}"
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["rc"] == 0, f"snakemake -n {' '.join(args)} failed:\n{proc.stderr[-4000:]}"
    return set(found["modules"])


def imported(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return copy_repo(tmp_path_factory.mktemp("plan") / "repo")


@pytest.mark.slow
@pytest.mark.parametrize("args", [(), ("--config", "scale=smoke")], ids=["paper", "smoke"])
def test_planning_imports_no_job_only_library(repo, args):
    modules = planning_modules(repo, *args)
    assert imported(modules, "banditrepro.experiments.spec"), "the probe did not plan the workflow"
    assert not [name for name in NOT_AT_PLANNING if imported(modules, name)], (
        f"planning imports {[n for n in NOT_AT_PLANNING if imported(modules, n)]}: import them where they are "
        "used, not at the top of a module the Snakefile or a paper package imports")


def test_import_check_sees_a_module_and_its_children():
    """The check above can fail: a submodule counts as its package, a same-prefix name does not."""
    assert imported({"scipy.stats._stats_py"}, "scipy.stats")
    assert imported({"matplotlib"}, "matplotlib")
    assert not imported({"scipy.special", "matplotlibx"}, "scipy.stats") and not imported({"matplotlibx"}, "matplotlib")


@pytest.mark.slow
def test_a_second_plan_imports_no_kernels_and_no_pandas(repo):
    """The specs of a plan whose configs did not change come from the planning cache (load_paper_cached), so it
    imports none of the modules that register a paper's functions, and with them neither numba nor pandas."""
    planning_modules(repo, "--config", "scale=smoke")  # writes the cache entries (or finds them)
    modules = planning_modules(repo, "--config", "scale=smoke")
    registering = [m for m in modules if m.startswith("banditrepro.experiments.")
                   and m.rsplit(".", 1)[-1] in ("builders", "checks", "tables", "loops")]
    assert not registering, f"planned from a warm cache, it imported {registering}"
    assert not [name for name in ("numba", "pandas") if imported(modules, name)], (
        f"planning imports {[n for n in ('numba', 'pandas') if imported(modules, n)]}")
