"""Premise gates (issue 38, report/claims.py): a claim whose statement presupposes an advantage or a contrast is
inconclusive while its premise is not reproduced, with the premise's measured value and the claim's own check
beside it; and (issue 53) which claims need a premise is derived from the claims and the experiments' algorithm
entries, over every discovered paper (report/claims.py premise_problems), not listed here."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from banditrepro.experiments.spec import PaperSpec, discover_papers, load_paper
from banditrepro.report.claims import (
    PremiseError,
    algorithm_bases,
    check_premises,
    claim_dependencies,
    claims_of_figure,
    evaluate_claims,
    premise_claims,
    premise_problems,
    presupposed,
)
from banditrepro.report.context import ResultsContext
from banditrepro.report.sequential import sequential_claims

REPO_ROOT = Path(__file__).resolve().parents[1]
FIGURES = {"fig": {"title": "F", "panels": [{"id": "p", "experiment": "e", "metric": "regret"}]},
           "other": {"title": "O", "panels": [{"id": "q", "experiment": "e2", "metric": "regret"}]}}


def _claim(cid, lower, higher, figure="fig", panel="p", **extra):
    return {"id": cid, "figure": figure, "statement": f"{lower} below {higher}", "kind": "headline",
            "check": {"fn": "below", "panel": panel, "lower": lower, "higher": higher}, **extra}


def _ctx(tmp_path, claims):
    spec = PaperSpec(paper="toy", title="T", scale="smoke", experiments={}, figures=FIGURES, claims=claims,
                     tables={}, resolutions=[], config={"paper": "toy"})
    sums = {}
    for fig, panel, rows in (("fig", "p", [("A", 1.0), ("B", 5.0), ("C", 3.0)]), ("other", "q", [("X", 2.0), ("Y", 9.0)])):
        (tmp_path / fig).mkdir(exist_ok=True)
        pd.DataFrame([(panel, a, "regret", 10, m, 0.1, 10) for a, m in rows],
                     columns=["panel", "algorithm", "metric", "t", "mean", "se", "n"]).to_csv(
            tmp_path / fig / "summary.csv", index=False)
        sums[fig] = tmp_path / fig / "summary.csv"
    return ResultsContext(spec, sums)


def test_a_claim_whose_premise_fails_is_inconclusive_with_both_checks_shown(tmp_path):
    claims = [_claim("LEAD", "B", "A"),                              # fails: B (5) is above A (1)
              _claim("TREND", "A", "C", premise="LEAD"),            # its own check passes, its premise fails
              _claim("TREND2", "A", "C", premise="HOLDS"),          # its premise holds: its own verdict
              _claim("HOLDS", "X", "Y", figure="other", panel="q")]
    df = evaluate_claims(_ctx(tmp_path, claims)).set_index("claim_id")
    assert df.loc["LEAD", "verdict"] == "not_reproduced"
    gated = df.loc["TREND"]
    assert gated.verdict == "inconclusive"
    assert gated.measured.startswith("premise not met: LEAD not reproduced (tightest pair B: 5 ± 0.1 vs A: 1")
    assert "own check reproduced: tightest pair A: 1 ± 0.1 vs C: 3" in gated.measured
    assert gated.threshold.endswith("; premise LEAD reproduced")
    # a premise on another figure is evaluated with the claim (and named among its dependencies)
    assert df.loc["TREND2", "verdict"] == "reproduced" and "[premise HOLDS reproduced]" in df.loc["TREND2", "measured"]
    # without its premise the hand-made violation passes: the gate is what makes it inconclusive
    plain = [dict(c) for c in claims]
    del plain[1]["premise"]
    assert evaluate_claims(_ctx(tmp_path, plain)).set_index("claim_id").loc["TREND", "verdict"] == "reproduced"


def test_a_list_premise_needs_every_claim_and_a_check_premise_runs_its_check(tmp_path):
    claims = [_claim("L1", "A", "B"), _claim("L2", "B", "A"),
              _claim("BOTH", "A", "C", premise=["L1", "L2"]),
              _claim("CHECKED", "A", "C", premise={"fn": "below", "panel": "p", "lower": "C", "higher": "B"})]
    df = evaluate_claims(_ctx(tmp_path, claims), figure="fig").set_index("claim_id")
    assert df.loc["BOTH", "verdict"] == "inconclusive"
    assert df.loc["BOTH", "measured"].startswith("premise not met: L1 and L2 not reproduced (L1 reproduced: ")
    assert df.loc["CHECKED", "verdict"] == "reproduced"


def test_unbuilt_premise_figure_gates_too(tmp_path):
    claims = [_claim("HOLDS", "X", "Y", figure="other", panel="q"), _claim("TREND", "A", "C", premise="HOLDS")]
    df = evaluate_claims(_ctx(tmp_path, claims), {"other": "no data"}, figure="fig").set_index("claim_id")
    assert df.loc["TREND", "verdict"] == "inconclusive" and "premise not met: HOLDS inconclusive (not measured)" in \
        df.loc["TREND", "measured"]


def test_premises_name_known_claims_without_circles():
    def spec(claims):
        return PaperSpec(paper="toy", title="T", scale="smoke", experiments={}, figures=FIGURES, claims=claims,
                         tables={}, resolutions=[], config={"paper": "toy"})

    ok = spec([_claim("A1", "A", "B"), _claim("A2", "A", "C", premise="A1"),
               _claim("A3", "A", "C", premise="A2", figure="other", panel="q")])
    check_premises(ok)
    assert [c["id"] for c in premise_claims(ok, ok.claims[2])] == ["A2", "A1"]
    assert claim_dependencies(ok, "other")[0] == ["other", "fig"]  # the premises' figure is read too
    assert [c["id"] for c in claims_of_figure(ok, "other")] == ["A3", "A2", "A1"]  # its job reruns when they change
    with pytest.raises(PremiseError, match="unknown claim 'A9'"):
        check_premises(spec([_claim("A1", "A", "B", premise="A9")]))
    with pytest.raises(PremiseError, match="circle"):
        check_premises(spec([_claim("A1", "A", "B", premise="A2"), _claim("A2", "A", "B", premise="A1")]))


def _toy_spec(claims, experiments=None):
    """A toy paper on the select builder: experiment e runs SELECT, its ablation and a baseline."""
    from banditrepro.experiments.spec import ExperimentSpec

    algos = experiments or {"select": {"algorithm": "select", "oracle": "thompson"},
                            "select_no_step3": {"algorithm": "select", "oracle": "thompson", "skip_step3": True},
                            "thompson": {"algorithm": "thompson"}}
    exp = ExperimentSpec(paper="toy", id="e", builder="satisficing_select", horizon=10, replications=2,
                         checkpoints=None, params={}, algorithms=algos, data=[], requires=[],
                         common_random_numbers=True, repo_root=REPO_ROOT, config={})
    figures = {"fig": {"title": "F", "panels": [{"id": "p", "experiment": "e", "metric": "regret"}]}}
    return PaperSpec(paper="toy", title="T", scale="smoke", experiments={"e": exp}, figures=figures, claims=claims,
                     tables={}, resolutions=[], config={"paper": "toy"})


def _flat(cid, algorithms, **extra):
    return {"id": cid, "figure": "fig", "statement": "s", "kind": "headline",
            "check": {"fn": "select_flat", "panel": "p", "algorithms": algorithms, "t_from": 5}, **extra}


def test_the_premise_rule_finds_the_shape_from_the_claim_and_the_experiments():
    load_paper("satisficing_select", "smoke", REPO_ROOT)  # registers the select builder the toy spec runs
    own = _flat("OWN", ["select"])
    # an ablation of SELECT (same kernel, a setting off its default) against SELECT, no premise: flagged
    ablation = {"id": "ABL", "figure": "fig", "statement": "s", "kind": "headline",
                "check": {"fn": "below", "panel": "p", "lower": "select", "higher": ["select_no_step3"]}}
    spec = _toy_spec([own, ablation])
    assert algorithm_bases(spec) == {("e", "select_no_step3"): "select"}
    assert presupposed(spec, ablation) == {("e", "select")}
    assert premise_problems(spec) == ["toy: ABL reads a modification of select on e and so presupposes its own "
                                      "behaviour there: it needs a premise measuring it"]
    # gated by the claim that states SELECT's own behaviour: no problem
    assert premise_problems(_toy_spec([own, {**ablation, "premise": "OWN"}])) == []
    # a premise broader than that (it also reads the baseline) is flagged
    broad = _flat("BROAD", ["select", "thompson"])
    assert premise_problems(_toy_spec([own, broad, {**ablation, "premise": "BROAD"}])) == [
        "toy: ABL's premise reads thompson on e beyond what the claim presupposes (select on e): give the part of the "
        "premise about that alone"]
    # its SELECT half as a check premise is fine while a claim measures it, flagged while none does
    whole = {**broad, "check": {"fn": "all_of", "parts": [{"label": "SELECT", **own["check"]},
                                                           {"label": "rest", **_flat("", ["thompson"])["check"]}]}}
    half = {"label": "BROAD's SELECT half", **own["check"]}
    assert premise_problems(_toy_spec([whole, {**ablation, "premise": half}])) == []
    other = {**half, "t_from": 6}
    assert premise_problems(_toy_spec([whole, {**ablation, "premise": other}])) == [
        "toy: ABL's check premise is no other claim's check or part: name the claim that measures it"]
    # a config that says, in words, why the claim presupposes nothing needs no premise; saying it and giving one
    # is a contradiction
    ranked = {**ablation, "premise_not_needed": "a ranking of the settings on the same runs"}
    assert premise_problems(_toy_spec([own, ranked])) == []
    assert premise_problems(_toy_spec([own, {**ranked, "premise": "OWN"}])) == [
        "toy: ABL has a premise and says it needs none (premise_not_needed): keep one"]
    # no claim states SELECT's own behaviour here: the ablation presupposes nothing the paper measures
    assert premise_problems(_toy_spec([ablation])) == []
    # a baseline with another kernel is no modification; a sibling ablation is not the base of another
    sib = {"algorithm": "select", "oracle": "thompson", "skip_step2": True}
    spec = _toy_spec([own], {"select": {"algorithm": "select", "oracle": "thompson"},
                             "a": {"algorithm": "select", "oracle": "thompson", "skip_step3": True}, "b": sib,
                             "thompson": {"algorithm": "thompson"}})
    assert algorithm_bases(spec) == {("e", "a"): "select", ("e", "b"): "select"}


def test_a_check_premise_shows_its_label(tmp_path):
    claims = [_claim("LEAD", "B", "A"),
              _claim("HALF", "A", "C", premise={"label": "LEAD's half", "fn": "below", "panel": "p", "lower": "B",
                                                "higher": "A"})]
    df = evaluate_claims(_ctx(tmp_path, claims), figure="fig").set_index("claim_id")
    assert df.loc["HALF", "measured"].startswith("premise not met: LEAD's half not reproduced (")


@pytest.mark.parametrize("paper", discover_papers(REPO_ROOT))
def test_claims_that_presuppose_an_algorithms_own_behaviour_are_gated_by_it(paper):
    """Every headline claim that reads an ablation, a variant or a rescaling of an algorithm whose own behaviour
    another headline claim states has a premise measuring that behaviour alone (issue 53); and every premise names
    known claims, without circles, and the statement says what it presupposes."""
    spec = load_paper(paper, "smoke", REPO_ROOT)
    check_premises(spec)
    assert premise_problems(spec) == []
    for claim in spec.claims:
        if claim.get("premise") is not None:
            assert "premise" in claim["statement"], f"{paper}: {claim['id']}'s statement must say what it presupposes"


def test_a_gated_claim_takes_no_sequential_look():
    spec = load_paper("composite_anonymous", "paper", REPO_ROOT)
    looks = {c["id"] for c in sequential_claims(spec)}
    assert "C1" in looks
    spec.claims[0]["premise"] = "C2"  # C1, gated by a hand-made premise
    assert "C1" not in {c["id"] for c in sequential_claims(spec)}
