"""The reference guard (fair_matches_reference): the build's runs against the end-to-end reference.

The reference (src/banditrepro/experiments/penalized_fairness/reference.py) builds its own instances, rewards,
loop and metrics from the paper, so besides a policy bug it sees a bug in a builder, a reward law or a metric:
the last tests plant such bugs in the build (monkeypatched while the shard is simulated) and require the guard
to fail.
"""

from pathlib import Path

import numpy as np
import pytest
from shard_context import SEED, shard_context

from banditrepro.algorithms import fairness as fair
from banditrepro.experiments.penalized_fairness import builders
from banditrepro.experiments.penalized_fairness import reference as ref
from banditrepro.experiments.penalized_fairness.checks import matches_reference
from banditrepro.experiments.reference import agreement, head
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("penalized_fairness", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


# slow: each case simulates a whole experiment twice (the build's kernels and the reference), tens of
# CPU-seconds with the first compiles; the full suite runs them, the fast loop does not
@pytest.mark.slow
@pytest.mark.parametrize("experiment", ["s1_K5", "s2_case2", "s4_cr1", "s5_K5"])
def test_a_correct_build_equals_the_reference(tmp_path, experiment):
    algorithms = list(SPEC.experiments[experiment].algorithms)
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured
    assert res.measured.startswith(f"{len(algorithms)}/{len(algorithms)} ") and "first 2 replication(s)" in res.measured


@pytest.mark.needs_data
def test_the_movielens_setting_equals_the_reference(tmp_path):
    if not (REPO_ROOT / SPEC.experiments["s3_m2500"].params["movielens"]["histograms"]).is_file():
        pytest.skip("the MovieLens rating counts are not built (data/processed/movielens_1m)")
    res = matches_reference(_context(tmp_path, "s3_m2500"), ["s3_m2500"], ["ht_ucb", "flearn", "lfg"], replications=2)
    assert res.verdict == "reproduced", res.measured


# slow: the guard runs the build's loops and the reference end to end (on an empty numba cache, their first
# compiles); the full suite runs it, the fast loop does not
@pytest.mark.slow
def test_runs_that_differ_from_the_reference_fail(tmp_path):
    def one_more_pull(results):  # a Flearn run whose arm 1 got one pull more: any changed count is another run
        results["flearn"].curves["N1_tau0.2"][0, -1] += 1.0

    res = matches_reference(_context(tmp_path, "s1_K5", edit=one_more_pull), ["s1_K5"], ["ht_ucb", "flearn"])
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("1/2 ") and "s1_K5/flearn: curve N1_tau0.2 differs" in res.measured


@pytest.mark.slow
def test_the_reference_uses_the_seed_the_shards_record(tmp_path):
    res = matches_reference(_context(tmp_path, "s1_K5", seed=SEED + 1, recorded_seed=SEED), ["s1_K5"], ["lfg"])
    assert res.verdict == "not_reproduced"
    assert matches_reference(_context(tmp_path, "s1_K5", seed=SEED + 1), ["s1_K5"], ["lfg"]).verdict == "reproduced"


def test_an_algorithm_the_reference_does_not_know_is_an_error(tmp_path):
    ctx = _context(tmp_path, "s4_nc1")
    ctx.spec.experiments["s4_nc1"].algorithms["ht_ucb_variant"] = ctx.spec.experiments["s4_nc1"].algorithms["ht_ucb"]
    try:
        with pytest.raises(ValueError, match="no s4_nc1/ht_ucb_variant"):
            ref.REFERENCE.run(ctx.spec.experiments["s4_nc1"], "ht_ucb_variant", np.array([1], np.uint64),
                              np.array([2], np.uint64), np.array([4000]))
    finally:
        del ctx.spec.experiments["s4_nc1"].algorithms["ht_ucb_variant"]


def test_agreement_names_the_first_difference():
    class Out:
        def __init__(self, x):
            self.checkpoints, self.curves, self.finals, self.pulls = np.arange(3), {"r": x}, {}, None

    assert agreement(Out(np.zeros((2, 3))), Out(np.zeros((2, 3)))) == (2, None)
    n, where = agreement(Out(np.array([[0.0, 1.0, 2.0]])), Out(np.array([[0.0, 1.5, 2.0]])))
    assert where == "curve r differs, first at index (0, 1): 1.0 vs reference 1.5"
    close = np.array([[0.0, 1.0 + 1e-12, 2.0]])
    assert agreement(Out(np.array([[0.0, 1.0, 2.0]])), Out(close), {"r": 1e-9}) == (2, None)
    n, where = agreement(Out(np.array([[0.0, 1.0, 2.0]])), Out(close * 1.1), {"r": 1e-9})
    assert where.startswith("curve r differs beyond 1e-09 relative, first at index (0, 1)")
    assert head(type("O", (), {"checkpoints": 1, "curves": {"r": np.ones((4, 2))}, "finals": {},
                               "pulls": None})(), 2).curves["r"].shape == (2, 2)


def test_the_reference_transcribes_the_paper():
    """Spot checks of the table against the paper's text (Sec. 6.1) and the instance draws against U(0, 1)."""
    assert ref.SETTINGS["s2_case2"].cases[0].tau(8).tolist() == [0.1] * 4 + [0.04] * 4  # 0.8/K, 0.4 tau_1
    assert ref.SETTINGS["s2_case1"].cases[0].tau(8).tolist() == [1 / 16] * 8  # 1/(2K)
    assert ref.SETTINGS["s4_nc2"].arms[1][0] == 0.95 and ref.SETTINGS["s4_nc2"].policies["ht_ucb"].parameter(None) == 0.41
    assert [c.name for c in ref.SETTINGS["s5_K20"].cases] == [
        "tau0.2_gaussian", "tau0.2_beta", "tau0.2_bernoulli", "tau0.5_gaussian", "tau0.5_beta", "tau0.5_bernoulli"]
    assert ref.eta_grid({"range": [0.02, 0.98, 0.02], "extra": [0.99, 0.995, 1.0]}).tolist() == (
        list(range(20, 981, 20)) + [990, 995, 1000])
    mu = np.concatenate([ref.instance_means(("uniform", 20), key) for key in range(1, 51)])
    assert mu.min() > 0.0 and mu.max() < 1.0 and abs(mu.mean() - 0.5) < 0.05


# --- bugs outside the policies, which the earlier (policy-only) reference could not see ---------------------


@pytest.mark.slow
def test_a_reward_law_bug_in_the_builder_fails(tmp_path, monkeypatch):
    """Gaussian rewards with sd 1/K^2 (the variance read as a standard deviation)."""
    monkeypatch.setattr(builders.Instances, "sd", lambda self: 1.0 / self.n_arms ** 2)
    res = matches_reference(_context(tmp_path, "s1_K5"), ["s1_K5"], ["ht_ucb"], replications=2)
    assert res.verdict == "not_reproduced", res.measured


@pytest.mark.slow
def test_a_tuning_bug_in_the_builder_fails(tmp_path, monkeypatch):
    """Flearn's alpha = (1 - eta) tau_K T (the last arm's tau, not tau_1): Setting 2 Case 2 has unequal tau."""
    real = builders._tuning

    def tau_of_the_last_arm(value, *, eta, horizon, tau, means):
        return real(value, eta=eta, horizon=horizon, tau=tau[::-1], means=means)

    monkeypatch.setattr(builders, "_tuning", tau_of_the_last_arm)
    res = matches_reference(_context(tmp_path, "s2_case2", algorithms=["flearn"]), ["s2_case2"], ["flearn"])
    assert res.verdict == "not_reproduced" and "s2_case2/flearn" in res.measured, res.measured


@pytest.mark.slow
def test_a_metric_bug_fails(tmp_path, monkeypatch):
    """The penalized regret's optimal loss L* = T sum_k Delta_k tau_k (min(Delta_k, A_k) left out, eq. 9): the
    counts stay right, the regret curves move."""
    def without_min(pulls, means, tau, penalty, horizon):
        pulls = np.asarray(pulls, dtype=np.float64)
        means = np.broadcast_to(means, pulls.shape)
        gaps = means.max(axis=-1, keepdims=True) - means
        loss = (gaps * pulls + penalty * np.maximum(tau * np.asarray(horizon)[..., None] - pulls, 0.0)).sum(axis=-1)
        return loss - np.asarray(horizon) * (gaps * tau).sum(axis=-1)

    monkeypatch.setattr(fair, "penalized_regret", without_min)
    res = matches_reference(_context(tmp_path, "s1_K5", algorithms=["lfg"]), ["s1_K5"], ["lfg"])
    assert res.verdict == "not_reproduced" and "curve regret_tau0.2 differs" in res.measured, res.measured
