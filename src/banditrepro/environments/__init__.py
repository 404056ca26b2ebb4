"""Bandit environments: compiled step kernels plus the per-arm ground truth metrics need.

An environment never knows about Snakemake or configs; papers' builders in
:mod:`banditrepro.experiments` turn YAML into these objects.
"""

from .finite import (  # noqa: F401
    BERNOULLI,
    BETA,
    CATEGORICAL,
    GAUSSIAN,
    bernoulli_arms,
    beta_arms,
    categorical_arms,
    gaussian_arms,
    threshold_gaps,
)
