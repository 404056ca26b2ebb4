"""The printed-form reference loop (experiments/censored_resources/reference.py) and its sanity claim."""

from pathlib import Path

import pytest
from shard_context import shard_context

from banditrepro.experiments.censored_resources.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("censored_resources", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", ["s51_indep", "f1m2_negcorr", "f2_n20", "f3"])
def test_the_fast_loop_equals_the_printed_reference(tmp_path, experiment):
    algorithms = list(SPEC.experiments[experiment].algorithms)  # every reading too: unit bonus, single pair
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured


def test_a_run_that_differs_fails(tmp_path):
    def one_more_censored_pull(results):
        results["ucb"].curves["censored"][0, -1] += 1.0

    res = matches_reference(_context(tmp_path, "f2_n20", edit=one_more_censored_pull), ["f2_n20"],
                            ["rcucb", "ucb", "ts"], replications=2)
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("2/3 ") and "f2_n20/ucb: curve censored differs" in res.measured
