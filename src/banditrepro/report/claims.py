"""Evaluate a paper's claims (config ``claims:``) into ``claims.csv``.

Claims are evaluated per figure (``results/<paper>/claims/<figure>.csv``, the claims whose ``figure``
it is) and merged in config order, so a figure's claims need only the results they read:
:func:`claim_dependencies` names them.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Iterable

import pandas as pd

from ..registry import CLAIM_CHECKS, lookup
from . import checks as _generic_checks  # noqa: F401  (registers the generic checks)
from .checks import ClaimResult
from .context import ResultsContext
from .diagnosis import CAUSE_COLUMN, claim_cause
from .vocabulary import INCONCLUSIVE, NOT_MEASURED, STANDIN_MARK

#: the contract columns of a claims table, first and in this order in every claims CSV
CLAIM_COLUMNS = ["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]
#: the columns written: the contract, then the diagnosis (the claim's declared cause while it is not reproduced)
CLAIMS_CSV_COLUMNS = CLAIM_COLUMNS + [CAUSE_COLUMN]


def claim_kind(claim: dict) -> str:
    return claim["kind"]  # required by the paper schema


def claim_figures(spec) -> list[str]:
    """Figures that have claims, in order of their first claim."""
    out: list[str] = []
    for claim in spec.claims:
        if claim["figure"] not in out:
            out.append(claim["figure"])
    return out


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def result_dependencies(spec, figures: Iterable[str], arguments) -> tuple[list[str], list[str]]:
    """(figures, experiments) whose results a check or table may read: the given ``figures``, every
    figure or experiment named anywhere in ``arguments`` (check or table args), and the experiments of
    those figures. A name that is also something else (an algorithm id) only adds an input; it never
    hides one."""
    figs, experiments = list(dict.fromkeys(figures)), []
    for name in _strings(arguments):
        if name in spec.figures and name not in figs:
            figs.append(name)
        elif name in spec.experiments and name not in experiments:
            experiments.append(name)
    for fig in figs:
        for exp in spec.figure_experiments(fig):
            if exp not in experiments:
                experiments.append(exp)
    return figs, experiments


def claim_dependencies(spec, figure: str) -> tuple[list[str], list[str]]:
    """(figures, experiments) whose results the claims of ``figure`` may read (see result_dependencies)."""
    args = [{k: v for k, v in c["check"].items() if k != "fn"} for c in spec.claims if c["figure"] == figure]
    return result_dependencies(spec, [figure], args)


def table_dependencies(spec, table: str) -> tuple[list[str], list[str]]:
    """(figures, experiments) a table may read: its declared ``figures`` and what its args name."""
    tspec = spec.tables[table]
    return result_dependencies(spec, tspec.get("figures", []), tspec.get("args", {}))


def evaluate_claims(ctx: ResultsContext, not_built: dict[str, str] | None = None,
                    figure: str | None = None) -> pd.DataFrame:
    """One row per claim (of ``figure`` only, when given). A claim whose figure was not built
    (``not_built[figure]`` = reason) is ``inconclusive``; a claim on stand-in data is labelled and
    ``inconclusive`` whatever it measures."""
    not_built = not_built or {}
    rows = []
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
