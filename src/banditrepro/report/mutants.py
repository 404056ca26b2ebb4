"""What each planted bug (mutant) did to a paper's verdicts: ``results/<paper>/mutants.csv`` and its report lines.

A mutant's claims (rebuilt by a scratch copy of the package with the bug planted, banditrepro.mutation) are
compared with the main build's, over the headline and sanity claims of the figures it rebuilt:

- ``caught``: some verdict drops in the order reproduced > inconclusive > not_reproduced (a reader
  without the lock is alerted);
- ``misleading``: verdicts change, but only upwards (the bug reads as a better replication);
- ``escaped``: some measured value moved, no verdict changed;
- ``equivalent``: no measured value moved (the mutant does not touch what the claims measure).

The mutation score is caught / (planted - equivalent). A caught mutant's ``caught_by`` says whether some
headline verdict dropped (``headline``: the paper's own statements notice the bug) or only sanity verdicts did
(``sanity``: only a guard notices it; the reports list these apart, with the explanation of why the
paper's statements cannot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .vocabulary import HEADLINE, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, SANITY, claim_records, kind_of

CAUGHT, MISLEADING, ESCAPED, EQUIVALENT = "caught", "misleading", "escaped", "equivalent"
STATUSES = (CAUGHT, MISLEADING, ESCAPED, EQUIVALENT)
MUTANT_COLUMNS = ("mutant", "algorithm", "description", "status", "flipped_claims", "moved_claims", "explanation",
                  "caught_by")
#: a verdict's rank: a change to a lower rank is a drop
VERDICT_RANK = {REPRODUCED: 2, INCONCLUSIVE: 1, NOT_REPRODUCED: 0}
CLASSIFIED_KINDS = (HEADLINE, SANITY)


def classify(main_claims, mutant_claims) -> tuple[str, list[str], list[str]]:
    """(status, flipped, moved) of one mutant. ``main_claims``: the main build's claims (rows with claim_id,
    kind, measured, verdict); ``mutant_claims``: the same claims rebuilt with the mutant. Only headline and
    sanity claims present in both count. ``flipped`` lists ``"<id>: <main verdict> -> <mutant verdict>"``,
    ``moved`` the ids whose measured text differs (flipped ones included)."""
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
    if dropped:
        status = CAUGHT
    elif flipped:
        status = MISLEADING
    elif moved:
        status = ESCAPED
    else:
        status = EQUIVALENT
    return status, flipped, moved


def caught_by(main_claims, flipped: Sequence[str]) -> str:
    """``headline`` if some headline verdict of ``flipped`` ("<id>: <before> -> <after>") dropped, else
    ``sanity`` if a sanity one did, else ""."""
    kinds = {str(r["claim_id"]): kind_of(r) for r in claim_records(main_claims)}
    dropped = set()
    for change in flipped:
        cid, verdicts = change.split(": ", 1)
        before, after = verdicts.split(" -> ")
        if VERDICT_RANK.get(after, -1) < VERDICT_RANK.get(before, -1):
            dropped.add(kinds.get(cid))
    return HEADLINE if HEADLINE in dropped else SANITY if SANITY in dropped else ""


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


def mutants_table(mutants: Sequence[Mapping], main_claims, mutant_claims: Mapping[str, object]) -> pd.DataFrame:
    """One row per mutant (``mutants``: dicts with id, algorithm, description, explanation) in order;
    ``mutant_claims[id]`` is that mutant's claims table (its figures' claim files concatenated). The
    explanation is kept for every mutant the paper's own statements miss (all but those caught by a
    headline claim)."""
    rows = []
    for m in mutants:
        status, flipped, moved = classify(main_claims, mutant_claims[m["id"]])
        by = caught_by(main_claims, flipped) if status == CAUGHT else ""
        rows.append({"mutant": m["id"], "algorithm": m["algorithm"], "description": m["description"],
                     "status": status, "flipped_claims": "; ".join(flipped), "moved_claims": " ".join(moved),
                     "explanation": m.get("explanation", "") if by != HEADLINE else "", "caught_by": by})
    return pd.DataFrame(rows, columns=list(MUTANT_COLUMNS))


def _sanity_only(records) -> list:
    return [r for r in records if r["status"] == CAUGHT and str(r.get("caught_by", "")) == SANITY]


def mutation_score(table: pd.DataFrame) -> tuple[int, int]:
    """(caught, planted - equivalent) of a mutants table."""
    status = table["status"].astype(str)
    return int((status == CAUGHT).sum()), int((status != EQUIVALENT).sum())


def score_text(table: pd.DataFrame) -> str:
    caught, counted = mutation_score(table)
    pct = f" ({100 * caught / counted:.0f} %)" if counted else ""
    equivalent = int((table["status"].astype(str) == EQUIVALENT).sum())
    return (f"{caught}/{counted}{pct} caught of {len(table)} planted"
            + (f", {equivalent} equivalent" if equivalent else ""))


SANITY_ONLY_HEADER = ("Caught only by sanity guards (no headline verdict dropped: the paper's own statements "
                      "do not notice these bugs):")


def _mutant_line(row: Mapping) -> str:
    description = str(row["description"]).rstrip(".")
    line = f"**{row['mutant']}** ({row['algorithm']}, {row['status']}): {description}."
    if str(row.get("flipped_claims") or ""):
        line += f" Verdicts changed: {row['flipped_claims']}."
    why = str(row.get("explanation") or "")
    return line + (f" Why: {why}" if why else " No explanation declared.")


def mutation_lines(table: pd.DataFrame, paper: str) -> list[str]:
    """The paper report's mutation-testing section: the score, then the misleading mutants, then the
    escaped ones, each with its explanation."""
    lines = ["## Mutation testing", "",
             (f"Mutation score: {score_text(table)} (caught / (planted - equivalent); "
              f"`results/{paper}/mutants.csv`, docs/mutants.md)."), ""]
    records = table.to_dict("records")
    for status in (MISLEADING, ESCAPED, EQUIVALENT):
        picked = [r for r in records if r["status"] == status]
        if picked:
            lines += [f"{status.capitalize()} mutants:", ""] + [f"- {_mutant_line(r)}" for r in picked] + [""]
    guarded = _sanity_only(records)
    if guarded:
        lines += [SANITY_ONLY_HEADER, ""] + [f"- {_mutant_line(r)}" for r in guarded] + [""]
    return lines


def overall_mutation_lines(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """The overall report's mutation-testing section: one score per paper, then every misleading mutant,
    then every escaped one, each with its explanation."""
    if not tables:
        return []
    lines = ["## Mutation testing", "", "| paper | mutation score |", "|---|---|"]
    lines += [f"| {paper} | {score_text(t)} |" for paper, t in tables.items()] + [""]
    for status in (MISLEADING, ESCAPED):
        picked = [(p, r) for p, t in tables.items() for r in t.to_dict("records") if r["status"] == status]
        if picked:
            lines += [f"{status.capitalize()} mutants:", ""] + [f"- `{p}` {_mutant_line(r)}" for p, r in picked]
            lines.append("")
    guarded = [(p, r) for p, t in tables.items() for r in _sanity_only(t.to_dict("records"))]
    if guarded:
        lines += [SANITY_ONLY_HEADER, ""] + [f"- `{p}` {_mutant_line(r)}" for p, r in guarded] + [""]
    return lines


def read_mutants(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)
