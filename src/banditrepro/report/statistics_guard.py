"""The statistics guard: each paper's ``STATS_reference`` sanity claim (issue 39, docs/mutants.md "Guards").

A slip in the shared statistics (the summary's mean and s.e., the point of a curve at a step, the paired ratio's
delta-method s.e., Brown-Forsythe, a log-growth fit, the 2-s.e. band, the sequential looks' rule) moves every
verdict that reads it while the policies stay right, so no reference implementation of the policies sees it. The
check ``statistics_reference`` compares, on the built results, what production computes with what
:mod:`.statistics_reference` computes apart from the raw shards:

* each guarded figure's ``summary.csv``, row by row (mean, s.e., n at every checkpoint), and the point
  ``ResultsContext.point`` reads at T, T/2, T/10, T/100 and around a middle checkpoint;
* the checkpoint grid of each of their experiments;
* the statistics of each headline claim of those figures, through a *probe* of its check: the probe calls the
  production helpers the check calls (``mean_se``, ``paired_ratio_se``, ``below_comparisons``, a paper's own,
  registered with :func:`statistic_probe` in its ``checks.py``) on the claim's own data and compares their numbers,
  the numbers the claim prints and its verdict with the reference's;
* the sequential looks' rule (bands, looks, replication counts, shard blocks).

Agreement is :func:`statistics_reference.agree` (1e-12 relative to the size of what was summed; p-values 1e-9;
counts, steps and verdicts exactly). The measured text says how many numbers of each kind agreed and which
headline claims have no probe; it holds counts only, so it is the same on every CPU.
"""

from __future__ import annotations

import inspect
import math
import re
from collections import Counter
from collections.abc import Callable

import numpy as np

from ..registry import CLAIM_CHECKS, claim_check, lookup
from . import checks, sequential
from . import statistics_reference as ref
from .checks import ClaimResult
from .vocabulary import HEADLINE, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

#: check name -> probe(ctx, audit, result, **check args): compares the check's statistics with the reference
PROBES: dict[str, Callable] = {}

#: how many disagreements the measured text names
SHOWN_FAILURES = 3

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|-?inf|nan")


def statistic_probe(check: str):
    """Register the probe of claim check ``check``: ``probe(ctx, audit, result, **args)`` gets the claim's
    arguments (with its figure) and the production check's result."""
    def deco(fn):
        if check in PROBES:
            raise ValueError(f"a statistic probe for {check!r} is already registered")
        PROBES[check] = fn
        return fn
    return deco


class Audit:
    """The comparisons of one guard: how many numbers of each kind were compared, and the disagreements."""

    def __init__(self):
        self.counts: Counter = Counter()
        self.failures: list[str] = []
        self.where = ""

    def fail(self, label: str, text: str) -> None:
        self.failures.append(f"{self.where}{label}: {text}")

    def close(self, kind: str, label: str, production, reference, scale=0.0, rtol: float = ref.RTOL,
              count: int | None = None) -> None:
        """Numbers that must agree to ``rtol`` relative to max(|reference|, scale), element by element (``count``:
        how many comparisons they are, when not one per number)."""
        p = np.atleast_1d(np.asarray(production, dtype=np.float64))
        r = np.atleast_1d(np.asarray(reference, dtype=np.float64))
        self.counts[kind] += p.size if count is None else count
        if p.shape != r.shape:
            self.fail(label, f"{p.size} production numbers vs {r.size} reference numbers")
            return
        for i in np.flatnonzero(~ref.agree(p, r, scale, rtol).ravel()):
            self.fail(label if p.size == 1 else f"{label}[{i}]", f"production {p.ravel()[i]!r} vs reference "
                                                                  f"{r.ravel()[i]!r}")

    def equal(self, kind: str, label: str, production, reference) -> None:
        """Counts, steps, indices, verdicts: exactly equal."""
        self.counts[kind] += 1
        same = (np.array_equal(np.asarray(production), np.asarray(reference))
                if isinstance(production, np.ndarray) or isinstance(reference, np.ndarray) else production == reference)
        if not same:
            self.fail(label, f"production {production!r} vs reference {reference!r}")

    def mean_se(self, label: str, production: tuple[float, float], values) -> None:
        """A production (mean, s.e.) of a sample against the reference's."""
        values = np.asarray(values, dtype=np.float64)
        mean, se, n = ref.mean_se(values)
        scale = float(np.max(np.abs(values))) if values.size else 0.0
        self.close("means and s.e.", f"{label} mean", production[0], mean, scale)
        self.close("means and s.e.", f"{label} s.e.", production[1], se, scale / math.sqrt(max(n, 1)))

    def ratio(self, label: str, production: tuple[float, float], a, b, nan_when_numerator_zero=False) -> None:
        """A production (mean(a)/mean(b), delta-method s.e.) against the reference's: the ratio to 1e-12 of its
        summands, the s.e. squared to 1e-12 of the delta-method variance's terms."""
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        ratio, se, terms = ref.ratio_se(a, b)
        if nan_when_numerator_zero and float(np.mean(a)) == 0 and math.isfinite(ratio):
            se = math.nan  # the helper's stated domain: no relative s.e. of a zero mean
        mb = abs(float(np.mean(b))) or math.inf
        scale = (float(np.max(np.abs(a))) + abs(ratio) * float(np.max(np.abs(b)))) / mb if math.isfinite(ratio) else 0
        self.close("paired ratios", f"{label} ratio", production[0], ratio, scale)
        self.close("paired ratios", f"{label} delta-method variance", float(production[1]) ** 2, se**2, terms)

    def contains(self, label: str, measured: str, text: str) -> None:
        """Text the claim must print (a list of values as it prints them)."""
        self.counts["printed numbers"] += 1
        if text not in measured:
            self.fail(label, f"the claim prints no {text}: {measured[:160]}")

    def printed(self, label: str, measured: str, value: float, scale: float = 0.0) -> None:
        """A number the claim prints: the reference value, printed as the claims print it (four significant
        digits), is in its text. A value within 1e-10 of a rounding boundary may print either way; one that is
        rounding noise (|value| <= 1e-9 scale) has no digits to compare and is left out."""
        value = float(value)
        if math.isfinite(value) and abs(value) <= 1e-9 * scale:
            return
        self.counts["printed numbers"] += 1
        tokens = set(_NUMBER.findall(measured))
        if not any(ref.printed(v) in tokens for v in (value, value * (1 + 1e-10), value * (1 - 1e-10))):
            self.fail(label, f"the claim prints no {ref.printed(value)} (reference {value!r}): {measured[:160]}")

    def verdict(self, label: str, production: str, reference: str) -> None:
        self.equal("verdicts", f"{label} verdict", production, reference)


# --- what every guard compares ------------------------------------------------------------------------------------


def audit_summary(ctx, audit: Audit, figure: str) -> None:
    """The figure's summary.csv against the reference summary from its shards, row by row, then the points
    :meth:`ResultsContext.point` reads on each curve of the panel's metric."""
    keys = ["panel", "algorithm", "metric", "t"]
    production = ctx.summary(figure)
    reference = ref.figure_summary(ctx, figure)
    merged = production.merge(reference, on=keys, how="outer", suffixes=("", "_ref"), indicator=True)
    audit.counts["summaries"] += 1
    if len(production) != len(reference):
        audit.fail(f"{figure} summary", f"{len(production)} production rows vs {len(reference)} reference rows")
    for side, name in (("left_only", "production"), ("right_only", "reference")):
        extra = merged[merged["_merge"] == side]
        if len(extra):
            row = extra.iloc[0]
            audit.fail(f"{figure} summary", f"{len(extra)} rows only in the {name} summary, e.g. "
                                            f"{row.panel}/{row.algorithm}/{row.metric} t={row.t}")
    both = merged[merged["_merge"] == "both"]
    label = f"{figure} summary"
    audit.close("summary rows", f"{label} mean", both["mean"], both["mean_ref"], both["scale"])
    audit.close("summary rows", f"{label} s.e.", both["se"], both["se_ref"],
                both["scale"] / np.sqrt(both["n_ref"].clip(lower=1)), count=0)
    if not np.array_equal(both["n"].to_numpy(), both["n_ref"].to_numpy()):
        bad = both[both["n"] != both["n_ref"]].iloc[0]
        audit.fail(f"{label} n", f"production {bad.n} vs reference {bad.n_ref} at {bad.panel}/{bad.algorithm}/"
                                 f"{bad.metric} t={bad.t}")
    # the lookup is one piece of code for every curve: the first curve of the figure's first panel with a metric
    panel = next((p for p in ctx.spec.figures[figure]["panels"] if "metric" in p), None)
    if panel is None:
        return
    first = reference[(reference.panel == panel["id"]) & (reference.metric == panel["metric"])]
    algorithm = first.algorithm.iloc[0]
    rows = first[first.algorithm == algorithm].reset_index(drop=True)
    steps = rows.t.tolist()
    T, mid = steps[-1], steps[len(steps) // 2]
    for t in [None] + sorted({T // 2, T // 10, T // 100, mid - 1, mid, mid + 1} & set(range(1, T + 1))):
        r = rows.iloc[ref.first_at_or_after(steps, t)]
        where = f"{figure}/{panel['id']}/{algorithm} point at t={'T' if t is None else t}"
        try:
            p = ctx.point(figure, panel["id"], algorithm, t)
        except KeyError as err:  # a summary that lacks a step the shards record: a disagreement, not a crash
            audit.fail(where, f"production raised KeyError: {err}")
            continue
        audit.equal("points", f"{where} step", p.t, int(r.t))
        audit.close("points", f"{where} mean", [p.mean, p.se], [r["mean"], r["se"]], r["scale"])
        audit.equal("points", f"{where} n", p.n, int(r.n))


def audit_grids(ctx, audit: Audit, experiments) -> None:
    """Each experiment's checkpoint grid against the grid its ``checkpoints:`` entry defines."""
    for e in experiments:
        exp = ctx.spec.experiments[e]
        audit.equal("checkpoint grids", f"{e} checkpoints", np.asarray(exp.checkpoints),
                    ref.checkpoints(exp.horizon, exp.config.get("checkpoints")))


def audit_sequential(spec, audit: Audit) -> None:
    """The sequential looks' rule (report/sequential.py) against the reference: the bands and looks of the
    paper's rule and of every doubling rule up to 16x, the shard blocks of each experiment's extra
    replications, and (where the paper takes looks at this scale) each claim's replication counts look by look
    while it stays inconclusive, and that a decided claim stops."""
    rule = sequential.paper_rule(spec)
    for factor in sorted({1, 2, 4, 8, 16, rule.max_factor}):
        r = sequential.SequentialRule(factor, rule.z_first)
        looks, alpha, z_extra = ref.sequential_band(factor, rule.z_first)
        label = f"rule up to {factor}x"
        audit.equal("sequential rule", f"{label} looks", r.looks, looks)
        audit.close("sequential rule", f"{label} alpha_0", r.alpha_first, alpha)
        audit.equal("sequential rule", f"{label} bands", [r.z(k) for k in range(looks)],
                    [rule.z_first] + [z_extra] * (looks - 1))
    for exp in spec.experiments.values():
        n0, shard = exp.replications, exp.shard_size or exp.replications
        for n in ref.look_replications(n0, 8)[1:]:
            audit.equal("sequential rule", f"{exp.id} extra shards up to {n}", sequential.extra_blocks(n0, n, shard),
                        ref.extra_blocks(n0, n, shard))
    for claim in sequential.sequential_claims(spec):
        reads = sequential.claim_experiments(spec, claim)
        counts = {e: spec.experiments[e].replications for e in reads}
        audit.equal("sequential rule", f"{claim['id']} decided at look 0",
                    sequential.next_replications(spec, claim, counts, REPRODUCED, (), 0), None)
        for look in range(rule.looks):
            nxt = sequential.next_replications(spec, claim, counts, INCONCLUSIVE, (), look)
            expected = None if look + 1 >= rule.looks else {
                e: min(2 * n, rule.max_factor * spec.experiments[e].replications) for e, n in counts.items()}
            audit.equal("sequential rule", f"{claim['id']} look {look + 1} replications", nxt, expected)
            counts = nxt or counts


def _sub_checks(args: dict) -> list[dict]:
    """Checks nested in a check's arguments (a claim made of parts): every dict with a ``fn``."""
    found = []
    for value in args.values():
        for item in (value if isinstance(value, list) else [value]):
            if isinstance(item, dict) and "fn" in item and item["fn"] in CLAIM_CHECKS:
                found.append(item)
    return found


def probe_check(ctx, audit: Audit, check: dict, figure: str, label: str) -> bool:
    """Compare the statistics of one check (and of the checks nested in it); False when nothing is probed."""
    fn = lookup(CLAIM_CHECKS, "claim check", check["fn"])
    args = {k: v for k, v in check.items() if k not in ("fn", "label")}
    if "figure" in inspect.signature(fn).parameters:
        args.setdefault("figure", figure)
    probe, nested = PROBES.get(check["fn"]), _sub_checks(args)
    if probe is not None:
        audit.where = f"{label}: "
        try:
            probe(ctx, audit, fn(ctx, **args), **args)
        except Exception as err:  # a helper that raises where the reference computes is a disagreement
            audit.fail("probe", f"raised {type(err).__name__}: {err}")
        audit.where = ""
    for sub in nested:
        probe_check(ctx, audit, sub, args.get("figure", figure), f"{label}/{sub.get('label', sub['fn'])}")
    return probe is not None or any(s["fn"] in PROBES for s in nested)


KIND_ORDER = ["summaries", "summary rows", "points", "checkpoint grids", "means and s.e.", "paired ratios",
              "Brown-Forsythe p-values", "fits", "printed numbers", "verdicts", "sequential rule"]


@claim_check("statistics_reference")
def statistics_reference(ctx, figure, figures=None):
    """Issue 39's statistics guard (module docstring): the summaries of ``figures`` (default: the claim's
    figure), their experiments' checkpoint grids, the statistics of their headline claims and the sequential
    rule, each against the independent computation of report/statistics_reference.py."""
    audit, probed, unprobed, missing = Audit(), 0, [], []
    experiments: list[str] = []
    for fig in figures or [figure]:
        if not ctx.has_figure(fig):
            missing.append(fig)
            continue
        audit_summary(ctx, audit, fig)
        experiments += [e for e in ctx.spec.figure_experiments(fig) if e not in experiments]
        for claim in ctx.spec.claims:
            if claim["figure"] == fig and claim["kind"] == HEADLINE:
                if probe_check(ctx, audit, claim["check"], fig, claim["id"]):
                    probed += 1
                else:
                    unprobed.append(f"{claim['id']} ({claim['check']['fn']})")
    audit_grids(ctx, audit, experiments)
    audit_sequential(ctx.spec, audit)
    total = sum(audit.counts.values())
    kinds = ", ".join(f"{k} {audit.counts[k]}" for k in KIND_ORDER + sorted(set(audit.counts) - set(KIND_ORDER))
                      if audit.counts[k])
    if audit.failures:
        shown = "; ".join(audit.failures[:SHOWN_FAILURES]) + (" ..." if len(audit.failures) > SHOWN_FAILURES else "")
        measured = f"{len(audit.failures)} DISAGREE: {shown}. Of {total} comparisons"
    else:
        measured = f"all {total} comparisons with the independent computation agree"
    measured += f" ({kinds}), covering the statistics of {probed} headline claims"
    if unprobed:
        measured += f"; no probe: {', '.join(unprobed)}"
    if missing:
        measured += f"; not built: {', '.join(missing)}"
    return ClaimResult(measured=measured,
                       threshold="every number as computed apart (means, s.e. and fits within 1e-12 of their size, "
                                 "p-values 1e-9; counts, steps and verdicts exactly)",
                       verdict=REPRODUCED if not audit.failures and total else NOT_REPRODUCED)


# --- probes of the generic checks ---------------------------------------------------------------------------------


def audit_per_replication(ctx, audit: Audit, figure: str, panel: str, algorithm: str, metric=None):
    """``checks.per_replication`` against the shards read apart; returns the reference (steps, values)."""
    steps, values = ref.panel_values(ctx, figure, panel, algorithm, metric)
    p_steps, p_values = checks.per_replication(ctx, figure, panel, algorithm, metric)
    audit.equal("means and s.e.", f"{figure}/{panel}/{algorithm} per-replication steps", list(p_steps),
                [int(s) for s in steps])
    audit.equal("means and s.e.", f"{figure}/{panel}/{algorithm} per-replication values", p_values, values)
    return steps, values


@statistic_probe("below")
def _probe_below(ctx, audit, result, figure, panel, lower, higher, at="final", metric=None, higher_figure=None,
                 higher_panel=None, z=2.0, paired=False):
    """The verdict from the shards; paired: also each comparison's paired difference and its s.e. (the points
    of unpaired comparisons are the summary's, audited with it)."""
    hfig, hpanel = higher_figure or figure, higher_panel or panel
    lowers, highers = ([x] if isinstance(x, str) else list(x) for x in (lower, higher))
    runs = {(figure, panel, a): ref.panel_values(ctx, figure, panel, a, metric) for a in lowers}
    runs.update({(hfig, hpanel, a): ref.panel_values(ctx, hfig, hpanel, a, metric) for a in highers})
    steps = [int(s) for s in runs[(figure, panel, lowers[0])][0]]
    expected = [(t, lo, hi) for t in ([None] if at == "final" else steps) for lo in lowers for hi in highers]
    comps = (checks.below_comparisons(ctx, figure, panel, lower, higher, at, metric, higher_figure, higher_panel, z,
                                      paired) if paired else [None] * len(expected))
    audit.equal("verdicts", "comparisons", len(comps), len(expected))
    verdicts = []
    for c, (t, lo, hi) in zip(comps, expected):
        (lsteps, lv), (hsteps, hv) = runs[(figure, panel, lo)], runs[(hfig, hpanel, hi)]
        j, k = ref.first_at_or_after(lsteps, t), ref.first_at_or_after(hsteps, t)
        (mean_a, se_a, _), (mean_b, se_b, _) = ref.mean_se(lv[:, j]), ref.mean_se(hv[:, k])
        if paired:
            where = f"{lo}<{hi} at t={int(lsteps[j])}"
            d = hv[:, k] - lv[:, j]
            mean, se, n = ref.mean_se(d)
            audit.equal("points", f"{where} step", c.t, int(lsteps[j]))
            scale = max(float(np.max(np.abs(lv[:, j]))), float(np.max(np.abs(hv[:, k]))))
            audit.close("means and s.e.", f"{where} means", [c.a, c.b], [mean_a, mean_b], scale)
            audit.close("means and s.e.", f"{where} paired difference", c.b - c.a, mean, scale)
            audit.close("means and s.e.", f"{where} paired difference s.e.", c.se_diff, se,
                        float(np.max(np.abs(d))) / math.sqrt(n))
        else:
            mean, se = mean_b - mean_a, math.hypot(se_a, se_b)
        verdicts.append(ref.band(mean, se, z))
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


@statistic_probe("final_ordering")
def _probe_final_ordering(ctx, audit, result, figure, panel, order, metric=None, z=2.0):
    finals = [ref.mean_se(ref.panel_values(ctx, figure, panel, a, metric)[1][:, -1]) for a in order]
    for a, (mean, se, _) in zip(order, finals):
        audit.printed(f"{a} at T", result.measured, mean)
        audit.printed(f"{a} at T s.e.", result.measured, se)
    verdicts = [ref.band(x[0] - y[0], math.hypot(x[1], y[1]), z) for x, y in zip(finals, finals[1:])]
    audit.verdict("claim", result.verdict, ref.all_hold(verdicts))


@statistic_probe("most_pulled_arm")
def _probe_most_pulled_arm(ctx, audit, result, experiment, algorithm, arm):
    pulls = np.asarray(ctx.replications(experiment)[algorithm].pulls[:, -1, :], dtype=np.float64)
    mean_pulls = ref.column_summary(pulls)["mean"].to_numpy()
    audit.contains("mean pulls", result.measured, str(np.round(mean_pulls, 1).tolist()))
    audit.verdict("claim", result.verdict, REPRODUCED if int(np.argmax(mean_pulls)) == arm else NOT_REPRODUCED)
