"""Diagnosis of the claims that do not reproduce: their causes and the alternative readings that flip them.

A paper config may declare

- ``causes:`` ``{cause id: short label}`` (e.g. ``lcb_unreachable: "LCB test unreachable"``), the
  mechanisms behind its non-reproductions, and on each claim an optional ``cause:`` naming one of them.
  ``claims.csv`` carries the claim's cause in a ``cause`` column (after the contract columns) on every row
  that is not ``reproduced`` (:func:`claim_cause`). A headline claim that is measured, not reproduced or
  inconclusive, and has no cause is *undiagnosed* (:data:`UNDIAGNOSED`), and every count says so.
- ``readings:`` the alternative readings of the paper (each a text or a spec resolution the headline follows
  and the reading does not). A reading maps headline claim ids to the labelled ``variant`` claim that
  measures the same statement under that reading; optionally ``cells: {printed: <claim>, reading: <claim>}``
  names two claims that compare the paper's printed table cells with the printed algorithm and with the
  reading (e.g. the generic ``printed_cells`` check), so the table says which one the paper's numbers match.

:func:`readings_table` builds ``results/<paper>/readings.csv`` from the spec and the claims alone (no
simulation result is read here); :func:`cause_breakdown` is the per-cause count every summary prints.
Counts go through :func:`banditrepro.report.vocabulary.tally`, the one verdict tally.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .vocabulary import HEADLINE, INCONCLUSIVE, NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, claim_records, tally

#: the claims.csv column holding a claim's cause (after the contract columns of report.claims.CLAIM_COLUMNS)
CAUSE_COLUMN = "cause"
#: what the report shows for a measured headline claim that fails without a declared cause
UNDIAGNOSED = "undiagnosed"
#: the columns of results/<paper>/readings.csv, one row per (reading, headline claim)
READING_COLUMNS = ["reading", "deviates_from", "headline_claim", "headline_verdict", "cause", "variant_claim",
                   "verdict_under_reading", "flips", "printed_cells", "reading_cells"]
#: the reading column of a failing headline claim that no alternative reading measures: the table lists every
#: headline non-reproduction, so a reader sees which ones no reading tried could turn
NO_READING = "(none tried)"
# claims.py marks a claim on stand-in data this way; its verdict is inconclusive by design, not a failure
_STANDIN_PREFIX = "[STAND-IN DATA]"


@dataclass(frozen=True)
class Cause:
    """One declared cause: its label (a noun phrase that reads after "because of"), the reading that removes
    its mechanism (``reading``: that reading must flip every headline claim the cause explains, unless the cause
    is ``unconfirmed``), or ``no_reading``: no reading tried decides the claims it explains."""

    id: str
    label: str
    reading: str | None = None
    no_reading: bool = False
    unconfirmed: bool = False

    @property
    def shown(self) -> str:
        """The label every report prints: an unconfirmed cause says so."""
        return self.label + (" (unconfirmed)" if self.unconfirmed else "")


def cause_specs(config: Mapping) -> dict[str, Cause]:
    """The paper config's ``causes:`` as :class:`Cause` objects (an entry is a label or a mapping)."""
    out = {}
    for cid, value in (config.get("causes") or {}).items():
        if isinstance(value, Mapping):
            out[cid] = Cause(cid, str(value["label"]), value.get("reading"), bool(value.get("no_reading")),
                             bool(value.get("unconfirmed")))
        else:
            out[cid] = Cause(cid, str(value))
    return out


def causes_of(config: Mapping) -> dict[str, str]:
    """The paper config's causes as {id: label as shown}; empty when it declares none."""
    return {cid: cause.shown for cid, cause in cause_specs(config).items()}


def with_causes(config: Mapping, rows) -> list[dict]:
    """Rows of a claims table without a cause column (the verdicts file's) with the cause each claim's
    config declares, written as claims.csv writes it (:func:`claim_cause`): the same words in the README's
    table as in the reports."""
    declared = {c["id"]: c for c in config.get("claims", [])}
    out = []
    for row in claim_records(rows):
        claim = declared.get(str(row["claim_id"]), {})
        measured = str(row.get("measured", "")) != NOT_MEASURED
        out.append({**row, CAUSE_COLUMN: claim_cause(claim, str(row["verdict"]), measured)})
    return drop_ruled_out_causes(config, out)


def drop_ruled_out_causes(config: Mapping, rows) -> list[dict]:
    """The rows with an empty cause where the claim's own reading rules its cause out (:func:`ruled_out_by`): every
    count then shows the claim as undiagnosed instead of failing "because of" a mechanism whose removal does not
    recover it (issue 53)."""
    records = [dict(r) for r in claim_records(rows)]
    ruled_out = ruled_out_by(config, records) if readings_of(config) else {}
    for row in records:
        if str(row["claim_id"]) in ruled_out:
            row[CAUSE_COLUMN] = ""
    return records


def readings_of(config: Mapping) -> list[dict]:
    """The paper config's ``readings:`` list; empty when it declares none."""
    return [dict(r) for r in config.get("readings") or []]


def claim_cause(claim: Mapping, verdict: str, measured: bool = True) -> str:
    """The ``cause`` cell of a claim's row: its declared cause while it is measured and not reproduced,
    else empty (a reproduced claim needs no diagnosis; an unmeasured one has its own reason)."""
    if verdict == REPRODUCED or not measured:
        return ""
    return str(claim.get("cause") or "")


def is_undiagnosed(row: Mapping) -> bool:
    """A measured headline row, not reproduced or inconclusive, with no cause."""
    return (str(row.get("kind") or HEADLINE) == HEADLINE
            and str(row["verdict"]) in (NOT_REPRODUCED, INCONCLUSIVE)
            and str(row.get("measured", "")) != NOT_MEASURED
            and not str(row.get("statement", "")).startswith(_STANDIN_PREFIX)
            and not str(row.get(CAUSE_COLUMN) or ""))


def cause_labels(claims) -> list[str]:
    """The report's cause column: each row's cause id, :data:`UNDIAGNOSED` where a headline failure has
    none, empty otherwise."""
    return [UNDIAGNOSED if is_undiagnosed(r) else str(r.get(CAUSE_COLUMN) or "") for r in claim_records(claims)]


def cause_counts(claims, verdict: str) -> list[tuple[str, int]]:
    """(cause id or :data:`UNDIAGNOSED`, count) of the headline claims with ``verdict``, most frequent first
    (ties in order of first appearance). Unmeasured claims are left out (they have no cause to count)."""
    counts: dict[str, int] = {}
    for row in tally(claims).rows(HEADLINE, verdict):
        if str(row.get("measured", "")) == NOT_MEASURED:
            continue
        key = UNDIAGNOSED if is_undiagnosed(row) else str(row.get(CAUSE_COLUMN) or "")
        if key:
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def has_causes(claims) -> bool:
    """Whether the claims table carries a cause column (a verdicts file or an old claims.csv does not)."""
    records = claim_records(claims)
    return bool(records) and CAUSE_COLUMN in records[0]


def cause_breakdown(claims, causes: Mapping[str, str], verdict: str = NOT_REPRODUCED) -> str:
    """'11 LCB test unreachable, 4 oracle restarts, 1 undiagnosed': the headline claims with ``verdict``
    counted by cause, each cause by its label (its id when the paper declares no label); empty when the
    table has no cause column or no such claim."""
    if not has_causes(claims):
        return ""
    return ", ".join(f"{n} {causes.get(cause, cause)}" for cause, n in cause_counts(claims, verdict))


def readings_table(config: Mapping, claims) -> list[dict[str, str]]:
    """One row per (reading, headline claim it maps): the headline verdict, the variant claim measuring the
    same statement under the reading and its verdict, whether the reading flips the verdict, and the
    measured closeness of the printed algorithm and of the reading to the paper's printed cells (the
    ``cells`` claims' measured text, where the reading names them). Then one row per measured headline claim
    that is not reproduced and that no reading measures (reading :data:`NO_READING`), so every headline
    non-reproduction has a row with its cause. Claims absent from ``claims`` (their figure not evaluated)
    read as not measured."""
    rows = {str(r["claim_id"]): r for r in claim_records(claims)}

    def cause(cid: str) -> str:
        return str(rows[cid].get(CAUSE_COLUMN) or "") if cid in rows else ""

    def verdict(cid: str) -> str:
        return str(rows[cid]["verdict"]) if cid in rows else INCONCLUSIVE

    def measured(cid: str | None) -> str:
        if not cid:
            return ""
        return str(rows[cid]["measured"]) if cid in rows else NOT_MEASURED

    out = []
    for reading in readings_of(config):
        cells = reading.get("cells") or {}
        for headline, variant in reading["claims"].items():
            before, after = verdict(headline), verdict(variant)
            # a claim not in the table was not measured: it flips nothing
            flips = ("yes" if before != after else "no") if headline in rows and variant in rows else ""
            out.append({"reading": reading["id"], "deviates_from": " ".join(str(reading["deviates_from"]).split()),
                        "headline_claim": headline, "headline_verdict": before, "cause": cause(headline),
                        "variant_claim": variant,
                        "verdict_under_reading": after, "flips": flips,
                        "printed_cells": measured(cells.get("printed")),
                        "reading_cells": measured(cells.get("reading"))})
    read = {r["headline_claim"] for r in out}
    for row in tally(claims).rows(HEADLINE):
        cid = str(row["claim_id"])
        if str(row["verdict"]) == REPRODUCED or str(row.get("measured", "")) == NOT_MEASURED or cid in read:
            continue
        out.append({"reading": NO_READING, "deviates_from": "", "headline_claim": cid,
                    "headline_verdict": str(row["verdict"]), "cause": cause(cid), "variant_claim": "",
                    "verdict_under_reading": "", "flips": "", "printed_cells": "", "reading_cells": ""})
    return out


def reading_sentences(config: Mapping, claims) -> list[str]:
    """One plain sentence per reading: which headline claims it flips, from what to what."""
    table = readings_table(config, claims)
    out = []
    for reading in readings_of(config):
        mine = [r for r in table if r["reading"] == reading["id"]]
        flipped = [r for r in mine if r["flips"] == "yes"]
        if flipped:
            parts = ", ".join(f"{r['headline_claim']} ({_words(r['headline_verdict'])} -> "
                              f"{_words(r['verdict_under_reading'])})" for r in flipped)
            out.append(f"Reading `{reading['id']}` flips {len(flipped)} of {len(mine)} headline claims: {parts}.")
        else:
            out.append(f"Reading `{reading['id']}` flips none of the {len(mine)} headline claims it measures.")
    return out


def _words(verdict: str) -> str:
    return verdict.replace("_", " ")


def undiagnosed_headlines(config: Mapping, rows) -> list[str]:
    """The headline rows (a claims table or the verdicts file's rows of one paper) that are measured, not
    reproduced or inconclusive, and whose claim declares no cause in ``config`` (a claim the config no longer
    has is named with "(not in the config)")."""
    declared = {c["id"]: c.get("cause") for c in config.get("claims", [])}
    out = []
    for row in tally(rows).rows(HEADLINE):
        if str(row["verdict"]) == REPRODUCED or str(row.get("measured", "")) == NOT_MEASURED:
            continue
        cid = str(row["claim_id"])
        if cid not in declared:
            out.append(f"{cid} (not in the config)")
        elif not declared[cid]:
            out.append(cid)
    return out


def ruled_out_by(config: Mapping, rows) -> dict[str, str]:
    """{headline claim: its variant claim} where the claim's own reading rules its cause out (issue 53): the cause
    names the ``reading`` that removes its mechanism, that reading measures the claim, and the claim is still
    ``not_reproduced`` under it. Without the mechanism the claim fails all the same, so the mechanism is not why it
    fails: the report must not count the claim "because of" that cause, confirmed or not. (A reading that leaves the
    claim inconclusive neither confirms nor rules out the cause: it stays ``unconfirmed``.)"""
    causes = cause_specs(config)
    declared = {c["id"]: c.get("cause") for c in config.get("claims", [])}
    out = {}
    for r in readings_table(config, rows):
        cause = causes.get(str(declared.get(r["headline_claim"]) or ""))
        if (cause is not None and cause.reading == r["reading"] and r["headline_verdict"] != REPRODUCED
                and r["verdict_under_reading"] == NOT_REPRODUCED and r["flips"] == "no"):
            out[r["headline_claim"]] = r["variant_claim"]
    return out


def cause_reading_problems(config: Mapping, rows) -> list[str]:
    """Where a headline failure's cause disagrees with the readings (issue 38): a cause that says no reading
    decides its claims (``no_reading``) while some reading flips one of them; a cause whose ``reading`` removes
    its mechanism while that reading leaves a claim it explains not reproduced (the claim's own reading rules the
    cause out, :func:`ruled_out_by`: name the cause that explains it) or inconclusive (it is then a hypothesis: mark
    it ``unconfirmed``); an ``unconfirmed`` cause whose reading flips every claim it explains (it is confirmed);
    a cause naming an unknown reading. ``rows``: a claims table or the verdicts file's rows of one paper."""
    causes = cause_specs(config)
    readings = {r["id"] for r in readings_of(config)}
    table = readings_table(config, rows)
    ruled_out = ruled_out_by(config, rows)
    flipped_by: dict[str, list[str]] = {}
    for r in table:
        if r["flips"] == "yes":
            flipped_by.setdefault(r["headline_claim"], []).append(r["reading"])
    declared = {c["id"]: c.get("cause") for c in config.get("claims", [])}
    problems = [f"cause {c.id}: reading {c.reading!r} is not declared under readings:"
                for c in causes.values() if c.reading and c.reading not in readings]
    explained: dict[str, list[str]] = {}
    for row in tally(rows).rows(HEADLINE):
        cid = str(row["claim_id"])
        if str(row["verdict"]) == REPRODUCED or str(row.get("measured", "")) == NOT_MEASURED:
            continue
        cause = causes.get(str(declared.get(cid) or ""))
        if cause is None:
            continue
        explained.setdefault(cause.id, []).append(cid)
        flips = flipped_by.get(cid, [])
        if cause.no_reading and flips:
            problems.append(f"{cid}: its cause {cause.id} says no reading decides it, but reading "
                            f"{', '.join(flips)} flips it")
        if cid in ruled_out:
            problems.append(f"{cid}: its cause {cause.id} is ruled out by its own reading {cause.reading}: without "
                            f"the mechanism it is still not reproduced ({ruled_out[cid]}); name the cause that "
                            "explains it")
        elif cause.reading and not cause.unconfirmed and cause.reading not in flips:
            problems.append(f"{cid}: its cause {cause.id} is removed by reading {cause.reading}, which does not flip "
                            "it: mark the cause unconfirmed or name the cause that explains it")
    for cause in causes.values():
        ids = explained.get(cause.id, [])
        if cause.reading and cause.unconfirmed and ids and all(cause.reading in flipped_by.get(c, []) for c in ids):
            problems.append(f"cause {cause.id} is marked unconfirmed, but reading {cause.reading} flips every claim "
                            f"it explains ({', '.join(ids)})")
    return problems
