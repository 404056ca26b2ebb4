"""One verdict rule everywhere (issue 38): every headline claim is decided through the 2-s.e. band, one rule for
derived claims, one rule for "sub-linear". Each rule is run over every paper's config (discovered from
config/papers/) and fails on a hand-made violation.

The band itself is tested by behaviour in ``tests/test_band_behaviour.py`` (issue 53): every check deciding a
headline claim is run on synthetic results k standard errors from the claim's threshold (``tests/band_cases/``)
and must be inconclusive at k = ±1. (It replaced a rule read off the checks' signatures, a ``z`` or ``level``
parameter, which a check could declare and ignore.) Here: that every such check has a band case, so that the
behavioural test runs it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import test_band_behaviour as band_test

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.spec import discover_papers, load_paper
from banditrepro.report.checks import SUBLINEAR_MAX_RATIO, sublinear_halves, sublinear_verdict

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = tuple(discover_papers(REPO_ROOT))


def _deciding(check: dict):
    """The checks that decide ``check``: itself, or an all_of's parts (recursively), as written here apart."""
    if check["fn"] == "all_of":
        for part in check["parts"]:
            yield from _deciding(part)
    else:
        yield check


def test_the_papers_are_discovered():
    assert set(PAPERS) == {p.stem for p in (REPO_ROOT / "config" / "papers").glob("*.yaml")}


@pytest.mark.parametrize("paper", PAPERS)
def test_the_band_test_runs_every_headline_check(paper):
    """Every check deciding a headline claim (an all_of's parts, a premise given as a check) is one of the
    behavioural band test's cases, and nothing else is."""
    spec = load_paper(paper, "paper", REPO_ROOT)
    want = sorted((c["id"], check["fn"]) for c in spec.claims if c["kind"] == "headline"
                  for top in [c["check"]] + ([c["premise"]] if isinstance(c.get("premise"), dict) else [])
                  for check in _deciding(top))
    ran = sorted((label.split(":")[1], check["fn"]) for label, _, check in band_test.CASES if label.split(":")[0] == paper)
    assert ran == want


def _claim(paper: str, claim_id: str) -> dict:
    return next(c for c in load_paper(paper, "paper", REPO_ROOT).claims if c["id"] == claim_id)


def test_a_headline_check_without_a_band_case_fails_the_band_test(tmp_path):
    f4c = dict(_claim("satisficing_ucl", "F4c"), kind="headline")  # most_pulled_arm: a sanity check, no case
    with pytest.raises(AssertionError, match="no band case for check 'most_pulled_arm'"):
        band_test.test_headline_check_goes_through_the_band("satisficing_ucl:F4c:check0:most_pulled_arm", f4c, f4c["check"],
                                                  tmp_path)


def test_a_check_without_its_band_fails_the_band_test(tmp_path):
    """F5b's final_ordering with its band removed (z = 0: the raw order decides) is reproduced at k = +1 and not
    reproduced at k = -1, which the band test names."""
    f5b = _claim("satisficing_ucl", "F5b")
    band_test.test_headline_check_goes_through_the_band("satisficing_ucl:F5b:check0:final_ordering", f5b, f5b["check"],
                                              tmp_path / "banded")
    with pytest.raises(AssertionError, match=r"1\.0: 'reproduced', -1\.0: 'not_reproduced'"):
        band_test.test_headline_check_goes_through_the_band("satisficing_ucl:F5b:check0:final_ordering", f5b,
                                                  {**f5b["check"], "z": 0.0}, tmp_path / "unbanded")


#: how a statement says that the paper does not make it (the project derives it from the text)
DERIVED_MARKS = ("Not a statement of the paper", "Derived from", "derived from Sec")


def derived_headlines(claims) -> list[str]:
    return [c["id"] for c in claims if c["kind"] == "headline"
            and any(mark.lower() in " ".join(c["statement"].split()).lower() for mark in DERIVED_MARKS)]


@pytest.mark.parametrize("paper", PAPERS)
def test_a_claim_the_paper_does_not_make_is_never_headline(paper):
    """One rule for derived claims (issue 38): satisficing_ucl's F2c_P3/F2c_P4 were demoted as 'not a statement',
    F3c/F4c (derived the same way) with them."""
    assert derived_headlines(load_paper(paper, "paper", REPO_ROOT).claims) == []


def test_a_derived_headline_claim_is_named():
    claims = load_paper("satisficing_ucl", "paper", REPO_ROOT).claims
    f3c = dict(next(c for c in claims if c["id"] == "F3c"), kind="headline")
    assert derived_headlines([f3c]) == ["F3c"]


# --- "sub-linear": second half at most 0.8 x the first --------------------------------------------------


def test_sublinear_needs_a_margin_below_linear():
    rng = np.random.default_rng(1)
    first = 100 + rng.normal(0, 1, 400)
    # near-linear (SELECT on Fig 4: second half 4 % below the first) passed "second < first"; not now
    assert sublinear_verdict(first, 0.96 * first)[0] == "not_reproduced"
    assert sublinear_verdict(first, 0.41 * first)[0] == "reproduced"      # sqrt(T) growth
    assert sublinear_verdict(first, 0.8 * first + rng.normal(0, 5, 400))[0] == "inconclusive"
    assert SUBLINEAR_MAX_RATIO == 0.8


def _ctx(curves):
    outs = {a: SimulationOutput(checkpoints=np.array([50, 100]), curves={"regret": np.asarray(c, dtype=float)})
            for a, c in curves.items()}
    panel = {"id": "p", "experiment": "e", "metric": "regret", "algorithms": list(curves)}
    spec = SimpleNamespace(figures={"fig": {"panels": [panel]}}, experiments={"e": SimpleNamespace(algorithms=outs)})
    return SimpleNamespace(spec=spec, panel=lambda f, p: panel, replications=lambda e: outs)


def test_every_sublinearity_guard_uses_the_margin():
    """A curve 4 % short of linear fails each paper's sub-linearity check (it passed "second half below the
    first"); a sqrt(T) curve passes."""
    from banditrepro.experiments.censored_resources.checks import regret_sublinear
    from banditrepro.experiments.satisficing_select.checks import sublinear as select_sublinear

    near_linear = [[100.0 + d, 196.0 + 0.96 * d] for d in (-1.0, 0.0, 1.0, 0.5)]
    sqrt_t = [[100.0 + d, 141.0 + 0.41 * d] for d in (-1.0, 0.0, 1.0, 0.5)]
    ctx = _ctx({"lin": near_linear, "sqrt": sqrt_t})
    assert sublinear_halves(ctx, "fig", ["lin"]).verdict == "not_reproduced"
    assert sublinear_halves(ctx, "fig", ["sqrt"]).verdict == "reproduced"
    res = select_sublinear(ctx, "fig", "p", ["sqrt", "lin"])
    assert res.verdict == "not_reproduced" and res.measured.startswith("not sub-linear: lin (0.9588, not reproduced)")
    assert select_sublinear(ctx, "fig", "p", ["sqrt"]).verdict == "reproduced"
    res = regret_sublinear(SimpleNamespace(replications=lambda e: {"a": ctx.replications(e)[e]}), ["lin"], "a")
    assert res.verdict == "not_reproduced" and res.measured.startswith("not sub-linear on lin")
    assert regret_sublinear(SimpleNamespace(replications=lambda e: {"a": ctx.replications(e)[e]}), ["sqrt"],
                            "a").verdict == "reproduced"


@pytest.mark.parametrize("paper", PAPERS)
def test_every_sublinearity_statement_states_the_margin(paper):
    """A claim that says "sub-linear" says what it means: at most 0.8 x (or a stricter bound of its own)."""
    for claim in load_paper(paper, "paper", REPO_ROOT).claims:
        text = " ".join(claim["statement"].split())
        if "sub-linear" in text and "0.8" not in text and "1.5" not in text:
            fn = claim["check"]["fn"]
            assert fn not in ("sublinear_halves", "select_sublinear", "regret_sublinear", "fair_fair_regret_sublinear",
                              "composite_linear_vs_sublinear"), f"{paper}: {claim['id']} does not state the 0.8 margin"
