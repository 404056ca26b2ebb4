"""Evaluate a paper's claims (config ``claims:``) into ``claims.csv``."""

from __future__ import annotations

import inspect
import traceback

import pandas as pd

from ..registry import CLAIM_CHECKS, lookup
from . import checks as _generic_checks  # noqa: F401  (registers the generic checks)
from .checks import ClaimResult
from .context import ResultsContext

CLAIM_COLUMNS = ["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]
CLAIM_KINDS = ("headline", "variant", "sanity")
STANDIN_MARK = "[STAND-IN DATA] "


def evaluate_claims(ctx: ResultsContext, unavailable: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per claim. A claim whose figure was not built (``unavailable[figure]`` = reason)
    is ``inconclusive``; a claim on stand-in data is labelled and ``inconclusive`` whatever it measures."""
    unavailable = unavailable or {}
    rows = []
    for claim in ctx.spec.claims:
        fig = claim["figure"]
        statement = claim["statement"].strip()
        kind = claim.get("kind", "headline")  # TODO(verdicts): required once every paper config names it
        if fig in unavailable:
            rows.append((claim["id"], fig, statement, "not measured", "", "inconclusive", kind))
            continue
        args = {k: v for k, v in claim["check"].items() if k != "fn"}
        fn = lookup(CLAIM_CHECKS, "claim check", claim["check"]["fn"])
        if "figure" in inspect.signature(fn).parameters:
            args.setdefault("figure", fig)  # checks read the claim's own figure unless told otherwise
        try:
            res: ClaimResult = fn(ctx, **args)
        except Exception as err:  # a broken check is a bug to fix, but must not hide the other claims
            traceback.print_exc()
            raise RuntimeError(f"claim {claim['id']} ({claim['check']['fn']}) failed: {err}") from err
        verdict = res.verdict
        if fig in ctx.standin_figures:
            statement = STANDIN_MARK + statement
            verdict = "inconclusive"
        rows.append((claim["id"], fig, statement, res.measured, res.threshold, verdict, kind))
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)
