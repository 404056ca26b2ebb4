"""A new paper added from its own files, following only docs/ADDING_A_PAPER.md (issue #13.3, issue 40, issue 53).

The slow test copies the project (what a fresh clone holds, by ``repo_copy.copy_repo`` as the workflow tests do;
with no data mirror there it turns downloads off) into a temporary directory, writes the files of the guide's
"smallest complete paper" section there, exactly as the guide prints them (every fenced block of §7 with a
``title="<path>"``), edits nothing else, commits the copy as a clone holds it, and runs in the copy what a
committed paper must pass: the smoke build of the new paper's target, its smoke lock and its own `verify`
(Snakemake in a subprocess whose PYTHONPATH puts the copy's ``src`` first), then **every per-paper test** of the
copy for the new paper (``pytest --paper <paper>``: tests/conftest.py's definition, which also refuses a test that
runs for every committed paper and not for the new one) and the project-wide docs and import checks.

The fast tests keep that promise for the next paper: no test file writes out a set of papers (they discover them).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml
from repo_copy import REPO_ROOT, copy_repo

from banditrepro.experiments.spec import discover_papers
from banditrepro.layout import PAPER_ID, VERDICTS_FILE, content_path, lock_path
from banditrepro.report.vocabulary import REPRODUCED, VERDICTS

GUIDE = REPO_ROOT / "docs" / "ADDING_A_PAPER.md"
SECTION = re.compile(r"^## 7\. .*?(?=^## 8\. )", re.MULTILINE | re.DOTALL)  # the smallest complete paper
FILE_BLOCK = re.compile(r'^```\w+ title="(?P<path>[^"]+)"\n(?P<body>.*?)^```$', re.MULTILINE | re.DOTALL)


def guide_files(text: str | None = None) -> dict[str, str]:
    """{path: text} of every file §7 of the guide prints with a title."""
    section = SECTION.search(GUIDE.read_text(encoding="utf-8") if text is None else text)
    assert section, "docs/ADDING_A_PAPER.md has no section '## 7. ' followed by '## 8. '"
    return {m["path"]: m["body"] for m in FILE_BLOCK.finditer(section.group(0))}


def guide_paper(files: dict[str, str]) -> str:
    configs = [p for p in files if p.startswith("config/papers/")]
    assert len(configs) == 1, sorted(files)
    return Path(configs[0]).stem


def test_the_guide_prints_one_new_paper_made_of_its_own_files_only():
    files = guide_files()
    paper = guide_paper(files)
    own = (f"config/papers/{paper}.yaml", f"src/banditrepro/experiments/{paper}/", f"tests/{paper}/",
           f"tests/band_cases/{paper}.py", f"docs/papers/{paper}.md")
    assert all(p.startswith(own) for p in files), sorted(files)  # nothing asks for a generic file to be edited
    assert not (REPO_ROOT / "config" / "papers" / f"{paper}.yaml").exists(), "the guide's example must be a new paper"
    package = f"src/banditrepro/experiments/{paper}/"
    assert {f"{package}{m}.py" for m in ("__init__", "builders", "checks", "reference")} <= set(files)
    assert f"docs/papers/{paper}.md" in files and any(p.startswith(f"tests/{paper}/") for p in files)
    config = yaml.safe_load(files[f"config/papers/{paper}.yaml"])
    assert len(config["mutants"]) >= 6 and {c["kind"] for c in config["claims"]} == {"headline", "sanity"}
    assert re.fullmatch(PAPER_ID, paper), paper
    assert "\nREFERENCE = " in files[f"{package}reference.py"]  # the reference protocol's object (guide §2.1)


def test_only_the_blocks_of_section_7_are_written():
    text = ("## 6. x\n```python title=\"a.py\"\nA\n```\n## 7. The smallest\n```yaml title=\"config/papers/t.yaml\"\n"
            "paper: t\n```\n```python\nno title\n```\n## 8. The page\n```python title=\"b.py\"\nB\n```\n")
    assert guide_files(text) == {"config/papers/t.yaml": "paper: t\n"}


@pytest.mark.parametrize("paper", discover_papers(REPO_ROOT))
def test_every_paper_has_its_smoke_lock(paper):
    """A committed paper's smoke numbers are locked (`snakemake lock --config scale=smoke 'papers=[<paper>]'`),
    so that `verify` catches any later change of them."""
    for path in (lock_path(REPO_ROOT, paper, "smoke"), content_path(REPO_ROOT, paper, "smoke")):
        assert path.is_file(), f"{path.relative_to(REPO_ROOT)} missing (docs/ADDING_A_PAPER.md §9)"


def hard_coded_paper_sets(tests: Path, papers: list[str]) -> list[str]:
    """Where a test file writes out a set of papers: a literal list, tuple, set or dict (its keys), or a string
    split into words, holding two or more of ``papers``. A test that covers several papers takes them from
    ``discover_papers`` (or the ``paper`` parametrization of tests/conftest.py), so the next paper is covered
    without editing it; one paper named alone is a case, not a set."""
    known, found = set(papers), []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                items = node.elts
            elif isinstance(node, ast.Dict):
                items = [k for k in node.keys if k is not None]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
                  and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
                items = [ast.Constant(w) for w in re.split(r"[\s,]+", node.func.value.value)]
            else:
                continue
            named = sorted({i.value for i in items if isinstance(i, ast.Constant) and i.value in known})
            if len(named) >= 2:
                found.append(f"{path.relative_to(tests.parent).as_posix()}:{node.lineno}: {', '.join(named)}")
    return found


def test_no_test_file_writes_out_the_set_of_papers():
    """The papers are the files config/papers/*.yaml: a test over several papers discovers them, so that a new
    paper is checked by every test a committed one is (docs/ADDING_A_PAPER.md)."""
    found = hard_coded_paper_sets(REPO_ROOT / "tests", discover_papers(REPO_ROOT))
    assert not found, ("papers written out: take them from discover_papers(REPO_ROOT), or name a paper chosen as a "
                       "case on its own (`ucl = load_paper(\"satisficing_ucl\", ...)`):\n" + "\n".join(found))


@pytest.mark.parametrize("source, flagged", [
    ('PAPERS = ["alpha", "beta_two"]\n', True),
    ('for p in ("alpha", "beta_two"):\n    pass\n', True),
    ('CAUSES = {"alpha": 1, "beta_two": 2}\n', True),
    ('X = "alpha beta_two".split()\n', True),
    ('@pytest.mark.parametrize("paper", [\n    "alpha",\n    "beta_two",\n])\ndef test(paper): ...\n', True),
    ('PAPER = "alpha"\nCASES = [("alpha", "m1"), ("beta_two", "m2")]\n', False),  # one paper per case
    ('PAPERS = discover_papers(ROOT)\n', False),
    ('DOC = "alpha and beta_two"\n', False),  # prose
])
def test_a_written_out_set_of_papers_is_flagged(tmp_path, source, flagged):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(source, encoding="utf-8")
    found = hard_coded_paper_sets(tmp_path / "tests", ["alpha", "beta_two", "gamma"])
    assert bool(found) == flagged, found
    assert not found or found[0].startswith("tests/test_x.py:")


def _item(nodeid: str, **params):
    ids = "-".join(str(v) for v in params.values())
    return SimpleNamespace(nodeid=f"{nodeid}[{ids}]" if params else nodeid,
                           callspec=SimpleNamespace(params=params, id=ids) if params else None)


def test_per_paper_tests_are_those_parametrized_by_a_paper_and_a_missed_paper_is_refused():
    """tests/conftest.py's definition: ``pytest --paper P`` keeps the tests whose ``paper`` parameter is P or whose
    id names P (a band case's ``P:C1:check0:below``), and refuses a run where a test covers every other paper but
    not P."""
    from conftest import select_per_paper_tests

    papers = discover_papers(REPO_ROOT)
    new, others = papers[0], papers[1:]
    deselected = []
    config = SimpleNamespace(getoption=lambda name: [new],
                             hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    every = [_item("tests/test_a.py::test_x", paper=p) for p in papers]
    band = [_item("tests/test_b.py::test_band", label=f"{p}:C1:check0:below") for p in papers]
    items = [*every, *band, _item("tests/test_c.py::test_whole"), _item("tests/test_d.py::test_one", paper=others[0])]
    select_per_paper_tests(config, items)
    assert [i.nodeid for i in items] == [every[0].nodeid, band[0].nodeid] and len(deselected) == 2 * len(papers)
    missed = [_item("tests/test_a.py::test_x", paper=p) for p in others]  # written out without the new paper
    with pytest.raises(pytest.UsageError, match=f"run for every other paper but not for {new}.*test_a.py::test_x"):
        select_per_paper_tests(config, missed)


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    return proc


@pytest.mark.slow
def test_a_new_paper_builds_from_the_guide_alone_and_passes_the_checks_of_a_committed_paper(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    files = guide_files()
    for rel, text in files.items():
        assert not (repo / rel).exists(), rel
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    paper = guide_paper(files)
    git = ["git", "-C", str(repo), "-c", "user.name=guide", "-c", "user.email=guide@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the project with the guide's new paper"]):
        subprocess.run([*git, *args], check=True, capture_output=True)  # as a clone holds it (copy_repo, git grep)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba_cache")
    env["BANDITREPRO_DATA_MIRROR"] = str(tmp_path / "no-mirror")  # the toy paper needs no data
    snakemake = [sys.executable, "-m", "snakemake", "--directory", str(repo), "--snakefile", str(repo / "Snakefile")]
    start = time.perf_counter()
    _run([*snakemake, "--cores", "2", paper, "--config", "scale=smoke"], env, repo)
    elapsed = time.perf_counter() - start

    for ext in ("png", "pdf"):
        assert (repo / "figures" / paper / f"fig1.{ext}").stat().st_size > 1000
    summary = pd.read_csv(repo / "results" / paper / "fig1" / "summary.csv")
    assert list(summary.columns) == ["panel", "algorithm", "metric", "t", "mean", "se", "n"]
    assert set(summary.algorithm) == {"ucb1", "ucb1_c05"} and set(summary.metric) == {"regret", "optimal_pct"}
    assert summary.t.max() == 300 and summary.n.min() == 12
    share = summary[summary.metric == "optimal_pct"]["mean"]
    assert share.between(0, 100).all() and share.iloc[-1] > 100 / 3  # a share, not a running sum
    claims = pd.read_csv(repo / "results" / paper / "claims.csv")
    assert list(claims.claim_id) == ["C1", "C2", "S1", "R1"]
    assert set(claims.verdict) <= set(VERDICTS) and list(claims.kind) == ["headline", "headline", "sanity", "sanity"]
    assert claims.set_index("claim_id").verdict["R1"] == REPRODUCED  # the reference equals the build
    assert (repo / "results" / paper / "report.md").read_text().strip()
    assert sorted(p.name for p in (repo / "results").iterdir()) == [paper]  # only the new paper was built

    # §9: lock the paper's smoke numbers, then its own verify (no other paper is rebuilt)
    scoped = ["--config", "scale=smoke", f"papers=[{paper}]"]
    out = _run([*snakemake, "--cores", "2", "lock", *scoped], env, repo)
    assert lock_path(repo, paper, "smoke").is_file() and content_path(repo, paper, "smoke").is_file(), out.stderr
    out = _run([*snakemake, "--cores", "2", "verify", *scoped], env, repo)
    assert f"verify OK at scale smoke: {paper} (" in out.stdout + out.stderr
    assert sorted(p.name for p in (repo / "results").iterdir()) == [paper]

    # §9, step 7: the paper-scale build and its lock, with the paper's rows of verdicts.paper.csv, as every
    # committed paper has them (the per-paper tests of causes and findings read them); about 70 CPU-s
    _run([*snakemake, "--cores", "2", paper, "--config", "scale=paper", "replace_results=true"], env, repo)
    _run([*snakemake, "--cores", "2", "lock", "--config", "scale=paper", f"papers=[{paper}]"], env, repo)
    verdicts = pd.read_csv(repo / VERDICTS_FILE)
    assert sorted(verdicts[verdicts.paper == paper].claim_id) == ["C1", "C2", "R1", "S1"], verdicts.tail()
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)  # the locks, committed with the paper (§9)

    # every per-paper test a committed paper runs (tests/conftest.py: --paper), slow ones included, then the
    # project-wide checks a new file can break (every module named in ARCHITECTURE.md, every doc path and name, the
    # import rules)
    pytest_args = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "0"]
    per_paper = _run([*pytest_args, "--paper", paper, "tests"], env, repo)
    summary_line = per_paper.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary_line) and not re.search(r"failed|error|skipped", summary_line), \
        per_paper.stdout[-4000:]
    whole = _run([*pytest_args, "-m", "not slow", "tests/test_docs.py", "tests/test_layering.py"], env, repo)
    assert re.search(r"\d+ passed", whole.stdout) and "failed" not in whole.stdout, whole.stdout[-3000:]
    print(f"new paper built in {elapsed:.1f} s wall; per-paper tests: {summary_line}; project-wide: "
          f"{whole.stdout.strip().splitlines()[-1]}")
