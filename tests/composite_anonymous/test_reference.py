"""The independent ARS-UCB / ODAAF loops (experiments/composite_anonymous/reference.py) and their sanity claim."""

from pathlib import Path

import pytest
from shard_context import shard_context

from banditrepro.experiments.composite_anonymous.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("composite_anonymous", "smoke", REPO_ROOT)
STOCHASTIC = [e for e, exp in SPEC.experiments.items() if exp.builder == "composite_stochastic"]


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", STOCHASTIC)
def test_every_stochastic_experiment_equals_the_reference(tmp_path, experiment):
    ctx = _context(tmp_path, experiment)
    res = matches_reference(ctx, [experiment], list(SPEC.experiments[experiment].algorithms), replications=2)
    assert res.verdict == "reproduced", res.measured


def test_an_odaaf_run_that_differs_fails(tmp_path):
    def one_more_phase(results):
        results["odaaf_v"].finals["phases"][1] += 1

    res = matches_reference(_context(tmp_path, "delay_10_30", edit=one_more_phase), ["delay_10_30"],
                            ["ars_a4", "odaaf_v"], replications=2)
    assert res.verdict == "not_reproduced"
    assert "delay_10_30/odaaf_v: final phases differs, first at index (1,)" in res.measured
