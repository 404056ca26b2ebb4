"""The differential sanity claim (fair_matches_reference): the build's runs against the reference kernels."""

import io
from pathlib import Path

import numpy as np
import pytest

from banditrepro.experiments.penalized_fairness.checks import matches_reference
from banditrepro.experiments.reference import agreement, head
from banditrepro.experiments.runner import run_experiment_block, shard_provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.context import ResultsContext
from banditrepro.shards import save_shard

REPO_ROOT = Path(__file__).resolve().parents[2]
SEED = 20171128


def _context(tmp_path, experiment, n=2, seed=SEED, recorded_seed=None, edit=None):
    """A context over one shard of ``experiment`` (replications 0..n-1) simulated with ``seed``; its provenance
    records ``recorded_seed`` (default: the same); ``edit(results)`` may alter the runs before saving."""
    spec = load_paper("penalized_fairness", "smoke", REPO_ROOT)
    exp = spec.experiments[experiment]
    results = run_experiment_block(exp, seed, 0, n, log=io.StringIO())
    if edit is not None:
        edit(results)
    path = tmp_path / f"{experiment}.npz"
    prov = shard_provenance(exp, seed if recorded_seed is None else recorded_seed, 0, n, "smoke")
    save_shard(path, results, 0, n, prov)
    return ResultsContext(spec, shards={experiment: [path]})


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
