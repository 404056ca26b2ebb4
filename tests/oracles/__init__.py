"""Slow, independent reference forms of production kernels; tests compare the two step for step."""
