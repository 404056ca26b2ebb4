"""The baselines' reference loop (experiments/satisficing_select/reference.py) and its sanity claim."""

from pathlib import Path

import pytest
from shard_context import shard_context

from banditrepro.experiments.satisficing_select.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("satisficing_select", "smoke", REPO_ROOT)
BASELINES = ("thompson", "beta_thompson", "uniform_ucb", "sat_ucb", "sat_ucb_plus")


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", [e for e, x in SPEC.experiments.items()
                                        if any(a.get("algorithm") in BASELINES for a in x.config["algorithms"].values())])
def test_every_baseline_run_equals_the_reference(tmp_path, experiment):
    algorithms = [a for a, entry in SPEC.experiments[experiment].config["algorithms"].items()
                  if entry.get("algorithm") in BASELINES]
    res = matches_reference(_context(tmp_path, experiment, algorithms=algorithms), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured


def test_a_run_that_differs_fails_and_select_has_no_reference(tmp_path):
    def more_regret(results):
        results["sat_ucb_plus"].curves["regret"][1, -1] += 1e-9

    ctx = _context(tmp_path, "finite_realizable", algorithms=["thompson", "sat_ucb_plus", "select"], edit=more_regret)
    res = matches_reference(ctx, ["finite_realizable"], ["thompson", "sat_ucb_plus"], replications=2)
    assert res.verdict == "not_reproduced" and "finite_realizable/sat_ucb_plus: curve regret differs" in res.measured
    with pytest.raises(ValueError, match="no reference for SelectSimulation"):
        matches_reference(ctx, ["finite_realizable"], ["select"])
