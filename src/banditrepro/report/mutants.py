"""What each planted bug (mutant) did to a paper's verdicts: ``results/<paper>/mutants.csv`` and its report lines.

A mutant's claims (rebuilt by a scratch copy of the project with the bug planted, banditrepro.mutation) are
compared with the main build's, over the headline and sanity claims of the figures it rebuilt; its readings and
tables, rebuilt too, count as measured values:

- ``caught``: some verdict drops in the order reproduced > inconclusive > not_reproduced (a reader
  without the lock is alerted);
- ``misleading``: verdicts change, but only upwards (the bug reads as a better replication);
- ``escaped``: some measured value moved (a claim's, a reading's or a table's), no verdict changed;
- ``equivalent``: nothing moved (the mutant does not touch what the claims, readings and tables measure).

The mutation score is caught / (planted - equivalent). ``caught_by`` says what catches a caught mutant, in
this order: ``headline`` (a headline verdict dropped: the paper's own statements notice the bug), ``theory``
(a sanity claim from the algorithm's own theory or construction: sub-linear regret, a bound, a simulated
twin), ``reference`` (only a differential reference-implementation guard). ``where`` (banditrepro.mutation)
says whether the bug sits in code only policies run (``policy``) or in code every run may run (``shared``);
the reports give the score by both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .vocabulary import HEADLINE, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, SANITY, claim_records, kind_of

CAUGHT, MISLEADING, ESCAPED, EQUIVALENT = "caught", "misleading", "escaped", "equivalent"
STATUSES = (CAUGHT, MISLEADING, ESCAPED, EQUIVALENT)
#: what catches a caught mutant, in the order it is credited (the kinds of sanity claim: banditrepro.mutation)
THEORY, REFERENCE = "theory", "reference"
CATCHERS = (HEADLINE, THEORY, REFERENCE)
#: where a mutant's bug sits (banditrepro.mutation)
WHERES = ("policy", "shared")
#: the contract columns of mutants.csv, then the extra ones
MUTANT_COLUMNS = ("mutant", "algorithm", "description", "status", "flipped_claims", "moved_claims", "where",
                  "caught_by", "reruns", "explanation")
#: a verdict's rank: a change to a lower rank is a drop
VERDICT_RANK = {REPRODUCED: 2, INCONCLUSIVE: 1, NOT_REPRODUCED: 0}
CLASSIFIED_KINDS = (HEADLINE, SANITY)


def classify(main_claims, mutant_claims, moved_elsewhere: Sequence[str] = ()) -> tuple[str, list[str], list[str]]:
    """(status, flipped, moved) of one mutant. ``main_claims``: the main build's claims (rows with claim_id,
    kind, measured, verdict); ``mutant_claims``: the same claims rebuilt with the mutant. Only headline and
    sanity claims present in both count. ``flipped`` lists ``"<id>: <main verdict> -> <mutant verdict>"``,
    ``moved`` the ids whose measured text differs (flipped ones included), then ``moved_elsewhere`` (the
    readings and tables that differ: measured values without a verdict)."""
    main = {str(r["claim_id"]): r for r in claim_records(main_claims) if kind_of(r) in CLASSIFIED_KINDS}
    flipped, moved, dropped = [], [], False
    for row in claim_records(mutant_claims):
        cid = str(row["claim_id"])
        if cid not in main or kind_of(row) not in CLASSIFIED_KINDS:
            continue
        before, after = str(main[cid]["verdict"]), str(row["verdict"])
        if str(main[cid]["measured"]) != str(row["measured"]):
            moved.append(cid)
        if before != after:
            flipped.append(f"{cid}: {before} -> {after}")
            dropped |= VERDICT_RANK.get(after, -1) < VERDICT_RANK.get(before, -1)
    moved += list(moved_elsewhere)
    if dropped:
        status = CAUGHT
    elif flipped:
        status = MISLEADING
    elif moved:
        status = ESCAPED
    else:
        status = EQUIVALENT
    return status, flipped, moved


def caught_by(main_claims, flipped: Sequence[str], guards: Mapping[str, str]) -> str:
    """What catches a mutant whose ``flipped`` verdicts ("<id>: <before> -> <after>") include a drop: headline
    if a headline verdict dropped, else theory if a theory guard's did, else reference (``guards``: {sanity
    claim id: theory | reference}); "" when nothing dropped."""
    kinds = {str(r["claim_id"]): kind_of(r) for r in claim_records(main_claims)}
    dropped = set()
    for change in flipped:
        cid, verdicts = change.split(": ", 1)
        before, after = verdicts.split(" -> ")
        if VERDICT_RANK.get(after, -1) < VERDICT_RANK.get(before, -1):
            kind = kinds.get(cid)
            dropped.add(HEADLINE if kind == HEADLINE else guards.get(cid, THEORY) if kind == SANITY else None)
    return next((c for c in CATCHERS if c in dropped), "")


def at_first_look(main_claims: pd.DataFrame, first_looks: Sequence[Mapping]) -> pd.DataFrame:
    """The main build's claims with each sequential claim's row at look 0 (the paper's replications: what a
    mutant's claims are evaluated from; report/sequential.py), so a claim that extra replications decided
    in the main build is not counted as moved by a mutant that merely lacks those replications."""
    out = main_claims.copy()
    for rec in first_looks:
        if int(rec["look"]) != 0:
            raise ValueError(f"claim {rec['claim']}: expected look 0, got look {rec['look']}")
        rows = out.index[out.claim_id == rec["claim"]]
        if len(rows) != 1:
            raise KeyError(f"look 0 of claim {rec['claim']!r}: not exactly one row in the claims table")
        out.loc[rows, ["measured", "verdict"]] = [str(rec["measured"]), str(rec["verdict"])]
    return out


def moved_rows(name: str, main: pd.DataFrame, rebuilt: pd.DataFrame, key: Sequence[str] = ()) -> list[str]:
    """``name`` (a table) or ``name:<key>`` per row (readings: keyed by ``key``) where two tables, read as
    text, differ; [] when they are equal."""
    if not key:
        return [] if main.equals(rebuilt) else [name]
    def rows(df):
        return {"/".join(str(r[k]) for k in key): r for r in df.to_dict("records")}

    a, b = rows(main), rows(rebuilt)
    return [f"{name}:{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def mutants_table(mutants: Sequence[Mapping], main_claims, mutant_claims: Mapping[str, object],
                  guards: Mapping[str, str] | None = None,
                  moved_elsewhere: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """One row per mutant (``mutants``: dicts with id, algorithm, description, explanation, where, reruns) in
    order; ``mutant_claims[id]`` is that mutant's claims table (its figures' claim files concatenated),
    ``moved_elsewhere[id]`` its readings and tables that differ, ``guards`` {sanity claim id: theory |
    reference}. The explanation is kept for every mutant the paper's own statements miss."""
    rows = []
    for m in mutants:
        status, flipped, moved = classify(main_claims, mutant_claims[m["id"]], (moved_elsewhere or {}).get(m["id"], ()))
        by = caught_by(main_claims, flipped, guards or {}) if status == CAUGHT else ""
        rows.append({"mutant": m["id"], "algorithm": m["algorithm"], "description": m["description"],
                     "status": status, "flipped_claims": "; ".join(flipped), "moved_claims": " ".join(moved),
                     "where": m.get("where", ""), "caught_by": by, "reruns": m.get("reruns", ""),
                     "explanation": m.get("explanation", "") if by != HEADLINE else ""})
    return pd.DataFrame(rows, columns=list(MUTANT_COLUMNS))


def mutation_score(table: pd.DataFrame) -> tuple[int, int]:
    """(caught, planted - equivalent) of a mutants table."""
    status = table["status"].astype(str)
    return int((status == CAUGHT).sum()), int((status != EQUIVALENT).sum())


def _percent(caught: int, counted: int) -> str:
    return f" ({100 * caught / counted:.0f} %)" if counted else ""


def score_text(table: pd.DataFrame) -> str:
    caught, counted = mutation_score(table)
    equivalent = int((table["status"].astype(str) == EQUIVALENT).sum())
    return (f"{caught}/{counted}{_percent(caught, counted)} caught of {len(table)} planted"
            + (f", {equivalent} equivalent" if equivalent else ""))


SCORE_HEADER = ["| where | planted | caught by the paper's statements (headline) | + theory guards | "
                "+ reference guards (score) | misleading | escaped | equivalent |", "|---|--:|--:|--:|--:|--:|--:|--:|"]


def score_row(label: str, table: pd.DataFrame) -> str:
    """One row of the score table: the mutants caught by headline claims, with the theory guards, with every
    guard (the score: caught / (planted - equivalent)), and the uncaught ones by status."""
    status = table["status"].astype(str)
    by = table["caught_by"].astype(str) if "caught_by" in table else pd.Series("", index=table.index)
    caught, counted = mutation_score(table)
    cumulative = [int(((status == CAUGHT) & by.isin(CATCHERS[: i + 1])).sum()) for i in range(len(CATCHERS))]
    cells = [f"{n}{_percent(n, counted)}" for n in cumulative[:-1]] + [f"**{caught}/{counted}{_percent(caught, counted)}**"]
    rest = [str(int((status == s).sum())) for s in (MISLEADING, ESCAPED, EQUIVALENT)]
    return f"| {label} | {len(table)} | " + " | ".join(cells + rest) + " |"


def score_table(table: pd.DataFrame, label: str = "") -> list[str]:
    """The score by where the bug sits (policy, shared, all) and by what catches it."""
    where = table["where"].astype(str) if "where" in table else pd.Series("", index=table.index)
    rows = [score_row(f"{label}{w}", table[where == w]) for w in WHERES if (where == w).any()]
    return rows + [score_row(f"{label}all" if label else "all", table)]


def _mutant_line(row: Mapping) -> str:
    description = str(row["description"]).rstrip(".")
    by = f", caught by {row['caught_by']}" if str(row.get("caught_by") or "") else ""
    line = f"**{row['mutant']}** ({row['algorithm']}, {row.get('where') or '?'}, {row['status']}{by}): {description}."
    if str(row.get("flipped_claims") or ""):
        line += f" Verdicts changed: {row['flipped_claims']}."
    why = str(row.get("explanation") or "")
    return line + (f" Why: {why}" if why else " No explanation declared.")


def _guard_only(row: Mapping) -> bool:
    return row["status"] == CAUGHT and str(row.get("caught_by", "")) in (THEORY, REFERENCE)


GUARD_ONLY_HEADER = ("Caught only by sanity guards (no headline verdict dropped: the paper's own statements "
                     "do not notice these bugs):")


def _lists(pairs: list[tuple[str, Mapping]], statuses: Sequence[str]) -> list[str]:
    """The uncaught mutants by status, then those only guards catch; ``pairs``: (prefix, row)."""
    lines = []
    for status in statuses:
        picked = [(p, r) for p, r in pairs if r["status"] == status]
        if picked:
            lines += [f"{status.capitalize()} mutants:", ""] + [f"- {p}{_mutant_line(r)}" for p, r in picked] + [""]
    guarded = [(p, r) for p, r in pairs if _guard_only(r)]
    if guarded:
        lines += [GUARD_ONLY_HEADER, ""] + [f"- {p}{_mutant_line(r)}" for p, r in guarded] + [""]
    return lines


def mutation_lines(table: pd.DataFrame, paper: str) -> list[str]:
    """The paper report's mutation-testing section: the score, by where and by what catches, then the
    misleading, escaped and equivalent mutants and those only guards catch, each with its explanation."""
    lines = ["## Mutation testing", "",
             (f"Mutation score: {score_text(table)} (caught / (planted - equivalent); "
              f"`results/{paper}/mutants.csv`, docs/mutants.md)."), "", *SCORE_HEADER, *score_table(table), ""]
    return lines + _lists([("", r) for r in table.to_dict("records")], (MISLEADING, ESCAPED, EQUIVALENT))


def overall_mutation_lines(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """The overall report's mutation-testing section: the score per paper and where, then every misleading
    and escaped mutant and those only guards catch, each with its explanation."""
    if not tables:
        return []
    lines = ["## Mutation testing", "", "| paper | mutation score |", "|---|---|"]
    lines += [f"| {paper} | {score_text(t)} |" for paper, t in tables.items()] + [""]
    everything = pd.concat(list(tables.values()), ignore_index=True)
    lines += ["By where the bug sits and by what catches it:", "", *SCORE_HEADER]
    for paper, t in tables.items():
        lines += score_table(t, f"`{paper}` ")
    lines += [*score_table(everything, "every paper, "), ""]
    pairs = [(f"`{p}` ", r) for p, t in tables.items() for r in t.to_dict("records")]
    return lines + _lists(pairs, (MISLEADING, ESCAPED))


def read_mutants(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)
