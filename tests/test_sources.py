"""banditrepro.sources: which package sources a paper's jobs run with, and their digest.

The closures are checked on a small package made here (hand-computed), then on the real package: what each
paper imports, that no paper reaches another paper's package, that the workflow's own imports are covered,
and that the fast import scan finds what a full parse finds.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import pytest

from banditrepro import sources as S

REPO_ROOT = Path(__file__).resolve().parents[1]

FAKE = {
    "__init__.py": '"""A fake package."""\nfrom .core import VALUE  # noqa: F401\n',
    "core.py": "import os\n\nVALUE = os.sep\n",
    "layout.py": '"""One of the modules the workflow loads (sources.WORKFLOW_MODULES)."""\n',
    "heavy.py": "X = 1\n",
    "light.py": "Y = 2\n",
    "util.py": ("from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\n"
                "if TYPE_CHECKING:\n    from .heavy import X\nelse:\n    from .light import Y\n"),
    "kernels/__init__.py": '"""Kernels; imports none of them."""\n',
    "kernels/a.py": "from ..core import (\n    VALUE,  # a comment\n)\nfrom . import b\n",
    "kernels/b.py": "def f():\n    from banditrepro.util import Y\n    return Y\n",
    "kernels/c.py": "Z = 3\n",
    "dyn/__init__.py": "",
    "dyn/loader.py": ("import importlib\n\n\ndef load(name):\n"
                      '    return importlib.import_module(f"{__package__}.{name}")\n'),
    "dyn/fixed.py": 'import importlib\n\nP1 = importlib.import_module(".p1", "banditrepro.dyn")\n',
    "dyn/p1.py": "import banditrepro.heavy\n",
    "dyn/sub/__init__.py": "from banditrepro import light\n",
    "experiments/__init__.py": "",
    "experiments/spec.py": ("import importlib\n\n\ndef load(paper):\n"
                            '    return importlib.import_module(f"banditrepro.experiments.{paper}")\n'),
    "experiments/paper.schema.yaml": "type: object\n",
    "experiments/alpha/__init__.py": "from . import builders  # noqa: F401\n",
    "experiments/alpha/builders.py": "from ...kernels import a  # noqa: F401\n",
    "experiments/alpha/table.csv": "x\n1\n",
    "experiments/beta/__init__.py": "from ... import util  # noqa: F401\nfrom ...dyn import fixed  # noqa: F401\n",
}


@pytest.fixture
def fake(tmp_path) -> Path:
    package = tmp_path / "src" / "banditrepro"
    for rel, text in FAKE.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    return package


def test_closure_follows_static_imports_with_the_packages_on_the_way(fake):
    assert S.import_closure(["banditrepro.kernels.a"], fake) == [
        "__init__.py", "core.py", "kernels/__init__.py", "kernels/a.py", "kernels/b.py", "light.py", "util.py"]
    # the package's name may be left out; kernels/c.py is never imported, heavy.py only under TYPE_CHECKING
    assert S.import_closure(["kernels.b"], fake) == ["__init__.py", "core.py", "kernels/__init__.py", "kernels/b.py",
                                                     "light.py", "util.py"]


def test_a_computed_import_counts_as_every_module_of_its_package_but_not_its_sub_packages(fake):
    assert S.import_closure(["banditrepro.dyn.loader"], fake) == [
        "__init__.py", "core.py", "dyn/__init__.py", "dyn/fixed.py", "dyn/loader.py", "dyn/p1.py", "heavy.py"]
    # a constant name is resolved (relative to its package argument)
    assert S.import_closure(["banditrepro.dyn.fixed"], fake) == [
        "__init__.py", "core.py", "dyn/__init__.py", "dyn/fixed.py", "dyn/p1.py", "heavy.py"]


def test_paper_modules_are_its_package_the_workflow_modules_and_the_data_files_reached(fake):
    assert S.papers_in(fake) == ["alpha", "beta"]
    assert S.paper_modules("alpha", fake) == [
        "__init__.py", "core.py", "experiments/__init__.py", "experiments/alpha/__init__.py",
        "experiments/alpha/builders.py", "experiments/alpha/table.csv", "experiments/paper.schema.yaml",
        "experiments/spec.py", "kernels/__init__.py", "kernels/a.py", "kernels/b.py", "layout.py", "light.py",
        "util.py"]
    assert S.paper_modules("beta", fake) == [
        "__init__.py", "core.py", "dyn/__init__.py", "dyn/fixed.py", "dyn/p1.py", "experiments/__init__.py",
        "experiments/beta/__init__.py", "experiments/paper.schema.yaml", "experiments/spec.py", "heavy.py",
        "layout.py", "light.py", "util.py"]
    assert S.papers_importing("kernels/b.py", ["alpha", "beta"], fake) == ["alpha"]
    assert S.papers_importing("heavy.py", ["alpha", "beta"], fake) == ["beta"]
    assert S.papers_importing("util.py", ["alpha", "beta"], fake) == ["alpha", "beta"]
    assert S.papers_importing("kernels/c.py", ["alpha", "beta"], fake) == []
    with pytest.raises(ValueError, match="'gamma' is not a paper package"):
        S.paper_modules("gamma", fake)
    with pytest.raises(ValueError, match="banditrepro.nothing is not a module"):
        S.import_closure(["nothing"], fake)


def test_digest_is_sha256_over_paths_and_bytes_in_sorted_order(fake):
    expected = hashlib.sha256(b"core.py\0" + FAKE["core.py"].encode() + b"\0"
                              + b"light.py\0" + FAKE["light.py"].encode() + b"\0").hexdigest()
    assert S.sources_digest(["light.py", "core.py"], fake) == expected
    assert S.sources_record(["light.py", "core.py", "light.py"], fake) == {"sha256": expected, "files": 2}
    # the same bytes under another name are other sources
    (fake / "copy.py").write_text(FAKE["core.py"])
    assert S.sources_digest(["copy.py"], fake) != S.sources_digest(["core.py"], fake)


def test_an_edit_changes_the_digest_of_exactly_the_papers_that_import_it(fake):
    before = {p: S.paper_sources_digest(p, fake) for p in ("alpha", "beta")}
    (fake / "kernels" / "b.py").write_text(FAKE["kernels/b.py"].replace("return Y", "return Y + 1"))
    after = {p: S.paper_sources_digest(p, fake) for p in ("alpha", "beta")}
    assert after["alpha"] != before["alpha"] and after["beta"] == before["beta"]
    # an import added to a file is seen at once (the scan is cached by the file's state, not for good)
    stat = (fake / "kernels" / "c.py").stat()
    (fake / "kernels" / "c.py").write_text("from .. import heavy  # noqa: F401\nZ = 3\n")
    os.utime(fake / "kernels" / "c.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    (fake / "kernels" / "a.py").write_text(FAKE["kernels/a.py"] + "from . import c  # noqa: F401\n")
    assert {"kernels/c.py", "heavy.py"} <= set(S.paper_modules("alpha", fake))


# ------------------------------------------------------------------------------------ the real package


@pytest.fixture(scope="module")
def real() -> dict[str, list[str]]:
    return {paper: S.paper_modules(paper) for paper in S.papers_in()}


def test_papers_are_the_configured_ones(real):
    assert sorted(real) == sorted(p.stem for p in (REPO_ROOT / "config" / "papers").glob("*.yaml"))


def test_a_kernel_belongs_to_the_papers_that_import_it_and_generic_code_to_all(real):
    assert "algorithms/fairness.py" in real["penalized_fairness"]
    assert "algorithms/fairness.py" not in real["satisficing_ucl"]
    assert S.papers_importing("algorithms/fairness.py", list(real)) == ["penalized_fairness"]
    for paper, files in real.items():
        assert {"report/checks.py", "engine.py", "experiments/runner.py", "experiments/paper.schema.yaml",
                "data/manifest.yaml", f"experiments/{paper}/__init__.py"} <= set(files), paper
        others = [f for f in files if f.startswith("experiments/") and f.count("/") > 1
                  and not f.startswith(f"experiments/{paper}/")]
        assert others == [], f"{paper} reaches another paper's package: {others}"


def _workflow_imports() -> dict[str, set[str]]:
    """{file: package modules it imports} of the workflow scripts, the Snakefile and the generic rule files."""
    files = sorted((REPO_ROOT / "workflow" / "scripts").glob("*.py")) + [REPO_ROOT / "Snakefile"] \
        + sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk"))
    index = S._module_files(S.PACKAGE_DIR)
    found = {}
    for path in files:
        modules = set()
        for node in S._scanned_statements(path.read_text(encoding="utf-8")):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            modules.update(n for n in names if n in index)
        found[str(path.relative_to(REPO_ROOT))] = modules
    return found


def test_every_module_the_workflow_imports_is_in_every_papers_sources(real):
    """sources.WORKFLOW_MODULES must cover what the workflow loads: a script importing a module outside it
    would run code no digest covers (add the module there)."""
    index = S._module_files(S.PACKAGE_DIR)
    imports = _workflow_imports()
    assert imports["workflow/scripts/verify.py"] >= {"banditrepro.lock", "banditrepro.layout"}  # the scan works
    common = set.intersection(*(set(files) for files in real.values()))
    # banditrepro.sources computes the digests (at DAG time) and banditrepro.workflow_worker forks each job's
    # script as Snakemake would run it (tests/test_workflow_worker.py): neither computes a result
    exempt = {"banditrepro.sources", "banditrepro.workflow_worker"}
    missing = {f: sorted(m for m in mods if index[m] not in common and m not in exempt)
               for f, mods in imports.items()}
    assert {f: m for f, m in missing.items() if m} == {}


def test_the_import_scan_finds_what_a_full_parse_finds_in_every_package_file():
    for path in sorted(S.PACKAGE_DIR.rglob("*.py")):
        stat = path.stat()
        scanned = S._parsed_imports(str(path), stat.st_mtime_ns, stat.st_size, False)
        parsed = S._parsed_imports(str(path), stat.st_mtime_ns, stat.st_size, True)
        # a file that imports by a computed name is parsed whole either way
        assert sorted(scanned, key=repr) == sorted(parsed, key=repr), path


# ---------------------------------------------------------------------------------- workflow scripts

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_a_scripts_files_are_it_and_the_modules_of_its_folder_it_imports(tmp_path):
    folder = tmp_path / "workflow" / "scripts"
    folder.mkdir(parents=True)
    (folder / "job.py").write_text("import handoff  # noqa\nimport json\nfrom helper import f\nfrom banditrepro import lock\n")
    (folder / "handoff.py").write_text("import os\n")
    (folder / "helper.py").write_text("def f():\n    import deeper\n")
    (folder / "deeper.py").write_text("")
    (folder / "other.py").write_text("import job\n")
    assert [p.name for p in S.script_files(folder / "job.py")] == ["deeper.py", "handoff.py", "helper.py", "job.py"]
    record = S.scripts_record(folder / "job.py", tmp_path)
    assert sorted(record["files"]) == [f"workflow/scripts/{n}.py" for n in ("deeper", "handoff", "helper", "job")]
    assert record["files"]["workflow/scripts/job.py"] == hashlib.sha256((folder / "job.py").read_bytes()).hexdigest()
    (folder / "deeper.py").write_text("x = 1\n")  # an edit to a module a script imports moves its digest
    edited = S.scripts_record(folder / "job.py", tmp_path)
    assert edited["sha256"] != record["sha256"]
    (folder / "other.py").write_text("import job\nx = 1\n")  # one it does not import does not
    assert S.scripts_record(folder / "job.py", tmp_path) == edited
    # the scripts the main build runs many times hand their job to the worker first: worker_handoff.py is theirs
    assert "workflow/scripts/worker_handoff.py" in S.scripts_record(
        REPO_ROOT / "workflow" / "scripts" / "summarize_figure.py", REPO_ROOT)["files"]


def test_a_job_records_the_script_snakemake_ran_from_its_copy_with_the_preamble(tmp_path):
    """Snakemake runs a copy of the rule's script with its preamble in front (.snakemake/scripts/tmp<...>.<name>):
    the job records the script of the rule's folder, its rule and the digest of its files."""
    from types import SimpleNamespace

    from banditrepro import workflow_io

    scripts = REPO_ROOT / "workflow" / "scripts"
    copy = tmp_path / ".snakemake" / "scripts" / "tmpab12cd34.table.py"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(b"######## snakemake preamble start (automatically inserted, do not edit) ########\n"
                     + (scripts / "table.py").read_bytes())
    main = compile("def main(snakemake):\n    pass\n", str(copy), "exec")
    namespace: dict = {}
    exec(main, namespace)
    job = SimpleNamespace(rule="table", scriptdir=str(scripts))
    assert workflow_io.running_script(namespace["main"], job) == scripts / "table.py"
    record = workflow_io.job_scripts(namespace["main"], job)
    assert record == {"rule": "table", **S.scripts_record(scripts / "table.py", REPO_ROOT)}
    copy.write_bytes(copy.read_bytes() + b"# edited after the job started\n")  # not the tree's script: none found
    assert workflow_io.running_script(namespace["main"], job) is None
