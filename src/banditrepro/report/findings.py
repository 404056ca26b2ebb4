"""Findings: the plain sentences that open a paper's report, and the line of headline verdict counts.

A paper config's ``findings:`` list holds sentence templates. ``{C1.measured}`` is replaced by the
built claim's field (``measured``, ``threshold``, ``verdict``, ``statement``, ``figure``, ``kind``);
``when: {C1: not_reproduced}`` (a verdict or a list of verdicts per claim id) shows a sentence only
while every condition holds, so a sentence never outlives the numbers it describes. No number is
written into a sentence by hand. A placeholder or condition naming an unknown claim or field is a
configuration error, raised when the workflow is planned (``snakemake -n``).

Findings are plain (issue 30): one fact per sentence with at most :data:`MAX_NUMBERS` numbers, the raw
measurement left to the claims table, and every sentence about a claim shown only under that claim's
verdict. :func:`style_problems` (the config) and :func:`sentence_problems` (the rendered sentences) say
where a paper's findings break that rule; tests run them over every paper.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .diagnosis import cause_breakdown, causes_of, has_causes, is_undiagnosed
from .vocabulary import (
    HEADLINE,
    INCONCLUSIVE,
    KINDS,
    NOT_MEASURED,
    NOT_REPRODUCED,
    PREMISE_NOT_MET,
    REPRODUCED,
    SANITY,
    STANDIN_MARK,
    VERDICTS,
    claim_records,
    tally,
)

#: the most numbers one findings sentence may state (claim ids and references such as "Fig 3" aside)
MAX_NUMBERS = 2

FIELDS = ("measured", "threshold", "verdict", "statement", "figure", "kind")
# {<claim id>.<field>}: the id may itself contain dots (C4.5), the field is after the last one
PLACEHOLDER = re.compile(r"\{([^{}\s]+)\.([A-Za-z_]+)\}")
#: the heading of the findings section of a paper report (written by report.paper_report)
FINDINGS_HEADING = "## Findings"


class FindingsError(ValueError):
    """A ``findings:`` entry that cannot be filled from the paper's claims."""


def _entries(spec) -> list[dict]:
    out = []
    for entry in spec.config.get("findings", []) or []:
        out.append({"text": entry} if isinstance(entry, str) else dict(entry))
    return out


def _when(entry: dict) -> dict[str, list[str]]:
    return {cid: [v] if isinstance(v, str) else list(v) for cid, v in (entry.get("when") or {}).items()}


def check_findings(spec) -> list[dict]:
    """The paper's findings entries, each checked against its claim ids; raises FindingsError."""
    ids = {c["id"] for c in spec.claims}
    where = f"config/papers/{spec.paper}.yaml: findings"
    entries = _entries(spec)
    for i, entry in enumerate(entries):
        for cid, field in PLACEHOLDER.findall(entry["text"]):
            if cid not in ids:
                raise FindingsError(f"{where}[{i}]: placeholder {{{cid}.{field}}} names unknown claim {cid!r}")
            if field not in FIELDS:
                raise FindingsError(f"{where}[{i}]: placeholder {{{cid}.{field}}} names unknown field {field!r} "
                                    f"(one of {', '.join(FIELDS)})")
        for cid, verdicts in _when(entry).items():
            if cid not in ids:
                raise FindingsError(f"{where}[{i}]: 'when' names unknown claim {cid!r}")
            bad = [v for v in verdicts if v not in VERDICTS]
            if bad:
                raise FindingsError(f"{where}[{i}]: 'when' of {cid}: unknown verdict {bad[0]!r} "
                                    f"(one of {', '.join(VERDICTS)})")
    return entries


def verdict_line(claims, causes: dict[str, str] | None = None) -> str:
    """'Headline claims: 5 reproduced, 3 not reproduced, 1 inconclusive (of 9) · variant: 2/4 reproduced
    · sanity: 6/6 reproduced'. Only headline claims are tallied in full; the others are listed apart.
    A claims table with a cause column counts the failures by cause ('3 not reproduced (2 LCB test
    unreachable, 1 undiagnosed)'), each cause by its label in ``causes`` (the paper's ``causes:``)."""
    t = tally(claims)
    causes = causes or {}

    def by_cause(verdict: str) -> str:
        text = cause_breakdown(claims, causes, verdict)
        return f" ({text})" if text else ""

    line = (f"Headline claims: {t.count(HEADLINE, REPRODUCED)} reproduced, "
            f"{t.count(HEADLINE, NOT_REPRODUCED)} not reproduced{by_cause(NOT_REPRODUCED)}, "
            f"{t.count(HEADLINE, INCONCLUSIVE)} inconclusive{by_cause(INCONCLUSIVE)} "
            f"(of {t.count(HEADLINE)})")
    for kind in KINDS:
        if kind != HEADLINE:
            total = t.count(kind)
            line += f" · {kind}: {t.count(kind, REPRODUCED)}/{total} reproduced" if total else f" · {kind}: none"
    return line


def _ids(ids: list[str]) -> str:
    return ", ".join(ids[:-1]) + " and " + ids[-1] if len(ids) > 1 else ids[0]


#: how a headline failure with no declared cause is counted in the first finding
UNDIAGNOSED_WORDS = "a cause not yet diagnosed"


def _by_cause(rows: list, causes: dict[str, str]) -> list[tuple[str, int]]:
    """(cause label, count) of failing headline rows, most frequent first (ties in order of first appearance);
    a row without a cause counts under :data:`UNDIAGNOSED_WORDS`."""
    counts: dict[str, int] = {}
    for row in rows:
        cause = str(row.get("cause") or "")
        label = causes.get(cause, cause) if cause and not is_undiagnosed(row) else UNDIAGNOSED_WORDS
        counts[label] = counts.get(label, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def _grouped(rows: list, causes: dict[str, str], has_cause: bool, lead: str, verbs: tuple[str, str]) -> list[str]:
    """``lead`` ('3 do not reproduce') and, for a table with a cause column, how many fail for which cause,
    one number per sentence: '..., all because of X.' or '... 2 fail because of X. 1 fails because of Y.'
    (``verbs``: the verb for one claim and for several)."""
    if not has_cause:
        return [f"{lead}."]
    groups = _by_cause(rows, causes)
    if len(groups) == 1:
        every = {1: "", 2: "both "}.get(len(rows), "all ")
        return [f"{lead}, {every}because of {groups[0][0]}."]
    return [f"{lead}."] + [f"{n} {verbs[0] if n == 1 else verbs[1]} because of {label}." for label, n in groups]


def headline_sentence(claims, causes: dict[str, str] | None = None) -> str:
    """The automatic first finding: how the headline claims fared, in plain words, one fact and at most two
    numbers per sentence, claim ids left to the claims table (issue 38). First how many reproduce; then those
    counted inconclusive for want of real data (stand-in data, figure not built); then those that do not
    reproduce, those whose premise is not met, and those inconclusive on the measurement, each counted by
    cause when the table has a cause column (each cause by its label in ``causes``). ``claims``: a claims
    table, or rows with claim_id, kind, measured and verdict (the verdicts file's, with a cause column from
    :func:`report.diagnosis.with_causes`; without a statement column no claim reads as stand-in)."""
    causes = causes or {}
    t = tally(claims)
    n = t.count(HEADLINE)
    if n == 0:
        return "This paper has no headline claims."
    has_cause = has_causes(claims)
    ok = t.count(HEADLINE, REPRODUCED)
    bad = t.rows(HEADLINE, NOT_REPRODUCED)
    unsure = t.rows(HEADLINE, INCONCLUSIVE)
    unmeasured = [r for r in unsure if str(r["measured"]) == NOT_MEASURED]
    standin = [r for r in unsure if r not in unmeasured and str(r.get("statement", "")).startswith(STANDIN_MARK)]
    gated = [r for r in unsure if r not in unmeasured and r not in standin
             and str(r["measured"]).startswith(PREMISE_NOT_MET)]
    noisy = [r for r in unsure if r not in unmeasured and r not in standin and r not in gated]
    sentences = [f"{ok} of the paper's {n} headline claims reproduce{'s' if ok == 1 else ''}."]
    if standin:
        sentences.append(f"{len(standin)} {'is' if len(standin) == 1 else 'are'} counted inconclusive because "
                         f"{'its figure runs' if len(standin) == 1 else 'their figures run'} on stand-in data.")
    if unmeasured:
        sentences.append(f"{len(unmeasured)} could not be measured because "
                         f"{'its figure was' if len(unmeasured) == 1 else 'their figures were'} not built.")
    if bad:
        sentences += _grouped(bad, causes, has_cause, f"{len(bad)} {'does' if len(bad) == 1 else 'do'} not reproduce",
                              ("fails", "fail"))
    if gated:
        one = len(gated) == 1
        sentences.append(f"{len(gated)} {'is' if one else 'are'} inconclusive because the advantage or contrast "
                         f"{'it presupposes' if one else 'they presuppose'} does not hold (premise not met).")
    if noisy:
        sentences += _grouped(noisy, causes, has_cause,
                              f"{len(noisy)} {'is' if len(noisy) == 1 else 'are'} inconclusive on the measurement",
                              ("is inconclusive", "are inconclusive"))
    return " ".join(sentences)


def sanity_sentence(claims) -> str | None:
    """The automatic finding on failed sanity checks (None when every sanity claim reproduced): a setup
    that does not behave as built undermines the verdicts that rest on it, so the failure is said plainly."""
    t = tally(claims)
    failed = [c for v in (NOT_REPRODUCED, INCONCLUSIVE) for c in t.ids(SANITY, v)]
    if not failed:
        return None
    return (f"{len(failed)} of {t.count(SANITY)} sanity checks did not hold ({_ids(failed)}): the setup they test "
            "does not behave as built, so read the verdicts that rest on it with care.")


def render_findings(spec, claims) -> list[str]:
    """The findings sentences that hold for these claims: the automatic headline sentence, the automatic
    sentence on failed sanity checks (if any), then every config entry whose ``when`` conditions hold,
    its placeholders filled from the claims."""
    entries = check_findings(spec)
    rows = {str(r["claim_id"]): r for r in claim_records(claims)}
    out = [headline_sentence(claims, causes_of(spec.config))]
    sanity = sanity_sentence(claims)
    if sanity:
        out.append(sanity)
    for i, entry in enumerate(entries):
        conds = _when(entry)
        if any(cid not in rows or str(rows[cid]["verdict"]) not in allowed for cid, allowed in conds.items()):
            continue

        def fill(m: re.Match, i=i) -> str:
            cid, field = m.group(1), m.group(2)
            if cid not in rows:
                raise FindingsError(f"config/papers/{spec.paper}.yaml: findings[{i}]: claim {cid!r} is not in "
                                    "the built claims")
            value = rows[cid].get(field, HEADLINE if field == "kind" else "")
            if value is None or (isinstance(value, float) and math.isnan(value)):
                return ""
            return str(value).replace("_", " ") if field == "verdict" else str(value)

        out.append(" ".join(PLACEHOLDER.sub(fill, entry["text"]).split()))
    return out


def read_findings(report: Path) -> str | None:
    """The body of a built paper report's findings section (its bullet lines, as written), or None
    when the report or the section is absent. The section ends at the next heading of level 1 or 2."""
    report = Path(report)
    if not report.is_file():
        return None
    lines = iter(report.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if line.strip() == FINDINGS_HEADING:
            body = []
            for nxt in lines:
                if nxt.startswith(("# ", "## ")):
                    break
                body.append(nxt)
            return "\n".join(body).strip("\n")
    return None


# --------------------------------------------------------------------------------------- plain findings
# A number is a numeric literal standing on its own: digits glued to a letter or a dot (claim ids C1.1,
# F3a2, setting names K20_tau0.8) are part of a name, and a reference (Fig 3, Figs 2–3, Theorem 4.2,
# Setting 4, Table II) names a place in the paper, not a measurement.
NUMBER = re.compile(r"(?<![\w.^])\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")
REFERENCE = re.compile(r"\b(?:Figs?|Figures?|Tables?|Settings?|Sections?|Sec|Theorems?|Thm|Lemmas?|Eqs?|"
                       r"Equations?|Corollary|Corollaries|Assumptions?|Algorithms?|Propositions?|Remarks?|Cases?|"
                       r"Examples?|Definitions?|Appendix|lines?|p|pp)\.?\s*\(?\d+[a-z]?(?:\s*[.,–-]\s*\d+[a-z]?)*\)?")
# a sentence ends at . ! ? followed by a space and a capital, digit, quote or bracket, unless the dot
# closes an abbreviation
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“])")
ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "cf.", "Fig.", "Figs.", "Eq.", "Sec.", "resp.", "approx.", "et al.")


def sentences_of(text: str) -> list[str]:
    """A findings text cut into sentences (abbreviations such as "e.g." or "Fig." do not end one)."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        head = text[start:m.start()]
        if not head.endswith(ABBREVIATIONS):
            out.append(head.strip())
            start = m.end()
    out.append(text[start:].strip())
    return [x for x in out if x]


def numbers_in(sentence: str) -> list[str]:
    """The numbers a sentence states, references to the paper's figures, sections and results aside."""
    return NUMBER.findall(REFERENCE.sub(" ", sentence))


def _named_ids(text: str, ids) -> set[str]:
    """The claim ids a text names outside ``{id.verdict}`` placeholders (a sentence that prints a verdict
    needs no condition on it)."""
    bare = PLACEHOLDER.sub(lambda m: "" if m.group(2) == "verdict" else m.group(1), text)
    return {cid for cid in ids if re.search(rf"(?<![\w.]){re.escape(cid)}(?!\.?\w)", bare)}


def style_problems(spec) -> list[str]:
    """Where the paper's findings entries break the plain-findings rule, checked on the config: an entry
    with no ``when``, or one that names a claim (by id or placeholder) without a condition on its
    verdict, would assert what the claims table may not show; a ``{<id>.measured}`` placeholder puts the
    raw measurement into a sentence (it belongs in the claims table)."""
    ids = {c["id"] for c in spec.claims}
    where = f"config/papers/{spec.paper}.yaml: findings"
    problems = []
    for i, entry in enumerate(check_findings(spec)):
        when = _when(entry)
        if not when:
            problems.append(f"{where}[{i}]: no 'when': the sentence is shown whatever the verdicts are")
        unconditioned = sorted(_named_ids(entry["text"], ids) - set(when))
        if unconditioned:
            problems.append(f"{where}[{i}]: names {', '.join(unconditioned)} without a 'when' on "
                            f"{'its' if len(unconditioned) == 1 else 'their'} verdict")
        raw = sorted({cid for cid, field in PLACEHOLDER.findall(entry["text"]) if field == "measured"})
        if raw:
            problems.append(f"{where}[{i}]: embeds the raw measurement of {', '.join(raw)} "
                            "(it stays in the claims table)")
    return problems


def sentence_problems(findings: list[str], ids=()) -> list[str]:
    """Rendered findings sentences that state more than :data:`MAX_NUMBERS` numbers (claim ids in
    ``ids`` and references to the paper aside)."""
    problems = []
    for finding in findings:
        for sentence in sentences_of(finding):
            masked = sentence
            for cid in sorted(ids, key=len, reverse=True):
                masked = re.sub(rf"(?<![\w.]){re.escape(cid)}(?!\.?\w)", " ", masked)
            found = numbers_in(masked)
            if len(found) > MAX_NUMBERS:
                problems.append(f"{len(found)} numbers ({', '.join(found)}) in: {sentence}")
    return problems
