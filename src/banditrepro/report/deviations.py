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

* ``config/locks/claims.code.yaml`` (:data:`CODE_FILE`, issue 53): the *code* each claim's verdict rests on,
  recorded once per claim: the digest of every unit of the package its checks reach (:func:`check_names` names
  the checks: its check, the parts and inner checks in its arguments, its premise's and those of the claims its
  premise names; banditrepro.codegraph.claim_code reads the units and their digests from the sources, blind to
  comments, docstrings and formatting), the combined digest and the commit whose sources gave them. Code was
  first recorded (issue 53) for every claim then holding a first form (earlier code changes are recorded as
  deviations with the functions they changed, without digests); the ``lock`` rule records the code of each claim
  it records a first form for. Like the first forms it only grows (:func:`record_code`).

A deviation that changes the code a claim runs names the changed functions (``functions``) and, from that first
record on, carries the new code (``code``: the units and their digests, as ``pending`` prints them).

Every claim that is a headline claim in its first form, in a recorded form or in the config must have, as its
current form, its first form or the form of its last deviation, and as its current code the code of its last
deviation that carries code, else its recorded code (:func:`form_problems`; a test runs it over every paper,
naming the changed functions), so no change to a headline claim's config or code goes unrecorded. To record a
change: ``python -m banditrepro.codegraph pending`` prints the claims whose form or code changed without an
entry, with the changed functions, and an entry for each to complete (the reason in words; the verdicts
before and after) and append to the deviations file.

Each paper report lists its deviations (:func:`deviation_rows`, section "Changes to claims after results were
known") and the claims added after the paper's first lock (:func:`added_rows`, section "Claims added after
results were known": a claim whose first form came with a later lock than the paper's first, or that has
none yet; with its first verdict and, where its config says so in ``set_after_results``, what was set with the
results known); the overall report counts both per paper. A paper's first lock is the lock of its first entry
in the first-forms file (the ``lock`` rule appends in lock order; tests/test_deviations.py checks the order
against git history).
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
CODE_FILE = Path("config") / "locks" / "claims.code.yaml"
#: the heading of the deviations section of a paper report
DEVIATIONS_HEADING = "## Changes to claims after results were known"
#: the columns of that section's table
DEVIATION_COLUMNS = ["claim_id", "commit", "change (old → new)", "verdict before", "verdict after", "reason"]
#: the fields of a claim that make its form (a change of any of them after the first lock is a deviation)
FORM_FIELDS = ("statement", "kind", "check", "premise")
#: the heading of the section of a paper report listing the claims added after its first lock
ADDED_HEADING = "## Claims added after results were known"
#: the note every such claim carries
ADDED_NOTE = "added after results were known"
#: the columns of that section's table
ADDED_COLUMNS = ["claim_id", "kind", "first lock", "first verdict", "note"]
#: the claim field saying what of the claim was set with the results known (paper.schema.yaml)
SET_AFTER_RESULTS = "set_after_results"


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
    #: the functions (``module:name``) whose code the change altered (empty: a change of the config only)
    functions: tuple[str, ...] = ()
    #: the code after the change ({unit: digest}; None: the code is the previous record's)
    code: dict | None = None


@dataclass(frozen=True)
class CodeRecord:
    """The code a claim's verdict rests on, recorded once: {unit: digest}, their combined digest and the commit
    whose sources gave them."""

    paper: str
    claim: str
    commit: str
    digest: str
    units: dict


def code_digest(units: Mapping[str, str]) -> str:
    """16 hex digits of the sha256 of the sorted ``unit digest`` lines: the digest of a claim's code."""
    text = "\n".join(f"{u} {d}" for u, d in sorted(units.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _fns(value) -> list[str]:
    """Every ``fn`` of a check or premise mapping and of the checks nested in its arguments (``all_of``'s
    parts, a gate's inner check), outermost first."""
    out: list[str] = []
    if isinstance(value, Mapping):
        if isinstance(value.get("fn"), str):
            out.append(value["fn"])
        for k, v in value.items():
            if k != "fn":
                out += _fns(v)
    elif isinstance(value, list):
        for v in value:
            out += _fns(v)
    return out


def check_names(claim: Mapping, by_id: Mapping[str, Mapping]) -> list[str]:
    """The registered claim checks a claim's verdict runs, each once: its check's ``fn`` and those nested in its
    arguments, its premise's (a check premise), and those of the claims its premise names, transitively."""
    out: list[str] = []
    seen: set[str] = set()

    def walk(c: Mapping) -> None:
        out.extend(n for n in _fns(c.get("check")) + _fns(c.get("premise")) if n not in out)
        premise = c.get("premise")
        for pid in [premise] if isinstance(premise, str) else premise if isinstance(premise, list) else []:
            if pid not in seen and pid in by_id:
                seen.add(pid)
                walk(by_id[pid])

    seen.add(str(claim.get("id")))
    walk(claim)
    return out


def read_code(path: Path | str) -> dict[str, dict[str, CodeRecord]]:
    """{paper: {claim id: CodeRecord}} from the code file (empty when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {paper: {cid: CodeRecord(paper, cid, str(e["commit"]), str(e["digest"]), dict(e["units"]))
                    for cid, e in (claims or {}).items()} for paper, claims in data.items()}


def dump_code(records: Mapping[str, Mapping[str, CodeRecord]]) -> str:
    """The code file's text (papers and claims in the given order)."""
    data = {paper: {cid: {"commit": r.commit, "digest": r.digest, "units": dict(sorted(r.units.items()))}
                    for cid, r in claims.items()} for paper, claims in records.items()}
    head = ("# The code each claim's verdict rests on, recorded once per claim (report/deviations.py, issue 53): the\n"
            "# digest of every unit of the package its checks reach (banditrepro.codegraph.claim_code; docstrings,\n"
            "# comments and formatting excluded), their combined digest and the commit whose sources gave them.\n"
            "# Frozen: entries are only ever added (by the `lock` rule, with a claim's first form), never rewritten; a\n"
            "# later change of a headline claim's code is a deviation in claims.deviations.yaml (with its `code`).\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def record_code(records: dict[str, dict[str, CodeRecord]], paper: str, codes: Mapping[str, Mapping[str, str]],
                claims: Iterable[str], commit: str) -> list[str]:
    """Add to ``records`` (in place) the code of the ``claims`` of ``paper`` the record does not yet hold
    (``codes``: {claim id: {unit: digest}}, banditrepro.codegraph.paper_claim_code). Returns the ids added;
    entries already recorded are never touched."""
    mine = records.setdefault(paper, {})
    added = []
    for cid in claims:
        if cid in mine or cid not in codes:
            continue
        units = dict(sorted(codes[cid].items()))
        mine[cid] = CodeRecord(paper, cid, commit, code_digest(units), units)
        added.append(cid)
    return added


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
                             str(e["verdict_after"]) if e.get("verdict_after") else None,
                             tuple(str(f) for f in e.get("functions") or ()),
                             dict(e["code"]["units"]) if e.get("code") else None))
    return out


def deviation_entry(d: Deviation) -> dict:
    """A deviation as an entry of the deviations file."""
    entry = {"paper": d.paper, "claim": d.claim, "commit": d.commit, "verdict_before": d.verdict_before}
    if d.verdict_after:
        entry["verdict_after"] = d.verdict_after
    entry["reason"] = d.reason
    if d.functions:
        entry["functions"] = list(d.functions)
    entry["form"] = d.form
    if d.code is not None:
        entry["code"] = {"digest": code_digest(d.code), "units": dict(sorted(d.code.items()))}
    return entry


def dump_deviations(deviations: Iterable[Deviation]) -> str:
    """Deviation entries as the deviations file writes them (a YAML list)."""
    return yaml.safe_dump([deviation_entry(d) for d in deviations], sort_keys=False, allow_unicode=True, width=120)


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


def _expected_code(paper: str, cid: str, chain: list[Deviation],
                   code: Mapping[str, Mapping[str, CodeRecord]]) -> tuple[dict | None, str]:
    """(the code a claim must run now, where it was recorded): the code of its last deviation that carries
    code, else its code record; (None, '') when neither exists."""
    for d in reversed(chain):
        if d.code is not None:
            return d.code, f"deviation {d.commit}"
    record = code.get(paper, {}).get(cid)
    return (record.units, f"{CODE_FILE} at {record.commit}") if record else (None, "")


def code_change(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """The units whose code differs between two records, sorted: 'u (changed)', 'u (new)', 'u (no longer run)'."""
    out = []
    for unit in sorted({*old, *new}):
        if unit not in old:
            out.append(f"{unit} (new)")
        elif unit not in new:
            out.append(f"{unit} (no longer run)")
        elif old[unit] != new[unit]:
            out.append(f"{unit} (changed)")
    return out


def _relevant(entry: FirstForm, now: Mapping | None, chain: list[Deviation]) -> bool:
    return is_headline(entry.form) or is_headline(now) or any(is_headline(d.form) for d in chain)


def form_problems(paper: str, raw_claims: Iterable[Mapping], first: Mapping[str, Mapping[str, FirstForm]],
                  deviations: Iterable[Deviation], code: Mapping[str, Mapping[str, CodeRecord]] | None = None,
                  code_now: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """Where the paper's claims (``raw_claims``: the config's, unresolved) disagree with the record: a claim
    that is headline in its first form, a recorded form or now, whose current form is neither its first form
    nor the form of its last deviation (an unrecorded change after the results were known), or, with
    ``code_now`` ({claim id: {unit: digest}}, banditrepro.codegraph.paper_claim_code), whose code is not its
    expected code (:func:`_expected_code` from ``code``, the code file; the changed functions named) or has
    none recorded; a deviation of a claim that never entered a lock; a deviation with an unknown verdict."""
    deviations = list(deviations)
    current = {str(c["id"]): claim_form(c) for c in raw_claims}
    recorded = first.get(paper, {})
    problems = []
    for cid, entry in recorded.items():
        chain = _chain(deviations, paper, cid)
        expected = chain[-1].form if chain else entry.form
        now = current.get(cid)
        if not _relevant(entry, now, chain):
            continue
        if form_key(now) != form_key(expected):
            what = "was removed" if now is None else f"changed ({form_change(expected, now)})"
            problems.append(f"{paper}: claim {cid} {what} after its first lock ({entry.lock}) without a deviation "
                            f"entry in {DEVIATIONS_FILE} recording this form (digest {form_digest(now)})")
        if code_now is None or now is None:
            continue
        units, where = _expected_code(paper, cid, chain, code or {})
        mine = code_now.get(cid, {})
        if units is None:
            problems.append(f"{paper}: claim {cid} has no recorded code (neither {CODE_FILE} nor a deviation "
                            "entry's `code`)")
        elif code_digest(mine) != code_digest(units):
            problems.append(f"{paper}: claim {cid}: the code its check runs changed after its first lock "
                            f"({entry.lock}) without a deviation entry in {DEVIATIONS_FILE} recording it; changed "
                            f"since {where}: {', '.join(code_change(units, mine))} (code digest {code_digest(mine)})")
    for d in deviations:
        if d.paper != paper:
            continue
        if d.claim not in recorded:
            problems.append(f"{paper}: deviation of claim {d.claim} ({d.commit}), which never entered a lock")
        bad = [v for v in (d.verdict_before, d.verdict_after) if v is not None and v not in VERDICTS]
        if bad:
            problems.append(f"{paper}: deviation of claim {d.claim} ({d.commit}): unknown verdict {bad[0]!r}")
    return problems


def pending_entries(paper: str, raw_claims: Iterable[Mapping], first: Mapping[str, Mapping[str, FirstForm]],
                    deviations: Iterable[Deviation], code: Mapping[str, Mapping[str, CodeRecord]],
                    code_now: Mapping[str, Mapping[str, str]], commit: str,
                    verdicts: Mapping[str, str] | None = None) -> list[Deviation]:
    """A deviation to complete for each headline claim whose form or code changed without an entry (as
    :func:`form_problems` finds them): the current form, the changed functions and the current code (when it
    changed), ``verdict_before`` the claim's verdict in the last lock (``verdicts``, else its first verdict);
    the reason is left for the author to write."""
    deviations = list(deviations)
    current = {str(c["id"]): claim_form(c) for c in raw_claims}
    verdicts = verdicts or {}
    out = []
    for cid, entry in first.get(paper, {}).items():
        chain = _chain(deviations, paper, cid)
        now = current.get(cid)
        if not _relevant(entry, now, chain):
            continue
        expected = chain[-1].form if chain else entry.form
        units, _ = _expected_code(paper, cid, chain, code)
        mine = dict(code_now.get(cid, {})) if now is not None else None
        code_moved = mine is not None and (units is None or code_digest(mine) != code_digest(units))
        if form_key(now) == form_key(expected) and not code_moved:
            continue
        functions = tuple(u.split(" (")[0] for u in code_change(units or {}, mine)) if code_moved else ()
        before = verdicts.get(cid) or (chain[-1].verdict_after if chain and chain[-1].verdict_after else entry.verdict)
        out.append(Deviation(paper, cid, commit, now, before, "", None, functions, mine if code_moved else None))
    return out


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
        change = form_change(old, d.form)
        if d.functions:
            code = f"code of {', '.join(d.functions)}"
            change = code if change == "no change" else f"{change}; {code}"
        rows.append({"claim_id": d.claim, "commit": d.commit, "change (old → new)": change,
                     "verdict before": d.verdict_before, "verdict after": after, "reason": d.reason})
    return rows


def deviation_count(paper: str, deviations: Iterable[Deviation]) -> tuple[int, int]:
    """(changes, claims changed) of a paper."""
    mine = [d for d in deviations if d.paper == paper]
    return len(mine), len({d.claim for d in mine})


def paper_first_lock(paper: str, first: Mapping[str, Mapping[str, FirstForm]]) -> str | None:
    """The paper's first paper-scale lock: the lock of its first entry in the first-forms file (None: never
    locked)."""
    entries = list(first.get(paper, {}).values())
    return entries[0].lock if entries else None


def added_rows(paper: str, first: Mapping[str, Mapping[str, FirstForm]], raw_claims: Iterable[Mapping],
               claims=None) -> list[dict[str, str]]:
    """The rows of a paper's "Claims added after results were known" table: every claim that is headline in
    its first form or now and entered a later lock than the paper's first (:func:`paper_first_lock`), or is in
    the config with no first form while the paper has one, in record order then config order. Each row: the
    claim, its kind, its first lock (or 'not yet locked'), its first verdict (else its verdict in ``claims``,
    a claims table of the current build, marked 'now'), and the note :data:`ADDED_NOTE` with the claim's
    ``set_after_results`` text where its config has one."""
    raw = {str(c["id"]): c for c in raw_claims}
    recorded = first.get(paper, {})
    first_lock = paper_first_lock(paper, first)
    if first_lock is None:
        return []
    verdicts = {str(r["claim_id"]): str(r["verdict"]) for r in claim_records(claims if claims is not None else [])}
    rows = []

    def note(cid: str) -> str:
        why = raw.get(cid, {}).get(SET_AFTER_RESULTS)
        return ADDED_NOTE + (f"; {' '.join(str(why).split())}" if why else "")

    for cid, entry in recorded.items():
        now = claim_form(raw[cid]) if cid in raw else None
        if entry.lock != first_lock and (is_headline(entry.form) or is_headline(now)):
            kind = now["kind"] if now else f"{entry.form.get('kind', HEADLINE)} (removed)"
            rows.append({"claim_id": cid, "kind": kind, "first lock": entry.lock, "first verdict": entry.verdict,
                         "note": note(cid)})
    for cid, c in raw.items():
        if cid not in recorded and is_headline(claim_form(c)):
            verdict = f"{verdicts[cid]} (now)" if cid in verdicts else "not built"
            rows.append({"claim_id": cid, "kind": HEADLINE, "first lock": "not yet locked", "first verdict": verdict,
                         "note": note(cid)})
    return rows
