"""The independent transcription of A1-A8 (experiments/satisficing_ucl/reference.py) and its sanity claim."""

from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtri
from shard_context import shard_context

from banditrepro.experiments.satisficing_ucl import builders, reference
from banditrepro.experiments.satisficing_ucl.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("satisficing_ucl", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", ["mean_reward", "mean_reward_T5000", "mean_reward_K", "robust",
                                        "robust_literal_sigma"])
def test_every_experiment_equals_the_reference(tmp_path, experiment):
    ctx = _context(tmp_path, experiment)
    algorithms = list(ctx.spec.experiments[experiment].algorithms)
    res = matches_reference(ctx, [experiment], algorithms, replications=4)
    assert res.verdict == "reproduced", res.measured


def test_the_reference_quantiles_are_the_papers():
    """Theorem 10: Phi^-1(1 - delta/2); Theorem 11: Phi^-1(1 - delta/3); the schedule: nan (tabulated)."""
    sigma, means = np.ones(4), np.arange(1.0, 5.0)
    a3 = reference.reference_params({"variant": "A3", "delta": 0.05}, means, sigma, 2.0)
    a4 = reference.reference_params({"variant": "A4", "delta": 0.05, "threshold": 2.5}, means, sigma, 2.0)
    a1 = reference.reference_params({"variant": "A1", "K": 1.0}, means, sigma, 2.0)
    assert a3[0] == pytest.approx(1.959964, abs=1e-6) and a4[0] == pytest.approx(2.128045, abs=1e-6)
    assert np.isnan(a1[0]) and np.isnan(a1[2]) and a4[2] == 2.5
    a6 = reference.reference_params({"variant": "A6", "threshold": 0.7}, means, sigma, 2.0)
    assert a6[2] == pytest.approx(float(ndtri(0.7))) and a6[4] == 1.0  # robust: threshold Phi^-1(Pi)


def test_a_variant_table_bug_fails_the_claim(tmp_path, monkeypatch):
    """(M, delta)-satisficing UCL with Phi^-1(1 - delta/2) (the planted satisficing_delta_divisor_two) moves
    no verdict of the paper's; the reference tells it apart."""
    monkeypatch.setitem(builders.VARIANTS, "A4", ("delta2", True, False))
    ctx = _context(tmp_path, "mean_reward", n=10)
    monkeypatch.undo()
    res = matches_reference(ctx, ["mean_reward"], ["A2_P2", "A4_P4"], replications=10)
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("1/2 ") and "mean_reward/A4_P4" in res.measured
