"""The differential sanity claim (fair_matches_reference): the build's runs against the reference kernels."""

from pathlib import Path

import numpy as np
import pytest
from shard_context import SEED, shard_context

from banditrepro.experiments.penalized_fairness.checks import matches_reference
from banditrepro.experiments.reference import agreement, head
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("penalized_fairness", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", ["s1_K5", "s2_case1"])
def test_a_correct_build_equals_the_reference(tmp_path, experiment):
    ctx = _context(tmp_path, experiment)
    res = matches_reference(ctx, [experiment], ["ht_ucb", "flearn", "lfg"], replications=2)
    assert res.verdict == "reproduced", res.measured
    assert res.measured.startswith("3/3 ")


def test_runs_that_differ_from_the_reference_fail(tmp_path):
    def one_more_pull(results):  # a Flearn run whose arm 1 got one pull more: any changed count is another run
        results["flearn"].curves["N1_tau0.2"][0, -1] += 1.0

    res = matches_reference(_context(tmp_path, "s1_K5", edit=one_more_pull), ["s1_K5"], ["ht_ucb", "flearn"])
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("1/2 ") and "s1_K5/flearn: curve N1_tau0.2 differs" in res.measured


def test_the_reference_uses_the_seed_the_shards_record(tmp_path):
    res = matches_reference(_context(tmp_path, "s1_K5", seed=SEED + 1, recorded_seed=SEED), ["s1_K5"], ["lfg"])
    assert res.verdict == "not_reproduced"
    assert matches_reference(_context(tmp_path, "s1_K5", seed=SEED + 1), ["s1_K5"], ["lfg"]).verdict == "reproduced"


def test_agreement_names_the_first_difference():
    class Out:
        def __init__(self, x):
            self.checkpoints, self.curves, self.finals, self.pulls = np.arange(3), {"r": x}, {}, None

    assert agreement(Out(np.zeros((2, 3))), Out(np.zeros((2, 3)))) == (2, None)
    n, where = agreement(Out(np.array([[0.0, 1.0, 2.0]])), Out(np.array([[0.0, 1.5, 2.0]])))
    assert where == "curve r differs, first at index (0, 1): 1.0 vs reference 1.5"
    assert head(type("O", (), {"checkpoints": 1, "curves": {"r": np.ones((4, 2))}, "finals": {},
                               "pulls": None})(), 2).curves["r"].shape == (2, 2)
