"""satisficing_select: SELECT (Feng, Ma and Zhu) and its baselines."""
