"""The words of a claims table and the one way its verdicts are counted.

Every claim ends with a ``verdict`` (:data:`VERDICTS`) and has a ``kind`` (:data:`KINDS`): a
*headline* claim is a statement the paper makes, a *variant* claim tests a labelled sensitivity variant
or an alternative reading, a *sanity* claim holds by construction. Only headline claims count as
reproductions. The paper schema (``experiments/paper.schema.yaml``) spells the same lists for config
validation; a test keeps it equal to these.

:func:`tally` groups claim rows by kind and verdict; every count the project prints (the paper and
overall reports, the findings sentence, the ``banditrepro verdicts`` command, the README table) is
read from a :class:`Tally`. Pure Python (no pandas): the command line imports it without the cost of
the data stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

VERDICTS = ("reproduced", "not_reproduced", "inconclusive")
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = VERDICTS
KINDS = ("headline", "variant", "sanity")
HEADLINE, VARIANT, SANITY = KINDS
#: the kind of a claim row without one (claims.csv written before the kind column existed)
DEFAULT_KIND = HEADLINE
#: the measured text of a claim whose figure was not built (its verdict is inconclusive)
NOT_MEASURED = "not measured"
#: the label before the statement of a claim whose figure runs on stand-in data (its verdict is inconclusive)
STANDIN_MARK = "[STAND-IN DATA] "
#: how the measured text of a claim whose premise fails begins (its verdict is inconclusive: the statement
#: presupposes what the premise tests, so without it the claim says nothing; report.claims)
PREMISE_NOT_MET = "premise not met: "


def claim_records(claims) -> list[dict]:
    """The rows of a claims table as dicts: a pandas DataFrame (read through its ``to_dict``, so this
    module needs no pandas) or any iterable of mappings."""
    if hasattr(claims, "to_dict"):
        return claims.to_dict("records")
    return [dict(row) for row in claims]


def kind_of(row: Mapping) -> str:
    return str(row.get("kind") or DEFAULT_KIND)


@dataclass(frozen=True)
class Tally:
    """A claims table's rows (in table order), counted by kind and verdict. Every kind of :data:`KINDS`
    and every verdict of :data:`VERDICTS` is listed (possibly with no claims); a kind or verdict outside
    the vocabulary is listed after them, so nothing is silently dropped from a count."""

    records: tuple[Mapping, ...]

    def kinds(self) -> list[str]:
        """:data:`KINDS`, then any other kind found (sorted)."""
        return list(KINDS) + sorted({kind_of(r) for r in self.records} - set(KINDS))

    def verdicts(self, kind: str) -> list[str]:
        """:data:`VERDICTS`, then any other verdict found among ``kind``'s claims (sorted)."""
        return list(VERDICTS) + sorted({str(r["verdict"]) for r in self.rows(kind)} - set(VERDICTS))

    def rows(self, kind: str, verdict: str | None = None) -> list[Mapping]:
        """The rows of one kind (and verdict, when given), in table order."""
        return [r for r in self.records
                if kind_of(r) == kind and (verdict is None or str(r["verdict"]) == verdict)]

    def ids(self, kind: str, verdict: str | None = None) -> list[str]:
        """Claim ids of one kind (and verdict), in table order."""
        return [str(r["claim_id"]) for r in self.rows(kind, verdict)]

    def count(self, kind: str, verdict: str | None = None) -> int:
        """How many claims of ``kind`` (with ``verdict``, when given)."""
        return len(self.rows(kind, verdict))


def tally(claims) -> Tally:
    """Count a claims table (DataFrame or rows with ``verdict`` and, optionally, ``kind`` and
    ``claim_id``) by kind and verdict. A row without a kind counts as :data:`DEFAULT_KIND`."""
    return Tally(tuple(claim_records(claims)))

