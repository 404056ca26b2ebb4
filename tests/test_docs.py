"""Docs that cannot drift from the code.

- docs/ARCHITECTURE.md names every module of the package (paper packages aside: docs/ADDING_A_PAPER.md is their
  template, and each paper's page maps them) and every workflow rule file, and every module, function, class or
  rule file it names exists (a dotted name such as ``workflow_io.run`` must be defined in that module).
- No doc (docs/**/*.md, README.md) points at a file that does not exist: every backticked repository path
  (``tests/test_lock.py``, ``experiments/<paper>/reference.py``, ``satisficing_ucl/{bounds,tables}.py``) resolves.
  Markdown links are checked by tests/test_readme.py.
- Every paper has its page, docs/papers/<paper>.md, whose code map names every module of the paper's package.
- No doc names a function, class or constant that does not exist: a backticked ``module.name``, ``Class.attr``,
  CamelCase class, UPPER_CASE constant or ``name(...)`` call must be defined by the project (package, tests,
  workflow; an UPPER_CASE name may be an environment variable the code reads), unless ``NOT_PROJECT_NAMES`` lists
  it as a third-party name; "the former `x`" marks history (``unknown_code_name`` has the rule).

The checks are functions of a repository root, so tests/test_new_paper.py runs this file in a scratch copy that
holds the guide's new paper.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = Path("docs") / "ARCHITECTURE.md"
PACKAGE = Path("src") / "banditrepro"

# what a repository walk leaves out: outputs, caches, environments
UNTRACKED_DIRS = {".git", ".venv", "results", "figures", "logs", ".snakemake", "__pycache__", ".numba_cache",
                  ".pytest_cache", ".hypothesis", "build"}
# a backticked path under these is a build output, a local file or outside the repository: not checked
NOT_IN_REPOSITORY = ("results", "figures", "logs", ".snakemake", "data/raw", "data/processed", "data/standin",
                     "shared", "../shared")
# a backticked word with one of these endings is a file name (with no "/": a source file anywhere in the tree)
SOURCE_SUFFIXES = (".py", ".smk", ".md", ".yaml", ".yml", ".toml", ".rst")
DATA_SUFFIXES = (".csv", ".json", ".gz", ".npz", ".txt", ".png", ".pdf", ".html", ".lock")


# ---------------------------------------------------------------------------------------------- the tree


@cache
def tree_files(root: Path) -> tuple[str, ...]:
    """Repository-relative paths of the files of ``root`` (outputs, caches and environments left out)."""
    files = []
    stack = [root]
    while stack:
        folder = stack.pop()
        for path in folder.iterdir():
            if path.is_dir():
                if path.name not in UNTRACKED_DIRS and not path.name.endswith(".egg-info"):
                    stack.append(path)
            else:
                files.append(path.relative_to(root).as_posix())
    return tuple(sorted(files))


def papers_of(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "config" / "papers").glob("*.yaml"))


def package_modules(root: Path) -> dict[str, str]:
    """{dotted module name relative to banditrepro: path relative to the package} of every .py file."""
    modules = {}
    for rel in tree_files(root):
        if rel.startswith(f"{PACKAGE.as_posix()}/") and rel.endswith(".py"):
            inner = rel[len(PACKAGE.as_posix()) + 1:]
            parts = inner[:-3].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts) or "__init__"] = inner
    return modules


def generic_modules(root: Path) -> dict[str, str]:
    """The package's modules outside the paper packages, package __init__ and __main__ files aside."""
    papers = set(papers_of(root))
    return {m: p for m, p in package_modules(root).items()
            if not (m.startswith("experiments.") and m.split(".")[1] in papers)
            and not p.endswith(("/__init__.py", "/__main__.py"))}


# ------------------------------------------------------------------------------------------ paths in docs


def backticked(markdown: str) -> list[str]:
    """The inline code spans of a Markdown text (fenced blocks left out)."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]  # a span may wrap a line


def expand_braces(token: str) -> list[str]:
    """``a/{b,c}.py`` -> ``a/b.py``, ``a/c.py`` (every group)."""
    groups = re.split(r"\{([^{}]*)\}", token)
    choices = [[part] if i % 2 == 0 else [c.strip() for c in part.split(",")] for i, part in enumerate(groups)]
    return ["".join(combo) for combo in itertools.product(*choices)]


def path_pattern(path: str) -> re.Pattern:
    """A path as a regex over repository file paths: ``<name>`` and ``*`` match within one folder; a leading
    ``.../`` or a path relative to some folder (``satisficing_ucl/bounds.py``) matches at any depth; a folder
    matches the files under it."""
    path = path.removeprefix(".../").removesuffix("/")
    body = "".join("[^/]+" if re.fullmatch(r"<[^>]+>", part) else "[^/]*" if part == "*" else re.escape(part)
                   for part in re.split(r"(<[^>]+>|\*)", path) if part)
    return re.compile(rf"(?:^|.*/){body}(?:/.*)?")


def is_path_token(token: str) -> bool:
    token = token.partition("::")[0]  # a pytest node id names its file
    if " " in token or "://" in token or token.startswith(("~", "$", "/")):
        return False  # a command, a web address, a path outside the repository
    if any(token == top or token.startswith(top + "/") for top in NOT_IN_REPOSITORY):
        return False
    if token.endswith(DATA_SUFFIXES) and "/" not in token:
        return False  # a file name of an output (claims.csv, fetch_record.json)
    if ":" in token.split("/")[0]:
        return False  # a key with a prefix (`readings:<reading>/<claim>` of mutants.csv), not a path
    if token.count("/") == 1 and token.endswith("/"):
        return False  # one folder name (`algorithms/`, `ameshousing/` of a mirror): too vague to check
    return "/" in token or token.endswith(SOURCE_SUFFIXES)


def missing_paths(token: str, root: Path) -> list[str]:
    """The expansions of a path token that match no file of the tree; ``file.py::test_name`` (a pytest node)
    also needs the function in the file."""
    files = tree_files(root)
    token, _, function = token.partition("::")
    missing = []
    for path in expand_braces(token):
        matches = [f for f in files if path_pattern(path).fullmatch(f)]
        if not matches:
            missing.append(path)
        elif function and not any(re.search(rf"^\s*def {re.escape(function)}\(", (root / f).read_text(encoding="utf-8"),
                                            flags=re.MULTILINE) for f in matches):
            missing.append(f"{path}::{function}")
    return missing


def doc_pages(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def dangling_paths(root: Path) -> list[str]:
    """One line per backticked path of a doc that names no file of the tree."""
    problems = []
    for page in doc_pages(root):
        for token in dict.fromkeys(backticked(page.read_text(encoding="utf-8"))):
            if is_path_token(token):
                problems += [f"{page.relative_to(root)}: `{token}` names no file ({p})"
                             for p in missing_paths(token, root)]
    return problems


# --------------------------------------------------------------------------------- names in ARCHITECTURE


@cache
def defined_names(path: Path) -> dict[str, set[str]]:
    """{"": top-level names of a module, class name: names its body defines} (defs, classes, assignments,
    imports)."""
    names: dict[str, set[str]] = {"": set()}

    def bound(node) -> set[str]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {node.name}
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in node.names}
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}

    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        names[""] |= bound(node)
        if isinstance(node, ast.ClassDef):
            names[node.name] = set().union(*(bound(item) for item in node.body))
    return names


@cache
def workflow_vocabulary(root: Path) -> frozenset[str]:
    """Rule names and helper functions of workflow/rules/*.smk and the Snakefile, and every key of the configs
    and their schemas (a doc may name a rule, a helper or a config key)."""
    words = set()
    for smk in [root / "Snakefile", *sorted((root / "workflow" / "rules").rglob("*.smk"))]:
        text = smk.read_text(encoding="utf-8")
        words |= set(re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):", text, flags=re.MULTILINE))
        words |= set(re.findall(r"^def (\w+)\(", text, flags=re.MULTILINE))

    def keys(node):
        if isinstance(node, dict):
            for k, v in node.items():
                yield str(k)
                yield from keys(v)
        elif isinstance(node, list):
            for v in node:
                yield from keys(v)

    for config in (root / "config" / "config.yaml", root / "workflow" / "schemas" / "config.schema.yaml",
                   root / PACKAGE / "experiments" / "paper.schema.yaml"):
        words |= set(keys(yaml.safe_load(config.read_text(encoding="utf-8"))))
    return frozenset(words)


def looks_like_code(word: str) -> bool:
    """An identifier that is not an English word: with an underscore or in CamelCase."""
    return "_" in word.strip("_") or bool(re.search(r"[a-z][A-Z]", word)) or word.startswith("__")


def unknown_name(token: str, root: Path) -> str | None:
    """Why a backticked name of ARCHITECTURE.md names nothing that exists, or None (also for what is not a name
    of this project: a command, a third-party module, an English word)."""
    modules = package_modules(root)
    token = token.rstrip(":").removeprefix("banditrepro.")
    if not re.fullmatch(r"[A-Za-z_<][\w<>]*(\.[\w<>*]+)*", token):
        return None
    parts = token.split(".")
    if parts[-1] == "*":
        parts = parts[:-1]
    if any("<" in p for p in parts):  # a template (`experiments.<paper>.checks`): its fixed prefix must exist
        parts = parts[:next(i for i, p in enumerate(parts) if "<" in p)]
        if not parts:
            return None
    for end in range(len(parts), 0, -1):  # the longest prefix that is a module
        module = ".".join(parts[:end])
        if module in modules:
            rest = parts[end:]
            if not rest:
                return None
            names = defined_names(root / PACKAGE / modules[module])
            if rest[0] not in names[""]:
                return f"{module} defines no {rest[0]!r}"
            if len(rest) > 1 and rest[0] in names and rest[1] not in names[rest[0]]:
                return f"{module}.{rest[0]} defines no {rest[1]!r}"
            return None
    basenames = {m.rsplit(".", 1)[-1] for m in modules}
    defined = {n: (m, cls) for m, p in modules.items() for cls, ns in defined_names(root / PACKAGE / p).items()
               for n in ns}
    classes = {cls: m for m, p in modules.items() for cls in defined_names(root / PACKAGE / p) if cls}
    first = parts[0]
    if len(parts) == 1:
        if first in basenames or first in defined or first in workflow_vocabulary(root) or not looks_like_code(first):
            return None
        return f"no module, function, class, rule or config key is called {first!r}"
    if first in classes:  # Class.attribute
        names = defined_names(root / PACKAGE / modules[classes[first]]).get(first, set())
        return None if parts[1] in names else f"class {first} ({classes[first]}) defines no {parts[1]!r}"
    if first in basenames:  # `glance.html`-like file names are paths, not modules: handled before
        return f"no module {token!r} in the package"
    if importlib.util.find_spec(first) is not None or len(first) == 1:
        return None  # numpy.random.SeedSequence, the placeholder `x.*`
    return f"no module {first!r} in the package and no installed module of that name"


# ---------------------------------------------------------------------------- code names in every doc

#: names a doc may write in backticks that the project does not define: third-party functions, classes and
#: environment variables that no project file reads, and the guide's placeholder for a registered function.
#: Only names from outside the project belong here; a name of the package, its tests or its workflow must exist.
NOT_PROJECT_NAMES = {
    "SeedSequence",  # numpy.random
    "linspace", "sqrt",  # numpy
    "fn",  # docs/ADDING_A_PAPER.md: the function a registry decorator registers, `fn(ctx, **args)`
}
CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # UPPER_CASE with an underscore
CLASS = re.compile(r"_?[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+")  # CamelCase
CODE_SPAN = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(.*\))?")
PROJECT_CODE = ("src", "tests", "workflow", "Snakefile", ".ci")


@cache
def project_definitions(root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(every name the project's Python defines -- functions and methods at any depth, classes, assigned
    names --, every string literal of the package and workflow and every .smk/.ci word, where the environment
    variables the code reads appear; the tests' strings are left out, as they quote stale names on purpose)."""
    names, words = set(dir(__import__("builtins"))), set()
    for rel in tree_files(root):
        if not rel.startswith(PROJECT_CODE):
            continue
        if rel.endswith(".py"):
            for node in ast.walk(ast.parse((root / rel).read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                    names |= {t.attr for t in targets if isinstance(t, ast.Attribute)}
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and not rel.startswith("tests/"):
                    words |= set(re.findall(r"\w+", node.value))
        elif rel.endswith(".smk") or rel == "Snakefile" or rel.startswith(".ci/"):
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
            words |= set(re.findall(r"\w+", text))
            names |= set(re.findall(r"^def (\w+)\(", text, flags=re.MULTILINE))
    return frozenset(names), frozenset(words)


@cache
def module_names(root: Path) -> dict[str, list[str]]:
    """{a module's dotted name relative to banditrepro, or its file's base name, or a helper module of tests/:
    the files it may be}."""
    found: dict[str, list[str]] = {}
    for module, rel in package_modules(root).items():
        parts = module.split(".")
        for key in {".".join(parts[i:]) for i in range(len(parts))}:  # `censored_resources.loops`, `loops`
            found.setdefault(key, []).append(f"{PACKAGE.as_posix()}/{rel}")
    for rel in tree_files(root):
        if rel.startswith("tests/") and rel.count("/") == 1 and rel.endswith(".py"):
            found.setdefault(rel[len("tests/"):-3], []).append(rel)
    return found


@cache
def package_classes(root: Path) -> dict[str, str]:
    """{class name: the file defining it} of the package's and the tests' helper modules."""
    files = sorted({f for fs in module_names(root).values() for f in fs})
    return {cls: f for f in files for cls in defined_names(root / f) if cls}


def unknown_code_name(token: str, root: Path) -> str | None:
    """Why a backticked code name of a doc names nothing of the project, or None.

    A code name is ``module.name`` (or ``module.Class.attribute``) whose module is one of the package (its dotted
    name or file name, ``workflow_io.run``, ``experiments.spec.load_paper``) or a helper of tests/
    (``repo_copy.copy_repo``): the name must be defined in that file (in one of them, for a file name several
    packages have, ``loops.simulate``); or ``Class.attribute`` of a package class; or a name alone that reads as
    code: a CamelCase class, an UPPER_CASE constant, or a call ``name(...)``: it must be defined somewhere in the
    project (the package, tests, workflow) -- an UPPER_CASE name may instead be a string the code reads (an
    environment variable) -- or be named in ``NOT_PROJECT_NAMES``. Anything else (a config key, a claim id, a
    variable such as ``ctx.point``, a third-party module such as ``np.cov``) is not checked here, nor is a name a
    doc gives as history: "the former `x`", "the removed `x`"."""
    span = CODE_SPAN.fullmatch(token.rstrip(":").removeprefix("banditrepro."))
    if not span or token.endswith(SOURCE_SUFFIXES + DATA_SUFFIXES):
        return None
    parts, call = span["name"].split("."), span["call"]
    names, words = project_definitions(root)
    if len(parts) > 1 and set(parts) <= workflow_vocabulary(root):
        return None  # a config key path (`data.mirror`)
    modules = module_names(root)
    for end in range(len(parts), 0, -1) if len(parts) > 1 else ():  # the longest prefix that is a module
        files = modules.get(".".join(parts[:end]))
        if files and end == len(parts):
            return None  # a module (`experiments.spec`)
        if files:
            rest = parts[end:]
            for f in files:
                defined = defined_names(root / f)
                if rest[0] in defined[""] and (len(rest) == 1 or rest[0] not in defined
                                               or rest[1] in defined[rest[0]]):
                    return None
            where = ".".join(parts[:end])
            return f"{where} ({', '.join(files)}) defines no {'.'.join(rest[:2])!r}"
    classes = package_classes(root)
    if len(parts) > 1 and parts[0] in classes:
        members = defined_names(root / classes[parts[0]])[parts[0]]
        return None if parts[1] in members else f"class {parts[0]} ({classes[parts[0]]}) defines no {parts[1]!r}"
    if len(parts) > 1:
        return None  # a variable's attribute or a third-party module
    name = parts[0]
    if name in NOT_PROJECT_NAMES or name in names:
        return None
    if CONSTANT.fullmatch(name):
        return None if name in words else f"no constant or environment variable {name!r} in the project"
    if CLASS.fullmatch(name):
        return f"no class {name!r} in the project"
    if call:
        return f"no function {name!r} in the project"
    return None


def code_name_problems(root: Path) -> list[str]:
    """One line per backticked function, class or constant of a doc (README.md, docs/**/*.md) that names nothing
    of the project."""
    problems = []
    for page in doc_pages(root):
        text = re.sub(r"\b(?:former|removed) `[^`]+`", "", page.read_text(encoding="utf-8"))  # history
        for token in dict.fromkeys(backticked(text)):
            if why := unknown_code_name(token, root):
                problems.append(f"{page.relative_to(root)}: `{token}`: {why}")
    return problems


def table_problems(text: str, root: Path) -> list[str]:
    """The modules column of the import-rules table (parsed by tests/test_layering.py) names modules that exist:
    `x` a module, `x.*` a module or package, `dir/*.py` some file."""
    block = text.split("<!-- import-rules:begin", 1)[-1].split("<!-- import-rules:end", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in block.splitlines() if line.startswith("|")][2:]
    modules, problems = package_modules(root), []
    for cells in rows:
        for entry in re.findall(r"`([^`]+)`", cells[1] if len(cells) > 1 else ""):
            if "/" in entry:
                found = any(path_pattern(entry).fullmatch(f) for f in tree_files(root))
            else:
                name = entry.removesuffix(".*").split(".<", 1)[0]
                found = name in modules
            if not found:
                problems.append(f"row {cells[0].strip()}: `{entry}` names no module of the package")
    return problems


def architecture_problems(root: Path) -> list[str]:
    """What docs/ARCHITECTURE.md names that does not exist, and the modules and rule files it omits."""
    text = (root / ARCHITECTURE).read_text(encoding="utf-8")
    tokens = list(dict.fromkeys(backticked(text)))
    problems = []
    for token in tokens:
        if is_path_token(token) or token.endswith(DATA_SUFFIXES):
            continue  # dangling_paths checks every doc's paths; `claims.csv` names an output
        if why := unknown_name(token, root):
            problems.append(f"{ARCHITECTURE}: `{token}`: {why}")
    problems += [f"{ARCHITECTURE}: import-rules table: {why}" for why in table_problems(text, root)]
    # a module or rule file is named by its own file name (a folder or a glob names none of its files)
    paths = [p for t in tokens if is_path_token(t) for p in expand_braces(t) if not p.endswith("/") and "*" not in p]
    dotted = {t.rstrip(":").removeprefix("banditrepro.") for t in tokens}
    for module, rel in generic_modules(root).items():
        named = any(d == module or d.startswith(module + ".") for d in dotted) or any(
            path_pattern(p).fullmatch(f"{PACKAGE.as_posix()}/{rel}") for p in paths)
        if not named:
            problems.append(f"{ARCHITECTURE} omits the module {module} (src/banditrepro/{rel})")
    for smk in sorted((root / "workflow" / "rules").glob("*.smk")):
        rel = smk.relative_to(root).as_posix()
        if not any(path_pattern(p).fullmatch(rel) for p in paths):
            problems.append(f"{ARCHITECTURE} omits the rule file {rel}")
    return problems


# ------------------------------------------------------------------------------------------- paper pages


def paper_page_problems(root: Path, paper: str) -> list[str]:
    """docs/papers/<paper>.md exists, opens with a `# <paper>` title and its code map names every module of
    the paper's package (src/banditrepro/experiments/<paper>/, __init__.py aside)."""
    page = root / "docs" / "papers" / f"{paper}.md"
    if not page.is_file():
        return [f"{paper}: no page {page.relative_to(root)} (docs/ADDING_A_PAPER.md, 'The paper's page')"]
    text = page.read_text(encoding="utf-8")
    problems = [] if text.startswith(f"# {paper} ") else [f"{page.relative_to(root)}: does not open with '# {paper} '"]
    # a module is named by its file name (`builders.py`, `.../<paper>/builders.py`): naming the folder is not a map
    paths = [p for t in backticked(text) if is_path_token(t) for p in expand_braces(t) if not p.endswith("/")]
    for module in sorted((root / PACKAGE / "experiments" / paper).glob("*.py")):
        rel = module.relative_to(root).as_posix()
        if module.name != "__init__.py" and not any(path_pattern(p).fullmatch(rel) for p in paths):
            problems.append(f"{page.relative_to(root)}: the code map does not name {rel}")
    return problems


# ------------------------------------------------------------------------------------------------- tests


def test_architecture_names_what_exists_and_omits_nothing():
    problems = architecture_problems(REPO_ROOT)
    assert not problems, "\n".join(problems)


def test_no_doc_points_at_a_missing_file():
    problems = dangling_paths(REPO_ROOT)
    assert len(doc_pages(REPO_ROOT)) > 10 and not problems, "\n".join(problems)


def test_no_doc_names_a_missing_function_class_or_constant():
    problems = code_name_problems(REPO_ROOT)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("paper", papers_of(REPO_ROOT))
def test_every_paper_has_its_page_with_a_code_map(paper):
    problems = paper_page_problems(REPO_ROOT, paper)
    assert not problems, "\n".join(problems)


# the checks flag what they must: hand-made violations in a small tree

SMALL_TREE = {
    "README.md": "See `docs/ARCHITECTURE.md`.\n",
    "config/config.yaml": "seed: 1\n",
    "workflow/schemas/config.schema.yaml": "properties: {seed: {type: integer}}\n",
    "workflow/rules/common.smk": "def paper_spec(paper):\n    pass\n",
    "workflow/rules/simulate.smk": "rule simulate_shard:\n    output: 'x'\n",
    "Snakefile": "include: 'workflow/rules/common.smk'\n",
    "src/banditrepro/__init__.py": "",
    "src/banditrepro/rng.py": "TAG_ARM = 1\n\ndef uniform(key):\n    return key\n",
    "src/banditrepro/workflow_io.py": "def run(main, snakemake):\n    pass\n",
    "src/banditrepro/engine.py": "class StepSimulation:\n    def run(self):\n        pass\n",
    "src/banditrepro/experiments/__init__.py": "",
    "src/banditrepro/experiments/paper.schema.yaml": "properties: {mutants: {type: array}}\n",
    "src/banditrepro/experiments/options.py": "def declared_options():\n    pass\n",
    "src/banditrepro/experiments/toy/__init__.py": "",
    "src/banditrepro/experiments/toy/builders.py": "",
    "config/papers/toy.yaml": "paper: toy\n",
    "docs/papers/toy.md": "# toy — a toy\n\n| what | where |\n|---|---|\n| builder | `experiments/toy/builders.py` |\n",
    "docs/ARCHITECTURE.md": (
        "The ground floor: `__init__.py`, `rng.py` (`rng.uniform`, `TAG_ARM`), `engine.py` (`StepSimulation.run`), "
        "`experiments.options` (`declared_options`), paper packages `experiments/<paper>/`; the scripts run "
        "through `workflow_io.run`. Rules: `common.smk` (`paper_spec`), `simulate.smk` (`simulate_shard`); "
        "the config's `seed`, `mutants:`; `numpy.random.SeedSequence`, `x.*`, `headline`.\n"),
}


def _small_tree(tmp_path: Path, **changes: str | None) -> Path:
    root = tmp_path / "repo"
    for rel, text in {**SMALL_TREE, **changes}.items():
        if text is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    return root


def test_the_small_tree_passes(tmp_path):
    root = _small_tree(tmp_path)
    assert architecture_problems(root) == []
    assert dangling_paths(root) == []
    assert paper_page_problems(root, "toy") == []
    assert code_name_problems(root) == []


def test_names_from_outside_the_project_and_history_are_not_flagged(tmp_path):
    root = _small_tree(tmp_path, **{
        "src/banditrepro/cache.py": "import os\nDIR = os.environ.get('NUMBA_CACHE_DIR')\n",
        "docs/cluster.md": ("Set `NUMBA_CACHE_DIR`; seeds are `SeedSequence` children, `np.cov`, `ctx.point(figure)`, "
                            "`fn(ctx, **args)`, `data.mirror`; the former `rng.gone_draw` and the removed `OLD_TABLE`; "
                            "`rng.uniform(key)`, `engine.StepSimulation.run`, `TAG_ARM`.\n")})
    assert code_name_problems(root) == []


ARCH = SMALL_TREE["docs/ARCHITECTURE.md"]
VIOLATIONS = [
    ("a removed function", {"docs/ARCHITECTURE.md": ARCH + "Scripts open their log with `workflow_io.logged`.\n"},
     architecture_problems, "`workflow_io.logged`: workflow_io defines no 'logged'"),
    ("a removed method", {"docs/ARCHITECTURE.md": ARCH.replace("StepSimulation.run", "StepSimulation.step")},
     architecture_problems, "class StepSimulation (engine) defines no 'step'"),
    ("a removed module", {"docs/ARCHITECTURE.md": ARCH + "Costs: `buildcost.main`.\n"},
     architecture_problems, "no module 'buildcost' in the package"),
    ("a bare name defined nowhere", {"docs/ARCHITECTURE.md": ARCH + "It calls `make_runner`.\n"},
     architecture_problems, "no module, function, class, rule or config key is called 'make_runner'"),
    ("an omitted module", {"src/banditrepro/shards.py": "x = 1\n"},
     architecture_problems, "omits the module shards (src/banditrepro/shards.py)"),
    ("an omitted generic module of experiments/", {"src/banditrepro/experiments/runner.py": "x = 1\n"},
     architecture_problems, "omits the module experiments.runner"),
    ("a table row naming a removed module", {"docs/ARCHITECTURE.md": ARCH + (
        "<!-- import-rules:begin -->\n| room | modules | may import | never imports |\n|---|---|---|---|\n"
        "| ground | `__init__`, `rng`, `gone` | ground | - |\n<!-- import-rules:end -->\n")},
     architecture_problems, "row ground: `gone` names no module of the package"),
    ("an omitted rule file", {"workflow/rules/mutants.smk": "rule mutants:\n    output: 'y'\n"},
     architecture_problems, "omits the rule file workflow/rules/mutants.smk"),
    ("a missing rule file", {"docs/ARCHITECTURE.md": ARCH + "Locks: `lock.smk`.\n"},
     dangling_paths, "`lock.smk` names no file"),
    ("a missing file in a paper page", {"docs/papers/toy.md": SMALL_TREE["docs/papers/toy.md"]
                                        + "| instances | `src/banditrepro/experiments/toy/{builders,instance}.py` |\n"},
     dangling_paths, "names no file (src/banditrepro/experiments/toy/instance.py)"),
    ("a missing test named by the README", {"README.md": "Run `tests/test_gone.py`.\n"},
     dangling_paths, "README.md: `tests/test_gone.py` names no file"),
    ("a missing test function", {"README.md": "Run `engine.py::test_gone`.\n"},
     dangling_paths, "README.md: `engine.py::test_gone` names no file (engine.py::test_gone)"),
    ("a removed constant named in any doc", {"docs/locks.md": "Left out: `MEASURED_TIME_INPUTS` in `banditrepro.lock`.\n"},
     code_name_problems, "docs/locks.md: `MEASURED_TIME_INPUTS`: no constant or environment variable"),
    ("a removed function of a module", {"docs/cluster.md": "Draws: `rng.gone_draw(key)`.\n"},
     code_name_problems, "`rng.gone_draw(key)`: rng (src/banditrepro/rng.py) defines no 'gone_draw'"),
    ("a removed function called by its name", {"README.md": "Run `gone_helper(x)`.\n"},
     code_name_problems, "README.md: `gone_helper(x)`: no function 'gone_helper' in the project"),
    ("a removed class", {"docs/cluster.md": "Read by `GoneContext`.\n"},
     code_name_problems, "`GoneContext`: no class 'GoneContext' in the project"),
    ("a removed method of a package class", {"docs/cluster.md": "Runs `StepSimulation.step`.\n"},
     code_name_problems, "class StepSimulation (src/banditrepro/engine.py) defines no 'step'"),
    ("a paper without its page", {"docs/papers/toy.md": None},
     lambda root: paper_page_problems(root, "toy"), "toy: no page docs/papers/toy.md"),
    ("a page whose code map misses a module", {"src/banditrepro/experiments/toy/checks.py": ""},
     lambda root: paper_page_problems(root, "toy"), "the code map does not name src/banditrepro/experiments/toy/checks.py"),
]


@pytest.mark.parametrize(("what", "changes", "check", "expected"), VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_the_checks_flag_a_hand_made_violation(tmp_path, what, changes, check, expected):
    problems = check(_small_tree(tmp_path, **changes))
    assert len(problems) == 1 and expected in problems[0], problems
