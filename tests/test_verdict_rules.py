"""One verdict rule everywhere (issue 38): every headline claim is decided through the 2-s.e. band (or, for a
statistical test, its level), one rule for derived claims, one rule for "sub-linear". Each rule is run over the
five papers' configs and fails on a hand-made violation."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.spec import load_paper
from banditrepro.registry import CLAIM_CHECKS, lookup
from banditrepro.report.checks import SUBLINEAR_MAX_RATIO, sublinear_halves, sublinear_verdict

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = ("censored_resources", "composite_anonymous", "penalized_fairness", "satisficing_select", "satisficing_ucl")
#: the parameter by which a check takes its noise band: ``z`` standard errors, or a test's ``level``
BAND_PARAMETERS = ("z", "level")


def _checks(check: dict):
    """A check and the checks it is made of (all_of's parts, a variant search's inner check)."""
    yield check
    for part in check.get("parts", []) or []:
        yield from _checks(part)
    if isinstance(check.get("inner"), dict):
        yield from _checks(check["inner"])


def unbanded(claims) -> list[str]:
    """The headline claims (and their check premises) decided by some check without a noise band."""
    out = []
    for claim in claims:
        if claim["kind"] != "headline":
            continue
        checks = [claim["check"]] + ([claim["premise"]] if isinstance(claim.get("premise"), dict) else [])
        for check in (c for top in checks for c in _checks(top)):
            params = inspect.signature(lookup(CLAIM_CHECKS, "claim check", check["fn"])).parameters
            if check["fn"] not in ("all_of",) and not any(p in params for p in BAND_PARAMETERS):
                out.append(f"{claim['id']} ({check['fn']})")
    return out


@pytest.mark.parametrize("paper", PAPERS)
def test_every_headline_claim_goes_through_the_noise_band(paper):
    spec = load_paper(paper, "paper", REPO_ROOT)
    assert unbanded(spec.claims) == []


def test_a_headline_claim_without_a_band_is_named():
    spec = load_paper("satisficing_ucl", "paper", REPO_ROOT)
    f4c = dict(next(c for c in spec.claims if c["id"] == "F4c"), kind="headline")  # most_pulled_arm: no band
    assert unbanded([f4c]) == ["F4c (most_pulled_arm)"]
    whole = {"id": "W", "kind": "headline", "check": {"fn": "all_of", "parts": [f4c["check"], {"fn": "below"}]}}
    assert unbanded([whole]) == ["W (most_pulled_arm)"]


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
