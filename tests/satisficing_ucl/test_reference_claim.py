"""The reference guard (ucl_matches_reference: F1_reference, F4_reference): the build against the end-to-end reference.

The reference (src/banditrepro/experiments/satisficing_ucl/reference.py) builds its own instances, rewards, UCL
loop and metrics from the paper, so besides a kernel bug it sees a bug in the builder, the reward law or a metric:
the last tests plant such bugs in the build (monkeypatched while the shard is simulated) and require the guard to
fail.
"""

from pathlib import Path

import numpy as np
import pytest
from shard_context import shard_context

from banditrepro.experiments.satisficing_ucl import builders
from banditrepro.experiments.satisficing_ucl import reference as ref
from banditrepro.experiments.satisficing_ucl.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("satisficing_ucl", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


@pytest.mark.parametrize("experiment", ["mean_reward", "mean_reward_T5000", "mean_reward_K", "robust",
                                        "robust_literal_sigma"])
# slow: the guard runs the build's loops and the reference end to end (on an empty numba cache, their first
# compiles); the full suite runs it, the fast loop does not
@pytest.mark.slow
def test_every_experiment_equals_the_reference(tmp_path, experiment):
    algorithms = list(SPEC.experiments[experiment].algorithms)
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=10)
    assert res.verdict == "reproduced", res.measured
    assert res.measured.startswith(f"{len(algorithms)}/{len(algorithms)} ") and "first 2 replication(s)" in res.measured


@pytest.mark.slow
def test_every_curve_of_the_build_is_compared(tmp_path):
    """The reference returns every curve the build stores (regret_x of the robust runs included) and the pulls."""
    exp = SPEC.experiments["robust"]
    out = ref.REFERENCE.run(exp, "A5_P5", np.array([1, 2], np.uint64), np.array([3, 4], np.uint64),
                            np.asarray(exp.checkpoints))
    built = builders.build(exp, "A5_P5").run(np.array([1, 2], np.uint64), np.array([3, 4], np.uint64),
                                              np.asarray(exp.checkpoints))
    assert sorted(out.curves) == sorted(built.curves) and out.pulls.shape == built.pulls.shape


def test_the_reference_transcribes_the_paper():
    """Theorem 10: Phi^-1(1 - delta/2); Theorem 11: Phi^-1(1 - delta/3); the schedule Phi^-1(1 - 1/(K t));
    Sec. VII's standardised means x = [-1 0 1 2/3] under the resolved sigma; p-unit gaps (eq. 19)."""
    assert ref.quantiles(ref.Policy("A3", delta=0.05), 2.0, 3)[0] == pytest.approx(1.959964, abs=1e-6)
    assert ref.quantiles(ref.Policy("A4", delta=0.05), 3.0, 3)[0] == pytest.approx(2.128045, abs=1e-6)
    assert ref.quantiles(ref.Policy("A1"), ref.SCHEDULE, 2)[1] == 0.0  # Phi^-1(1/2)
    a5 = ref.problem(ref.FIGS_4_5, ref.Policy("A5"))
    assert a5["robust"] and np.isnan(a5["threshold"]) and a5["exemption_level"] == 1.0  # best x
    assert ref.FIGS_4_5.standardised().means == (-1.0, 0.0, 1.0, 2.0 / 3.0)
    assert a5["gaps_x"] == pytest.approx([2.0, 1.0, 0.0, 1.0 / 3.0], abs=1e-15) and a5["gaps"][2] == 0.0 and 0.0 < a5["gaps"][3] < 0.1
    a4 = ref.problem(ref.FIGS_1_3, ref.SETTINGS["mean_reward"][1]["A4_P4"])
    assert a4["threshold"] == 2.5 and a4["gaps"].tolist() == [1.5, 0.5, 0.0, 0.0] and a4["exemption_delta"] == 0.05


def test_an_algorithm_the_reference_does_not_know_is_an_error():
    with pytest.raises(ValueError, match="no robust/A6_P6"):
        ref.REFERENCE.run(SPEC.experiments["robust"], "A6_P6", np.array([1], np.uint64), np.array([2], np.uint64),
                          np.array([10]))


# --- bugs the guard must catch ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_variant_table_bug_fails_the_claim(tmp_path, monkeypatch):
    """(M, delta)-satisficing UCL with Phi^-1(1 - delta/2) (the planted satisficing_delta_divisor_two) moves
    no verdict of the paper's; the reference tells it apart."""
    monkeypatch.setitem(builders.VARIANTS, "A4", ("delta2", True, False))
    ctx = _context(tmp_path, "mean_reward", n=10)
    monkeypatch.undo()
    res = matches_reference(ctx, ["mean_reward"], ["A2_P2", "A4_P4"], replications=10)
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("1/2 ") and "mean_reward/A4_P4" in res.measured


@pytest.mark.slow
def test_a_wrong_arm_mean_in_the_builder_fails(tmp_path, monkeypatch):
    """The builder's arms with m_3 = 3.5 instead of 3 (the policy and the regret still see the paper's
    instance): the rewards move, so do the choices."""
    real = builders.gaussian_arms

    def wrong_third_mean(means, sigma):
        return real(np.asarray(means) + np.array([0.0, 0.0, 0.5, 0.0]), sigma)

    monkeypatch.setattr(builders, "gaussian_arms", wrong_third_mean)
    ctx = _context(tmp_path, "mean_reward", algorithms=["A1_P1"])
    monkeypatch.undo()
    res = matches_reference(ctx, ["mean_reward"], ["A1_P1"])
    assert res.verdict == "not_reproduced" and "mean_reward/A1_P1" in res.measured, res.measured


@pytest.mark.slow
def test_a_regret_unit_bug_fails(tmp_path, monkeypatch):
    """Robust regret in x-units instead of happiness-probability units (eq. 19): the choices stay right, the
    regret curve moves."""
    monkeypatch.setattr(builders.GaussianInstance, "values", lambda self, robust: self.x if robust else self.means)
    ctx = _context(tmp_path, "robust", algorithms=["A5_P5"])
    monkeypatch.undo()
    res = matches_reference(ctx, ["robust"], ["A5_P5"])
    assert res.verdict == "not_reproduced" and "curve regret differs" in res.measured, res.measured
