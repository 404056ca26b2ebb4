"""The verdict logic itself: comparisons with their inconclusive band, combining verdicts, the
'below' check on hand-made curves, the kind column, headline-only tallies and findings templates."""

from __future__ import annotations

import math
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from banditrepro import provenance
from banditrepro.experiments.spec import PaperSpec, load_paper
from banditrepro.report.checks import (
    any_verdict,
    below,
    combine_verdicts,
    compare_below,
    compare_greater,
    compare_threshold,
    mean_se,
    paired_ratio_se,
)
from banditrepro.report.claims import (
    CLAIM_COLUMNS,
    CLAIMS_CSV_COLUMNS,
    claim_dependencies,
    claim_figures,
    evaluate_claims,
    merge_claims,
    read_claims,
    table_dependencies,
    write_claims,
)
from banditrepro.report.context import ResultsContext
from banditrepro.report.findings import (
    FindingsError,
    check_findings,
    headline_sentence,
    render_findings,
    sanity_sentence,
    verdict_line,
)
from banditrepro.report.report import overall_report
from banditrepro.report.vocabulary import VERDICTS, tally

REPO_ROOT = Path(__file__).resolve().parents[1]
ABOVE, BELOW = math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0)  # the doubles either side of 1.0


# --- compare_greater / compare_threshold: the inconclusive band of z standard errors -------------

@pytest.mark.parametrize("diff, expected", [
    (1.0, "inconclusive"),        # exactly z * se (2 * 0.5): still within the noise
    (BELOW, "inconclusive"),      # just inside the band
    (ABOVE, "reproduced"),        # just outside, in the claimed direction
    (-1.0, "inconclusive"),       # exactly z * se against the claim
    (-BELOW, "inconclusive"),
    (-ABOVE, "not_reproduced"),   # just outside, against the claim
    (0.0, "inconclusive"),
])
def test_compare_greater_band_edges(diff, expected):
    assert compare_greater(diff, 0.5, z=2.0) == expected


def test_compare_greater_z_scales_the_band():
    assert compare_greater(1.5, 0.5, z=2.0) == "reproduced"
    assert compare_greater(1.5, 0.5, z=3.0) == "inconclusive"
    assert compare_greater(1.5, 0.5, z=1.0) == "reproduced"
    assert compare_greater(-1.5, 0.5, z=3.0) == "inconclusive"


@pytest.mark.parametrize("se", [0.0, math.nan])
def test_compare_greater_without_a_usable_se_the_plain_comparison_decides(se):
    assert compare_greater(1e-12, se) == "reproduced"
    assert compare_greater(-1e-12, se) == "not_reproduced"
    assert compare_greater(0.0, se) == "not_reproduced"  # a tie does not show 'greater'


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e3), st.floats(0.5, 5.0))
def test_compare_greater_is_antisymmetric(diff, se, z):
    flip = {"reproduced": "not_reproduced", "not_reproduced": "reproduced", "inconclusive": "inconclusive"}
    assert compare_greater(-diff, se, z) == flip[compare_greater(diff, se, z)]


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e3))
def test_compare_greater_inconclusive_exactly_within_the_band(diff, se):
    assert (compare_greater(diff, se, 2.0) == "inconclusive") == (abs(diff) <= 2.0 * se)


@pytest.mark.parametrize("value, below_, expected", [
    (1.0, True, "inconclusive"),     # threshold 2, se 0.5: 1.0 is exactly 2 s.e. below
    (1.0 - 1e-12, True, "reproduced"),  # more than 2 s.e. below (2 - nextafter(1, 0) rounds to 1.0)
    (3.0, True, "inconclusive"),
    (math.nextafter(3.0, 4.0), True, "not_reproduced"),
    (3.0, False, "inconclusive"),     # 'above 2': exactly 2 s.e. above
    (math.nextafter(3.0, 4.0), False, "reproduced"),
    (1.0 - 1e-12, False, "not_reproduced"),
    (2.0, False, "inconclusive"),
])
def test_compare_threshold_band_edges(value, below_, expected):
    assert compare_threshold(value, 0.5, 2.0, below=below_, z=2.0) == expected


def test_compare_threshold_with_se_zero_or_nan():
    for se in (0.0, math.nan):
        assert compare_threshold(1.99, se, 2.0) == "reproduced"
        assert compare_threshold(2.01, se, 2.0) == "not_reproduced"
        assert compare_threshold(2.01, se, 2.0, below=False) == "reproduced"


def test_compare_below_uses_the_standard_error_of_the_difference():
    # se of b - a = hypot(0.3, 0.4) = 0.5; the band is 1.0
    assert compare_below(0.0, 0.3, 1.0, 0.4) == "inconclusive"
    assert compare_below(0.0, 0.3, ABOVE, 0.4) == "reproduced"
    assert compare_below(ABOVE, 0.3, 0.0, 0.4) == "not_reproduced"
    assert compare_below(0.0, 0.0, 1e-9, 0.0) == "reproduced"


# --- combine_verdicts ----------------------------------------------------------------------------

@pytest.mark.parametrize("parts, expected", [
    (["reproduced"], "reproduced"),
    (["reproduced", "reproduced"], "reproduced"),
    (["reproduced", "inconclusive"], "inconclusive"),
    (["inconclusive", "not_reproduced", "reproduced"], "not_reproduced"),
    (["not_reproduced"], "not_reproduced"),
    ([], "inconclusive"),  # nothing tested is not a reproduction
])
def test_combine_verdicts(parts, expected):
    assert combine_verdicts(parts) == expected
    assert combine_verdicts(iter(parts)) == expected  # any iterable


def test_combine_verdicts_rejects_a_non_verdict():
    with pytest.raises(ValueError, match="passed"):
        combine_verdicts(["reproduced", "passed"])


@pytest.mark.parametrize("parts, expected", [
    (["not_reproduced", "reproduced"], "reproduced"),
    (["inconclusive", "not_reproduced"], "inconclusive"),
    (["not_reproduced", "not_reproduced"], "not_reproduced"),
    ([], "inconclusive"),
])
def test_any_verdict_is_the_disjunction(parts, expected):
    assert any_verdict(parts) == expected


@given(st.lists(st.sampled_from(VERDICTS), min_size=1, max_size=6))
def test_any_verdict_mirrors_combine_verdicts(parts):
    """"Some part holds" is the negation of "every part fails": swap reproduced and not_reproduced."""
    swap = {"reproduced": "not_reproduced", "not_reproduced": "reproduced", "inconclusive": "inconclusive"}
    assert any_verdict(parts) == swap[combine_verdicts([swap[v] for v in parts])]


@given(st.lists(st.sampled_from(VERDICTS), max_size=6), st.randoms())
def test_combine_verdicts_ignores_order(parts, rnd):
    shuffled = list(parts)
    rnd.shuffle(shuffled)
    assert combine_verdicts(parts) == combine_verdicts(shuffled)


# --- the 'below' check on hand-made curves -------------------------------------------------------

def _spec(claims=(), findings=None) -> PaperSpec:
    figures = {"fig": {"title": "F", "panels": [{"id": "p", "experiment": "e", "metric": "regret"}]},
               "other": {"title": "O", "panels": [{"id": "q", "experiment": "e2", "metric": "regret"}]}}
    config = {"paper": "toy", "findings": findings} if findings is not None else {"paper": "toy"}
    return PaperSpec(paper="toy", title="Toy", scale="smoke", experiments={}, figures=figures, claims=list(claims),
                     tables={}, resolutions=[], config=config)


def _ctx(tmp_path, rows, spec=None) -> ResultsContext:
    """rows: (figure, panel, algorithm, t, mean, se)."""
    sums = {}
    for fig in sorted({r[0] for r in rows}):
        df = pd.DataFrame([(p, a, "regret", t, m, s, 10) for f, p, a, t, m, s in rows if f == fig],
                          columns=["panel", "algorithm", "metric", "t", "mean", "se", "n"])
        (tmp_path / fig).mkdir(exist_ok=True)
        df.to_csv(tmp_path / fig / "summary.csv", index=False)
        sums[fig] = tmp_path / fig / "summary.csv"
    return ResultsContext(spec or _spec(), sums)


CURVES = [("fig", "p", "A", 10, 1.0, 0.1), ("fig", "p", "A", 20, 2.0, 0.3),
          ("fig", "p", "B", 10, 1.5, 0.1), ("fig", "p", "B", 20, 4.0, 0.4),
          ("fig", "p", "C", 10, 1.1, 0.1), ("fig", "p", "C", 20, 9.0, 0.4),
          ("other", "q", "D", 20, 2.5, 0.4)]


def test_below_final_single_pair(tmp_path):
    ctx = _ctx(tmp_path, CURVES)
    res = below(ctx, "fig", "p", "A", "B")  # 4 - 2 = 2 > 2 * 0.5 = 1
    assert res.verdict == "reproduced"
    assert res.measured == "tightest pair A: 2 ± 0.3 vs B: 4 ± 0.4 (T=20; margin 4 s.e.)"
    assert res.threshold == "A < B by > 2.0 s.e."
    assert below(ctx, "fig", "p", "A", "B", z=4.0).verdict == "inconclusive"  # exactly 4 s.e.
    assert below(ctx, "fig", "p", "B", "A").verdict == "not_reproduced"


def test_below_every_t_takes_the_worst_horizon_and_pair(tmp_path):
    ctx = _ctx(tmp_path, CURVES)
    # at t = 10: C - A = 0.1 with se hypot(0.1, 0.1) = 0.141: inconclusive; B - A = 0.5: 3.5 s.e.
    res = below(ctx, "fig", "p", "A", ["B", "C"], at="every")
    assert res.verdict == "inconclusive"
    assert "worst of 2 horizons: T=10" in res.measured and "vs C" in res.measured
    assert "[A<B: reproduced; A<C: inconclusive]" in res.measured
    assert res.threshold == "A < B, C by > 2.0 s.e. at every T"
    assert below(ctx, "fig", "p", "A", ["B", "C"]).verdict == "reproduced"  # at T only


def test_below_on_another_figure(tmp_path):
    ctx = _ctx(tmp_path, CURVES)
    res = below(ctx, "fig", "p", "A", "D", higher_figure="other", higher_panel="q")
    assert res.verdict == "inconclusive"  # 0.5 against a band of 2 * 0.5
    assert res.measured == "tightest pair A: 2 ± 0.3 vs D: 2.5 ± 0.4 (T=20; margin 1 s.e.)"
    with pytest.raises(ValueError, match="at must be"):
        below(ctx, "fig", "p", "A", "B", at="sometimes")
    with pytest.raises(ValueError, match="same experiment"):
        below(ctx, "fig", "p", "A", "D", higher_figure="other", higher_panel="q", paired=True)


def test_paired_helpers_hand_computed():
    m, se = mean_se(np.array([1.0, 2.0, 3.0, 6.0]))  # sd = sqrt(14/3)
    assert m == 3.0 and se == pytest.approx(math.sqrt(14 / 3) / 2)
    assert math.isnan(mean_se(np.array([1.0]))[1])
    ratio, se = paired_ratio_se(np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0]))
    assert ratio == 2.0 and se == pytest.approx(0.0, abs=1e-12)  # a = 2 b in every replication
    ratio, se = paired_ratio_se(np.array([1.0, 3.0]), np.array([2.0, 2.0]))
    # delta method: var(a)/ma^2 / n = 2 / 4 / 2 = 0.25 -> se = ratio * 0.5
    assert ratio == 1.0 and se == pytest.approx(0.5)


# --- claims.csv: the kind column, per-figure evaluation and the merge -----------------------------

CLAIMS = [
    {"id": "H1", "figure": "fig", "statement": "A below B", "kind": "headline",
     "check": {"fn": "below", "panel": "p", "lower": "A", "higher": "B"}},
    {"id": "O1", "figure": "other", "statement": "D below D?", "kind": "sanity",
     "check": {"fn": "below", "panel": "q", "lower": "D", "higher": "D"}},
    {"id": "V1", "figure": "fig", "statement": "B below A", "kind": "variant",
     "check": {"fn": "below", "panel": "p", "lower": "B", "higher": "A"}},
    {"id": "H2", "figure": "fig", "statement": "a second headline", "kind": "headline",
     "check": {"fn": "below", "panel": "p", "lower": "A", "higher": "C"}},
]


def test_claims_have_the_contract_columns_with_kind_last_then_the_cause(tmp_path):
    spec = _spec(CLAIMS)
    df = evaluate_claims(_ctx(tmp_path, CURVES, spec))
    assert list(df.columns) == CLAIMS_CSV_COLUMNS and CLAIM_COLUMNS[-1] == "kind"
    assert CLAIMS_CSV_COLUMNS == CLAIM_COLUMNS + ["cause"]
    assert df.set_index("claim_id").kind.to_dict() == {"H1": "headline", "O1": "sanity", "V1": "variant",
                                                        "H2": "headline"}
    assert df.set_index("claim_id").verdict.to_dict() == {"H1": "reproduced", "O1": "inconclusive",
                                                           "V1": "not_reproduced", "H2": "reproduced"}


def test_unbuilt_figure_claims_are_not_measured_and_keep_their_kind(tmp_path):
    spec = _spec(CLAIMS)
    df = evaluate_claims(_ctx(tmp_path, CURVES[:6], spec), {"other": "needs data"})
    row = df.set_index("claim_id").loc["O1"]
    assert (row.measured, row.verdict, row.kind) == ("not measured", "inconclusive", "sanity")


def test_per_figure_claims_merge_to_the_whole_in_config_order(tmp_path):
    spec = _spec(CLAIMS)
    ctx = _ctx(tmp_path, CURVES, spec)
    whole = tmp_path / "whole.csv"
    write_claims(evaluate_claims(ctx), whole)
    parts = []
    for fig in reversed(claim_figures(spec)):  # the merge restores config order whatever the input order
        path = tmp_path / f"claims_{fig}.csv"
        write_claims(evaluate_claims(ctx, figure=fig), path)
        parts.append(read_claims(path))
    merged = tmp_path / "merged.csv"
    write_claims(merge_claims(spec, parts), merged)
    assert merged.read_bytes() == whole.read_bytes()
    with pytest.raises(ValueError, match=r"missing \['O1'\]"):
        merge_claims(spec, parts[1:] if claim_figures(spec)[-1] == "other" else parts[:1])
    with pytest.raises(ValueError, match=r"duplicated \['H1', 'H2', 'V1'\]"):
        merge_claims(spec, parts + [parts[-1]] if parts[-1].claim_id.iat[0] == "H1" else parts + [parts[0]])


def test_a_paper_without_claims_merges_to_an_empty_table(tmp_path):
    write_claims(merge_claims(_spec([]), []), tmp_path / "c.csv")
    assert (tmp_path / "c.csv").read_text() == ",".join(CLAIMS_CSV_COLUMNS) + "\n"


def test_read_claims_keeps_measured_text_as_written(tmp_path):
    df = pd.DataFrame([("X", "fig", "s", "1.10", "", "reproduced", "headline")], columns=CLAIM_COLUMNS)
    write_claims(df, tmp_path / "c.csv")
    back = read_claims(tmp_path / "c.csv")
    assert back.measured.iat[0] == "1.10" and back.threshold.iat[0] == ""


def test_claim_dependencies_name_only_what_the_checks_read():
    spec = _spec(CLAIMS + [{"id": "X", "figure": "fig", "statement": "cross", "kind": "headline",
                            "check": {"fn": "below", "panel": "p", "lower": "A", "higher": "D",
                                      "higher_figure": "other", "higher_panel": "q"}}])
    assert claim_dependencies(spec, "other") == (["other"], ["e2"])
    # claim X reads figure 'other' (higher_figure), so fig's claims wait for it and its experiment too
    assert claim_dependencies(spec, "fig") == (["fig", "other"], ["e", "e2"])
    assert claim_dependencies(_spec(CLAIMS), "fig") == (["fig"], ["e"])


def _ames_experiments(spec) -> list[str]:
    """The experiments on the AmesHousing forest table (its data set or the table itself)."""
    return [e for e, x in spec.experiments.items()
            if "ameshousing" in x.data or any("forest" in r for r in x.requires)]


def test_censored_synthetic_claims_never_wait_for_the_ames_experiment():
    spec = load_paper("censored_resources", "smoke", REPO_ROOT)
    ames = _ames_experiments(spec)
    assert ames
    ames_figures = {f for f in spec.figures if set(spec.figure_experiments(f)) & set(ames)}
    for fig in claim_figures(spec):
        if fig not in ames_figures:
            assert not set(claim_dependencies(spec, fig)[1]) & set(ames), fig


def test_censored_tables_wait_only_for_their_figures_and_named_experiments():
    spec = load_paper("censored_resources", "smoke", REPO_ROOT)
    ames = set(_ames_experiments(spec))
    for table, tspec in spec.tables.items():
        figures, experiments = table_dependencies(spec, table)
        assert set(tspec.get("figures", [])) <= set(figures)
        reads_ames = any(set(spec.figure_experiments(f)) & ames for f in tspec.get("figures", []))
        assert bool(set(experiments) & ames) == reads_ames, table


# --- headline-only tallies -----------------------------------------------------------------------

def _claims_df(rows):
    return pd.DataFrame([(cid, "fig", "s", "m", "t", v, k) for cid, v, k in rows], columns=CLAIM_COLUMNS)


TALLY_ROWS = [("H1", "reproduced", "headline"), ("H2", "not_reproduced", "headline"),
              ("H3", "inconclusive", "headline"), ("H4", "reproduced", "headline"),
              ("V1", "reproduced", "variant"), ("V2", "not_reproduced", "variant"),
              ("S1", "reproduced", "sanity"), ("S2", "reproduced", "sanity")]


def test_verdict_line_counts_headline_claims_only():
    df = _claims_df(TALLY_ROWS)
    assert verdict_line(df) == ("Headline claims: 2 reproduced, 1 not reproduced, 1 inconclusive (of 4) · "
                                "variant: 1/2 reproduced · sanity: 2/2 reproduced")
    t = tally(df)
    assert t.count("headline") == 4 and t.count("sanity", "reproduced") == 2
    assert verdict_line(df[df.kind == "headline"]).endswith("· variant: none · sanity: none")


def test_headline_sentence_counts_in_plain_words_and_leaves_claim_ids_to_the_table():
    assert headline_sentence(_claims_df(TALLY_ROWS)) == (
        "2 of the paper's 4 headline claims reproduce. 1 does not reproduce. 1 is inconclusive on the measurement.")
    two_bad = _claims_df([("A", "not_reproduced", "headline"), ("B", "not_reproduced", "headline"),
                          ("C", "reproduced", "headline")])
    assert headline_sentence(two_bad) == "1 of the paper's 3 headline claims reproduces. 2 do not reproduce."
    assert headline_sentence(_claims_df(TALLY_ROWS[-2:])) == "This paper has no headline claims."
    unbuilt = _claims_df(TALLY_ROWS).assign(measured=["m", "m", "m", "not measured"] + ["m"] * 4,
                                            verdict=["reproduced", "not_reproduced", "inconclusive", "inconclusive"]
                                            + ["reproduced"] * 4)
    assert headline_sentence(unbuilt) == (
        "1 of the paper's 4 headline claims reproduces. 1 could not be measured because its figure was not built. "
        "1 does not reproduce. 1 is inconclusive on the measurement.")


def test_headline_sentence_counts_failures_by_cause_and_premises_apart():
    rows = _claims_df([("A", "not_reproduced", "headline"), ("B", "not_reproduced", "headline"),
                       ("C", "not_reproduced", "headline"), ("D", "inconclusive", "headline"),
                       ("E", "inconclusive", "headline"), ("F", "reproduced", "headline")])
    rows = rows.assign(cause=["x", "x", "", "x", "x", ""],
                       measured=["m", "m", "m", "m", "premise not met: A not reproduced (m); own check ...", "m"])
    text = headline_sentence(rows, {"x": "the printed bonus"})
    assert text == ("1 of the paper's 6 headline claims reproduces. 3 do not reproduce. 2 fail because of the printed "
                    "bonus. 1 fails because of a cause not yet diagnosed. 1 is inconclusive because the advantage or "
                    "contrast it presupposes does not hold (premise not met). 1 is inconclusive on the measurement, "
                    "because of the printed bonus.")
    assert not any(cid in text.split() for cid in "ABCDEF")  # claim ids stay in the claims table
    one_cause = rows.assign(cause=["x", "x", "x", "x", "x", ""])
    assert "3 do not reproduce, all because of the printed bonus." in headline_sentence(one_cause, {"x": "the printed bonus"})


def test_headline_sentence_counts_stand_in_data_apart():
    standin = _claims_df(TALLY_ROWS).assign(
        statement=["s", "s", "[STAND-IN DATA] s", "[STAND-IN DATA] s"] + ["s"] * 4,
        measured=["m", "m", "m", "not measured"] + ["m"] * 4,
        verdict=["reproduced", "not_reproduced", "inconclusive", "inconclusive"] + ["reproduced"] * 4)
    text = headline_sentence(standin)
    assert "1 is counted inconclusive because its figure runs on stand-in data." in text
    assert "1 could not be measured because its figure was not built." in text
    assert "inconclusive on the measurement" not in text  # H3 is not counted twice


def test_overall_report_tallies_headline_claims_and_shows_findings(tmp_path):
    (tmp_path / "toy").mkdir()
    _claims_df(TALLY_ROWS).to_csv(tmp_path / "toy" / "claims.csv", index=False)
    (tmp_path / "toy" / "report.md").write_text("# toy\n")
    text = overall_report({"toy": tmp_path / "toy" / "claims.csv"}, {"toy": tmp_path / "toy" / "report.md"},
                          tmp_path / "report.md", provenance.record({"scale": "paper"}, 7, tmp_path),
                          {"toy": ["First finding.", "Second finding."]})
    assert "| [toy](toy/report.md) | 4 | 2 | 1 |  | 1 | 1/2 | 2/2 |" in text  # no cause column: no breakdown
    assert "## toy\n\n- First finding.\n- Second finding.\n" in text


# --- findings templates --------------------------------------------------------------------------

FINDING_CLAIMS = [{"id": i, "figure": "fig", "statement": "s", "kind": "headline", "check": {"fn": "below"}}
                  for i in ("H1", "H2", "C4.5")]


def _findings_df():
    return pd.DataFrame([("H1", "fig", "s", "R(T) = 3.5 ± 0.2", "< 4", "reproduced", "headline"),
                         ("H2", "fig", "s", "ratio 1.31", "<= 1.1", "not_reproduced", "headline"),
                         ("C4.5", "fig", "s", "gap 0.2", "> 0", "inconclusive", "sanity")], columns=CLAIM_COLUMNS)


def test_findings_placeholders_are_filled_from_the_claims():
    spec = _spec(FINDING_CLAIMS, [
        "H2 fails: {H2.measured} against {H2.threshold} ({H2.verdict}).",
        {"text": "The C4.5 check ({C4.5.kind}) measured {C4.5.measured}."},
    ])
    out = render_findings(spec, _findings_df())
    assert out[0] == headline_sentence(_findings_df())
    assert out[1] == sanity_sentence(_findings_df())  # C4.5 (sanity) is inconclusive
    assert out[2:] == ["H2 fails: ratio 1.31 against <= 1.1 (not reproduced).",
                       "The C4.5 check (sanity) measured gap 0.2."]


def test_findings_when_hides_a_stale_sentence():
    spec = _spec(FINDING_CLAIMS, [
        {"text": "H1 reproduces: {H1.measured}.", "when": {"H1": "reproduced"}},
        {"text": "H1 fails: {H1.measured}.", "when": {"H1": "not_reproduced"}},
        {"text": "H1 and H2 both hold.", "when": {"H1": "reproduced", "H2": "reproduced"}},
        {"text": "H2 is not a reproduction.", "when": {"H2": ["not_reproduced", "inconclusive"]}},
    ])
    out = render_findings(spec, _findings_df())[2:]  # after the headline and failed-sanity sentences
    assert out == ["H1 reproduces: R(T) = 3.5 ± 0.2.", "H2 is not a reproduction."]
    flipped = _findings_df().assign(verdict=["not_reproduced", "reproduced", "inconclusive"])
    assert render_findings(spec, flipped)[2:] == ["H1 fails: R(T) = 3.5 ± 0.2."]


@pytest.mark.parametrize("entry, message", [
    ("{H9.measured} is unknown", "unknown claim 'H9'"),
    ({"text": "fine", "when": {"H9": "reproduced"}}, "'when' names unknown claim 'H9'"),
    ("{H1.value}", "unknown field 'value'"),
    ({"text": "fine", "when": {"H1": "passed"}}, "unknown verdict 'passed'"),
])
def test_findings_naming_an_unknown_claim_or_field_is_a_config_error(entry, message):
    spec = _spec(FINDING_CLAIMS, ["A good sentence about {H1.verdict}.", entry])
    with pytest.raises(FindingsError, match=message) as err:
        check_findings(spec)
    assert "config/papers/toy.yaml: findings[1]" in str(err.value)
    with pytest.raises(FindingsError):
        render_findings(spec, _findings_df())


def test_findings_schema_accepts_strings_and_conditioned_entries():
    schema = yaml.safe_load((REPO_ROOT / "src" / "banditrepro" / "experiments" / "paper.schema.yaml").read_text())
    findings_schema = schema["properties"]["findings"]
    jsonschema.validate(["plain", {"text": "t", "when": {"C1": "reproduced", "C2": ["inconclusive"]}}],
                        findings_schema)
    for bad in ([{"when": {"C1": "reproduced"}}], [{"text": "t", "when": {"C1": "passed"}}],
                [{"text": "t", "colour": "red"}], [""]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, findings_schema)


def test_every_paper_configs_findings_are_valid():
    for path in sorted((REPO_ROOT / "config" / "papers").glob("*.yaml")):
        if path.stem.isidentifier():
            check_findings(load_paper(path.stem, "smoke", REPO_ROOT))


def test_kind_is_required_by_the_paper_schema():
    schema = yaml.safe_load((REPO_ROOT / "src" / "banditrepro" / "experiments" / "paper.schema.yaml").read_text())
    claim = {"id": "C1", "figure": "f", "statement": "s", "check": {"fn": "below"}}
    with pytest.raises(jsonschema.ValidationError, match="kind"):
        jsonschema.validate(claim, schema["properties"]["claims"]["items"])
    jsonschema.validate({**claim, "kind": "sanity"}, schema["properties"]["claims"]["items"])
