"""Every paper's reference implementation is independent of production (issue 39; docs/mutants.md, "Guards").

A reference guard sees a bug only in code the reference does not share with the build. So each
``src/banditrepro/experiments/<paper>/reference.py`` may import the standard library, numpy, numba, scipy and, of
the package, only the raw random numbers, the seeds, the output type, the reference protocol and the data loaders
below -- no builder, environment, algorithm kernel, loop, engine or metric -- and it implements
:class:`banditrepro.experiments.reference.ReferenceImplementation` as its module attribute ``REFERENCE`` (no
attribute swapped into a production simulation). Imports inside functions count, as in tests/test_layering.py.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from banditrepro.experiments.reference import ReferenceImplementation

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "banditrepro"
THIRD_PARTY = {"numpy", "numba", "scipy"}
ALLOWED = {
    "banditrepro.rng": "the raw counter-based random numbers (Philox) every draw of the build comes from",
    "banditrepro.seeding": "the replication keys",
    "banditrepro.simulation_output": "what a simulation returns (the output layout compared)",
    "banditrepro.experiments.reference": "the protocol a reference implements",
    "banditrepro.algorithms.beta_sampler": "an exact Beta sampler on the raw stream (Thompson sampling's draws)",
    "banditrepro.data.paths": "where the data files are",
    "banditrepro.data.fetch": "reading a data set's fetch record (which raw file is where)",
}
PAPERS = sorted(p.parent.name for p in PACKAGE.glob("experiments/*/reference.py"))


def _is_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "banditrepro":
        return False
    path = PACKAGE.joinpath(*parts[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(source: str, module: str) -> set[str]:
    """Every module ``source`` (the text of ``module``, a dotted name) imports, relative imports resolved; for
    ``from x import y`` the module x.y where y is a module of the package, else x."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(module.split(".")[:-node.level] + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base)
    return found


def forbidden_imports(source: str, module: str) -> list[str]:
    """The imports of ``source`` outside the allow-list, sorted."""
    bad = []
    for name in imported_modules(source, module):
        top = name.split(".")[0]
        if top == "banditrepro":
            if name not in ALLOWED:
                bad.append(name)
        elif top not in THIRD_PARTY and top not in sys.stdlib_module_names:
            bad.append(name)
    return sorted(bad)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_reference_imports_nothing_of_production(paper):
    module = f"banditrepro.experiments.{paper}.reference"
    source = (PACKAGE / "experiments" / paper / "reference.py").read_text(encoding="utf-8")
    bad = forbidden_imports(source, module)
    assert not bad, (f"{module} imports {bad}; a reference may import only {sorted(ALLOWED)}, the standard library "
                     f"and {sorted(THIRD_PARTY)} (docs/mutants.md, 'Guards')")


@pytest.mark.parametrize("paper", PAPERS)
def test_the_reference_implements_the_protocol(paper):
    module = importlib.import_module(f"banditrepro.experiments.{paper}.reference")
    assert isinstance(getattr(module, "REFERENCE", None), ReferenceImplementation)


def test_every_paper_with_a_reference_is_known():
    papers = sorted(p.stem for p in (PACKAGE.parents[1] / "config" / "papers").glob("*.yaml"))
    assert papers == PAPERS, "every paper keeps an end-to-end reference (docs/ADDING_A_PAPER.md, §2.1)"


def test_the_allow_list_catches_a_production_import():
    """The check itself, on hand-made violations: a builder, an environment, a kernel and the engine."""
    module = "banditrepro.experiments.penalized_fairness.reference"
    source = ("import math\nimport numpy as np\nfrom ... import rng\nfrom ...simulation_output import SimulationOutput\n"
              "from . import builders\nfrom ...environments import finite\n"
              "def f():\n    from ...algorithms.fairness import record_pull\n    from ...engine import StepSimulation\n")
    assert forbidden_imports(source, module) == ["banditrepro.algorithms.fairness", "banditrepro.engine",
                                                 "banditrepro.environments.finite",
                                                 "banditrepro.experiments.penalized_fairness.builders"]
    assert forbidden_imports("import pandas\nfrom sklearn import tree\n", module) == ["pandas", "sklearn"]
    assert forbidden_imports("from ...algorithms import beta_sampler\nfrom ... import rng, seeding\n", module) == []
