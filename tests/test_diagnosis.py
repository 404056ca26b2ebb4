"""The diagnosis of non-reproductions (report/diagnosis.py): causes in claims.csv, the per-cause counts of
every summary, the alternative-readings table, the config checks of `causes:` and `readings:`; and, over
the paper-scale verdicts file, that every headline non-reproduction of the diagnosed papers has a cause."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest

from banditrepro import provenance
from banditrepro.experiments.spec import ConfigError, PaperSpec, _check_diagnosis, discover_papers, load_paper
from banditrepro.lock import VERDICTS_FILE, diff_rows, read_verdicts
from banditrepro.report.checks import printed_cells
from banditrepro.report.claims import CLAIMS_CSV_COLUMNS, evaluate_claims, merge_claims
from banditrepro.report.context import ResultsContext
from banditrepro.report.diagnosis import (
    NO_READING,
    READING_COLUMNS,
    cause_breakdown,
    cause_labels,
    cause_reading_problems,
    causes_of,
    claim_cause,
    drop_ruled_out_causes,
    reading_sentences,
    readings_table,
    ruled_out_by,
    undiagnosed_headlines,
    with_causes,
)
from banditrepro.report.findings import headline_sentence, verdict_line
from banditrepro.report.report import overall_report, paper_report

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the papers whose every headline non-reproduction must name its cause (issue 31; every paper since issue 38, where
#: a mechanism is documented for every failure or the cause says it was not found): the discovered papers (issue 53)
DIAGNOSED_PAPERS = tuple(discover_papers(REPO_ROOT))
ALL_PAPERS = DIAGNOSED_PAPERS

CAUSES = {"lcb": "LCB test unreachable", "restarts": "oracle restarts", "agarwal": "Agarwal candidates"}


def _table(rows) -> pd.DataFrame:
    """rows: (claim_id, verdict, kind, cause[, measured])."""
    out = []
    for row in rows:
        cid, verdict, kind, cause = row[:4]
        measured = row[4] if len(row) > 4 else "m"
        out.append((cid, "fig", "s", measured, "t", verdict, kind, cause))
    return pd.DataFrame(out, columns=CLAIMS_CSV_COLUMNS)


SELECT_LIKE = _table([("H1", "reproduced", "headline", ""), ("H2", "not_reproduced", "headline", "lcb"),
                      ("H3", "not_reproduced", "headline", "restarts"), ("H4", "not_reproduced", "headline", "lcb"),
                      ("H5", "not_reproduced", "headline", "agarwal"), ("H6", "not_reproduced", "headline", "lcb"),
                      ("H7", "inconclusive", "headline", ""), ("H8", "inconclusive", "headline", "", "not measured"),
                      ("V1", "not_reproduced", "variant", ""), ("V2", "reproduced", "variant", ""),
                      ("S1", "reproduced", "sanity", "")])


def test_cause_is_written_only_while_a_measured_claim_is_not_reproduced():
    claim = {"id": "C1", "cause": "lcb"}
    assert claim_cause(claim, "not_reproduced") == "lcb"
    assert claim_cause(claim, "inconclusive") == "lcb"
    assert claim_cause(claim, "reproduced") == ""
    assert claim_cause(claim, "inconclusive", measured=False) == ""
    assert claim_cause({"id": "C2"}, "not_reproduced") == ""


def test_causes_are_counted_most_frequent_first_with_their_labels():
    assert cause_breakdown(SELECT_LIKE, CAUSES) == "3 LCB test unreachable, 1 oracle restarts, 1 Agarwal candidates"
    # a measured headline failure without a cause is undiagnosed; an unmeasured one is not counted
    assert cause_breakdown(SELECT_LIKE, CAUSES, "inconclusive") == "1 undiagnosed"
    # variant and sanity rows never count; a table without the cause column gives no breakdown
    assert cause_breakdown(SELECT_LIKE.drop(columns=["cause"]), CAUSES) == ""
    assert cause_labels(SELECT_LIKE) == ["", "lcb", "restarts", "lcb", "agarwal", "lcb", "undiagnosed", "", "", "",
                                         ""]


def test_summaries_count_non_reproductions_by_cause():
    assert verdict_line(SELECT_LIKE, CAUSES) == (
        "Headline claims: 1 reproduced, 5 not reproduced (3 LCB test unreachable, 1 oracle restarts, "
        "1 Agarwal candidates), 2 inconclusive (1 undiagnosed) (of 8) · variant: 1/2 reproduced · "
        "sanity: 1/1 reproduced")
    # one fact per sentence (issue 30): each cause its own sentence
    assert headline_sentence(SELECT_LIKE, CAUSES) == (
        "1 of the paper's 8 headline claims reproduces. 1 could not be measured because its figure was not built. "
        "5 do not reproduce. 3 fail because of LCB test unreachable. 1 fails because of oracle restarts. 1 fails "
        "because of Agarwal candidates. 1 is inconclusive on the measurement, because of a cause not yet diagnosed.")
    # a cause the paper does not label is shown by its id
    assert verdict_line(SELECT_LIKE, {}).startswith("Headline claims: 1 reproduced, 5 not reproduced (3 lcb, ")


def test_overall_report_has_a_per_cause_column(tmp_path):
    (tmp_path / "p").mkdir()
    SELECT_LIKE.to_csv(tmp_path / "p" / "claims.csv", index=False)
    (tmp_path / "p" / "report.md").write_text("# p\n")
    text = overall_report({"p": tmp_path / "p" / "claims.csv"}, {"p": tmp_path / "p" / "report.md"},
                          tmp_path / "report.md", provenance.record({"scale": "paper"}, 7, tmp_path),
                          paper_causes={"p": CAUSES})
    assert ("| [p](p/report.md) | 8 | 1 | 5 | 3 LCB test unreachable, 1 oracle restarts, 1 Agarwal candidates "
            "| 2 |") in text
    assert "not reproduced, by cause" in text


READINGS_CONFIG = {
    "causes": CAUSES,
    "readings": [
        {"id": "bernoulli", "description": "Bernoulli rewards", "deviates_from": "resolution rewards: Gaussian",
         "claims": {"H2": "V1", "H3": "V2"}, "cells": {"printed": "S1", "reading": "V2"}},
        {"id": "last_query", "description": "the oracle's last query", "deviates_from": "Agarwal, Alg. 1",
         "claims": {"H5": "V1"}},
    ],
}


def test_readings_table_says_which_headline_verdicts_each_reading_flips():
    table = pd.DataFrame(readings_table(READINGS_CONFIG, SELECT_LIKE), columns=READING_COLUMNS)
    assert table[["reading", "headline_claim", "headline_verdict", "variant_claim", "verdict_under_reading",
                  "flips"]].values.tolist() == [
        ["bernoulli", "H2", "not_reproduced", "V1", "not_reproduced", "no"],
        ["bernoulli", "H3", "not_reproduced", "V2", "reproduced", "yes"],
        ["last_query", "H5", "not_reproduced", "V1", "not_reproduced", "no"],
        # every other headline failure gets a row of its own, with its cause (H7 has none: undiagnosed)
        [NO_READING, "H4", "not_reproduced", "", "", ""],
        [NO_READING, "H6", "not_reproduced", "", "", ""],
        [NO_READING, "H7", "inconclusive", "", "", ""]]
    assert table.cause.tolist() == ["lcb", "restarts", "agarwal", "lcb", "lcb", ""]
    assert table.printed_cells.tolist() == ["m", "m", "", "", "", ""]
    assert table.reading_cells.tolist() == ["m", "m", "", "", "", ""]
    assert reading_sentences(READINGS_CONFIG, SELECT_LIKE) == [
        "Reading `bernoulli` flips 1 of 2 headline claims: H3 (not reproduced -> reproduced).",
        "Reading `last_query` flips none of the 1 headline claims it measures."]
    # a claim missing from the table (its figure not evaluated) reads inconclusive, not measured, and flips nothing
    partial = readings_table(READINGS_CONFIG, SELECT_LIKE[SELECT_LIKE.claim_id != "V2"])
    assert (partial[1]["verdict_under_reading"], partial[1]["reading_cells"], partial[1]["flips"]) == \
        ("inconclusive", "not measured", "")


def _cause_config(**causes):
    """READINGS_CONFIG's readings, with H2/H3 explained by cause 'a', H5 by cause 'b' (both hand-made)."""
    return {"causes": causes, "readings": READINGS_CONFIG["readings"],
            "claims": [{"id": "H2", "kind": "headline", "cause": "a"}, {"id": "H3", "kind": "headline", "cause": "a"},
                       {"id": "H5", "kind": "headline", "cause": "b"}]}


def test_a_cause_must_agree_with_the_readings():
    """issue 38: each rule fails on a hand-made violation (SELECT_LIKE: bernoulli flips H3, not H2; last_query
    flips nothing)."""
    plain = _cause_config(a="x", b="y")
    assert cause_reading_problems(plain, SELECT_LIKE) == []
    # 'no reading decides it' while a reading flips one of its claims
    problems = cause_reading_problems(_cause_config(a={"label": "x", "no_reading": True}, b="y"), SELECT_LIKE)
    assert problems == ["H3: its cause a says no reading decides it, but reading bernoulli flips it"]
    # a cause confirmed by a reading that flips only some of its claims: H2 stays not reproduced under it (V1), so
    # its own reading rules the cause out (issue 53), confirmed or not
    for confirmed in (True, False):
        cause_a = {"label": "x", "reading": "bernoulli", "unconfirmed": not confirmed}
        problems = cause_reading_problems(_cause_config(a=cause_a, b="y"), SELECT_LIKE)
        assert problems == ["H2: its cause a is ruled out by its own reading bernoulli: without the mechanism it is "
                            "still not reproduced (V1); name the cause that explains it"]
    # a reading that leaves an inconclusive claim inconclusive neither confirms the cause nor rules it out: unconfirmed
    undecided = SELECT_LIKE.copy()
    undecided.loc[undecided.claim_id.isin(["H2", "V1"]), "verdict"] = "inconclusive"
    problems = cause_reading_problems(_cause_config(a={"label": "x", "reading": "bernoulli"}, b="y"), undecided)
    assert problems == ["H2: its cause a is removed by reading bernoulli, which does not flip it: mark the cause "
                        "unconfirmed or name the cause that explains it"]
    assert cause_reading_problems(_cause_config(a={"label": "x", "reading": "bernoulli", "unconfirmed": True}, b="y"),
                                  undecided) == []
    # unconfirmed while its reading flips every claim it explains
    flipped = _cause_config(a="x", b={"label": "y", "reading": "bernoulli", "unconfirmed": True})
    flipped["claims"][2]["id"] = "H3"
    flipped["claims"] = flipped["claims"][2:]
    assert cause_reading_problems(flipped, SELECT_LIKE) == [
        "cause b is marked unconfirmed, but reading bernoulli flips every claim it explains (H3)"]
    assert cause_reading_problems(_cause_config(a={"label": "x", "reading": "nope"}, b="y"), SELECT_LIKE)[0] == \
        "cause a: reading 'nope' is not declared under readings:"
    # an unconfirmed cause says so wherever it is shown
    assert causes_of(_cause_config(a={"label": "x", "reading": "bernoulli", "unconfirmed": True}, b="y"))["a"] == \
        "x (unconfirmed)"


def test_a_cause_its_own_reading_rules_out_is_not_counted():
    """issue 53: a claim still not reproduced under the reading that removes its cause's mechanism is counted
    undiagnosed, not "because of" that cause, in claims.csv (merge_claims) and in the verdicts file's rows
    (with_causes), whatever the config says; a reading that flips the claim or leaves it undecided keeps it."""
    config = _cause_config(a={"label": "x", "reading": "bernoulli", "unconfirmed": True}, b="y")
    assert ruled_out_by(config, SELECT_LIKE) == {"H2": "V1"}
    counted = pd.DataFrame(drop_ruled_out_causes(config, SELECT_LIKE.assign(cause=SELECT_LIKE.claim_id.map(
        {"H2": "a", "H3": "a", "H5": "b"}).fillna(""))))
    assert counted.set_index("claim_id").cause[["H2", "H3", "H5"]].tolist() == ["", "a", "b"]
    assert cause_breakdown(counted, {"a": "x", "b": "y"}) == "3 undiagnosed, 1 x, 1 y"  # H2 with H4, H6 (no cause here)
    rows = [{k: r[k] for k in ("claim_id", "kind", "measured", "verdict")} for r in SELECT_LIKE.to_dict("records")]
    assert {r["claim_id"]: r["cause"] for r in with_causes(config, rows)}["H2"] == ""
    spec = PaperSpec(paper="p", title="P", scale="paper", experiments={}, figures={}, tables={}, resolutions=[],
                     claims=[{"id": cid} for cid in SELECT_LIKE.claim_id], config=config)
    merged = merge_claims(spec, [SELECT_LIKE.assign(cause=["", "a", "a", "", "b", "", "", "", "", "", ""])])
    assert merged.set_index("claim_id").cause[["H2", "H3", "H5"]].tolist() == ["", "a", "b"]


@pytest.mark.parametrize("paper", ALL_PAPERS)
def test_every_locked_headline_failure_has_a_cause_that_agrees_with_the_readings(paper):
    """Against the paper-scale verdicts file (issue 38): a headline failure's cause never says no reading decides
    it while a reading flips it, a cause removed by a reading is confirmed only where that reading flips the claim,
    and a cause marked unconfirmed is not confirmed everywhere."""
    rows = _verdict_rows(paper)
    config = load_paper(paper, "paper", REPO_ROOT).config
    assert cause_reading_problems(config, rows) == []


def test_paper_report_renders_causes_and_readings(tmp_path):
    spec = PaperSpec(paper="p", title="P", scale="paper", experiments={}, figures={}, claims=[], tables={},
                     resolutions=[], config={"paper": "p", **READINGS_CONFIG})
    readings = pd.DataFrame(readings_table(spec.config, SELECT_LIKE), columns=READING_COLUMNS)
    text = paper_report(spec, SELECT_LIKE, {}, {}, {}, set(), provenance.record({"scale": "paper"}, 1, tmp_path),
                        tmp_path / "report.md", readings=readings)
    assert "5 not reproduced (3 LCB test unreachable, 1 oracle restarts, 1 Agarwal candidates)" in text
    assert "- **LCB test unreachable** (`lcb`): H2, H4, H6" in text
    assert "- **undiagnosed**: H7" in text
    assert "## Alternative readings" in text and "| bernoulli | H3 | not_reproduced | restarts | V2 | reproduced | yes |" in text
    assert f"| {NO_READING} | H4 | not_reproduced | lcb |" in text
    assert "| H7 | headline | fig | s | m | t | inconclusive | undiagnosed |" in text


def _spec_config(**extra):
    base = {"claims": [{"id": "H1", "kind": "headline", "cause": "lcb"}, {"id": "V1", "kind": "variant"},
                       {"id": "S1", "kind": "sanity"}], "causes": {"lcb": "LCB test unreachable"}}
    base.update(extra)
    return base


def test_config_causes_and_readings_are_cross_checked():
    _check_diagnosis(_spec_config(readings=[{"id": "r", "description": "d", "deviates_from": "x",
                                             "claims": {"H1": "V1"}, "cells": {"reading": "S1"}}]), Path("p.yaml"))
    bad_cause = _spec_config()
    bad_cause["claims"][0]["cause"] = "lcd"
    with pytest.raises(ConfigError, match=r"unknown cause 'lcd' \(did you mean 'lcb'\?"):
        _check_diagnosis(bad_cause, Path("p.yaml"))
    with pytest.raises(ConfigError, match="claim 'S1' is sanity, expected a variant claim"):
        _check_diagnosis(_spec_config(readings=[{"id": "r", "description": "d", "deviates_from": "x",
                                                 "claims": {"H1": "S1"}}]), Path("p.yaml"))
    with pytest.raises(ConfigError, match="claim 'V1' is variant, expected a headline claim"):
        _check_diagnosis(_spec_config(readings=[{"id": "r", "description": "d", "deviates_from": "x",
                                                 "claims": {"V1": "V1"}}]), Path("p.yaml"))
    with pytest.raises(ConfigError, match="cells/printed: unknown claim 'Z9'"):
        _check_diagnosis(_spec_config(readings=[{"id": "r", "description": "d", "deviates_from": "x",
                                                 "claims": {"H1": "V1"}, "cells": {"printed": "Z9"}}]),
                         Path("p.yaml"))


def test_evaluated_claims_carry_the_declared_cause_of_a_failing_claim(tmp_path):
    figures = {"fig": {"title": "F", "panels": [{"id": "p", "experiment": "e", "metric": "regret"}]}}
    claims = [{"id": "H1", "figure": "fig", "statement": "A below B", "kind": "headline", "cause": "lcb",
               "check": {"fn": "below", "panel": "p", "lower": "A", "higher": "B"}},
              {"id": "H2", "figure": "fig", "statement": "B below A", "kind": "headline", "cause": "lcb",
               "check": {"fn": "below", "panel": "p", "lower": "B", "higher": "A"}}]
    spec = PaperSpec(paper="toy", title="T", scale="smoke", experiments={}, figures=figures, claims=claims,
                     tables={}, resolutions=[], config={"paper": "toy", "causes": {"lcb": "x"}})
    (tmp_path / "fig").mkdir()
    pd.DataFrame([("p", "A", "regret", 10, 1.0, 0.1, 10), ("p", "B", "regret", 10, 5.0, 0.1, 10)],
                 columns=["panel", "algorithm", "metric", "t", "mean", "se", "n"]).to_csv(
        tmp_path / "fig" / "summary.csv", index=False)
    df = evaluate_claims(ResultsContext(spec, {"fig": tmp_path / "fig" / "summary.csv"}))
    assert df.set_index("claim_id")[["verdict", "cause"]].values.tolist() == [["reproduced", ""],
                                                                              ["not_reproduced", "lcb"]]


def test_printed_cells_compares_measured_means_with_the_paper_cells(tmp_path):
    figures = {"fig": {"panels": [{"id": "p", "experiment": "e", "metric": "censoring"}]}}
    spec = PaperSpec(paper="toy", title="T", scale="smoke", experiments={}, figures=figures,
                     claims=[], tables={}, resolutions=[], config={"paper": "toy"})
    (tmp_path / "fig").mkdir()
    pd.DataFrame([("p", "A", "censoring", 10, 0.631, 0.001, 10), ("p", "B", "censoring", 10, 0.571, 0.001, 10)],
                 columns=["panel", "algorithm", "metric", "t", "mean", "se", "n"]).to_csv(
        tmp_path / "fig" / "summary.csv", index=False)
    ctx = ResultsContext(spec, {"fig": tmp_path / "fig" / "summary.csv"})
    cells = [{"cell": "PosCorr A", "paper": 0.640, "panel": "p", "algorithm": "A"},
             {"cell": "PosCorr B", "paper": 0.588, "panel": "p", "algorithm": "B"}]
    res = printed_cells(ctx, "fig", cells, tolerance=0.03)
    assert res.verdict == "reproduced"
    assert res.measured == "mean |measured - paper| 0.013 over 2 cells; largest 0.017 at PosCorr B (0.571 vs 0.588)"
    assert printed_cells(ctx, "fig", cells, tolerance=0.01).verdict == "not_reproduced"


def test_lock_diff_still_names_moved_rows_when_a_column_is_added():
    old = "claim_id,measured,verdict\nC1,0.5,reproduced\nC2,0.7,not_reproduced\n"
    new = "claim_id,measured,verdict,cause\nC1,0.5,reproduced,\nC2,0.8,not_reproduced,lcb\n"
    lines = diff_rows("p, claims", old, new)
    assert lines[0].startswith("columns differ")
    assert lines[1:] == ["p, claims, claim_id=C2: measured locked 0.7 new 0.8"]


def _verdict_rows(paper: str) -> list[dict]:
    return [r for r in read_verdicts(REPO_ROOT / VERDICTS_FILE) if r["paper"] == paper]


def test_undiagnosed_headlines_names_each_failure_without_a_cause():
    config = {"claims": [{"id": "H1", "kind": "headline", "cause": "lcb"}, {"id": "H2", "kind": "headline"}]}
    rows = [{"claim_id": "H1", "kind": "headline", "verdict": "not_reproduced", "measured": "m"},
            {"claim_id": "H2", "kind": "headline", "verdict": "inconclusive", "measured": "m"},
            {"claim_id": "H3", "kind": "headline", "verdict": "not_reproduced", "measured": "m"},
            {"claim_id": "V1", "kind": "variant", "verdict": "not_reproduced", "measured": "m"}]
    assert undiagnosed_headlines(config, rows) == ["H2", "H3 (not in the config)"]
    unmeasured = copy.deepcopy(rows[:2])
    unmeasured[1]["measured"] = "not measured"
    assert undiagnosed_headlines(config, unmeasured) == []


@pytest.mark.parametrize("paper", DIAGNOSED_PAPERS)
def test_every_locked_headline_non_reproduction_of_a_diagnosed_paper_has_a_cause(paper):
    """Against the paper-scale verdicts file: each headline claim not reproduced or inconclusive names a
    declared cause in its config (issue 31)."""
    rows = _verdict_rows(paper)
    assert rows, f"{paper} has no rows in {VERDICTS_FILE}"
    config = load_paper(paper, "paper", REPO_ROOT).config
    assert undiagnosed_headlines(config, rows) == []
