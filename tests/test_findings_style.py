"""Plain findings (issue 30): one fact per sentence with at most two numbers, the raw measurement left to the
claims table, stand-in data named in the first sentence, every sentence conditioned on the verdicts it states.
The rule is checked on toy findings (the checker must catch what it claims to catch) and on every paper's
findings: on its config, and rendered from the committed smoke-scale claims (config/locks/*.smoke.content)
and paper-scale verdicts (config/locks/verdicts.paper.csv)."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from banditrepro.experiments.spec import PaperSpec, load_paper
from banditrepro.lock import VERDICTS_FILE, read_verdicts
from banditrepro.report.claims import CLAIM_COLUMNS
from banditrepro.report.findings import (
    MAX_NUMBERS,
    numbers_in,
    render_findings,
    sanity_sentence,
    sentence_problems,
    sentences_of,
    style_problems,
)
from banditrepro.report.vocabulary import VERDICTS

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = sorted(p.stem for p in (REPO_ROOT / "config" / "papers").glob("*.yaml"))


def _spec(claims, findings) -> PaperSpec:
    return PaperSpec(paper="toy", title="Toy", scale="smoke", experiments={}, figures={},
                     claims=[{"id": c, "figure": "fig", "statement": "s", "kind": k, "check": {"fn": "below"}}
                             for c, k in claims],
                     tables={}, resolutions=[], config={"paper": "toy", "findings": findings})


TOY = [("H1", "headline"), ("H2", "headline"), ("S1", "sanity")]


def _toy_claims(h1="reproduced", h2="not_reproduced", s1="reproduced") -> pd.DataFrame:
    return pd.DataFrame([("H1", "fig", "s", "ratio 1.31 ± 0.02 (fig/a), 1.22 ± 0.03 (fig/b)", "<= 1.5", h1, "headline"),
                         ("H2", "fig", "s", "gap 0.2", "> 0", h2, "headline"),
                         ("S1", "fig", "s", "0", "== 0", s1, "sanity")], columns=CLAIM_COLUMNS)


# --- the checker itself --------------------------------------------------------------------------


def test_numbers_leave_out_claim_ids_names_and_references_to_the_paper():
    assert numbers_in("HT-UCB is 10 % below LFG at T = 16000 in Figs 2–3 (C1.1, K20_tau0.8, Theorem 4.2).") == \
        ["10", "16000"]
    assert numbers_in("α = 4 is best; f = k² in Fig 3e and Table II, Setting 4.") == ["4"]
    assert numbers_in("ratio 1.31 ± 0.02 vs 1.5 (5/7 panels)") == ["1.31", "0.02", "1.5", "5", "7"]


def test_sentences_are_cut_at_their_ends_but_not_after_abbreviations():
    assert sentences_of("It holds, e.g. in Fig. 3 and 4. Then 2 do not: A. B fails.") == \
        ["It holds, e.g. in Fig. 3 and 4.", "Then 2 do not: A.", "B fails."]


def test_a_sentence_with_more_than_two_numbers_is_a_problem():
    ok = "HT-UCB is 10 % below LFG at T = 16000 (C1.1). It grows by at most 1.5 times."
    assert sentence_problems([ok], ["C1.1"]) == []
    bad = "HT-UCB is 10 % below LFG at T = 16000 and doubling T multiplies its regret by 1.29 (C1.1)."
    problems = sentence_problems([ok, bad], ["C1.1"])
    assert len(problems) == 1 and problems[0].startswith(f"{MAX_NUMBERS + 1} numbers (10, 16000, 1.29)")


def test_config_findings_that_embed_a_measurement_or_name_an_unconditioned_claim_are_problems():
    spec = _spec(TOY, [
        {"text": "H1 holds (H1).", "when": {"H1": "reproduced"}},
        "A sentence shown whatever the verdicts are.",
        {"text": "H1 holds, and so does the setup check S1.", "when": {"H1": "reproduced"}},
        {"text": "H2 fails: {H2.measured}.", "when": {"H2": "not_reproduced"}},
        {"text": "The second claim is {H2.verdict}.", "when": {"H1": "reproduced"}},  # a printed verdict needs no condition
    ])
    assert style_problems(spec) == [
        "config/papers/toy.yaml: findings[1]: no 'when': the sentence is shown whatever the verdicts are",
        "config/papers/toy.yaml: findings[2]: names S1 without a 'when' on its verdict",
        "config/papers/toy.yaml: findings[3]: embeds the raw measurement of H2 (it stays in the claims table)",
    ]


def test_a_failed_sanity_check_is_said_and_no_sentence_says_it_held():
    """The bug issue 30 found: penalized_fairness said its setup checks held when C2.4 had failed at smoke scale."""
    spec = _spec(TOY, [{"text": "The setup check holds (S1).", "when": {"S1": "reproduced"}}])
    assert style_problems(spec) == []
    held = render_findings(spec, _toy_claims())
    assert "The setup check holds (S1)." in held and sanity_sentence(_toy_claims()) is None
    failed = render_findings(spec, _toy_claims(s1="not_reproduced"))
    assert "The setup check holds (S1)." not in failed
    assert failed[1].startswith("1 of 1 sanity checks did not hold (S1)")


# --- every paper's findings ----------------------------------------------------------------------


def _smoke_claims(paper: str) -> pd.DataFrame | None:
    path = REPO_ROOT / "config" / "locks" / f"{paper}.smoke.content.json.gz"
    if not path.is_file():
        return None
    content = json.loads(gzip.decompress(path.read_bytes()))
    text = content.get(f"results/{paper}/claims.csv")
    return None if text is None else pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)


def _paper_claims(paper: str) -> pd.DataFrame | None:
    rows = [r for r in read_verdicts(REPO_ROOT / VERDICTS_FILE) if r["paper"] == paper]
    return pd.DataFrame(rows).drop(columns="paper") if rows else None


@pytest.mark.parametrize("paper", PAPERS)
def test_every_finding_is_conditioned_on_the_verdicts_of_the_claims_it_names(paper):
    problems = style_problems(load_paper(paper, "smoke", REPO_ROOT))
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("scale", ["smoke", "paper"])
@pytest.mark.parametrize("paper", PAPERS)
def test_every_rendered_finding_states_at_most_two_numbers_per_sentence(paper, scale):
    claims = _smoke_claims(paper) if scale == "smoke" else _paper_claims(paper)
    if claims is None:
        pytest.skip(f"no committed {scale}-scale claims of {paper} (config/locks/)")
    spec = load_paper(paper, scale, REPO_ROOT)
    # under the committed verdicts, and with every claim's verdict set to each word in turn, so that a
    # sentence shown only under another verdict is checked too
    variants = [claims] + [claims.assign(verdict=v) for v in VERDICTS]
    problems = {p for c in variants for p in sentence_problems(render_findings(spec, c), [x["id"] for x in spec.claims])}
    assert not problems, "\n".join(sorted(problems))
