"""Bengs & Hüllermeier, "Multi-Armed Bandits with Censored Consumption of Resources" (RCUCB).

Registers the synthetic and AmesHousing simulation builders, the claim checks (table cells,
orderings, spreads) and the tables. Spec: shared/specs/censored_resources.md.
"""

# imported by load_paper (experiments.spec.import_paper_package), not here: the workflow imports this package's
# forest DAG helpers while it plans (workflow/rules/papers/censored_resources.smk), and planning should not
# import numba, pandas and the kernels along with them
REGISTERING_MODULES = ("builders", "checks", "tables")
