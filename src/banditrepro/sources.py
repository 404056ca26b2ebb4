"""Which package sources a paper's jobs run with, and the digest a result records of them.

A result is a function of its config, its seed and the code that computed it. Snakemake tracks the first two
(rule params) but not the package sources a job imports, so after an edit to a kernel a build would rerun
nothing and ``verify`` would compare results the current code did not make. The workflow therefore gives
every job of a paper the digest of that paper's sources as a rule param (a changed digest reruns the job,
workflow/rules/common.smk), the job records it in its provenance, and ``verify`` refuses results whose
recorded digest is not the current tree's (docs/reproducibility.md).

A paper's sources (:func:`paper_modules`) are the package modules its jobs may import, found statically:
every module of its package ``experiments/<paper>/`` and the generic modules the workflow loads
(:data:`WORKFLOW_MODULES`), closed under their imports (:func:`import_closure`), plus the data files of the
packages reached (``experiments/paper.schema.yaml``, ``data/manifest.yaml``). Another paper's package is
never reached (docs/ARCHITECTURE.md: no generic module imports a paper), so an edit to a kernel only one
paper uses reruns only that paper. Where the analysis cannot know, it includes: a module that imports by a
computed name (``importlib.import_module(name)``) is taken to import every module of its own package.

Standard library only (ground floor): the Snakefile computes the digests while it builds the DAG.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from .digest import file_sha256, files_digest

#: the source folder of the package this module belongs to
PACKAGE_DIR = Path(__file__).resolve().parent
#: the folder (relative to the package) whose sub-packages are the papers: experiments/<paper>/
PAPERS_DIR = "experiments"
#: files read as data by the package's code (next to the modules of a package that is imported)
DATA_SUFFIXES = (".yaml", ".yml", ".json", ".csv", ".txt")

#: The generic modules the workflow loads for a paper's jobs: those that workflow/scripts/*.py, the Snakefile
#: and workflow/rules/*.smk import (tests/test_sources.py fails when one of theirs is outside the closure of
#: these). Relative to the package.
WORKFLOW_MODULES = (
    "layout", "provenance", "shards", "lock", "mutation", "workflow_io",
    "data", "data.__main__", "data.fetch", "data.integrity", "data.standin",
    "experiments.spec", "experiments.runner", "experiments.aggregate", "experiments.options",
    "experiments.reference",
    "plotting",
    "report.claims", "report.context", "report.diagnosis", "report.findings", "report.glance", "report.html",
    "report.mutants", "report.report", "report.robustness", "report.sequential", "report.tables",
    "report.vocabulary",
)

_DYNAMIC_IMPORTERS = frozenset({"import_module", "__import__"})


# ------------------------------------------------------------------------------------------ modules


def _module_files(package_dir: Path) -> dict[str, str]:
    """{dotted module name: path relative to the package} of every .py file of the package; a package is
    named by its ``__init__.py``. Names start with the package's own name (``banditrepro.algorithms.ucb``)."""
    top = package_dir.name
    modules = {}
    for path in package_dir.rglob("*.py"):
        rel = path.relative_to(package_dir)
        if "__pycache__" in rel.parts or any(part.startswith(".") for part in rel.parts):
            continue
        parts = list(rel.parts[:-1]) + ([] if rel.name == "__init__.py" else [rel.stem])
        modules[".".join([top, *parts])] = rel.as_posix()
    return modules


# Imports are found without parsing whole files (ast.parse of the package takes about a second, paid by
# every `snakemake` call): each statement that starts with `import` or `from ... import` is cut out and
# parsed alone. Files that import by a computed name are parsed whole, to read the call's argument.
# tests/test_sources.py checks that both give what a full parse gives on every file of the package.
_IMPORT_START = re.compile(r"(?:^|(?<=[:;]))[ \t]*(?=from[ \t]+\.*[\w.]*[ \t]+import\b|import[ \t]+\w)", re.M)
_TYPE_CHECKING_IF = re.compile(r"^([ \t]*)if[ \t]+(?:typing\.)?TYPE_CHECKING[ \t]*:[ \t]*(?:#.*)?$", re.M)


def _statement_end(text: str, start: int) -> int:
    """Where the logical line that starts at ``start`` ends (brackets, backslashes and comments followed)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                return len(text)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "\\" and text.startswith("\n", i + 1):
            i += 2
            continue
        elif (c == "\n" or c == ";") and depth <= 0:
            return i
        i += 1
    return i


def _type_checking_blocks(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the bodies of ``if TYPE_CHECKING:`` blocks (annotations only)."""
    blocks = []
    for found in _TYPE_CHECKING_IF.finditer(text):
        indent, body_start = len(found.group(1)), found.end()
        end = pos = body_start
        for line in text[body_start:].splitlines(keepends=True)[1:]:
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and len(line) - len(line.lstrip()) <= indent:
                break
            pos += len(line)
            end = pos
        blocks.append((body_start, end + 1))
    return blocks


# strings and comments, in the order the tokenizer meets them: a triple-quoted string (a docstring with a code
# example) may hold lines that read like imports
_STRING_OR_COMMENT = re.compile(
    r"[rbuRBUfF]{0,2}('\'\'|\"\"\")(?:\\.|(?!\1).)*?\1"  # a triple-quoted string
    r"|[rbuRBUfF]{0,2}([\"'])(?:\\.|(?!\2)[^\\\n])*\2"  # a one-line string
    r"|#[^\n]*",  # a comment
    re.S)


def _string_blocks(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the triple-quoted strings of a file's text."""
    return [m.span() for m in _STRING_OR_COMMENT.finditer(text) if m.group(1)]


def _scanned_statements(text: str) -> list[ast.stmt]:
    """The import statements of a file's text, but those in ``if TYPE_CHECKING:`` blocks and in strings."""
    skipped = _type_checking_blocks(text) + _string_blocks(text)
    found = []
    for match in _IMPORT_START.finditer(text):
        start = match.end()
        if any(a <= start < b for a, b in skipped):
            continue
        try:
            found += ast.parse(text[start:_statement_end(text, start)].strip()).body
        except SyntaxError:  # prose that reads like an import (a docstring): not a statement
            continue
    return [node for node in found if isinstance(node, (ast.Import, ast.ImportFrom))]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _parsed_nodes(tree: ast.AST):
    """Every import statement and call of a parsed file, functions included, but those under
    ``if TYPE_CHECKING:`` (annotations only: never executed)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Call)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _import_nodes(source: str, parse: bool):
    """The import statements and (``parse``: the whole file is parsed) calls of a file."""
    return _parsed_nodes(ast.parse(source)) if parse else _scanned_statements(source)


@cache
def _parsed_imports(path: str, mtime_ns: int, size: int, parse: bool = False) -> tuple[tuple, ...]:
    """The imports of one file as data (cached by the file's state, so an edited file is read again):
    ("import", name), ("from", level, module or "", names), ("dynamic", constant name or None, package or None)."""
    source = Path(path).read_text(encoding="utf-8")
    found = []
    for node in _import_nodes(source, parse or any(name in source for name in _DYNAMIC_IMPORTERS)):
        if isinstance(node, ast.Import):
            found += [("import", alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("from", node.level, node.module or "", tuple(alias.name for alias in node.names)))
        else:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name not in _DYNAMIC_IMPORTERS or not node.args:
                continue
            constants = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                         for a in node.args[:2]]
            package = constants[1] if len(constants) > 1 and name == "import_module" else None
            found.append(("dynamic", constants[0], package))
    return tuple(found)


def _file_imports(path: Path) -> tuple[tuple, ...]:
    stat = path.stat()
    return _parsed_imports(str(path), stat.st_mtime_ns, stat.st_size)


def _resolve(module: str, is_package: bool, level: int, name: str) -> str:
    """The absolute name of ``name`` imported with ``level`` leading dots from ``module``."""
    if level == 0:
        return name
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imported_modules(module: str, rel: str, package_dir: Path, modules: dict[str, str]) -> set[str]:
    """The package modules that importing ``module`` (file ``rel``) may import in turn."""
    is_package = rel.endswith("__init__.py")
    own_package = module if is_package else module.rpartition(".")[0]
    targets: set[str] = set()
    for entry in _file_imports(package_dir / rel):
        if entry[0] == "import":
            targets.add(entry[1])
        elif entry[0] == "from":
            _, level, name, names = entry
            base = _resolve(module, is_package, level, name)
            targets.add(base)
            targets.update(f"{base}.{n}" for n in names if n != "*")  # `from . import y`: y may be a module
        else:
            _, name, package = entry
            if name is None:  # a computed name: every module in this package's folder may be meant (its
                # sub-packages are for the caller to name: experiments.spec imports the paper packages so)
                targets.update(m for m, path in modules.items()
                               if m.rpartition(".")[0] == own_package and not path.endswith("__init__.py"))
            elif name.startswith("."):
                level = len(name) - len(name.lstrip("."))
                anchor = package or own_package
                targets.add(_resolve(anchor, True, level, name.lstrip(".")))
            else:
                targets.add(name)
    return {t for t in targets if t in modules}


def _with_parents(module: str, modules: dict[str, str]) -> list[str]:
    """``module`` and every package above it (importing a.b.c runs a/__init__.py and a/b/__init__.py)."""
    parts = module.split(".")
    return [m for m in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if m in modules]


def module_path(dotted: str, package_dir: Path | str = PACKAGE_DIR) -> str | None:
    """The path relative to the package of module ``dotted`` (``experiments.runner`` or
    ``banditrepro.rng``), None when the package has no such module."""
    package_dir = Path(package_dir)
    return _module_index(str(package_dir)).get(_qualified(dotted, package_dir.name) if dotted else package_dir.name)


@cache
def _module_index(package_dir: str) -> dict[str, str]:
    """:func:`_module_files`, read once per process (the code graph asks for every import it follows)."""
    return _module_files(Path(package_dir))


def _qualified(module: str, top: str) -> str:
    return module if module == top or module.startswith(top + ".") else f"{top}.{module}"


def import_closure(modules: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """The sorted paths (relative to the package, e.g. ``algorithms/ucb.py``) of every package module reachable
    by static imports from ``modules`` (dotted names, with or without the package's name in front), with
    the ``__init__.py`` of every package on the way. Imports inside functions count; ``if TYPE_CHECKING:``
    ones do not; a computed ``import_module(name)`` counts as importing every module of its package.
    A module may also be given by its path relative to the package (``data/movielens.py``)."""
    package_dir = Path(package_dir)
    index = _module_files(package_dir)
    by_path = {rel: name for name, rel in index.items()}
    top = package_dir.name
    todo = []
    for name in modules:
        name = by_path.get(name) or _qualified(name, top)
        if name not in index:
            raise ValueError(f"{name} is not a module of {package_dir}")
        todo.append(name)
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        for m in _with_parents(module, index):
            if m not in seen:
                seen.add(m)
                todo.extend(_imported_modules(m, index[m], package_dir, index) - seen)
    return sorted(index[m] for m in seen)


# ------------------------------------------------------------------------------------------- papers


def papers_in(package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """The paper packages: the sub-packages of experiments/ (sorted)."""
    base = Path(package_dir) / PAPERS_DIR
    return sorted(p.name for p in base.iterdir() if (p / "__init__.py").is_file()) if base.is_dir() else []


def _data_files(module_paths: Iterable[str], package_dir: Path) -> list[str]:
    """The data files (DATA_SUFFIXES) beside the ``__init__.py`` of each package in ``module_paths``."""
    files = []
    for rel in module_paths:
        if Path(rel).name != "__init__.py":
            continue
        folder = package_dir / Path(rel).parent
        files += [p.relative_to(package_dir).as_posix() for p in folder.iterdir()
                  if p.is_file() and p.suffix in DATA_SUFFIXES and not p.name.startswith(".")]
    return files


def paper_modules(paper: str, package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """The sorted paths (relative to the package) of every source a job of ``paper`` may read: the closure of
    its own package's modules and :data:`WORKFLOW_MODULES`, and the data files of the packages reached."""
    package_dir = Path(package_dir)
    papers = papers_in(package_dir)
    if paper not in papers:
        raise ValueError(f"{paper!r} is not a paper package of {package_dir / PAPERS_DIR} ({', '.join(papers)})")
    index = _module_files(package_dir)
    own = [m for m, rel in index.items() if rel.startswith(f"{PAPERS_DIR}/{paper}/")]
    # a package without one of the workflow's modules (a test's small package) simply lacks it
    generic = [m for m in (_qualified(m, package_dir.name) for m in WORKFLOW_MODULES) if m in index]
    closure = import_closure(own + generic, package_dir)
    return sorted(set(closure) | set(_data_files(closure, package_dir)))


def planned_paper_modules(paper: str) -> list[str]:
    """:func:`paper_modules` of this package, from the planning cache (banditrepro.numba_cache.planned: one
    directory per state of every .py file of the package) under a key of the package's data files: the Snakefile
    asks for every paper on every call, and the import scan reads every module (about 0.2 s for five papers)."""
    from .numba_cache import planned

    data = sorted(p.relative_to(PACKAGE_DIR).as_posix() for p in PACKAGE_DIR.rglob("*")
                  if p.suffix in DATA_SUFFIXES and "__pycache__" not in p.parts)
    key = hashlib.sha256(repr((1, paper, data, DATA_SUFFIXES, WORKFLOW_MODULES)).encode()).hexdigest()
    return planned(f"modules-{paper}", key, lambda: paper_modules(paper))


def papers_importing(relpath: str, papers: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> list[str]:
    """Those of ``papers`` whose jobs read the package file ``relpath`` (e.g. ``algorithms/fairness.py``)."""
    return [p for p in papers if relpath in set(paper_modules(p, package_dir))]


# ------------------------------------------------------------------------------------------- digest


def sources_digest(paths: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> str:
    """sha256 over the (relative path, bytes) of each of ``paths`` in sorted order (banditrepro.digest): a file
    renamed, added, removed or edited gives another digest."""
    return files_digest(paths, package_dir)


def paper_sources_digest(paper: str, package_dir: Path | str = PACKAGE_DIR) -> str:
    """The digest of :func:`paper_modules`: what a result of ``paper`` records and the workflow compares."""
    return sources_digest(paper_modules(paper, package_dir), package_dir)


def sources_record(paths: Iterable[str], package_dir: Path | str = PACKAGE_DIR) -> dict:
    """The ``sources`` entry of a result's provenance: the digest of ``paths`` and how many files it covers."""
    paths = sorted(set(paths))
    return {"sha256": sources_digest(paths, package_dir), "files": len(paths)}


# ------------------------------------------------------------------------------------ workflow scripts
# A result depends on the workflow script that made it as much as on the package: the script picks the package
# functions, their arguments and what is written. Snakemake reruns a job whose script is newer than its outputs
# only under its default rerun triggers, and never for a module the script imports from its own folder
# (worker_handoff.py), so every result records the digest of its script's files (banditrepro.provenance, written
# by banditrepro.workflow_io.run) and `verify` and `lock` compare it with the tree's (banditrepro.lock).


def script_files(script: Path | str) -> list[Path]:
    """A workflow script and the modules of its own folder it imports, closed under their imports (static, as
    for the package: imports inside functions count), sorted: everything of the workflow side a job of the
    script runs (``workflow/scripts/summarize_figure.py`` and ``workflow/scripts/worker_handoff.py``)."""
    script = Path(script)
    folder = script.parent
    seen: set[Path] = set()
    todo = [script]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for entry in _file_imports(path):
            names = [entry[1]] if entry[0] == "import" else \
                [entry[2]] if entry[0] == "from" and entry[1] == 0 and entry[2] else []
            for name in names:
                sibling = folder / f"{name.split('.')[0]}.py"
                if sibling.is_file() and sibling not in seen:
                    todo.append(sibling)
    return sorted(seen)


def scripts_record(script: Path | str, root: Path | str) -> dict:
    """The ``scripts`` entry of a result's provenance: ``{"sha256": digest, "files": {path: sha256}}`` of
    :func:`script_files` of ``script``, paths relative to ``root`` (the project: ``workflow/scripts/...``)."""
    root = Path(root).resolve()
    paths = [p.resolve().relative_to(root).as_posix() for p in script_files(script)]
    return {"sha256": files_digest(paths, root), "files": {rel: file_sha256(root / rel) for rel in paths}}
