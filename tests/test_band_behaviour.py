"""Bands tested by behaviour (issue 53): every headline claim of every paper (discovered from config/papers/), and
every check it is decided by (an ``all_of``'s parts each on its own, a premise given as a check), is run on
synthetic results that put its decisive statistic ``k`` standard errors from the claim's own threshold
(``tests/band_cases/``): ``k = ±1`` must give ``inconclusive``, ``k = +3`` ``reproduced`` and ``k = -3``
``not_reproduced``. A headline check with no band case fails, so a new check (or a new paper) brings its case.

A check that decides through several comparisons of different kinds (a slope, a ratio and a difference) may have
its case return several scenarios, ``{name: BandContext}``: each puts one comparison at ``k`` and the others safely
on their passing side, and each must give the verdicts above, so every comparison is shown to go through the band
on its own (a lenient comparison cannot hide behind a strict one)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from band_cases import load_all_cases

from banditrepro.experiments.spec import discover_papers, load_paper
from banditrepro.registry import CLAIM_CHECKS, lookup

REPO_ROOT = Path(__file__).resolve().parents[1]
#: k -> the verdict a banded check must give there
EXPECTED = {1.0: "inconclusive", -1.0: "inconclusive", 3.0: "reproduced", -3.0: "not_reproduced"}
#: checks that combine others' verdicts and are tested through their parts
COMBINERS = ("all_of",)


def decided_checks(check: dict):
    """The checks a claim's check is decided by: itself, or an all_of's parts (recursively)."""
    if check["fn"] in COMBINERS:
        for part in check.get("parts", []) or []:
            yield from decided_checks(part)
    else:
        yield check


def headline_checks(paper: str) -> list[tuple[str, dict, dict]]:
    """(label, claim, check) of every check deciding a headline claim of ``paper`` (its premise, when a check)."""
    spec = load_paper(paper, "paper", REPO_ROOT)
    out = []
    for claim in spec.claims:
        if claim["kind"] != "headline":
            continue
        tops = [("check", claim["check"])]
        if isinstance(claim.get("premise"), dict):
            tops.append(("premise", claim["premise"]))
        for role, top in tops:
            for i, check in enumerate(decided_checks(top)):
                out.append((f"{paper}:{claim['id']}:{role}{i}:{check['fn']}", claim, check))
    return out


CASES = [case for paper in discover_papers(REPO_ROOT) for case in headline_checks(paper)]


@pytest.mark.parametrize("label, claim, check", CASES, ids=[c[0] for c in CASES])
def test_headline_check_goes_through_the_band(label, claim, check, tmp_path):
    cases = load_all_cases()
    assert check["fn"] in cases, (f"{label}: no band case for check {check['fn']!r}; add one to "
                                  f"tests/band_cases/ (docs/ADDING_A_PAPER.md)")
    paper = label.split(":", 1)[0]
    spec = load_paper(paper, "paper", REPO_ROOT)
    fn = lookup(CLAIM_CHECKS, "claim check", check["fn"])
    args = {k: v for k, v in check.items() if k not in ("fn", "label")}
    if "figure" in inspect.signature(fn).parameters:  # as report.claims and all_of call a check
        args.setdefault("figure", claim["figure"])
    got: dict[str, dict[float, str]] = {}
    for k in EXPECTED:
        made = cases[check["fn"]](spec, claim, check, k, tmp_path / f"k{k:+g}")
        scenarios = made if isinstance(made, dict) else {"": made}
        for name, sc in scenarios.items():
            got.setdefault(name, {})[k] = fn(sc.ctx, **{**args, **sc.extra_args}).verdict
    wrong = {name: by_k for name, by_k in got.items() if by_k != EXPECTED}
    assert not wrong, f"{label}: verdicts by k {wrong} (measured at k=+1: see the case)"
