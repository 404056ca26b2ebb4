"""banditrepro: reproducible replications of five multi-armed-bandit papers."""

__version__ = "0.1.0"
