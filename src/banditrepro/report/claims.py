"""Evaluate a paper's claims (config ``claims:``) into ``claims.csv``.

Claims are evaluated per figure (``results/<paper>/claims/<figure>.csv``, the claims whose ``figure``
it is) and merged in config order, so a figure's claims need only the results they read:
:func:`claim_dependencies` names them.

A claim whose statement presupposes an advantage or a contrast names it as its ``premise`` (issue 38): a
claim id, a list of claim ids (all must hold) or a check of its own (``{fn, ...}``). The premise is
evaluated with the claim; when it is not reproduced the claim is ``inconclusive`` (without what it
presupposes the statement says nothing, so it is neither reproduced nor a second non-reproduction), its
measured text says "premise not met: <premise> <its measured value>" and shows the claim's own check beside
it (:func:`apply_premise`).
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Iterable

import pandas as pd

from ..registry import CLAIM_CHECKS, lookup
from . import checks as _generic_checks  # noqa: F401  (registers the generic checks)
from .checks import ClaimResult, combine_verdicts
from .claim_inputs import (  # noqa: F401  (re-exported: what a figure's claims read)
    PremiseError,
    check_premises,
    claim_dependencies,
    claim_figures,
    claims_of_figure,
    premise_claims,
    premise_ids,
    result_dependencies,
    table_dependencies,
)
from .context import ResultsContext
from .diagnosis import CAUSE_COLUMN, claim_cause
from .vocabulary import INCONCLUSIVE, NOT_MEASURED, PREMISE_NOT_MET, REPRODUCED, STANDIN_MARK

#: the contract columns of a claims table, first and in this order in every claims CSV
CLAIM_COLUMNS = ["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]
#: the columns written: the contract, then the diagnosis (the claim's declared cause while it is not reproduced)
CLAIMS_CSV_COLUMNS = CLAIM_COLUMNS + [CAUSE_COLUMN]


def claim_kind(claim: dict) -> str:
    return claim["kind"]  # required by the paper schema


def run_check(ctx: ResultsContext, check: dict, figure: str, claim_id: str) -> ClaimResult:
    """One check (``{fn, ...args}``) on ``ctx``; a check that takes a ``figure`` reads ``figure`` unless its
    arguments name another."""
    args = {k: v for k, v in check.items() if k != "fn"}
    fn = lookup(CLAIM_CHECKS, "claim check", check["fn"])
    if "figure" in inspect.signature(fn).parameters:
        args.setdefault("figure", figure)  # checks read the claim's own figure unless told otherwise
    try:
        return fn(ctx, **args)
    except Exception as err:  # a broken check is a bug to fix, but must not hide the other claims
        traceback.print_exc()
        raise RuntimeError(f"claim {claim_id} ({check['fn']}) failed: {err}") from err


def _words(verdict: str) -> str:
    return verdict.replace("_", " ")


def premise_result(ctx: ResultsContext, claim: dict, not_built: dict[str, str],
                   _cache: dict | None = None) -> tuple[str, ClaimResult] | None:
    """(label, result) of a claim's premise, None without one. A premise claim is evaluated as it is
    evaluated on its own row (its own premise included); one whose figure was not built is inconclusive."""
    premise = claim.get("premise")
    if premise is None:
        return None
    if isinstance(premise, dict):
        return premise["fn"], run_check(ctx, premise, claim["figure"], f"{claim['id']} (premise)")
    cache = {} if _cache is None else _cache
    by_id = {c["id"]: c for c in ctx.spec.claims}
    parts = []
    for pid in premise_ids(claim):
        if pid not in cache:
            other = by_id[pid]
            if other["figure"] in not_built:
                cache[pid] = ClaimResult(NOT_MEASURED, "", INCONCLUSIVE)
            else:
                res = apply_premise(run_check(ctx, other["check"], other["figure"], pid),
                                    premise_result(ctx, other, not_built, cache))
                if other["figure"] in ctx.standin_figures:  # as on its own row: stand-in data decides nothing
                    res = ClaimResult(f"{STANDIN_MARK}{res.measured}", res.threshold, INCONCLUSIVE)
                cache[pid] = res
        parts.append((pid, cache[pid]))
    if len(parts) == 1:
        pid, res = parts[0]
        return pid, res
    label = ", ".join(pid for pid, _ in parts[:-1]) + " and " + parts[-1][0]
    verdict = combine_verdicts(res.verdict for _, res in parts)
    measured = "; ".join(f"{pid} {_words(res.verdict)}: {res.measured}" for pid, res in parts)
    return label, ClaimResult(measured, "; ".join(f"{pid}: {res.threshold}" for pid, res in parts), verdict)


def apply_premise(own: ClaimResult, premise: tuple[str, ClaimResult] | None) -> ClaimResult:
    """The claim's row from its own check and its premise: the own verdict while the premise is reproduced,
    else ``inconclusive`` with "premise not met: <premise> <its measured value>" and the own check beside it."""
    if premise is None:
        return own
    label, res = premise
    threshold = f"{own.threshold}; premise {label} reproduced"
    if res.verdict == REPRODUCED:
        return ClaimResult(f"{own.measured} [premise {label} reproduced]", threshold, own.verdict, own.undecided)
    return ClaimResult(f"{PREMISE_NOT_MET}{label} {_words(res.verdict)} ({res.measured}); own check "
                       f"{_words(own.verdict)}: {own.measured}", threshold, INCONCLUSIVE)


def evaluate_claims(ctx: ResultsContext, not_built: dict[str, str] | None = None,
                    figure: str | None = None) -> pd.DataFrame:
    """One row per claim (of ``figure`` only, when given). A claim whose figure was not built
    (``not_built[figure]`` = reason) is ``inconclusive``; a claim on stand-in data is labelled and
    ``inconclusive`` whatever it measures; a claim whose premise is not reproduced is ``inconclusive``
    (:func:`apply_premise`)."""
    not_built = not_built or {}
    rows = []
    premises: dict = {}  # premise claims evaluated once per call
    for claim in ctx.spec.claims:
        fig = claim["figure"]
        if figure is not None and fig != figure:
            continue
        statement = claim["statement"].strip()
        kind = claim_kind(claim)
        if fig in not_built:
            rows.append((claim["id"], fig, statement, NOT_MEASURED, "", INCONCLUSIVE, kind,
                         claim_cause(claim, INCONCLUSIVE, measured=False)))
            continue
        res = run_check(ctx, claim["check"], fig, claim["id"])
        res = apply_premise(res, premise_result(ctx, claim, not_built, premises))
        verdict = res.verdict
        standin = fig in ctx.standin_figures
        if standin:
            statement = STANDIN_MARK + statement
            verdict = INCONCLUSIVE
        rows.append((claim["id"], fig, statement, res.measured, res.threshold, verdict, kind,
                     claim_cause(claim, verdict, measured=not standin)))
    return pd.DataFrame(rows, columns=CLAIMS_CSV_COLUMNS)


def write_claims(claims: pd.DataFrame, path) -> None:
    claims.to_csv(path, index=False, lineterminator="\n")


def read_claims(path) -> pd.DataFrame:
    """A claims CSV exactly as written: every cell a string (a measured value "1.10" stays "1.10")."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def merge_claims(spec, parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """The per-figure claim tables as one, in the config's claim order; every claim exactly once."""
    parts = list(parts)
    merged = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=CLAIMS_CSV_COLUMNS)
    order = [c["id"] for c in spec.claims]
    got = merged.claim_id.tolist()
    if sorted(got) != sorted(order):
        missing = sorted(set(order) - set(got))
        extra = sorted(set(got) - set(order))
        dup = sorted({c for c in got if got.count(c) > 1})
        raise ValueError(f"{spec.paper}: per-figure claims do not match the config "
                         f"(missing {missing}, unknown {extra}, duplicated {dup})")
    position = {cid: i for i, cid in enumerate(order)}
    merged = merged.iloc[sorted(range(len(merged)), key=lambda i: position[merged.claim_id.iat[i]])]
    if CAUSE_COLUMN not in merged:  # per-figure tables written before the cause column existed
        merged[CAUSE_COLUMN] = ""
    return merged.reset_index(drop=True)[CLAIMS_CSV_COLUMNS]
