"""Step-level test oracles of fast production kernels (not references: docs/mutants.md, "Guards").

``fairness``: the penalized-fairness policies as engine-protocol kernels (tests/penalized_fairness/test_policies.py
compares the batch loop with them step for step); ``censored``: the printed-form selects and updates of RCUCB,
UCB and TS (tests/censored_resources/test_fast_kernels.py compares the fast kernels with them). Until issue 39
they were the papers' ``reference.py``; the reference guards now use end-to-end references written from the
papers (``src/banditrepro/experiments/<paper>/reference.py``), and these stay the unit tests' oracles.
"""
