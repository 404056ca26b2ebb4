"""The declared policy entries (``POLICY_ENTRIES`` of algorithms/*.py) against what the builders really run.

banditrepro.codegraph derives which policies own a unit of algorithms/ from those declarations; the mutation
machinery reruns only the owners' runs for a patch in it. This test runs one replication of every distinct
(builder, algorithm entry) of the figures the mutants rebuild, for every paper, with numba's compilation off
(tests/policy_trace.py, a child process), records every package function each run calls, and requires:

- soundness: every policy-owned unit a run executes is owned by a policy that the run's algorithm names (its
  id, or its ``policy``, ``variant`` or ``oracle`` value): a patch there is rerun wherever it can act;
- no rot: every function entry declared for a policy that some run names is executed by such a run (the
  builder really dispatches to it).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from banditrepro.experiments.spec import discover_papers
from banditrepro.mutation import names_run, paper_code

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = discover_papers(REPO_ROOT)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """fn(paper) -> the paper's traced runs (one child process per paper, once)."""
    found = {}

    def runs(paper: str) -> list[dict]:
        if paper not in found:
            scratch = tmp_path_factory.mktemp(f"policy_trace_{paper}")
            out = scratch / "runs.json"
            env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
            subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "policy_trace.py"), str(out),
                            str(scratch / "data"), paper], env=env, check=True, timeout=1800)
            found[paper] = json.loads(out.read_text())
        return found[paper]

    return runs


@pytest.mark.parametrize("paper", PAPERS)
def test_every_run_was_traced(traced, paper):
    runs = traced(paper)
    assert runs and [f"{r['experiment']}/{r['algorithm']}: {r['error']}" for r in runs if r["error"]] == []


@pytest.mark.parametrize("paper", PAPERS)
def test_a_run_executes_only_policy_code_of_the_policies_it_names(traced, paper):
    code = paper_code(paper)
    wrong = []
    for run in traced(paper):
        names = names_run(run["algorithm"], run["entry"])
        for module, line in run["executed"]:
            unit = code.graph.unit_at(module, line)
            owners = code.owners.get(unit)
            if owners and not owners & names:
                wrong.append(f"{run['experiment']}/{run['algorithm']} (names {sorted(names)}) runs {unit}, "
                             f"owned by {sorted(owners)}")
    assert wrong == [], "a policy-owned unit runs in another policy's runs: fix the POLICY_ENTRIES declarations"


@pytest.mark.parametrize("paper", PAPERS)
def test_every_declared_entry_of_a_policy_the_experiments_run_is_dispatched_to(traced, paper):
    code = paper_code(paper)
    mine = traced(paper)
    named = set().union(*(names_run(r["algorithm"], r["entry"]) for r in mine))
    missing = []
    for unit, policies in code.graph.entries(code.modules).items():
        if not isinstance(code.graph.modules[unit.module].nodes[unit], ast.FunctionDef):
            continue  # a kernel object or a class: created, not called (the functions it holds are checked)
        for policy in sorted(policies & named):
            ran = [r for r in mine if policy in names_run(r["algorithm"], r["entry"])
                   and any(code.graph.unit_at(m, line) == unit for m, line in r["executed"])]
            if not ran:
                missing.append(f"{unit} (declared for {policy})")
    assert missing == [], "declared entries that no run of their policy calls: fix the POLICY_ENTRIES declarations"
