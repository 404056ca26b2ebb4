"""Which runs can execute a line of the package: its top-level units, who refers to them, and the policies that
own them. Read from the sources (nothing is imported), for the mutation machinery (banditrepro.mutation).

A *unit* is one top-level statement of a module: a function or class (decorators included) or any other
statement (an assignment of a constant, a kernel object, a table), imports excepted. A line belongs to the
unit that encloses it; a nested function belongs to its top-level function.

A unit *refers to* another when its code names it: a name bound at the top of its own module, a name it
imported, or an attribute chain through imported modules (``fair.ht_ucb_choose``, ``finite.GAUSSIAN.step``,
``getattr(module, "name")``); an import inside a function binds only in that function, as in Python. Every
way a reference can be missed is turned into more references, never fewer: a module used as a value
(``runs = loops``), an attribute the module does not define or a ``getattr`` with a computed name refers to
every unit of that module; a name bound anywhere in a top-level statement counts as bound by it.

*Policy entries.* Each algorithms module declares, as a literal ``POLICY_ENTRIES = {policy: (unit names)}``,
the units a simulation builder or loop dispatches to for one policy, keyed by the policy's name as the
experiments name it (an algorithm id, or the value of its ``policy``, ``variant`` or ``oracle``).
tests/test_policy_ownership.py runs every policy of every paper with the kernels uncompiled and checks the
declarations against what really runs.

*Ownership* (:meth:`CodeGraph.policy_owners`). A unit of ``algorithms/`` is owned by the policies that declare
it an entry, and by the owners of every unit that refers to it; it is *shared* as soon as one unit that
refers to it is not owned (a builder, an environment, a metric, a check, a loop of a paper), unless it is an
entry itself (the dispatch is declared). A unit outside ``algorithms/``, or one nothing refers to, is
shared. So a policy-owned unit runs only in the runs of its owners: every path to it passes through an entry
of one of them.

*The code a claim runs* (issue 53, :func:`claim_code`). A claim check is found in the sources by its
registration, the decorator ``@claim_check("name")``; the code a claim's verdict rests on is every unit its
checks reach (:meth:`CodeGraph.reachable`: the check, its helpers, the constants they read), each with a
digest of its AST without docstrings (:func:`unit_digest`: blind to comments, docstrings and formatting). The
checks of a claim are named by report.deviations.check_names (its check, the parts and inner checks in its
arguments, its premise's). report/deviations.py compares these digests with the recorded ones, so a change of
a check's code after the results were known needs a deviation entry as a change of its config does;
``python -m banditrepro.codegraph pending`` lists the claims whose form or code changed without one.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PACKAGE = "banditrepro"
POLICY_MODULES = "algorithms/"
ENTRY_MAP = "POLICY_ENTRIES"


@dataclass(frozen=True, order=True)
class Unit:
    module: str  # path relative to the package (``algorithms/ucl.py``), or ``workflow/scripts/<x>.py``
    first: int  # first line (decorators included)
    last: int
    name: str

    def __str__(self) -> str:
        return f"{self.module}:{self.name}"


class CodeGraphError(ValueError):
    """A malformed ``POLICY_ENTRIES`` declaration."""


@lru_cache(maxsize=4096)
def _parse(path: str, text: str) -> ast.Module:
    return ast.parse(text, filename=path)


def parse_file(path: Path | str) -> ast.Module:
    """The AST of a source file, parsed once per content of the file."""
    return _parse(str(path), Path(path).read_text(encoding="utf-8"))


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Every name a top-level statement may bind (conservatively: any name stored anywhere in it)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _unit_of(module: str, stmt: ast.stmt) -> Unit:
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
    names = sorted(_bound_names(stmt))
    name = getattr(stmt, "name", None) or (",".join(names) if names else f"<line {stmt.lineno}>")
    return Unit(module, first, stmt.end_lineno or stmt.lineno, name)


def _imports_in(stmt: ast.stmt):
    """(import statement, whether it sits inside a function) for every import nested in a top-level statement."""
    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            elif isinstance(child, ast.stmt):
                yield from visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    yield from visit(stmt, isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as [a, b, c] when it starts at a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


ANY = "*"  # a chain element standing for "any attribute" (getattr with a computed name)


def _references(node: ast.AST) -> list[list[str]]:
    """The name chains a unit's code uses: ``x``, ``m.f``, ``m.K.step``, ``getattr(m, "f")`` as [m, f] and
    ``getattr(m, name)`` as [m, ANY]."""
    found: list[list[str]] = []

    def visit(n: ast.AST) -> None:
        chain = _chain(n) if isinstance(n, (ast.Attribute, ast.Name)) else None
        if chain is not None:
            found.append(chain)
            return
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr" and len(n.args) >= 2
                and _chain(n.args[0]) is not None):
            name = n.args[1]
            found.append([*_chain(n.args[0]), name.value if isinstance(name, ast.Constant) and isinstance(name.value, str)
                          else ANY])
            for child in [*n.args[1:], *n.keywords]:
                visit(child)
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


class _Module:
    """One parsed module: its units, what its top level binds, what its import statements bind."""

    def __init__(self, rel: str, tree: ast.Module, package_dir: Path):
        self.rel = rel
        self.units: list[Unit] = []
        self.nodes: dict[Unit, ast.stmt] = {}
        self.bindings: dict[str, list[Unit]] = {}
        self.imports: dict[str, tuple] = {}  # alias -> ("module", rel) | ("from", rel, name), module-wide
        self.stars: list[str] = []  # modules imported with *
        self.local_imports: dict[Unit, dict[str, tuple]] = {}  # imports inside a function bind only there
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self._add_import(stmt, package_dir, self.imports)
                continue
            unit = _unit_of(rel, stmt)
            self.units.append(unit)
            self.nodes[unit] = stmt
            for name in _bound_names(stmt):
                self.bindings.setdefault(name, []).append(unit)
            local = self.local_imports.setdefault(unit, {})
            for node, in_function in _imports_in(stmt):
                self._add_import(node, package_dir, local if in_function else self.imports)

    def _add_import(self, node, package_dir: Path, into: dict[str, tuple]) -> None:
        from .sources import module_path

        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != PACKAGE:
                    continue
                if alias.asname:
                    target = module_path(alias.name, package_dir)
                    if target:
                        into[alias.asname] = ("module", target)
                else:
                    into[PACKAGE] = ("module", "__init__.py")
            return
        if node.level == 0:
            if not node.module or node.module.split(".")[0] != PACKAGE:
                return
            base = node.module.split(".")[1:]
        else:
            base = self.rel[:-3].split("/")[:-1]
            if node.level > 1:
                base = base[: len(base) - (node.level - 1)]
            base = [*base, *(node.module.split(".") if node.module else [])]
        source = module_path(".".join(base), package_dir)
        if source is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.stars.append(source)
            else:
                into[alias.asname or alias.name] = ("from", source, alias.name)


class CodeGraph:
    """The units of the given package modules (relative paths) and of extra files outside the package (the
    workflow scripts: they refer to units but nothing refers to them), with who refers to whom."""

    def __init__(self, package_dir: Path | str, modules: Iterable[str], extra_files: Mapping[str, Path] = {}):
        self.package_dir = Path(package_dir)
        self._submodules: dict[tuple[str, str], str | None] = {}
        self.modules: dict[str, _Module] = {}
        for rel in sorted(set(modules)):
            path = self.package_dir / rel
            if path.is_file():
                self.modules[rel] = _Module(rel, parse_file(path), self.package_dir)
        self.extra = set(extra_files)
        for key, path in extra_files.items():
            self.modules[key] = _Module(key, parse_file(path), self.package_dir)
        self.referrers: dict[Unit, set[Unit]] = {u: set() for m in self.modules.values() for u in m.units}
        self.references: dict[Unit, set[Unit]] = {}
        for mod in self.modules.values():
            for unit in mod.units:
                targets = set()
                local = mod.local_imports.get(unit, {})
                for chain in {tuple(c) for c in _references(mod.nodes[unit])}:
                    targets |= self._resolve_chain(mod.rel, list(chain), local)
                targets.discard(unit)
                self.references[unit] = targets
                for target in targets:
                    self.referrers[target].add(unit)

    # -------------------------------------------------------------------------------- name resolution

    def _all_units(self, rel: str) -> set[Unit]:
        return set(self.modules[rel].units) if rel in self.modules else set()

    def _submodule(self, package_init: str, name: str) -> str | None:
        """The submodule ``name`` of the package whose ``__init__.py`` is ``package_init`` (None if none)."""
        from .sources import module_path

        if not package_init.endswith("__init__.py"):
            return None
        key = (package_init, name)
        if key not in self._submodules:
            self._submodules[key] = module_path(".".join([*package_init[:-3].split("/")[:-1], name]),
                                                self.package_dir)
        return self._submodules[key]

    def _lookup(self, rel: str, name: str, seen: frozenset = frozenset(), local: Mapping[str, tuple] = {}
                ) -> tuple[set[Unit], set[str]]:
        """What ``name`` may mean at the top of module ``rel`` (in a function whose own imports are
        ``local``): (units, modules)."""
        if (rel, name) in seen or rel not in self.modules:
            return set(), set()
        seen = seen | {(rel, name)}
        mod = self.modules[rel]
        units, modules = set(mod.bindings.get(name, ())), set()
        imports = {**mod.imports, **local}
        if name in imports:
            target = imports[name]
            if target[0] == "module":
                modules.add(target[1])
            else:
                _, source, imported = target
                more_units, more_modules = self._lookup(source, imported, seen)
                sub = self._submodule(source, imported)
                if sub is not None:
                    more_modules.add(sub)
                if not more_units and not more_modules:  # unknown in a package module: anything of it
                    more_units = self._all_units(source)
                units |= more_units
                modules |= more_modules
        for star in mod.stars:
            more_units, more_modules = self._lookup(star, name, seen)
            units |= more_units
            modules |= more_modules
        sub = self._submodule(rel, name)  # a submodule of a package, reached as an attribute
        if sub is not None:
            modules.add(sub)
        return units, modules

    def _resolve_chain(self, rel: str, chain: list[str], local: Mapping[str, tuple] = {}) -> set[Unit]:
        """The units a name chain may reach (an attribute of a unit's value reaches that unit)."""
        found: set[Unit] = set()
        units, modules = self._lookup(rel, chain[0], local=local)
        for part in chain[1:]:
            found |= units
            units, inner = set(), set()
            for module in modules:
                more_units, more_modules = (set(), set()) if part == ANY else self._lookup(module, part)
                if not more_units and not more_modules:  # getattr(m, name), or an attribute m does not bind
                    more_units = self._all_units(module)
                units |= more_units
                inner |= more_modules
            modules = inner
        found |= units
        for module in modules:  # a module used as a value: any of its units may be reached through it
            found |= self._all_units(module)
        return found

    # ------------------------------------------------------------------------------------------ queries

    def unit_at(self, module: str, line: int) -> Unit | None:
        """The top-level unit enclosing ``line`` of ``module`` (None on an import line or outside any unit)."""
        for unit in self.modules[module].units if module in self.modules else ():
            if unit.first <= line <= unit.last:
                return unit
        return None

    def unit_named(self, module: str, name: str) -> Unit | None:
        units = self.modules[module].bindings.get(name, []) if module in self.modules else []
        return units[0] if len(units) == 1 else None

    def reachable(self, unit: Unit) -> set[Unit]:
        """Every unit ``unit`` refers to, transitively (itself included)."""
        seen, todo = set(), [unit]
        while todo:
            u = todo.pop()
            if u not in seen:
                seen.add(u)
                todo += self.references.get(u, ())
        return seen

    def imports_of(self, key: str) -> set[str]:
        """The package modules a parsed module or script names in its import statements."""
        mod = self.modules[key]
        imports = [*mod.imports.values(), *(t for local in mod.local_imports.values() for t in local.values())]
        return {t[1] for t in imports} | set(mod.stars)

    def entries(self, scope: Iterable[str] | None = None) -> dict[Unit, set[str]]:
        """{entry unit: the policies declaring it} from the ``POLICY_ENTRIES`` of the algorithms modules (of
        ``scope`` when given)."""
        found: dict[Unit, set[str]] = {}
        for rel in self.modules:
            if not rel.startswith(POLICY_MODULES) or (scope is not None and rel not in scope):
                continue
            for policy, names in declared_entries(rel, self.package_dir).items():
                for name in names:
                    unit = self.unit_named(rel, name)
                    if unit is None:
                        raise CodeGraphError(f"{PACKAGE}/{rel}: {ENTRY_MAP}[{policy!r}] names {name!r}, which is not "
                                             "bound exactly once at the top of the module")
                    found.setdefault(unit, set()).add(policy)
        return found

    def policy_owners(self, scope: Iterable[str] | None = None) -> dict[Unit, frozenset[str]]:
        """{unit: the policies owning it} for every policy-owned unit (see the module's docstring); a unit
        absent from the result is shared. ``scope``: the package modules that can run at all (a paper's
        jobs import no other); a unit of another module refers to nothing. Extra files (scripts) always run."""
        if scope is not None:
            scope = set(scope) | self.extra
        in_scope = (lambda u: True) if scope is None else (lambda u: u.module in scope)
        entries = self.entries(scope)
        referrers = {u: {r for r in refs if in_scope(r)} for u, refs in self.referrers.items() if in_scope(u)}
        candidates = {u for u in referrers if u.module.startswith(POLICY_MODULES)}
        owners = {u: set(entries.get(u, ())) for u in candidates}
        shared = {u for u in referrers if u not in candidates}
        changed = True
        while changed:
            changed = False
            for unit in candidates - shared:
                refs = referrers[unit]
                if unit not in entries and refs & shared:
                    shared.add(unit)
                    changed = True
                    continue
                more = set().union(*(owners[r] for r in refs if r in owners and r not in shared))
                if not more <= owners[unit]:
                    owners[unit] |= more
                    changed = True
        return {u: frozenset(p) for u, p in owners.items() if u not in shared and p}


def declared_entries(rel: str, package_dir: Path | str) -> dict[str, tuple[str, ...]]:
    """The literal ``POLICY_ENTRIES`` of a module ({} when it declares none)."""
    tree = parse_file(Path(package_dir) / rel)
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == ENTRY_MAP):
            try:
                value = ast.literal_eval(stmt.value)
            except ValueError as err:
                raise CodeGraphError(f"{PACKAGE}/{rel}: {ENTRY_MAP} must be a literal dict ({err})") from None
            if not isinstance(value, dict) or not all(
                    isinstance(k, str) and isinstance(v, (tuple, list)) and v and all(isinstance(n, str) for n in v)
                    for k, v in value.items()):
                raise CodeGraphError(f"{PACKAGE}/{rel}: {ENTRY_MAP} must map policy names to non-empty tuples of "
                                     "unit names")
            return {k: tuple(v) for k, v in value.items()}
    return {}


# ------------------------------------------------------------------------------ the code a claim's check runs

#: the registry's decorator of a claim check, ``@claim_check("name")`` (registry.claim_check)
CLAIM_CHECK = "claim_check"


def _docstring_free(node: ast.AST) -> ast.AST:
    """A copy of ``node`` without the docstrings of its functions and classes (a body left empty gets ``pass``)."""
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                n.body = n.body[1:] or [ast.Pass()]
    return node


def _canonical(value) -> str:
    """An AST as text: each node's type and its fields by name, without line and column numbers and without
    fields that are None or empty (so the fields later Pythons add empty, such as ``type_params`` in 3.12, and
    ``ast.dump``'s changed defaults in 3.13 change nothing)."""
    if isinstance(value, ast.AST):
        fields = [f"{name}={_canonical(v)}" for name, v in ast.iter_fields(value) if v is not None and v != []]
        return f"{type(value).__name__}({', '.join(fields)})"
    if isinstance(value, list):
        return "[" + ", ".join(_canonical(v) for v in value) + "]"
    return repr(value)


def unit_digest(graph: CodeGraph, unit: Unit) -> str:
    """12 hex digits of the sha256 of the unit's AST (decorators included) without docstrings, line and column
    numbers (:func:`_canonical`): comments, docstrings and formatting change no digest, any change of code does."""
    node = graph.modules[unit.module].nodes[unit]
    return hashlib.sha256(_canonical(_docstring_free(node)).encode("utf-8")).hexdigest()[:12]


def claim_check_units(graph: CodeGraph) -> dict[str, Unit]:
    """{check name: the unit registering it} for every ``@claim_check("name")`` (also ``@registry.claim_check``)
    of the graph's package modules; a name registered twice is an error."""
    found: dict[str, Unit] = {}
    for rel, mod in graph.modules.items():
        if rel in graph.extra:
            continue
        for unit, node in mod.nodes.items():
            for dec in getattr(node, "decorator_list", ()):
                chain = _chain(dec.func) if isinstance(dec, ast.Call) else None
                if (chain is None or chain[-1] != CLAIM_CHECK or not dec.args
                        or not isinstance(dec.args[0], ast.Constant) or not isinstance(dec.args[0].value, str)):
                    continue
                name = dec.args[0].value
                if name in found:
                    raise CodeGraphError(f"claim check {name!r} is registered twice ({found[name]}, {unit})")
                found[name] = unit
    return found


@lru_cache(maxsize=8)
def package_code(package_dir: str) -> tuple[CodeGraph, dict[str, Unit]]:
    """The code graph of every module of the package and its claim checks, once per process and directory."""
    root = Path(package_dir)
    graph = CodeGraph(root, [p.relative_to(root).as_posix() for p in sorted(root.rglob("*.py"))])
    return graph, claim_check_units(graph)


def claim_code(graph: CodeGraph, checks: Mapping[str, Unit], names: Iterable[str]) -> dict[str, str]:
    """{unit (``module:name``): its digest} of every unit the named claim checks reach, sorted by unit."""
    reached: set[Unit] = set()
    for name in names:
        if name not in checks:
            raise CodeGraphError(f"claim check {name!r} is registered nowhere in the package (@{CLAIM_CHECK})")
        reached |= graph.reachable(checks[name])
    return {str(u): unit_digest(graph, u) for u in sorted(reached, key=str)}


def paper_claim_code(raw_claims: Iterable[Mapping], package_dir: Path | str) -> dict[str, dict[str, str]]:
    """{claim id: :func:`claim_code` of its checks (report.deviations.check_names)} of a paper's claims as the
    config writes them."""
    from .report.deviations import check_names

    graph, checks = package_code(str(Path(package_dir).resolve()))
    raw_claims = list(raw_claims)
    by_id = {str(c["id"]): c for c in raw_claims}
    return {cid: claim_code(graph, checks, check_names(c, by_id)) for cid, c in by_id.items()}


def _raw_claims(root: Path, paper: str) -> list[dict]:
    from .experiments.spec import expand_claim_cells, paper_config_path, read_paper_yaml

    path = paper_config_path(root, paper)
    return expand_claim_cells(read_paper_yaml(path), path)["claims"]


def pending(root: Path | str = ".", papers: Iterable[str] | None = None) -> tuple[list[str], str]:
    """(problems, entries) for ``python -m banditrepro.codegraph pending``: every claim whose form or code
    changed after its first lock without a deviation entry (report.deviations.form_problems) and, for each, a
    deviation entry to complete (reason, verdicts) and append to config/locks/claims.deviations.yaml."""
    from . import provenance
    from .experiments.spec import discover_papers
    from .lock import VERDICTS_FILE, read_verdicts
    from .report import deviations as dev

    root = Path(root)
    first, devs = dev.read_first_forms(root / dev.FIRST_FORMS_FILE), dev.read_deviations(root / dev.DEVIATIONS_FILE)
    code = dev.read_code(root / dev.CODE_FILE)
    commit = provenance.git_commit(root)[:7]
    locked = read_verdicts(root / VERDICTS_FILE)
    problems, entries = [], []
    for paper in (papers or discover_papers(root)):
        raw = _raw_claims(root, paper)
        now = paper_claim_code(raw, root / "src" / PACKAGE)
        problems += dev.form_problems(paper, raw, first, devs, code, now)
        verdicts = {str(r["claim_id"]): str(r["verdict"]) for r in locked if r["paper"] == paper}
        entries += dev.pending_entries(paper, raw, first, devs, code, now, commit, verdicts)
    return problems, dev.dump_deviations(entries) if entries else ""


def main(argv: list[str] | None = None) -> int:
    """``python -m banditrepro.codegraph pending [paper ...]`` (from the repository root)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "pending":
        print("usage: python -m banditrepro.codegraph pending [paper ...]", file=sys.stderr)
        return 2
    problems, entries = pending(".", argv[1:] or None)
    if not problems:
        print("no claim changed its form or code after its first lock without a deviation entry")
        return 0
    print("\n".join(problems))
    print("\n# Entries to complete (reason in words, verdict_before: the claim's last locked verdict; "
          "verdict_after once a lock holds the new form) and append to config/locks/claims.deviations.yaml:")
    print(entries)
    return 1


if __name__ == "__main__":
    sys.exit(main())
