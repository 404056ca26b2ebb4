"""Changes to claims after their results were known: the frozen first forms and the deviations table (issue 38).

A replication report is only as honest as its record of what was edited once the numbers were in, so the
project keeps two files beside the results lock, as pre-registered replications keep a deviations table:

* ``config/locks/claims.first.yaml`` (:data:`FIRST_FORMS_FILE`): for every claim that has entered a paper-scale
  lock, its *form* at that first lock (:func:`claim_form`: statement, kind, check with its threshold, band,
  gate and comparison set, premise), the lock and its verdict there. It only grows: the ``lock`` rule records
  the claims a lock holds for the first time (:func:`record_first_forms`); no entry is ever rewritten.
* ``config/locks/claims.deviations.yaml`` (:data:`DEVIATIONS_FILE`): one entry per change of a claim's form
  after its first lock: the paper and claim, the commit that made it, the form it made (``form``; null: the
  claim was removed), the verdict before (the last lock of the old form) and after (the first lock of the new
  form; absent while none holds it), and the reason in words.

Every claim that is a headline claim in its first form, in a recorded form or in the config must have, as its
current form, its first form or the form of its last deviation (:func:`form_problems`; a test runs it over
every paper), so no change to a headline claim goes unrecorded. Each paper report lists its deviations
(:func:`deviation_rows`, section "Changes to claims after results were known") and the overall report counts
them per paper.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .vocabulary import HEADLINE, VERDICTS, claim_records

FIRST_FORMS_FILE = Path("config") / "locks" / "claims.first.yaml"
DEVIATIONS_FILE = Path("config") / "locks" / "claims.deviations.yaml"
#: the heading of the deviations section of a paper report
DEVIATIONS_HEADING = "## Changes to claims after results were known"
#: the columns of that section's table
DEVIATION_COLUMNS = ["claim_id", "commit", "change (old → new)", "verdict before", "verdict after", "reason"]
#: the fields of a claim that make its form (a change of any of them after the first lock is a deviation)
FORM_FIELDS = ("statement", "kind", "check", "premise")


def claim_form(claim: Mapping) -> dict:
    """The form of a claim as the config writes it (unresolved scale values kept, so one form serves every
    scale): its statement (whitespace collapsed), kind, check (fn with threshold, band, gate and comparison
    set) and premise (absent when it has none)."""
    form = {"statement": " ".join(str(claim["statement"]).split()), "kind": str(claim.get("kind") or HEADLINE),
            "check": claim["check"]}
    if claim.get("premise") is not None:
        form["premise"] = claim["premise"]
    return form


def form_key(form: Mapping | None) -> str:
    """A canonical text of a form (None: the claim was removed), for comparing two forms."""
    return json.dumps(form, sort_keys=True, ensure_ascii=False, default=str)


def form_digest(form: Mapping | None) -> str:
    """12 hex digits of the sha256 of :func:`form_key`."""
    return hashlib.sha256(form_key(form).encode("utf-8")).hexdigest()[:12]


def is_headline(form: Mapping | None) -> bool:
    return form is not None and form.get("kind", HEADLINE) == HEADLINE


@dataclass(frozen=True)
class FirstForm:
    """A claim's form at the first paper-scale lock that held it, that lock and the claim's verdict there."""

    paper: str
    claim: str
    lock: str
    verdict: str
    form: dict


@dataclass(frozen=True)
class Deviation:
    """One change of a claim's form after its first lock."""

    paper: str
    claim: str
    commit: str
    form: dict | None
    verdict_before: str
    reason: str
    verdict_after: str | None = None


def read_first_forms(path: Path | str) -> dict[str, dict[str, FirstForm]]:
    """{paper: {claim id: FirstForm}} from the first-forms file (empty when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {paper: {cid: FirstForm(paper, cid, str(e["lock"]), str(e["verdict"]), dict(e["form"]))
                    for cid, e in (claims or {}).items()} for paper, claims in data.items()}


def read_deviations(path: Path | str) -> list[Deviation]:
    """The deviation entries, in file order (empty when the file does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    out = []
    for e in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
        out.append(Deviation(str(e["paper"]), str(e["claim"]), str(e["commit"]),
                             dict(e["form"]) if e.get("form") is not None else None, str(e["verdict_before"]),
                             " ".join(str(e["reason"]).split()),
                             str(e["verdict_after"]) if e.get("verdict_after") else None))
    return out


def dump_first_forms(first: Mapping[str, Mapping[str, FirstForm]]) -> str:
    """The first-forms file's text (papers and claims in the given order)."""
    data = {paper: {cid: {"lock": f.lock, "verdict": f.verdict, "form": f.form} for cid, f in claims.items()}
            for paper, claims in first.items()}
    head = ("# The form of every claim at the first paper-scale lock that held it (report/deviations.py, issue 38).\n"
            "# Frozen: entries are only ever added (by the `lock` rule), never rewritten; a later change of a\n"
            "# headline claim's form is recorded in claims.deviations.yaml.\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def record_first_forms(first: dict[str, dict[str, FirstForm]], paper: str, raw_claims: Iterable[Mapping],
                       locked: Iterable[Mapping], lock: str) -> list[str]:
    """Add to ``first`` (in place) the claims of ``paper`` that the lock's rows ``locked`` (claim_id, verdict)
    hold and the record does not yet: their current form (``raw_claims``: the config's claims, unresolved) and
    verdict. Returns the ids added. Entries already recorded are never touched: the record only grows."""
    forms = {str(c["id"]): claim_form(c) for c in raw_claims}
    mine = first.setdefault(paper, {})
    added = []
    for row in claim_records(locked):
        cid = str(row["claim_id"])
        if cid in mine or cid not in forms:
            continue
        mine[cid] = FirstForm(paper, cid, lock, str(row["verdict"]), forms[cid])
        added.append(cid)
    return added


def _chain(deviations: Iterable[Deviation], paper: str, claim: str) -> list[Deviation]:
    return [d for d in deviations if d.paper == paper and d.claim == claim]


def form_problems(paper: str, raw_claims: Iterable[Mapping], first: Mapping[str, Mapping[str, FirstForm]],
                  deviations: Iterable[Deviation]) -> list[str]:
    """Where the paper's claims (``raw_claims``: the config's, unresolved) disagree with the record: a claim
    that is headline in its first form, a recorded form or now, whose current form is neither its first form
    nor the form of its last deviation (an unrecorded change after the results were known); a deviation of a
    claim that never entered a lock; a deviation with an unknown verdict."""
    deviations = list(deviations)
    current = {str(c["id"]): claim_form(c) for c in raw_claims}
    recorded = first.get(paper, {})
    problems = []
    for cid, entry in recorded.items():
        chain = _chain(deviations, paper, cid)
        expected = chain[-1].form if chain else entry.form
        now = current.get(cid)
        relevant = is_headline(entry.form) or is_headline(now) or any(is_headline(d.form) for d in chain)
        if relevant and form_key(now) != form_key(expected):
            what = "was removed" if now is None else f"changed ({form_change(expected, now)})"
            problems.append(f"{paper}: claim {cid} {what} after its first lock ({entry.lock}) without a deviation "
                            f"entry in {DEVIATIONS_FILE} recording this form (digest {form_digest(now)})")
    for d in deviations:
        if d.paper != paper:
            continue
        if d.claim not in recorded:
            problems.append(f"{paper}: deviation of claim {d.claim} ({d.commit}), which never entered a lock")
        bad = [v for v in (d.verdict_before, d.verdict_after) if v is not None and v not in VERDICTS]
        if bad:
            problems.append(f"{paper}: deviation of claim {d.claim} ({d.commit}): unknown verdict {bad[0]!r}")
    return problems


def _flat(value, prefix: str) -> dict[str, str]:
    """A check or premise as {dotted key: value text} (lists and scalars as compact YAML)."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}.{k}"))
        return out
    return {prefix: json.dumps(value, ensure_ascii=False, default=str)}


def _inline(value) -> str:
    """A check or premise on one line (flow-style YAML)."""
    return " ".join(yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6).split())


def _short(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def form_change(old: Mapping | None, new: Mapping | None) -> str:
    """What changed between two forms, field by field: 'check.compare: (absent) → ["a", "b"]; statement: ...'
    (a removed claim: 'removed')."""
    if new is None:
        return "removed"
    if old is None:
        return "added"
    parts = []
    if old.get("kind") != new.get("kind"):
        parts.append(f"kind: {old.get('kind')} → {new.get('kind')}")
    for field in ("check", "premise"):
        x, y = old.get(field), new.get(field)
        if isinstance(x, Mapping) and isinstance(y, Mapping) and x.get("fn") != y.get("fn"):
            # another check: the two whole, not a key-by-key list of everything that moved
            parts.append(f"{field}: {_inline(x)} → {_inline(y)}")
            continue
        a = _flat(x, field) if x is not None else {}
        b = _flat(y, field) if y is not None else {}
        for key in list(dict.fromkeys([*a, *b])):
            if a.get(key) != b.get(key):
                parts.append(f"{key}: {a.get(key, '(absent)')} → {b.get(key, '(absent)')}")
    if old.get("statement") != new.get("statement"):
        parts.append(f"statement: \"{_short(str(old.get('statement')))}\" → \"{_short(str(new.get('statement')))}\"")
    return "; ".join(parts) or "no change"


def deviation_rows(paper: str, first: Mapping[str, Mapping[str, FirstForm]], deviations: Iterable[Deviation],
                   claims=None) -> list[dict[str, str]]:
    """The rows of a paper's deviations table, one per recorded change in file order: the claim, the commit,
    what changed from the previous form (the first locked form, or the form of the claim's previous change),
    the verdict before and after (after: the recorded one, else the claim's verdict in ``claims``, a claims
    table of the current build, marked 'now'), and the reason."""
    verdicts = {str(r["claim_id"]): str(r["verdict"]) for r in claim_records(claims if claims is not None else [])}
    recorded = first.get(paper, {})
    rows, previous = [], {}
    for d in deviations:
        if d.paper != paper:
            continue
        old = previous.get(d.claim, recorded[d.claim].form if d.claim in recorded else None)
        previous[d.claim] = d.form
        after = d.verdict_after or (f"{verdicts[d.claim]} (now)" if d.claim in verdicts else "not built")
        rows.append({"claim_id": d.claim, "commit": d.commit, "change (old → new)": form_change(old, d.form),
                     "verdict before": d.verdict_before, "verdict after": after, "reason": d.reason})
    return rows


def deviation_count(paper: str, deviations: Iterable[Deviation]) -> tuple[int, int]:
    """(changes, claims changed) of a paper."""
    mine = [d for d in deviations if d.paper == paper]
    return len(mine), len({d.claim for d in mine})
