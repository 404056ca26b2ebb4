"""Changes to claims after their results were known (issues 38 and 53, report/deviations.py): the frozen first form
and recorded code of every locked claim, the deviation entries, the test that no headline claim's config or code
changes without one, the history of the frozen files, and the report sections."""

from __future__ import annotations

import ast
import copy
import csv
import inspect
import io
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from banditrepro import provenance
from banditrepro.codegraph import CodeGraph, claim_check_units, package_code, paper_claim_code, unit_digest
from banditrepro.experiments.spec import (
    PaperSpec,
    discover_papers,
    expand_claim_cells,
    import_paper_package,
    paper_config_path,
    read_paper_yaml,
)
from banditrepro.lock import VERDICTS_FILE, read_verdicts
from banditrepro.registry import CLAIM_CHECKS
from banditrepro.report.claims import CLAIMS_CSV_COLUMNS
from banditrepro.report.deviations import (
    ADDED_HEADING,
    ADDED_NOTE,
    CODE_FILE,
    DEVIATIONS_FILE,
    DEVIATIONS_HEADING,
    FIRST_FORMS_FILE,
    SET_AFTER_RESULTS,
    Deviation,
    FirstForm,
    added_rows,
    check_names,
    claim_form,
    code_digest,
    deviation_count,
    deviation_rows,
    dump_first_forms,
    form_change,
    form_problems,
    is_headline,
    paper_first_lock,
    pending_entries,
    read_code,
    read_deviations,
    read_first_forms,
    record_code,
    record_first_forms,
)
from banditrepro.report.report import ADDED_COLUMN, DEVIATIONS_COLUMN, overall_report, paper_report

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = REPO_ROOT / "src" / "banditrepro"
PAPERS = discover_papers(REPO_ROOT)


def _raw_claims(paper: str) -> list[dict]:
    path = paper_config_path(REPO_ROOT, paper)
    return expand_claim_cells(read_paper_yaml(path), path)["claims"]


@pytest.fixture(scope="module")
def record():
    return read_first_forms(REPO_ROOT / FIRST_FORMS_FILE), read_deviations(REPO_ROOT / DEVIATIONS_FILE)


@pytest.fixture(scope="module")
def code_record():
    return read_code(REPO_ROOT / CODE_FILE)


def test_the_papers_are_discovered_and_each_has_a_first_form():
    """The parametrized tests below cover every paper config (discovered); each has entered a paper-scale lock."""
    assert PAPERS
    first = read_first_forms(REPO_ROOT / FIRST_FORMS_FILE)
    assert [p for p in PAPERS if p not in first] == []


@pytest.mark.parametrize("paper", PAPERS)
def test_no_headline_claim_changed_after_its_first_lock_without_a_deviation_entry(paper, record, code_record):
    """In its config or in the code its checks run (`python -m banditrepro.codegraph pending` prints an entry to
    complete for each)."""
    first, deviations = record
    raw = _raw_claims(paper)
    assert form_problems(paper, raw, first, deviations, code_record, paper_claim_code(raw, PACKAGE_DIR)) == []


def test_every_locked_claim_has_a_frozen_first_form(record):
    first, _ = record
    missing = [f"{r['paper']}: {r['claim_id']}" for r in read_verdicts(REPO_ROOT / VERDICTS_FILE)
               if r["claim_id"] not in first.get(r["paper"], {})]
    assert missing == [], "claims of the verdicts file without a first form (the lock rule records them)"


def test_a_change_after_the_first_lock_is_caught(record):
    """Hand-made violations: a threshold moved, a premise dropped, a kind changed, a claim removed."""
    first, deviations = record
    raw = _raw_claims("satisficing_select")
    moved = copy.deepcopy(raw)
    c5b = next(c for c in moved if c["id"] == "C5b")
    c5b["check"]["min_ratio"] = 1.5
    problems = form_problems("satisficing_select", moved, first, deviations)
    assert len(problems) == 1 and problems[0].startswith("satisficing_select: claim C5b changed (check.min_ratio: "
                                                         "1.7 → 1.5) after its first lock")
    del c5b["premise"]
    assert "premise: \"C5a\" → (absent)" in form_problems("satisficing_select", moved, first, deviations)[0]
    demoted = copy.deepcopy(raw)
    next(c for c in demoted if c["id"] == "C2a3")["kind"] = "variant"
    assert "kind: headline → variant" in form_problems("satisficing_select", demoted, first, deviations)[0]
    removed = [c for c in raw if c["id"] != "C4b2"]
    assert "claim C4b2 was removed after its first lock" in form_problems("satisficing_select", removed, first,
                                                                          deviations)[0]
    # a claim that is neither headline then nor now may change freely
    free = copy.deepcopy(raw)
    next(c for c in free if c["id"] == "LCB2a")["statement"] = "reworded"
    assert form_problems("satisficing_select", free, first, deviations) == []


def _toy_first():
    old = {"id": "H", "statement": "A  below B", "kind": "headline", "check": {"fn": "below", "lower": "A"}}
    return {"p": {"H": FirstForm("p", "H", "abc1234", "not_reproduced", claim_form(old))}}, old


def test_a_recorded_change_is_accepted_and_a_later_unrecorded_one_is_not():
    first, old = _toy_first()
    new = dict(old, premise="L")
    dev = Deviation("p", "H", "def5678", claim_form(new), "not_reproduced", "premise added")
    assert form_problems("p", [old], first, []) == []
    assert len(form_problems("p", [new], first, [])) == 1
    assert form_problems("p", [new], first, [dev]) == []
    later = dict(new, check={"fn": "below", "lower": "B"})
    assert "check.lower: \"A\" → \"B\"" in form_problems("p", [later], first, [dev])[0]
    assert form_problems("p", [new], first, [dev, Deviation("p", "Z", "x", None, "reproduced", "r")]) == [
        "p: deviation of claim Z (x), which never entered a lock"]


def test_the_first_forms_only_grow():
    first, old = _toy_first()
    changed = dict(old, statement="another statement")
    added = record_first_forms(first, "p", [changed, {"id": "N", "statement": "new", "kind": "variant",
                                                      "check": {"fn": "f"}}],
                               [{"claim_id": "H", "verdict": "reproduced"}, {"claim_id": "N", "verdict": "reproduced"}],
                               "lock of 1234567")
    assert added == ["N"]
    assert first["p"]["H"].form["statement"] == "A below B" and first["p"]["H"].verdict == "not_reproduced"
    assert first["p"]["N"].lock == "lock of 1234567"
    text = dump_first_forms(first)
    assert text.startswith("# The form of every claim at the first paper-scale lock")


def test_the_deviations_table_shows_each_change_with_its_verdicts_and_reason(tmp_path):
    first, old = _toy_first()
    step1 = dict(old, premise="L")
    step2 = dict(step1, kind="variant")
    devs = [Deviation("p", "H", "def5678", claim_form(step1), "not_reproduced", "premise added", "inconclusive"),
            Deviation("p", "H", "9abcdef", claim_form(step2), "inconclusive", "derived, not stated")]
    claims = pd.DataFrame([("H", "fig", "s", "m", "t", "inconclusive", "variant", "")], columns=CLAIMS_CSV_COLUMNS)
    rows = deviation_rows("p", first, devs, claims)
    assert [(r["commit"], r["change (old → new)"], r["verdict before"], r["verdict after"]) for r in rows] == [
        ("def5678", 'premise: (absent) → "L"', "not_reproduced", "inconclusive"),
        ("9abcdef", "kind: headline → variant", "inconclusive", "inconclusive (now)")]
    spec = PaperSpec(paper="p", title="P", scale="paper", experiments={}, figures={}, claims=[], tables={},
                     resolutions=[], config={"paper": "p"})
    text = paper_report(spec, claims, {}, {}, {}, set(), provenance.record({"scale": "paper"}, 1, tmp_path),
                        tmp_path / "report.md", deviations=rows, unrecorded=["p: claim X changed"])
    assert DEVIATIONS_HEADING in text and "2 changes to 1 claim." in text
    assert "| H | def5678 | premise: (absent) → \"L\" | not_reproduced | inconclusive | premise added |" in text
    assert "> **Changed without a record:** p: claim X changed" in text
    assert deviation_count("p", devs) == (2, 1)
    (tmp_path / "p").mkdir()
    claims.to_csv(tmp_path / "p" / "claims.csv", index=False)
    overall = overall_report({"p": tmp_path / "p" / "claims.csv"}, {"p": tmp_path / "p" / "report.md"},
                             tmp_path / "report.md", provenance.record({"scale": "paper"}, 1, tmp_path),
                             paper_deviations={"p": (2, 1)})
    assert DEVIATIONS_COLUMN in overall and "| 1 (2 changes) |" in overall


def test_form_change_names_a_replaced_check_whole():
    old = {"statement": "s", "kind": "headline", "check": {"fn": "gate", "inner": {"fn": "f", "x": 1}}}
    new = {"statement": "s", "kind": "headline", "check": {"fn": "f", "x": 1}, "premise": "P"}
    assert form_change(old, new) == 'check: {fn: gate, inner: {fn: f, x: 1}} → {fn: f, x: 1}; premise: (absent) → "P"'
    assert form_change(old, None) == "removed"


@pytest.mark.parametrize("paper", PAPERS)
def test_every_deviation_of_this_paper_has_a_reason_and_a_commit(paper, record):
    _, deviations = record
    for d in (d for d in deviations if d.paper == paper):
        assert len(d.reason) > 40 and len(d.commit) >= 7, f"{paper}: {d.claim} ({d.commit})"


# ------------------------------------------------------------------------------------------ the code of a claim


def _import_papers() -> None:
    for paper in PAPERS:
        import_paper_package(paper)


def test_the_claim_checks_found_in_the_sources_are_the_registered_ones():
    """codegraph finds a check by its `@claim_check("name")` decorator without importing anything; the registry,
    once every paper package is imported, must agree name by name and place by place."""
    _import_papers()
    _, static = package_code(str(PACKAGE_DIR))
    registered = {name: inspect.unwrap(fn) for name, fn in CLAIM_CHECKS.items() if fn.__module__.startswith("banditrepro.")}
    assert set(static) == set(registered)
    for name, fn in registered.items():
        unit = static[name]
        assert unit.module == "/".join(fn.__module__.split(".")[1:]) + ".py", name
        assert unit.first <= fn.__code__.co_firstlineno <= unit.last, name


def test_check_names_cover_nested_checks_premise_checks_and_premise_claims():
    claims = {
        "A": {"id": "A", "check": {"fn": "all_of", "parts": [{"fn": "p1", "label": "x"},
                                                            {"fn": "gate", "inner": {"fn": "p2", "k": 1}}]},
              "premise": "B"},
        "B": {"id": "B", "check": {"fn": "b"}, "premise": ["C"]},
        "C": {"id": "C", "check": {"fn": "c"}, "premise": {"fn": "cp", "x": [1, 2]}},
        "D": {"id": "D", "check": {"fn": "d"}, "premise": "A"},
    }
    assert check_names(claims["A"], claims) == ["all_of", "p1", "gate", "p2", "b", "c", "cp"]
    assert check_names(claims["C"], claims) == ["c", "cp"]
    assert check_names(claims["D"], claims) == ["d", "all_of", "p1", "gate", "p2", "b", "c", "cp"]


def _headline_check_in_a_paper_package():
    """(paper, claim id, check name) of the first headline claim, over the discovered papers, whose check is
    registered in its paper's own package."""
    _, static = package_code(str(PACKAGE_DIR))
    for paper in PAPERS:
        for claim in _raw_claims(paper):
            fn = claim["check"]["fn"]
            if claim.get("kind") == "headline" and fn in static and static[fn].module.startswith(f"experiments/{paper}/"):
                return paper, str(claim["id"]), fn
    raise AssertionError("no headline claim has a check in its paper's package")


def _plant(path: Path, node: ast.AST, line: str) -> None:
    """Insert ``line`` as the first statement of the function ``node`` of the file ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = node.body[0]
    lines.insert(first.lineno - 1, " " * first.col_offset + line + "\n")
    path.write_text("".join(lines), encoding="utf-8")


def _function_node(package: Path, unit) -> ast.FunctionDef:
    tree = ast.parse((package / unit.module).read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == unit.name)


def _copy_package(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name / "banditrepro"
    shutil.copytree(PACKAGE_DIR, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_an_edit_of_a_headline_check_or_of_a_helper_it_calls_needs_a_deviation(tmp_path):
    """Planted in copies of the package: a statement in a headline check's body, then in a function that check
    reaches; each makes the claim's code differ from its record, naming the claim and the changed function. A
    docstring or a comment changes nothing."""
    paper, cid, fn = _headline_check_in_a_paper_package()
    raw = _raw_claims(paper)
    first = {paper: {str(c["id"]): FirstForm(paper, str(c["id"]), "abc1234", "reproduced", claim_form(c))
                     for c in raw}}
    recorded: dict = {}
    record_code(recorded, paper, paper_claim_code(raw, PACKAGE_DIR), [str(c["id"]) for c in raw], "abc1234")
    graph, static = package_code(str(PACKAGE_DIR))
    check = static[fn]
    helper = next(u for u in sorted(graph.reachable(check), key=str) if u != check and u.module.endswith("checks.py")
                  and isinstance(graph.modules[u.module].nodes[u], ast.FunctionDef))

    quiet = _copy_package(tmp_path, "quiet")
    node = _function_node(quiet, check)
    path = quiet / check.module
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if isinstance(node.body[0], ast.Expr) and '"""' in lines[node.body[0].lineno - 1]:
        lines[node.body[0].lineno - 1] = lines[node.body[0].lineno - 1].replace('"""', '"""Planted words. ', 1)
    lines.insert(node.body[0].lineno - 1, " " * node.body[0].col_offset + "# a planted comment\n")
    path.write_text("".join(lines), encoding="utf-8")
    assert form_problems(paper, raw, first, [], recorded, paper_claim_code(raw, quiet)) == []

    for name, unit in (("check", check), ("helper", helper)):
        package = _copy_package(tmp_path, name)
        _plant(package / unit.module, _function_node(package, unit), "_planted = None")
        problems = form_problems(paper, raw, first, [], recorded, paper_claim_code(raw, package))
        mine = [p for p in problems if p.startswith(f"{paper}: claim {cid}: the code its check runs changed")]
        assert len(mine) == 1 and f"{unit} (changed)" in mine[0], (name, problems)
        # a deviation carrying the new code accepts it
        code_now = paper_claim_code(raw, package)
        devs = [Deviation(paper, c, "def5678", claim_form(next(r for r in raw if str(r["id"]) == c)), "reproduced",
                          "r", None, (str(unit),), code_now[c])
                for c in {p.split(": claim ")[1].split(":")[0] for p in problems}]
        assert form_problems(paper, raw, first, devs, recorded, code_now) == []


def test_unit_digests_ignore_docstrings_comments_and_layout(tmp_path):
    a = "def f(x):\n    '''doc'''\n    return x + 1  # one\n"
    b = "# header\ndef f(x):\n    '''another doc'''\n\n    return (x +\n            1)\n"
    c = "def f(x):\n    return x + 2\n"
    digests = []
    for i, text in enumerate((a, b, c)):
        (tmp_path / f"m{i}.py").write_text(text, encoding="utf-8")
        graph = CodeGraph(tmp_path, [f"m{i}.py"])
        digests.append(unit_digest(graph, graph.unit_named(f"m{i}.py", "f")))
    assert digests[0] == digests[1] != digests[2]


def test_claim_checks_registered_twice_are_an_error(tmp_path):
    (tmp_path / "m.py").write_text("@claim_check('x')\ndef f(): pass\n\n@registry.claim_check('x')\ndef g(): pass\n",
                                   encoding="utf-8")
    with pytest.raises(ValueError, match="registered twice"):
        claim_check_units(CodeGraph(tmp_path, ["m.py"]))


def test_the_code_record_only_grows_and_pending_names_the_changed_functions():
    first, old = _toy_first()
    recorded: dict = {}
    assert record_code(recorded, "p", {"H": {"m.py:f": "a" * 12}}, ["H"], "abc1234") == ["H"]
    assert record_code(recorded, "p", {"H": {"m.py:f": "b" * 12}}, ["H"], "def5678") == []
    assert recorded["p"]["H"].units == {"m.py:f": "a" * 12} and recorded["p"]["H"].digest == code_digest(
        {"m.py:f": "a" * 12})
    now = {"H": {"m.py:f": "b" * 12, "m.py:g": "c" * 12}}
    problems = form_problems("p", [old], first, [], recorded, now)
    assert len(problems) == 1 and "m.py:f (changed), m.py:g (new)" in problems[0]
    [entry] = pending_entries("p", [old], first, [], recorded, now, "fff0000")
    assert entry.functions == ("m.py:f", "m.py:g") and entry.code == now["H"] and entry.form == claim_form(old)
    assert entry.verdict_before == "not_reproduced" and entry.reason == ""
    assert form_problems("p", [old], first, [entry], recorded, now) == []
    # a headline claim with no recorded code at all is a problem too
    assert "has no recorded code" in form_problems("p", [old], first, [], {}, now)[0]


def test_the_recorded_code_is_the_trees_for_every_recorded_claim(code_record):
    """Every code record names a claim with a first form and its digest is its units' (the file is not edited by
    hand)."""
    first = read_first_forms(REPO_ROOT / FIRST_FORMS_FILE)
    for paper, claims in code_record.items():
        for cid, rec in claims.items():
            assert cid in first.get(paper, {}), f"{paper}: {cid}"
            assert rec.digest == code_digest(rec.units), f"{paper}: {cid}"
    for d in read_deviations(REPO_ROOT / DEVIATIONS_FILE):
        assert d.code is None or d.functions, f"{d.paper}: {d.claim} ({d.commit}) carries code but names no function"


# ------------------------------------------------------------------------------------ the history of the frozen files


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True)


def _history_or_skip() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: no history to compare the frozen files with")
    shallow = _git("rev-parse", "--is-shallow-repository")
    if shallow.returncode != 0:
        pytest.skip("not a git checkout: no history to compare the frozen files with")
    if shallow.stdout.strip() == "true":
        pytest.skip("shallow clone: the history of the frozen files is incomplete (git fetch --unshallow)")


def frozen_violations(old: dict, new: dict, name: str) -> list[str]:
    """Entries of an older version of a frozen {paper: {claim: entry}} file that the newer one lacks or changed."""
    out = []
    for paper, claims in (old or {}).items():
        for cid, entry in (claims or {}).items():
            now = ((new or {}).get(paper) or {}).get(cid)
            if now is None:
                out.append(f"{name}: {paper} {cid} removed")
            elif now != entry:
                out.append(f"{name}: {paper} {cid} rewritten")
    return out


def test_frozen_violations_sees_a_removal_and_a_rewrite():
    old = {"p": {"A": {"lock": "x", "form": {"statement": "s"}}, "B": {"lock": "x"}}}
    assert frozen_violations(old, {"p": {"A": {"lock": "x", "form": {"statement": "s"}}, "B": {"lock": "x"},
                                         "C": {}}}, "f") == []
    assert frozen_violations(old, {"p": {"A": {"lock": "x", "form": {"statement": "t"}}}}, "f") == [
        "f: p A rewritten", "f: p B removed"]


@pytest.mark.parametrize("frozen", [FIRST_FORMS_FILE, CODE_FILE], ids=lambda p: p.name)
def test_a_frozen_file_only_grows_over_its_git_history(frozen):
    """Every committed version of claims.first.yaml (claims.code.yaml) is contained in the working tree's: no
    entry was ever removed or rewritten."""
    _history_or_skip()
    commits = _git("log", "--format=%H", "--", str(frozen)).stdout.split()
    current = yaml.safe_load((REPO_ROOT / frozen).read_text(encoding="utf-8"))
    problems = []
    for commit in commits:
        shown = _git("show", f"{commit}:{frozen.as_posix()}")
        if shown.returncode == 0:
            problems += [f"{p} (since {commit[:7]})" for p in frozen_violations(yaml.safe_load(shown.stdout), current,
                                                                                 frozen.name)]
    assert problems == []


def _lock_commit(lock: str) -> str:
    return lock.split()[-1]


def test_a_papers_first_lock_is_the_first_in_history():
    """A paper's first lock (its first entry in the first-forms file) is an ancestor of every other lock of its
    claims, so the claims of a later lock were added after results were known."""
    _history_or_skip()
    first = read_first_forms(REPO_ROOT / FIRST_FORMS_FILE)
    for paper in PAPERS:
        head = _lock_commit(paper_first_lock(paper, first))
        for lock in {e.lock for e in first[paper].values()}:
            assert _git("merge-base", "--is-ancestor", head, _lock_commit(lock)).returncode == 0, (paper, lock)


def test_the_claims_added_after_a_papers_first_lock_are_those_its_first_verdicts_lack():
    """Computed a second way, from the history of verdicts.paper.csv: the headline claims (in their first form
    or now) that the paper's first version of the verdicts file lacks; a claim with ``set_after_results`` carries
    that text in its note."""
    _history_or_skip()
    first = read_first_forms(REPO_ROOT / FIRST_FORMS_FILE)
    commits = _git("log", "--reverse", "--format=%H", "--", str(VERDICTS_FILE)).stdout.split()
    for paper in PAPERS:
        raw = _raw_claims(paper)
        initial = None
        for commit in commits:
            text = _git("show", f"{commit}:{VERDICTS_FILE.as_posix()}").stdout
            ids = {r["claim_id"] for r in read_verdicts_text(text) if r["paper"] == paper}
            if ids:
                initial = ids
                break
        assert initial, paper
        now = {str(c["id"]): claim_form(c) for c in raw}
        expected = [cid for cid, e in first[paper].items() if cid not in initial
                    and (is_headline(e.form) or is_headline(now.get(cid)))]
        expected += [cid for cid, f in now.items() if cid not in first[paper] and is_headline(f)]
        rows = added_rows(paper, first, raw)
        assert [r["claim_id"] for r in rows] == expected, paper
        for r in rows:
            assert r["note"].startswith(ADDED_NOTE)
            why = next((c.get(SET_AFTER_RESULTS) for c in raw if str(c["id"]) == r["claim_id"]), None)
            if why:
                assert " ".join(why.split()) in r["note"]


def read_verdicts_text(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_every_set_after_results_claim_is_listed_as_added():
    """A claim whose config says something was set with the results known is listed with that note."""
    first = read_first_forms(REPO_ROOT / FIRST_FORMS_FILE)
    seen = 0
    for paper in PAPERS:
        raw = _raw_claims(paper)
        notes = {r["claim_id"]: r["note"] for r in added_rows(paper, first, raw)}
        for c in raw:
            if c.get(SET_AFTER_RESULTS):
                seen += 1
                assert " ".join(c[SET_AFTER_RESULTS].split()) in notes.get(str(c["id"]), ""), (paper, c["id"])
    assert seen, "no claim of any paper declares set_after_results (penalized_fairness C2.6 should)"


def test_a_claim_with_no_first_form_is_listed_as_added_in_the_reports(tmp_path):
    first, old = _toy_first()
    new = {"id": "N", "statement": "new", "kind": "headline", "check": {"fn": "f"},
           SET_AFTER_RESULTS: "its threshold was chosen with the widths known"}
    later = {"id": "L", "statement": "later", "kind": "headline", "check": {"fn": "f"}}
    first["p"]["L"] = FirstForm("p", "L", "lock of 9999999", "inconclusive", claim_form(later))
    claims = pd.DataFrame([("N", "fig", "s", "m", "t", "reproduced", "headline", "")], columns=CLAIMS_CSV_COLUMNS)
    rows = added_rows("p", first, [old, later, new], claims)
    assert rows == [
        {"claim_id": "L", "kind": "headline", "first lock": "lock of 9999999", "first verdict": "inconclusive",
         "note": ADDED_NOTE},
        {"claim_id": "N", "kind": "headline", "first lock": "not yet locked", "first verdict": "reproduced (now)",
         "note": f"{ADDED_NOTE}; its threshold was chosen with the widths known"}]
    spec = PaperSpec(paper="p", title="P", scale="paper", experiments={}, figures={}, claims=[], tables={},
                     resolutions=[], config={"paper": "p"})
    text = paper_report(spec, claims, {}, {}, {}, set(), provenance.record({"scale": "paper"}, 1, tmp_path),
                        tmp_path / "report.md", deviations=[], added=rows)
    assert ADDED_HEADING in text and "2 claims added after the first lock." in text
    assert f"| N | headline | not yet locked | reproduced (now) | {ADDED_NOTE}; its threshold was chosen" in text
    (tmp_path / "p").mkdir()
    claims.to_csv(tmp_path / "p" / "claims.csv", index=False)
    overall = overall_report({"p": tmp_path / "p" / "claims.csv"}, {"p": tmp_path / "p" / "report.md"},
                             tmp_path / "report.md", provenance.record({"scale": "paper"}, 1, tmp_path),
                             paper_deviations={"p": (0, 0)}, paper_added={"p": len(rows)})
    assert ADDED_COLUMN in overall and "| 0 | 2 |" in overall
