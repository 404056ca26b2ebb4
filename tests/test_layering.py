"""The import rules of docs/ARCHITECTURE.md, checked on every module.

The rules live in one place: the machine-readable table between the ``import-rules`` markers of
docs/ARCHITECTURE.md. This test parses that table and checks every import statement (``ast``, lazy imports
inside functions included) of src/banditrepro/ and workflow/scripts/ against it, so the document and the
check cannot drift apart. Imports under ``if TYPE_CHECKING:`` are annotations only and are not checked.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = REPO_ROOT / "src" / "banditrepro"
ARCHITECTURE = REPO_ROOT / "docs" / "ARCHITECTURE.md"
RULES_BEGIN = "<!-- import-rules:begin"
RULES_END = "<!-- import-rules:end -->"
ROOT = "__init__"  # the table's name for the package itself (src/banditrepro/__init__.py)
SAME_PAPER = "(same paper only)"
PAPER = "<paper>"  # in a module pattern: the name of a paper, a file config/papers/<paper>.yaml


# ---------------------------------------------------------------------------------------------
# the rules: parsed from docs/ARCHITECTURE.md


@dataclass(frozen=True)
class Room:
    name: str
    modules: tuple[str, ...]  # `x` (that module), `x.*` (x and everything under it), `dir/*.py` (files)
    may_import: frozenset[str]  # rooms, this one included where its modules import each other
    same_paper_only: frozenset[str]  # rooms importable only within the importer's own experiments.<paper>
    never_imports: frozenset[str]  # third-party top-level packages


def parse_rules(markdown: str) -> dict[str, Room]:
    """Rooms of the import-rules table: `| room | modules | may import | never imports |` rows."""
    if RULES_BEGIN not in markdown or RULES_END not in markdown:
        raise ValueError("docs/ARCHITECTURE.md lacks the import-rules markers")
    block = markdown.split(RULES_BEGIN, 1)[1].split("-->", 1)[1].split(RULES_END, 1)[0]
    rows = [line for line in block.strip().splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    if header != ["room", "modules", "may import", "never imports"] or not set(rows[1]) <= set("|- "):
        raise ValueError(f"import-rules table: unexpected header {header}")
    rooms: dict[str, Room] = {}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4:
            raise ValueError(f"import-rules row without 4 cells: {line}")
        name, modules, may, never = cells
        may_import, same_paper = set(), set()
        for item in (i.strip() for i in may.split(",")):
            found = re.fullmatch(r"([a-z_]+)(?: (\(same paper only\)))?", item)
            if not found:
                raise ValueError(f"import-rules row {name}: cannot read {item!r} in 'may import'")
            (same_paper if found.group(2) else may_import).add(found.group(1))
        rooms[name] = Room(name, tuple(re.findall(r"`([^`]+)`", modules)), frozenset(may_import),
                           frozenset(same_paper), frozenset() if never == "-" else frozenset(never.replace(",", " ").split()))
    return rooms


def rules() -> dict[str, Room]:
    return parse_rules(ARCHITECTURE.read_text(encoding="utf-8"))


def papers_of(repo_root: Path) -> frozenset[str]:
    """The papers of a tree: the stems of its config/papers/*.yaml."""
    return frozenset(p.stem for p in (repo_root / "config" / "papers").glob("*.yaml"))


def _paper_prefix(prefix: str, module: str, papers: frozenset[str] | None) -> str | None:
    """``prefix`` with its ``<paper>`` replaced by the paper ``module`` lies in (any one name when ``papers`` is
    None), or None when ``module`` is in no paper's package."""
    head, tail = prefix.split(PAPER, 1)
    if not module.startswith(head):
        return None
    name = module[len(head):].split(".", 1)[0]
    if not name.isidentifier() or (papers is not None and name not in papers):
        return None
    return head + name + tail


def room_of(module: str, rooms: dict[str, Room], papers: frozenset[str] | None = None) -> str | None:
    """The room of a package module (dotted, relative to banditrepro; ``__init__`` for the package) or of a
    file path outside it: an exact name wins over `x.*`, and a longer `x.*` over a shorter one. ``<paper>`` in
    a pattern matches the names in ``papers`` only (any name when None), so a module of experiments/ that is
    no paper's belongs to no room unless a row names it."""
    best, best_rank = None, None
    for room in rooms.values():
        for pattern in room.modules:
            if "/" in pattern:
                rank = (2, 0) if "/" in module and Path(module).match(pattern) else None
            elif pattern.endswith(".*"):
                prefix = pattern[:-2]
                if PAPER in prefix:
                    prefix = _paper_prefix(prefix, module, papers)
                matches = prefix is not None and (module == prefix or module.startswith(prefix + "."))
                rank = (0, prefix.count(".")) if matches else None
            else:
                rank = (1, 0) if module == pattern else None
            if rank is not None and (best_rank is None or rank > best_rank):
                best, best_rank = room.name, rank
    return best


def allows(rooms: dict[str, Room], importer: str, imported: str | None) -> bool:
    """Whether modules of the room ``importer`` may import some module of the room ``imported``."""
    return imported in rooms[importer].may_import or imported in rooms[importer].same_paper_only


# ---------------------------------------------------------------------------------------------
# the imports of one file


@dataclass
class SourceFile:
    path: Path
    module: str  # dotted name relative to banditrepro (``__init__`` for the package), or a repo-relative path
    package: str | None  # absolute package that relative imports start from (None outside the package)
    imports: list[tuple[int, str]] = field(default_factory=list)  # (line, absolute dotted name)


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk_runtime(node: ast.AST):
    """ast.walk, leaving out the bodies of ``if TYPE_CHECKING:`` (their ``else:`` is kept)."""
    for child in ast.iter_child_nodes(node):
        if _type_checking_only(child):
            for other in child.orelse:
                yield other
                yield from _walk_runtime(other)
            continue
        yield child
        yield from _walk_runtime(child)


def imported_names(path: Path, package: str | None) -> list[tuple[int, str]]:
    """(line, absolute name) of every runtime import of ``path``: ``import a.b`` gives ``a.b``, ``from m import x``
    gives ``m.x`` (``x`` may be a module or a name in ``m``); relative imports are resolved against ``package``."""
    names = []
    for node in _walk_runtime(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if package is None:
                    raise ValueError(f"{path}: relative import outside the package")
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base == "__future__":
                continue
            names += [(node.lineno, base if alias.name == "*" else f"{base}.{alias.name}") for alias in node.names]
    return names


def package_files(package_dir: Path) -> list[SourceFile]:
    """Every module of the package at ``package_dir`` (a folder named banditrepro)."""
    files = []
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if parts[-1] == "__init__":
            module = ".".join(parts[:-1]) or ROOT
            package = ".".join(("banditrepro",) + parts[:-1])
        else:
            module = ".".join(parts)
            package = ".".join(("banditrepro",) + parts[:-1])
        files.append(SourceFile(path, module, package))
    return files


def script_files(repo_root: Path, rooms: dict[str, Room]) -> list[SourceFile]:
    """Files outside the package that the table names by path (e.g. workflow/scripts/*.py)."""
    globs = [p for room in rooms.values() for p in room.modules if "/" in p]
    paths = sorted({p for g in globs for p in repo_root.glob(g)})
    return [SourceFile(p, p.relative_to(repo_root).as_posix(), None) for p in paths]


def resolve(name: str, known: set[str]) -> str | None:
    """The package module an absolute import name refers to: the name itself, or the module it is a name in
    (``banditrepro.engine.PolicyKernel`` -> ``engine``, ``banditrepro.__version__`` -> ``__init__``). None for a
    name outside the package; ``?name`` for a banditrepro name that is neither (e.g. ``banditrepro.gone.x``)."""
    parts = name.split(".")
    if parts[0] != "banditrepro":
        return None
    for end in (len(parts), len(parts) - 1):
        candidate = ".".join(parts[1:end]) or ROOT
        if end >= 1 and candidate in known:
            return candidate
    return "?" + name


def paper_of(module: str) -> str | None:
    """``experiments.<paper>`` of a module inside a paper package."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and parts[0] == "experiments" else None


def violations(files: list[SourceFile], rooms: dict[str, Room], papers: frozenset[str] | None = None) -> list[str]:
    """One line per import that breaks the rules, and per file that belongs to no room."""
    known = {f.module for f in files if f.package is not None}
    problems = []
    for f in files:
        where = "src/banditrepro/" + f.path.as_posix().rsplit("/banditrepro/", 1)[-1] if f.package else f.module
        room = room_of(f.module, rooms, papers)
        if room is None:
            problems.append(f"{where}: module {f.module} belongs to no room of docs/ARCHITECTURE.md")
            continue
        for line, name in imported_names(f.path, f.package):
            top = name.split(".")[0]
            if top in rooms[room].never_imports:
                problems.append(f"{where}:{line}: {room} never imports {top} ({name})")
            target = resolve(name, known)
            if target is None:
                continue
            if target.startswith("?"):
                problems.append(f"{where}:{line}: imports {target[1:]}, no module of the package")
                continue
            target_room = room_of(target, rooms, papers)
            if target_room is None:
                continue  # reported once, as a file of no room
            if target_room in rooms[room].may_import:
                continue
            own_paper = paper_of(f.module)
            if target_room in rooms[room].same_paper_only and own_paper is not None and paper_of(target) == own_paper:
                continue
            problems.append(f"{where}:{line}: {room} ({f.module}) may not import {target_room} ({target})")
    return problems


def tree_files(repo_root: Path, rooms: dict[str, Room]) -> list[SourceFile]:
    return package_files(repo_root / "src" / "banditrepro") + script_files(repo_root, rooms)


# ---------------------------------------------------------------------------------------------
# the table itself


def test_the_table_is_a_layering_each_room_imports_only_rooms_below_it_or_itself():
    rooms = rules()
    assert {"ground", "engine", "algorithms", "environments", "papers", "report", "workflow"} <= set(rooms)
    for room in rooms.values():
        unknown = (room.may_import | room.same_paper_only) - set(rooms)
        assert not unknown, f"room {room.name} names unknown rooms {unknown}"
        assert room.modules, f"room {room.name} has no modules"
    for a in rooms:
        for b in rooms[a].may_import | rooms[a].same_paper_only:
            if b != a:
                assert not allows(rooms, b, a), f"rooms {a} and {b} may import each other: no layering"
                missing = {c for c in rooms[b].may_import if not allows(rooms, a, c)}
                assert not missing, (f"{a} may import {b}, which may import {missing}: {a} loads them through {b}, "
                                     f"so the table must say {a} may import them too")


def test_no_room_but_the_workflow_may_import_the_workflow_side_or_snakemake():
    rooms = rules()
    for room in rooms.values():
        if room.name != "workflow":
            assert "workflow" not in room.may_import, room.name
            assert "snakemake" in room.never_imports, f"room {room.name} must list snakemake under 'never imports'"
    for kernels in ("algorithms", "environments"):
        assert rooms[kernels].may_import <= {"ground", "engine", kernels}, kernels
    assert rooms["ground"].may_import == {"ground"}


# ---------------------------------------------------------------------------------------------
# the tree


def test_every_module_belongs_to_a_room_and_every_import_follows_the_rules():
    rooms = rules()
    files = tree_files(REPO_ROOT, rooms)
    assert len([f for f in files if f.package]) > 50 and len([f for f in files if not f.package]) > 5
    problems = violations(files, rooms, papers_of(REPO_ROOT))
    assert not problems, "imports against docs/ARCHITECTURE.md's rules:\n" + "\n".join(problems)


def test_the_moved_modules_keep_their_rooms():
    """report/robustness.py (once a top-level module), layout.py and algorithms/beta_sampler.py (once in
    rng.py) are in the rooms ARCHITECTURE names, and no top-level robustness module is back."""
    rooms = rules()
    assert room_of("report.robustness", rooms) == "report"
    assert not (REPO_ROOT / "src" / "banditrepro" / "robustness.py").exists()
    assert room_of("layout", rooms) == "ground"
    assert room_of("algorithms.beta_sampler", rooms) == "algorithms"
    for template in ("builders", "loops", "checks", "tables", "plots"):
        assert room_of(f"experiments.satisficing_ucl.{template}", rooms, papers_of(REPO_ROOT)) == "papers"


def test_a_generic_module_of_experiments_is_no_paper():
    """experiments/options.py was once classed as a paper by an `experiments.*` row: a module of experiments/
    is a paper's only inside the package of a paper (config/papers/<paper>.yaml), else its row names it."""
    rooms, papers = rules(), papers_of(REPO_ROOT)
    assert room_of("experiments.options", rooms, papers) == "experiments"
    assert room_of("experiments.not_listed", rooms, papers) is None
    assert room_of("experiments.not_a_paper.builders", rooms, papers) is None


# ---------------------------------------------------------------------------------------------
# the checker flags what it must


def _write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


CLEAN_TREE = {
    "src/banditrepro/__init__.py": "from . import numba_cache\n",
    "src/banditrepro/numba_cache.py": "import os\n",
    "src/banditrepro/rng.py": "import numba\n",
    "src/banditrepro/layout.py": "from pathlib import Path\n",
    "src/banditrepro/engine.py": "from . import rng as _rng\n",
    "src/banditrepro/registry.py": "import functools\n",
    "src/banditrepro/shards.py": "from .engine import SimulationOutput\n",
    "src/banditrepro/algorithms/__init__.py": "from .ucb import ucb1\n",
    "src/banditrepro/algorithms/ucb.py": "from ..engine import PolicyKernel\nfrom .. import rng\n",
    "src/banditrepro/algorithms/beta_sampler.py": "from .. import rng\n",
    "src/banditrepro/algorithms/thompson.py": "from .beta_sampler import beta_ab\n",
    "src/banditrepro/environments/__init__.py": "from .finite import gaussian_arms\n",
    "src/banditrepro/environments/finite.py": "from ..engine import EnvironmentKernel\n",
    "src/banditrepro/data/__init__.py": "from .manifest import DATASET_NAMES\n",
    "src/banditrepro/data/manifest.py": "import yaml\n",
    "src/banditrepro/experiments/__init__.py": "",
    "src/banditrepro/experiments/spec.py": "from ..registry import lookup\nfrom ..data.manifest import DATASET_NAMES\n",
    "src/banditrepro/experiments/options.py": "from .spec import ConfigError\n",
    "config/papers/paper_a.yaml": "paper: paper_a\n",
    "config/papers/paper_b.yaml": "paper: paper_b\n",
    "src/banditrepro/experiments/paper_a/__init__.py": "from . import builders, checks\n",
    "src/banditrepro/experiments/paper_a/builders.py": (
        "from ...algorithms.beta_sampler import beta_ab\nfrom ...environments import finite\n"
        "from ..spec import ExperimentSpec\nfrom .loops import run\n"),
    "src/banditrepro/experiments/paper_a/loops.py": "from ... import rng\n",
    "src/banditrepro/experiments/paper_a/checks.py": "from ...report.checks import compare_greater\n",
    "src/banditrepro/experiments/paper_b/__init__.py": "",
    "src/banditrepro/experiments/paper_b/checks.py": "import numpy\n",
    "src/banditrepro/report/__init__.py": "",
    "src/banditrepro/report/checks.py": "from ..registry import claim_check\n",
    "src/banditrepro/report/claims.py": "from .checks import ClaimResult\n",
    "src/banditrepro/report/robustness.py": "from .claims import NOT_MEASURED\n",
    "src/banditrepro/report/report.py": (
        "from typing import TYPE_CHECKING\nfrom .robustness import stability_sentence\n"
        "if TYPE_CHECKING:\n    from ..experiments.spec import PaperSpec\n"),
    "src/banditrepro/plotting/__init__.py": "import matplotlib\nfrom ..registry import lookup\n",
    "src/banditrepro/workflow_io.py": "from .report.claims import read_claims\n",
    "workflow/scripts/claims.py": "from banditrepro.report.claims import evaluate_claims\nfrom banditrepro.workflow_io import logged\n",
}


def test_a_tree_after_the_planned_moves_passes(tmp_path):
    rooms = rules()
    _write_tree(tmp_path, CLEAN_TREE)
    assert violations(tree_files(tmp_path, rooms), rooms, papers_of(tmp_path)) == []


ALG, ENV, PAPER_A = "src/banditrepro/algorithms/bad.py", "src/banditrepro/environments/bad.py", "src/banditrepro/experiments/paper_a"
PLANTED = [
    (ALG, "from ..report.claims import NOT_MEASURED\n", "algorithms (algorithms.bad) may not import report"),
    (ALG, "def f():\n    from ..environments import finite\n", "algorithms (algorithms.bad) may not import environments"),
    (ALG, "import snakemake\n", "algorithms never imports snakemake"),
    (ALG, "import matplotlib.pyplot as plt\n", "algorithms never imports matplotlib"),
    (ENV, "from banditrepro.workflow_io import logged\n", "environments (environments.bad) may not import workflow"),
    (ENV, "from snakemake.script import snakemake\n", "environments never imports snakemake"),
    ("src/banditrepro/rng.py", "from .algorithms.beta_sampler import beta_ab\n", "ground (rng) may not import algorithms"),
    ("src/banditrepro/layout.py", "from .experiments.spec import PaperSpec\n", "ground (layout) may not import experiments"),
    ("src/banditrepro/engine.py", "from .shards import save_shard\n", "engine (engine) may not import shards"),
    ("src/banditrepro/report/robustness.py", "from ..experiments.spec import load_paper\n",
     "report (report.robustness) may not import experiments"),
    (f"{PAPER_A}/checks.py", "from ..paper_b.checks import x\n", "papers (experiments.paper_a.checks) may not import papers"),
    ("src/banditrepro/experiments/spec.py", "from .paper_a import builders\n", "experiments (experiments.spec) may not import papers"),
    ("src/banditrepro/report/claims.py", "from ..gone import x\n", "imports banditrepro.gone.x, no module of the package"),
    ("src/banditrepro/newthing.py", "import os\n", "module newthing belongs to no room"),
    ("src/banditrepro/experiments/generic.py", "from .spec import x\n", "module experiments.generic belongs to no room"),
    ("src/banditrepro/experiments/paper_c/__init__.py", "", "module experiments.paper_c belongs to no room"),
]


@pytest.mark.parametrize(("path", "text", "expected"), PLANTED)
def test_the_checker_flags_a_planted_violation(tmp_path, path, text, expected):
    rooms = rules()
    _write_tree(tmp_path, {**CLEAN_TREE, path: text})
    problems = violations(tree_files(tmp_path, rooms), rooms, papers_of(tmp_path))
    assert len(problems) == 1 and expected in problems[0], problems


def test_parse_rules_reads_the_table_and_refuses_a_malformed_one():
    doc = ("x\n<!-- import-rules:begin (parsed by tests/test_layering.py) -->\n"
           "| room | modules | may import | never imports |\n|---|---|---|---|\n"
           "| low | `a`, `b.*` | low | snakemake, pandas |\n"
           "| top | `c.*` | low, top (same paper only) | - |\n<!-- import-rules:end -->\n")
    rooms = parse_rules(doc)
    assert rooms["low"] == Room("low", ("a", "b.*"), frozenset({"low"}), frozenset(), frozenset({"snakemake", "pandas"}))
    assert rooms["top"].same_paper_only == {"top"} and rooms["top"].never_imports == frozenset()
    assert room_of("b", rooms) == room_of("b.x.y", rooms) == "low" and room_of("bb", rooms) is None
    with pytest.raises(ValueError, match="cannot read"):
        parse_rules(doc.replace("low, top (same paper only)", "low; top"))
    with pytest.raises(ValueError, match="markers"):
        parse_rules(doc.replace("import-rules:end", "end"))


def test_imported_names_resolves_relative_imports_and_skips_type_checking_blocks(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("from ..environments.composite import play_block\nfrom .. import environments\n"
                   "from .ucb import ucb1\nimport banditrepro.experiments.runner\n"
                   "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..report import claims\n"
                   "else:\n    from ..engine import PolicyKernel\n")
    names = [n for _, n in imported_names(src, "banditrepro.algorithms")]
    assert names == ["banditrepro.environments.composite.play_block", "banditrepro.environments",
                     "banditrepro.algorithms.ucb.ucb1", "banditrepro.experiments.runner", "typing.TYPE_CHECKING",
                     "banditrepro.engine.PolicyKernel"]
    known = {"environments", "environments.composite", "algorithms.ucb", "experiments.runner", "engine", ROOT}
    assert [resolve(n, known) for n in names] == ["environments.composite", "environments", "algorithms.ucb",
                                                  "experiments.runner", None, "engine"]


# ---------------------------------------------------------------------------------------------
# at run time too


@pytest.mark.parametrize("room_name", ["ground", "engine", "algorithms", "environments"])
def test_importing_a_lower_room_loads_nothing_above_it(room_name):
    """Transitively, at run time: importing every module of a low room loads no package module of a room it
    may not import, and no Snakemake."""
    rooms = rules()
    papers = papers_of(REPO_ROOT)
    modules = [f.module for f in package_files(PACKAGE) if room_of(f.module, rooms, papers) == room_name]
    names = [f"banditrepro.{m}" if m != ROOT else "banditrepro" for m in modules]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('banditrepro', 'snakemake')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    loaded = out.stdout.split()
    assert not [m for m in loaded if m.startswith("snakemake")]
    known = {f.module for f in package_files(PACKAGE)}
    rooms_loaded = {m: room_of(resolve(m, known), rooms, papers) for m in loaded}
    above = sorted(m for m, room in rooms_loaded.items() if room != room_name and not allows(rooms, room_name, room))
    assert not above, f"importing {room_name} loads {above}"


def test_no_simulation_module_at_the_package_top():
    """Paper-specific loops live in experiments/<paper>/ (fairness_simulation.py moved there)."""
    assert not (PACKAGE / "fairness_simulation.py").exists()


# ---------------------------------------------------------------------------------------------
# no import circles


def import_graph(files: list[SourceFile]) -> dict[str, set[str]]:
    """{module: the package modules it imports} of the package's ``files`` (imports inside functions count)."""
    known = {f.module for f in files if f.package is not None}
    graph: dict[str, set[str]] = {m: set() for m in known}
    for f in files:
        if f.package is None:
            continue
        for _, name in imported_names(f.path, f.package):
            target = resolve(name, known)
            if target is not None and not target.startswith("?") and target != f.module:
                graph[f.module].add(target)
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each set of two or more modules that reach one another (a strongly
    connected component, Tarjan's algorithm without recursion), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)


def test_no_two_modules_of_the_package_import_each_other_even_through_others():
    """No import circle among the package's modules (issue 53: sources.py and numba_cache.py imported each
    other): a circle makes the modules' import order decide what exists when, and no room can sit below another."""
    graph = import_graph(package_files(PACKAGE))
    assert len(graph) > 50
    circles = import_circles(graph)
    assert not circles, "import circles in src/banditrepro: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_circle_check_finds_a_planted_circle_through_a_third_module(tmp_path):
    _write_tree(tmp_path, {**CLEAN_TREE,
                           "src/banditrepro/layout.py": "def f():\n    from .rng import x\n",
                           "src/banditrepro/rng.py": "from . import seeding\n",
                           "src/banditrepro/seeding.py": "from .layout import f\n"})
    graph = import_graph(package_files(tmp_path / "src" / "banditrepro"))
    assert import_circles(graph) == [["layout", "rng", "seeding"]]
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
