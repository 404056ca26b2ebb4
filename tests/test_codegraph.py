"""Which runs can execute a line (banditrepro.codegraph): units, references, policy ownership on a toy package
whose answer is known by hand, and the conservative fallbacks (a module used as a value, getattr, a local
import) that turn a reference the analysis cannot follow into more references, never fewer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from banditrepro.codegraph import CodeGraph, CodeGraphError, declared_entries

TOY = {
    "__init__.py": "",
    "algorithms/__init__.py": "",
    "algorithms/toy.py": """
        K = 2


        def helper(x):
            return x * K


        @decorate
        def p_choose(x):
            def inner(y):
                return helper(y)
            return inner(x) + _tie(x)


        def q_choose(x):
            return _tie(x)


        def _tie(x):
            return x


        def metric(x):
            return x


        def unused(x):
            return x


        POLICY_ENTRIES = {"p": ("p_choose",), "q": ("q_choose",)}
    """,
    "loops.py": """
        from .algorithms import toy
        from .algorithms.toy import metric


        def run(kind, x):
            if kind == 0:
                return toy.p_choose(x)
            return toy.q_choose(x) + metric(x)
    """,
    "checks.py": """
        def reference_check(ctx):
            from . import reference
            return reference.compare(ctx)


        def theory_check(ctx):
            reference = ctx.reference  # a local named like the module: not a reference to it
            return reference
    """,
    "reference.py": """
        def compare(ctx):
            return ctx
    """,
}


def write_package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture
def toy(tmp_path) -> Path:
    return write_package(tmp_path / "toy", TOY)


def graph(root: Path) -> CodeGraph:
    return CodeGraph(root, [p.relative_to(root).as_posix() for p in root.rglob("*.py")])


def owners_by_name(g: CodeGraph, module="algorithms/toy.py") -> dict[str, set[str] | None]:
    owned = g.policy_owners()
    return {u.name: (set(owned[u]) if u in owned else None) for u in g.modules[module].units}


def test_policy_ownership_by_hand(toy):
    owners = owners_by_name(graph(toy))
    assert owners["p_choose"] == {"p"} and owners["q_choose"] == {"q"}  # entries: dispatched by the loop
    assert owners["helper"] == {"p"} and owners["K"] == {"p"}  # reached only through p's entry
    assert owners["_tie"] == {"p", "q"}  # policy code of two policies: reruns both
    assert owners["metric"] is None  # the loop (shared code) calls it: shared
    assert owners["unused"] is None  # nothing refers to it: shared (it could be reached some other way)
    assert owners["POLICY_ENTRIES"] is None


def test_units_and_lines(toy):
    g = graph(toy)
    text = (toy / "algorithms/toy.py").read_text().splitlines()
    line = {s.strip(): i + 1 for i, s in enumerate(text)}
    assert g.unit_at("algorithms/toy.py", line["@decorate"]).name == "p_choose"  # decorators belong to the def
    assert g.unit_at("algorithms/toy.py", line["return helper(y)"]).name == "p_choose"  # nested function
    assert g.unit_at("loops.py", 1) is None  # an import line is no unit
    assert g.unit_at("algorithms/toy.py", line["K = 2"]).name == "K"


def test_a_module_used_as_a_value_refers_to_all_of_it(toy):
    (toy / "loops.py").write_text((toy / "loops.py").read_text() + "\n\nRUNNERS = toy\n")
    owners = owners_by_name(graph(toy))
    assert owners["helper"] is None and owners["_tie"] is None  # anything of toy may run through RUNNERS
    assert owners["p_choose"] == {"p"}  # entries keep their declared dispatch


def test_getattr_with_a_computed_name_refers_to_all_of_the_module(toy):
    loops = (toy / "loops.py").read_text()
    (toy / "loops.py").write_text(loops + "\n\ndef pick(name):\n    return getattr(toy, name)\n")
    assert owners_by_name(graph(toy))["helper"] is None
    (toy / "loops.py").write_text(loops + "\n\ndef pick():\n    return getattr(toy, 'helper')\n")
    owners = owners_by_name(graph(toy))
    assert owners["helper"] is None and owners["_tie"] == {"p", "q"}  # a constant name: only that unit


def test_an_import_inside_a_function_binds_only_there(toy):
    g = graph(toy)
    check = {u.name: u for u in g.modules["checks.py"].units}
    reached = {u.module for u in g.reachable(check["reference_check"])}
    assert "reference.py" in reached
    assert "reference.py" not in {u.module for u in g.reachable(check["theory_check"])}


def test_a_scope_leaves_out_what_the_jobs_never_import(toy):
    (toy / "bench.py").write_text("from .algorithms.toy import helper\n\n\ndef bench():\n    return helper(1)\n")
    g = graph(toy)
    everything = {u.name: o for u, o in g.policy_owners().items()}
    assert "helper" not in everything  # bench.py (shared) refers to it
    scoped = {u.name: set(o) for u, o in g.policy_owners(scope=set(g.modules) - {"bench.py"}).items()}
    assert scoped["helper"] == {"p"}


def test_entries_must_name_units_of_their_module(toy):
    path = toy / "algorithms/toy.py"
    path.write_text(path.read_text().replace('("p_choose",)', '("p_chose",)'))
    with pytest.raises(CodeGraphError, match="p_chose"):
        graph(toy).policy_owners()
    path.write_text(path.read_text().replace('{"p": ("p_chose",), "q": ("q_choose",)}', "dict(p=1)"))
    with pytest.raises(CodeGraphError, match="literal"):
        declared_entries("algorithms/toy.py", toy)
