"""Bengs & Hüllermeier, "Multi-Armed Bandits with Censored Consumption of Resources" (RCUCB).

Registers the synthetic and AmesHousing simulation builders, the claim checks (table cells,
orderings, spreads) and the tables. Spec: shared/specs/censored_resources.md.
"""

from . import builders, checks, tables  # noqa: F401
