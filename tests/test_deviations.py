"""Changes to claims after their results were known (issue 38, report/deviations.py): the frozen first form of every
locked claim, the deviation entries, the test that no headline claim changes without one, and the report section."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest

from banditrepro import provenance
from banditrepro.experiments.spec import PaperSpec, expand_claim_cells, paper_config_path, read_paper_yaml
from banditrepro.lock import VERDICTS_FILE, read_verdicts
from banditrepro.report.claims import CLAIMS_CSV_COLUMNS
from banditrepro.report.deviations import (
    DEVIATIONS_FILE,
    DEVIATIONS_HEADING,
    FIRST_FORMS_FILE,
    Deviation,
    FirstForm,
    claim_form,
    deviation_count,
    deviation_rows,
    dump_first_forms,
    form_change,
    form_problems,
    read_deviations,
    read_first_forms,
    record_first_forms,
)
from banditrepro.report.report import DEVIATIONS_COLUMN, overall_report, paper_report

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = ("censored_resources", "composite_anonymous", "penalized_fairness", "satisficing_select", "satisficing_ucl")


def _raw_claims(paper: str) -> list[dict]:
    path = paper_config_path(REPO_ROOT, paper)
    return expand_claim_cells(read_paper_yaml(path), path)["claims"]


@pytest.fixture(scope="module")
def record():
    return read_first_forms(REPO_ROOT / FIRST_FORMS_FILE), read_deviations(REPO_ROOT / DEVIATIONS_FILE)


@pytest.mark.parametrize("paper", PAPERS)
def test_no_headline_claim_changed_after_its_first_lock_without_a_deviation_entry(paper, record):
    first, deviations = record
    assert form_problems(paper, _raw_claims(paper), first, deviations) == []


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
