"""Findings: the plain sentences that open a paper's report, and the line of headline verdict counts.

A paper config's ``findings:`` list holds sentence templates. ``{C1.measured}`` is replaced by the
built claim's field (``measured``, ``threshold``, ``verdict``, ``statement``, ``figure``, ``kind``);
``when: {C1: not_reproduced}`` (a verdict or a list of verdicts per claim id) shows a sentence only
while every condition holds, so a sentence never outlives the numbers it describes. No number is
written into a sentence by hand. A placeholder or condition naming an unknown claim or field is a
configuration error, raised when the workflow is planned (``snakemake -n``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .diagnosis import UNDIAGNOSED, cause_breakdown, cause_counts, causes_of, has_causes, is_undiagnosed
from .vocabulary import (
    HEADLINE,
    INCONCLUSIVE,
    KINDS,
    NOT_MEASURED,
    NOT_REPRODUCED,
    REPRODUCED,
    VERDICTS,
    claim_records,
    tally,
)

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


def _ids_by_cause(claims, ids: list[str], verdict: str, causes: dict[str, str]) -> str:
    """'C1, C2' or, for a table with a cause column, '2 LCB test unreachable: C1, C2; 1 undiagnosed: C3'."""
    if not has_causes(claims):
        return ", ".join(ids)
    rows = {str(r["claim_id"]): r for r in tally(claims).rows(HEADLINE, verdict) if str(r["claim_id"]) in ids}
    groups = []
    for cause, n in cause_counts(claims, verdict):
        members = [cid for cid, r in rows.items()
                   if (is_undiagnosed(r) and cause == UNDIAGNOSED) or str(r.get("cause") or "") == cause]
        groups.append(f"{n} {causes.get(cause, cause)}: {', '.join(members)}")
    return "; ".join(groups) if groups else ", ".join(ids)


def headline_sentence(claims, causes: dict[str, str] | None = None) -> str:
    """The automatic first finding: how the headline claims fared, naming those that did not reproduce
    and, apart from the inconclusive ones, those that could not be measured (their figure not built).
    ``claims``: a claims table, or rows with claim_id, kind, measured and verdict (the verdicts file's).
    A table with a cause column groups the failures by cause, each by its label in ``causes``."""
    causes = causes or {}
    t = tally(claims)
    ok, bad, unsure = (t.ids(HEADLINE, v) for v in VERDICTS)
    n = t.count(HEADLINE)
    if n == 0:
        return "This paper has no headline claims."
    unmeasured = {str(r["claim_id"]) for r in t.rows(HEADLINE, INCONCLUSIVE) if str(r["measured"]) == NOT_MEASURED}
    missing = [c for c in unsure if c in unmeasured]
    unsure = [c for c in unsure if c not in unmeasured]
    parts = [f"{len(ok)} of the paper's {n} headline claims reproduce{'s' if len(ok) == 1 else ''}"]
    if bad:
        parts.append(f"{len(bad)} {'does' if len(bad) == 1 else 'do'} not "
                     f"({_ids_by_cause(claims, bad, NOT_REPRODUCED, causes)})")
    if unsure:
        parts.append(f"{len(unsure)} {'is' if len(unsure) == 1 else 'are'} inconclusive "
                     f"({_ids_by_cause(claims, unsure, INCONCLUSIVE, causes)})")
    if missing:
        parts.append(f"{len(missing)} could not be measured, {'its' if len(missing) == 1 else 'their'} figure "
                     f"not built ({', '.join(missing)})")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return text + "."


def render_findings(spec, claims) -> list[str]:
    """The findings sentences that hold for these claims: the automatic headline sentence, then every
    config entry whose ``when`` conditions hold, its placeholders filled from the claims."""
    entries = check_findings(spec)
    rows = {str(r["claim_id"]): r for r in claim_records(claims)}
    out = [headline_sentence(claims, causes_of(spec.config))]
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
