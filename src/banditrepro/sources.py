"""Which package modules a paper's jobs may import, read from the sources (no module is imported).

A job imports its workflow script's package modules, the paper package (``load_paper`` imports
``banditrepro.experiments.<paper>``, whose registered functions the generic code finds by name), the data
modules the manifest names (preprocessing and stand-in generators, imported by name) and the modules a paper's
own rule file runs (``python -m banditrepro...``); each of those imports others. :func:`import_closure` follows
every ``import`` statement of the package, at module level or inside a function (conservatively: an import
in a branch that never runs counts too).

Paths are relative to the package directory (``algorithms/ucl.py``, ``experiments/__init__.py``).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

PACKAGE = "banditrepro"
PACKAGE_DIR = Path(__file__).resolve().parent
_DOTTED = re.compile(rf"\b{PACKAGE}((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def _repo_root(package_dir: Path) -> Path:
    return Path(package_dir).resolve().parents[1]  # <root>/src/banditrepro


def module_path(dotted: str, package_dir: Path | str = PACKAGE_DIR) -> str | None:
    """The relative path of package module ``dotted`` (``experiments.runner`` or ``banditrepro.rng``), or None."""
    parts = [p for p in dotted.split(".") if p]
    if parts and parts[0] == PACKAGE:
        parts = parts[1:]
    base = Path(package_dir)
    for candidate in ("/".join(parts) + ".py", "/".join([*parts, "__init__.py"])):
        if parts and (base / candidate).is_file():
            return candidate
    if not parts:
        return "__init__.py"
    return None


def _package_of(relpath: str) -> list[str]:
    """The dotted package parts of a module path (``experiments/x/builders.py`` -> [experiments, x])."""
    return relpath[:-3].split("/")[:-1]  # a package's __init__ is relative to the package itself


def _parents(relpath: str) -> list[str]:
    """The ``__init__.py`` of every package above ``relpath`` (importing a submodule runs them)."""
    parts = relpath.split("/")[:-1]
    return ["/".join([*parts[:i], "__init__.py"]) for i in range(len(parts) + 1)]


def _statements(node: ast.AST):
    """Every statement under ``node``, nested bodies included (imports are statements: no need to walk the
    expressions, which are most of a module's nodes)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()) or ():
            yield child
            yield from _statements(child)


def imported_modules(tree: ast.AST, relpath: str | None, package_dir: Path | str = PACKAGE_DIR) -> set[str]:
    """The package modules an AST imports (anywhere in it); ``relpath`` resolves relative imports (None for a
    file outside the package, such as a workflow script)."""
    found: set[str] = set()

    def add(dotted_parts: list[str], names: Iterable[str] = ()) -> None:
        target = module_path(".".join(dotted_parts), package_dir)
        if target is None:
            return
        found.add(target)
        for name in names:  # `from x import y`: y may be a submodule
            sub = module_path(".".join([*dotted_parts, name]), package_dir)
            if sub is not None:
                found.add(sub)

    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    add(alias.name.split(".")[1:])
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names if a.name != "*"]
            if node.level == 0:
                if node.module and (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
                    add(node.module.split(".")[1:], names)
            elif relpath is not None:
                base = _package_of(relpath)
                if node.level > 1:
                    base = base[: len(base) - (node.level - 1)]
                add([*base, *(node.module.split(".") if node.module else [])], names)
    return found


@lru_cache(maxsize=4096)
def _imports_of(text: str, rel: str | None, package_dir: str) -> frozenset[str]:
    """imported_modules of one file's text, parsed once per content."""
    return frozenset(imported_modules(ast.parse(text), rel, package_dir))


def _file_imports(path: Path, rel: str | None, package_dir: Path) -> frozenset[str]:
    return _imports_of(path.read_text(encoding="utf-8"), rel, str(package_dir))


def import_closure(modules: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """Sorted relative paths of ``modules`` (relative paths) and of every package module they import,
    transitively, with the ``__init__.py`` of each package on the way."""
    package_dir = Path(package_dir)
    todo = [m for m in modules]
    seen: set[str] = set()
    while todo:
        rel = todo.pop()
        if rel in seen or not (package_dir / rel).is_file():
            continue
        seen.add(rel)
        todo += _parents(rel)
        todo += sorted(_file_imports(package_dir / rel, rel, package_dir))
    return sorted(seen)


def script_modules(package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """The package modules the workflow scripts (``<root>/workflow/scripts/*.py``) import directly."""
    found: set[str] = set()
    for script in sorted((_repo_root(package_dir) / "workflow" / "scripts").glob("*.py")):
        found |= _file_imports(script, None, package_dir)
    return sorted(found)


def _manifest_modules(package_dir: Path) -> list[str]:
    """The data modules ``data/manifest.yaml`` names by ``module:function`` (imported by name)."""
    manifest = package_dir / "data" / "manifest.yaml"
    if not manifest.is_file():
        return []
    names = re.findall(r"^\s*(?:preprocess|standin):\s*([A-Za-z_][A-Za-z0-9_]*):", manifest.read_text(encoding="utf-8"),
                       flags=re.MULTILINE)
    return sorted({f"data/{name}.py" for name in names if (package_dir / "data" / f"{name}.py").is_file()})


def _rule_file_modules(paper: str, package_dir: Path) -> list[str]:
    """The package modules a paper's own rule file names (``python -m banditrepro.x``, ``from banditrepro.x``)."""
    rules = _repo_root(package_dir) / "workflow" / "rules" / "papers" / f"{paper}.smk"
    if not rules.is_file():
        return []
    found = {module_path(m, package_dir) for m in _DOTTED.findall(rules.read_text(encoding="utf-8"))}
    return sorted(m for m in found if m is not None)


def paper_modules(paper: str, package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """Sorted relative paths of every package module a job of ``paper`` may import."""
    package_dir = Path(package_dir)
    seeds = [*script_modules(package_dir), f"experiments/{paper}/__init__.py", *_manifest_modules(package_dir),
             *_rule_file_modules(paper, package_dir)]
    return import_closure(seeds, package_dir)


def sources_digest(relpaths: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> str:
    """sha256 over the given package files (relative path and bytes, in sorted order)."""
    digest = hashlib.sha256()
    for rel in sorted(set(relpaths)):
        digest.update(rel.encode() + b"\0" + (Path(package_dir) / rel).read_bytes() + b"\0")
    return digest.hexdigest()


def paper_sources_digest(paper: str, package_dir: Path | str = PACKAGE_DIR) -> str:
    """The digest of every package module a job of ``paper`` may import."""
    return sources_digest(paper_modules(paper, package_dir), package_dir)


def papers_importing(relpath: str, papers: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """The papers of ``papers`` some job of which may import the package module ``relpath``."""
    return [p for p in papers if relpath in paper_modules(p, package_dir)]
