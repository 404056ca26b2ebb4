"""Evaluate a paper's claims (config ``claims:``) into ``claims.csv``.

Claims are evaluated per figure (``results/<paper>/claims/<figure>.csv``, the claims whose ``figure``
it is) and merged in config order, so a figure's claims need only the results they read:
:func:`claim_dependencies` names them.

A claim whose statement presupposes an advantage or a contrast names it as its ``premise`` (issue 38): a
claim id, a list of claim ids (all must hold) or a check of its own (``{fn, ...}``). The premise is
evaluated with the claim; when it is not reproduced the claim is ``inconclusive`` (without what it
presupposes the statement says nothing, so it is neither reproduced nor a second non-reproduction), its
measured text says "premise not met: <premise> <its measured value>" and shows the claim's own check beside
it (:func:`apply_premise`). A check premise may carry a ``label`` (e.g. the half of another claim it is), shown
instead of its ``fn``.

Which claims need a premise follows from the claim itself (issue 53, :func:`premise_problems`): a headline claim
whose check reads a modification of an algorithm X -- an ablation, a variant or a rescaling of X, which the
experiment declares as an entry running X's kernel with some of X's settings changed (:func:`algorithm_bases`)
-- says something about X's own behaviour (that its steps matter, that its parameter has limited impact), so it
presupposes that behaviour of X, and its premise must measure X alone on that experiment (no other algorithm:
a premise broader than what the claim presupposes would gate it on something it does not take for granted).
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Iterable

import pandas as pd

from ..registry import BUILDER_PARAMETERS, CLAIM_CHECKS, OMITTED, REQUIRED, lookup
from . import checks as _generic_checks  # noqa: F401  (registers the generic checks)
from .checks import ClaimResult, combine_verdicts
from .claim_inputs import (  # noqa: F401  (re-exported: what a figure's claims read)
    PremiseError,
    _strings,
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
from .diagnosis import CAUSE_COLUMN, claim_cause, drop_ruled_out_causes
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
        check = {k: v for k, v in premise.items() if k != "label"}
        return str(premise.get("label") or premise["fn"]), run_check(ctx, check, claim["figure"],
                                                                     f"{claim['id']} (premise)")
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
    merged = merged.reset_index(drop=True)[CLAIMS_CSV_COLUMNS]
    # a cause that the claim's own reading rules out is not counted (issue 53): the readings need every figure
    merged[CAUSE_COLUMN] = [r[CAUSE_COLUMN] for r in drop_ruled_out_causes(spec.config, merged)]
    return merged


# --- which claims presuppose what (issue 53) ---------------------------------------------------------------------


def _entry_differences(declared: dict, entry: dict, base: dict) -> dict[str, object] | None:
    """{key: declared default} of the settings in which ``entry`` departs from ``base`` while ``base`` keeps the
    builder's default there; None when ``entry`` is not a modification of ``base``: they run different kernels (a
    differing key the builder requires, such as the algorithm or policy), ``base`` departs from a default where
    ``entry`` differs, or they do not differ at all."""
    diffs = {}
    for key in set(entry) | set(base):
        param = declared.get(key)
        default = None if param is None or param.default is REQUIRED or param.default is OMITTED else param.default
        if key == "label" or entry.get(key, default) == base.get(key, default):
            continue
        if param is None or param.default is REQUIRED:
            return None  # another kernel
        if base.get(key, default) != default:
            return None  # base is itself modified there: a sibling, not the algorithm entry modifies
        diffs[key] = default
    return diffs or None


def algorithm_bases(spec) -> dict[tuple[str, str], str]:
    """{(experiment, entry): base}: an algorithm entry that is an ablation, a variant or a rescaling of another
    entry of the same experiment -- it runs the same kernel (every key its builder requires is equal) and changes
    settings that the base keeps at the builder's defaults (SELECT without Step 2: ``skip_step2: true``; SELECT
    with gamma_i scaled: ``gamma_scale: 2``; RCUCB with the unit bonus). When several entries qualify, the nearest
    (fewest changed settings)."""
    out = {}
    for exp_id, exp in spec.experiments.items():
        declared = BUILDER_PARAMETERS[exp.builder].algorithm
        for algo, entry in exp.algorithms.items():
            nearest = None
            for base_id, base in exp.algorithms.items():
                if base_id == algo:
                    continue
                diffs = _entry_differences(declared, entry, base)
                if diffs is not None and (nearest is None or len(diffs) < nearest[0]):
                    nearest = (len(diffs), base_id)
            if nearest is not None:
                out[(exp_id, algo)] = nearest[1]
    return out


def check_reads(spec, figure: str, check: dict) -> set[tuple[str, str]]:
    """(experiment, algorithm) pairs a check may read: every algorithm its arguments name (its parts' and inner
    checks' included) in every experiment it may read (:func:`claim_inputs.result_dependencies`: the claim's
    figure, the figures and experiments its arguments name)."""
    args = {k: v for k, v in check.items() if k not in ("fn", "label")}
    _, experiments = result_dependencies(spec, [figure], args)
    names = set(_strings(args))
    return {(exp, a) for exp in experiments for a in spec.experiments[exp].algorithms if a in names}


def _checks_and_parts(claim: dict) -> list[tuple[str, dict]]:
    """(label, check) of a claim's check and, for an ``all_of`` check, of each of its parts."""
    check = claim["check"]
    out = [(claim["id"], check)]
    if check["fn"] == "all_of":
        out += [(f"{claim['id']}: {part.get('label') or part['fn']}", part) for part in check.get("parts") or []]
    return out


def own_behaviour_claims(spec) -> list[tuple[str, str, dict, set[tuple[str, str]]]]:
    """(label, figure, check, reads) of every headline claim's check or ``all_of`` part that measures one algorithm
    alone (the paper's statement of that algorithm's own behaviour: SELECT keeps constant regret on Fig 5)."""
    out = []
    for claim in spec.claims:
        if claim_kind(claim) != "headline":
            continue
        for label, check in _checks_and_parts(claim):
            figure = check.get("figure", claim["figure"])
            reads = check_reads(spec, figure, check)
            if len({a for _, a in reads}) == 1:
                out.append((label, figure, check, reads))
    return out


def presupposed(spec, claim: dict, bases: dict | None = None, alone: list | None = None) -> set[tuple[str, str]]:
    """The (experiment, algorithm X) whose own behaviour the claim presupposes: X, for every modification of X
    (:func:`algorithm_bases`) that its check reads, where another headline claim states X's own behaviour on that
    experiment (:func:`own_behaviour_claims`). Empty for a claim that reads no modification, or whose modifications'
    base no claim measures alone (a sweep that picks the best setting presupposes nothing of the default's own)."""
    bases = algorithm_bases(spec) if bases is None else bases
    alone = own_behaviour_claims(spec) if alone is None else alone
    stated = set().union(*(reads for label, _, _, reads in alone if label.split(":")[0] != claim["id"]))
    return {(exp, bases[(exp, a)]) for exp, a in check_reads(spec, claim["figure"], claim["check"])
            if (exp, a) in bases and (exp, bases[(exp, a)]) in stated}


def premise_reads(spec, claim: dict) -> set[tuple[str, str]]:
    """(experiment, algorithm) pairs the claim's premise reads: its check premise's, or those of the checks of
    the claims it names (not their own premises: each is gated on its own)."""
    premise = claim.get("premise")
    if premise is None:
        return set()
    if isinstance(premise, dict):
        return check_reads(spec, claim["figure"], premise)
    by_id = {c["id"]: c for c in spec.claims}
    return set().union(*(check_reads(spec, by_id[p]["figure"], by_id[p]["check"]) for p in premise_ids(claim)))


def _measured_by_a_claim(spec, claim: dict, alone: list) -> bool:
    """Whether a check premise is what another headline claim measures of one algorithm alone (its check or one of
    its ``all_of`` parts, on the same figure; labels aside)."""
    premise = claim["premise"]
    figure = premise.get("figure", claim["figure"])
    wanted = {k: v for k, v in premise.items() if k not in ("label", "figure")}
    return any(fig == figure and label.split(":")[0] != claim["id"]
               and {k: v for k, v in check.items() if k not in ("label", "figure")} == wanted
               for label, fig, check, _ in alone)


def premise_problems(spec, kinds: Iterable[str] = ("headline",)) -> list[str]:
    """The claims of ``kinds`` that presuppose an algorithm's own behaviour (:func:`presupposed`) without a premise
    measuring it, or with a premise broader than that (reading another algorithm, a modification, another
    experiment), or with a check premise that no other claim measures. A claim of that shape whose config says why
    it presupposes nothing (``premise_not_needed``, in words) needs no premise. Empty when every premise is as the
    claims presuppose."""
    bases, alone = algorithm_bases(spec), own_behaviour_claims(spec)
    problems = []
    for claim in spec.claims:
        if claim_kind(claim) not in kinds:
            continue
        needs = presupposed(spec, claim, bases, alone)
        if not needs:
            continue
        want = ", ".join(f"{a} on {e}" for e, a in sorted(needs))
        if claim.get("premise_not_needed"):  # the config's reviewed decision, with its reason
            if claim.get("premise") is not None:
                problems.append(f"{spec.paper}: {claim['id']} has a premise and says it needs none "
                                "(premise_not_needed): keep one")
            continue
        if claim.get("premise") is None:
            problems.append(f"{spec.paper}: {claim['id']} reads a modification of {want} and so presupposes its own "
                            "behaviour there: it needs a premise measuring it")
            continue
        reads = premise_reads(spec, claim)
        if not reads or not reads <= needs:
            extra = ", ".join(f"{a} on {e}" for e, a in sorted(reads - needs)) or "nothing"
            problems.append(f"{spec.paper}: {claim['id']}'s premise reads {extra} beyond what the claim presupposes "
                            f"({want}): give the part of the premise about that alone")
        if isinstance(claim["premise"], dict) and not _measured_by_a_claim(spec, claim, alone):
            problems.append(f"{spec.paper}: {claim['id']}'s check premise is no other claim's check or part: "
                            "name the claim that measures it")
    return problems
