"""Sequential replications: an inconclusive headline claim gets more replications, by a stated rule.

The rule (a paper opts in with a ``sequential:`` block in its config; docs/sequential.md):

* **Looks.** Look 0 is the claim as built from the paper's replication count n₀ of each experiment. While
  the claim is ``inconclusive`` and a look is left, the next look doubles the replications of the
  experiments whose part of the claim is still undecided (the check names them in
  ``ClaimResult.undecided``; a check that names none gets all the experiments it reads doubled), up to
  ``max_factor`` × n₀: looks at n₀, 2n₀, 4n₀, 8n₀ for ``max_factor: 8``. The claim stops at the first look
  whose verdict is ``reproduced`` or ``not_reproduced``.
* **Band.** Look 0 keeps the checks' own ``z`` (2 s.e., two-sided error α₀ = 2(1 − Φ(2)) ≈ 0.0455), so
  no verdict decided at look 0 moves. Each of the L − 1 extra looks uses the widened band
  z_extra = Φ⁻¹(1 − α₀ / (2 (L − 1))) (Bonferroni over the extra looks: together they spend at most α₀,
  so the claim's error rate over all looks is at most 2α₀); for ``max_factor: 8`` (L = 4) z_extra ≈ 2.43.
* **Independence of sharding.** Replication r of an experiment always gets SeedSequence child r
  (``seeding.replication_keys``): the extra replications of a look are new shards r ≥ n₀ of the same
  experiment, so the numbers do not depend on ``--cores``, ``shard_size`` or on which look asked for them.

This module decides; the workflow (workflow/rules/sequential.smk) runs the looks as a Snakemake
checkpoint, one job per (paper, claim, look), and the claims job of the claim's figure uses the last look.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

from ..registry import CLAIM_CHECKS, lookup
from .claim_inputs import result_dependencies
from .vocabulary import HEADLINE, INCONCLUSIVE

if TYPE_CHECKING:  # planning imports this module (sequential.smk): report.checks would bring pandas along
    from .checks import ClaimResult


@dataclass(frozen=True)
class SequentialRule:
    """Doubling up to ``max_factor`` × the paper's replications; ``z_first``: the band of look 0."""

    max_factor: int = 1
    z_first: float = 2.0

    def __post_init__(self):
        if self.max_factor < 1 or self.max_factor & (self.max_factor - 1):
            raise ValueError(f"max_factor must be a power of two >= 1, got {self.max_factor}")

    @property
    def looks(self) -> int:
        """L: look 0 at n₀ and one look per doubling."""
        return int(math.log2(self.max_factor)) + 1

    @property
    def alpha_first(self) -> float:
        """Two-sided error of look 0's band: 2 (1 − Φ(z_first))."""
        return 2.0 * (1.0 - NormalDist().cdf(self.z_first))

    @property
    def z_extra(self) -> float:
        """The band of every extra look: Φ⁻¹(1 − α₀ / (2 (L − 1))) (Bonferroni over the L − 1 extra looks)."""
        if self.looks == 1:
            return self.z_first
        # rounded up to 3 decimals: the band printed in the threshold is the band used, never narrower
        return math.ceil(1000 * NormalDist().inv_cdf(1.0 - self.alpha_first / (2 * (self.looks - 1)))) / 1000

    def z(self, look: int) -> float:
        return self.z_first if look == 0 else self.z_extra

    def describe(self) -> str:
        return (f"replications doubled up to {self.max_factor}x the paper's count ({self.looks} looks); "
                f"look 0 at {self.z_first:g} s.e., each extra look at {self.z_extra:g} s.e. "
                f"(Bonferroni: alpha {self.alpha_first:.3g} over the {self.looks - 1} extra looks)")


def paper_rule(spec) -> SequentialRule:
    """The paper's rule at the spec's scale (its ``sequential:`` block; none: no extra looks)."""
    block = spec.config.get("sequential") or {}
    return SequentialRule(int(block.get("max_factor", 1)), float(block.get("z", 2.0)))


def check_takes_z(spec, claim: dict) -> bool:
    """Whether the claim's check takes a ``z``: from the parameters load_paper recorded in the spec (a spec the
    Snakefile planned from a cache has no registry behind it), else from the registered check."""
    name = claim["check"]["fn"]
    parameters = spec.check_parameters.get(name)
    if parameters is None:
        parameters = inspect.signature(lookup(CLAIM_CHECKS, "claim check", name)).parameters
    return "z" in parameters


def sequential_claims(spec) -> list[dict]:
    """The claims that get extra looks at the spec's scale: headline claims whose check takes a ``z``
    (the band the extra looks widen), when the paper's rule allows more than one look. A claim with a
    ``premise`` takes none: a look would decide its own check, not the premise that gates it."""
    if paper_rule(spec).looks == 1:
        return []
    return [c for c in spec.claims if c["kind"] == HEADLINE and check_takes_z(spec, c) and not c.get("premise")]


def claim_experiments(spec, claim: dict) -> list[str]:
    """The experiments one claim may read (its figure's and what its check's arguments name)."""
    _, experiments = result_dependencies(spec, [claim["figure"]],
                                            {k: v for k, v in claim["check"].items() if k != "fn"})
    return experiments


def next_replications(spec, claim: dict, replications: dict[str, int], verdict: str, undecided,
                      look: int) -> dict[str, int] | None:
    """The replication counts of look ``look + 1``, or None when the claim is decided or no look is left.

    The experiments the check names as ``undecided`` (all it reads if it names none) double, capped at
    ``max_factor`` × the paper's count; if none can grow any more the claim stops too."""
    rule = paper_rule(spec)
    if verdict != INCONCLUSIVE or look + 1 >= rule.looks:
        return None
    grow = [e for e in undecided if e in replications] or list(replications)
    out = dict(replications)
    for exp in grow:
        cap = rule.max_factor * spec.experiments[exp].replications
        out[exp] = min(2 * replications[exp], cap)
    return out if out != replications else None


def extra_blocks(n0: int, n: int, shard_size: int) -> list[tuple[int, int]]:
    """Replication blocks [start, stop) of the extra replications n₀ ≤ r < n, cut at every doubling
    (n₀, 2n₀, 4n₀, ...) and into pieces of at most ``shard_size``: the same blocks whatever look asked
    for them, so a later look reuses an earlier look's shards."""
    blocks, start = [], n0
    while start < n:
        stop_doubling = min(2 * start, n)
        for a in range(start, stop_doubling, shard_size):
            blocks.append((a, min(a + shard_size, stop_doubling)))
        start = stop_doubling
    return blocks


def annotate_row(measured: str, threshold: str, look: int, rule: SequentialRule,
                 replications: dict[str, int], base: dict[str, int]) -> tuple[str, str]:
    """(measured, threshold) of a claim decided (or stopped) after look ``look`` > 0: the replication
    counts that decided it lead the measured text, the band and the rule follow the threshold."""
    grown = {e: n for e, n in replications.items() if n != base[e]}
    others = sorted({base[e] for e in base if e not in grown})
    counts = ", ".join(f"{e} {n}" for e, n in grown.items())
    if others:
        counts += f"; other experiments {'/'.join(str(n) for n in others)}"
    return (f"replications {counts} (look {look} of {rule.looks - 1}): {measured}",
            f"{threshold}; sequential: z = {rule.z(look):g} at look {look} ({rule.describe()})")


def evaluate_look(ctx, claim: dict, look: int, rule: SequentialRule) -> ClaimResult:
    """The claim's check on the replications ``ctx`` holds, with look ``look``'s band (look 0: the
    check's own ``z``, as the claims job evaluates it)."""
    fn = lookup(CLAIM_CHECKS, "claim check", claim["check"]["fn"])
    args = {k: v for k, v in claim["check"].items() if k != "fn"}
    if "figure" in inspect.signature(fn).parameters:
        args.setdefault("figure", claim["figure"])
    if look > 0:
        args["z"] = rule.z(look)
    return fn(ctx, **args)


def look_record(spec, claim: dict, look: int, replications: dict[str, int], result: ClaimResult) -> dict:
    """What a look job writes (results/<paper>/sequential/<claim>/look<k>.json)."""
    rule = paper_rule(spec)
    nxt = next_replications(spec, claim, replications, result.verdict, result.undecided, look)
    measured, threshold = result.measured, result.threshold
    if look > 0:
        base = {e: spec.experiments[e].replications for e in replications}
        measured, threshold = annotate_row(measured, threshold, look, rule, replications, base)
    return {"claim": claim["id"], "look": look, "z": rule.z(look), "replications": replications,
            "verdict": result.verdict, "measured": measured, "threshold": threshold,
            "undecided": list(result.undecided), "next_replications": nxt}


def apply_looks(claims, records) -> None:
    """Replace, in a claims table (DataFrame), the row of every claim whose last look is > 0 by that
    look's measured, threshold and verdict (a claim decided at look 0 keeps the claims job's own row)."""
    for rec in records:
        if rec["look"] == 0:
            continue
        rows = claims.index[claims.claim_id == rec["claim"]]
        if len(rows) != 1:
            raise KeyError(f"sequential look of claim {rec['claim']!r}: not exactly one row in the claims table")
        claims.loc[rows, ["measured", "threshold", "verdict"]] = [rec["measured"], rec["threshold"], rec["verdict"]]
