"""The layering rule of :mod:`banditrepro.engine`: algorithms/ holds decision kernels and imports no
environment (and no paper package); compiled loops live in engine.py or experiments/<paper>/."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import banditrepro

PACKAGE = Path(banditrepro.__file__).resolve().parent
FORBIDDEN = ("banditrepro.environments", "banditrepro.experiments")


def imported_modules(path: Path, package: str) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved against ``package``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)  # `from .. import environments`
    return names


def violations(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))


def test_imported_modules_resolves_relative_imports(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("from ..environments.composite import play_block\nfrom .. import environments\n"
                   "from .ucb import ucb1\nimport banditrepro.experiments.runner\n")
    names = imported_modules(src, "banditrepro.algorithms")
    assert {"banditrepro.environments.composite", "banditrepro.environments",
            "banditrepro.algorithms.ucb", "banditrepro.experiments.runner"} <= names
    assert violations(names) == ["banditrepro.environments", "banditrepro.environments.composite",
                                 "banditrepro.environments.composite.play_block",
                                 "banditrepro.experiments.runner"]


def test_no_algorithm_module_imports_an_environment_or_a_paper():
    modules = sorted((PACKAGE / "algorithms").rglob("*.py"))
    assert len(modules) > 5
    bad = {}
    for path in modules:
        found = violations(imported_modules(path, "banditrepro.algorithms"))
        if found:
            bad[str(path.relative_to(PACKAGE))] = found
    assert not bad, f"algorithms/ must not import environments/ or experiments/ (rule in engine.py): {bad}"


def test_importing_every_algorithm_loads_no_environment():
    """Transitively too: nothing algorithms/ imports (engine, rng, ...) may pull in an environment."""
    names = [f"banditrepro.algorithms.{p.stem}" for p in sorted((PACKAGE / "algorithms").glob("*.py"))]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_simulation_module_at_the_package_top():
    """Paper-specific loops live in experiments/<paper>/ (fairness_simulation.py moved there)."""
    assert not (PACKAGE / "fairness_simulation.py").exists()
