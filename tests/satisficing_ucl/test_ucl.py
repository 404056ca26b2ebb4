"""UCL algorithms A1-A8 (Reverdy et al. 2017): hand-computed cases and known behaviour."""

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from banditrepro.algorithms.ucl import UCL, ucl
from banditrepro.experiments.satisficing_ucl.builders import GaussianInstance, policy_for
from banditrepro.rng import new_stream


def _state(counts, sums, sd=1.0):
    counts = np.asarray(counts, float)
    sums = np.asarray(sums, float)
    sd = np.broadcast_to(np.asarray(sd, float), counts.shape)
    return np.vstack([counts, sums, sums / counts, sd / np.sqrt(counts)])


def _prepared(policy, horizon=1000):
    kernel, params = policy
    return kernel, kernel.prepare(params, horizon)


def test_round_robin_initialisation():
    kernel, params = _prepared(ucl(np.ones(4), np.zeros(4)))
    state = np.zeros((4, 4))
    assert [kernel.select(t, state, params, new_stream(0)) for t in range(1, 5)] == [0, 1, 2, 3]


def test_A1_index_hand_computed():
    kernel, params = _prepared(ucl(np.ones(2), np.zeros(2), K=1.0))
    z12 = ndtri(1 - 1 / 12)  # 1.3830
    # Q0 = 1 + z/sqrt(10) = 1.437 < Q1 = 0.5 + z = 1.883
    assert kernel.select(12, _state([10, 1], [10.0, 0.5]), params, new_stream(0)) == 1
    # with 40 pulls of arm 0 and arm 1 at mean -0.2 after 4 pulls: Q0 = 1.219 > Q1 = -0.2 + z/2 = 0.4915
    assert 1 + z12 / math.sqrt(40) > -0.2 + z12 / 2
    assert kernel.select(12, _state([40, 4], [40.0, -0.8]), params, new_stream(0)) == 0


def test_A1_quantile_schedule_uses_K():
    kernel, params = _prepared(ucl(np.ones(2), np.zeros(2), K=4.0), horizon=50)
    np.testing.assert_allclose(params[-50:], ndtri(1 - 1 / (4.0 * np.arange(1, 51))))


def test_fixed_quantiles_of_A3_and_A4():
    _, p3 = ucl(np.ones(2), np.zeros(2), delta=0.05, delta_divisor=2)
    _, p4 = ucl(np.ones(2), np.zeros(2), delta=0.05, delta_divisor=3)
    assert p3[1] == pytest.approx(1.959964, abs=1e-6)
    assert p4[1] == pytest.approx(2.128045, abs=1e-6)


def test_A3_index_hand_computed():
    kernel, params = _prepared(ucl(np.ones(2), np.zeros(2), delta=0.05))
    # Q0 = 1 + 1.96/10 = 1.196; Q1 = -0.5 + 1.96/2 = 0.48
    assert kernel.select(500, _state([100, 4], [100.0, -2.0]), params, new_stream(0)) == 0
    # the fixed quantile does not grow with t: the same state gives the same choice at any t
    assert kernel.select(10**6 // 2, _state([100, 4], [100.0, -2.0]), params, new_stream(0)) == 0


def test_A2_chooses_uniformly_within_the_eligible_set():
    kernel, params = _prepared(ucl(np.ones(3), np.zeros(3), eligibility_threshold=2.5))
    state = _state([100, 100, 100], [300.0, 280.0, 100.0])  # Q ~ [3.2, 3.0, 1.2] at t = 400
    stream = new_stream(1)
    picks = np.array([kernel.select(400, state, params, stream) for _ in range(4000)])
    counts = np.bincount(picks, minlength=3)
    assert counts[2] == 0
    assert abs(counts[0] / 4000 - 0.5) < 0.03


def test_A2_falls_back_to_argmax_when_nothing_is_eligible():
    kernel, params = _prepared(ucl(np.ones(3), np.zeros(3), eligibility_threshold=10.0))
    state = _state([100, 100, 100], [300.0, 280.0, 100.0])
    assert all(kernel.select(400, state, params, new_stream(s)) == 0 for s in range(20))


def test_lowest_index_ablation():
    kernel, params = _prepared(ucl(np.ones(3), np.zeros(3), eligibility_threshold=2.5, choice_rule="lowest_index"))
    state = _state([100, 100, 100], [100.0, 280.0, 300.0])  # eligible: arms 1, 2
    assert all(kernel.select(400, state, params, new_stream(s)) == 1 for s in range(20))


def test_robust_update_standardises_observations():
    kernel, params = ucl(np.array([1.0, 3.0]), np.zeros(2), robust=True, happiness_threshold=2.0)
    state = np.zeros((4, 2))
    kernel.update(3, state, params, 1, np.array([4.0]))
    kernel.update(4, state, params, 1, np.array([-1.0]))
    # r~ = (4-2)/3 = 0.6667 and (-1-2)/3 = -1; unit noise sd in standardised units
    np.testing.assert_allclose(state[:, 1], [2.0, 2 / 3 - 1.0, (2 / 3 - 1.0) / 2, 1 / math.sqrt(2)])


def test_A6_and_A8_use_the_probit_threshold_in_standardised_units():
    inst = GaussianInstance(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 1.0, 1.0, 3.0]), 2.0)
    # x = [-1, 0, 1, 2/3], p = [.159, .5, .841, .748]; Pi = 0.7 -> X = 0.5244: arms 3 and 4 satisfy
    for variant, extra in (("A6", {}), ("A8", {"delta": 0.05})):
        kernel, params = policy_for(inst, {"variant": variant, "threshold": 0.7, **extra})
        params = kernel.prepare(params, 1000)
        assert params[2] == pytest.approx(float(ndtri(0.7)))
        xs = inst.x
        state = _state([400] * 4, 400 * xs)
        picks = {kernel.select(900, state, params, new_stream(s)) for s in range(40)}
        assert picks == {2, 3}
    assert np.allclose(inst.gaps(True, 0.7), np.maximum(0.7 - ndtr(inst.x), 0))


def test_policy_for_rejects_inconsistent_configs():
    inst = GaussianInstance(np.array([1.0, 2.0]), np.ones(2), 0.0)
    with pytest.raises(ValueError):
        policy_for(inst, {"variant": "A2"})  # needs a threshold
    with pytest.raises(ValueError):
        policy_for(inst, {"variant": "A3"})  # needs delta
    with pytest.raises(ValueError):
        policy_for(inst, {"variant": "A1", "threshold": 1.5})
    with pytest.raises(ValueError):
        policy_for(inst, {"variant": "A9"})


def test_satisficing_regret_exemption():
    # P4-like: threshold 2.5, delta 0.05; arm gap 0.5 (true mean 2.0)
    kernel, params = ucl(np.ones(2), np.array([0.0, 0.5]), delta=0.05, delta_divisor=3, eligibility_threshold=2.5,
                         regret_threshold=2.5)
    metric = UCL.step_metric
    # unpulled arm: Pr = 0.5 <= 0.95 -> charged
    assert metric(1, np.zeros((4, 2)), params, 1) == 0.5
    # posterior N(2.9, 0.1^2): Pr[m >= 2.5] = 1 - Phi(-4) > 0.95 -> exempt although the true gap is 0.5
    assert metric(500, _state([1, 100], [3.0, 290.0]), params, 1) == 0.0
    # posterior N(2.9, 1): Pr = 0.655 -> charged
    assert metric(500, _state([1, 1], [3.0, 2.9]), params, 1) == 0.5
    # delta = 0 variants (A1, A2) never exempt
    _, p1 = ucl(np.ones(2), np.array([0.0, 0.5]), regret_threshold=2.5)
    assert metric(500, _state([1, 100], [3.0, 290.0]), p1, 1) == 0.5


def test_invalid_parameters():
    with pytest.raises(ValueError):
        ucl(np.ones(2), np.zeros(3))
    with pytest.raises(ValueError):
        ucl(np.ones(2), np.zeros(2), K=0)
    with pytest.raises(ValueError):
        ucl(np.ones(2), np.zeros(2), delta=1.5)
    with pytest.raises(ValueError):
        ucl(np.ones(2), np.zeros(2), choice_rule="sticky")


# --- issue 31: the quantile each variant's index uses decides F2b-F5c; pin it per variant --------------
@pytest.mark.parametrize("variant, extra, quantile", [
    ("A1", {}, "schedule"), ("A2", {"threshold": 2.5}, "schedule"),
    ("A5", {}, "schedule"), ("A6", {"threshold": 0.7}, "schedule"),
    ("A3", {"delta": 0.05}, 1.959963984540054), ("A7", {"delta": 0.05}, 1.959963984540054),
    ("A4", {"delta": 0.05, "threshold": 2.5}, 2.128045234184983),
    ("A8", {"delta": 0.05, "threshold": 0.7}, 2.128045234184983),
])
def test_each_variant_uses_its_printed_quantile(variant, extra, quantile):
    """A1/A2/A5/A6: Phi^-1(1 - 1/(K t)) with K = 1 (Sec. V-C, eq 27); A3/A7: Phi^-1(1 - delta/2) (Sec. VI-B);
    A4/A8: Phi^-1(1 - delta/3) (Sec. VI-C)."""
    inst = GaussianInstance(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 1.0, 1.0, 3.0]), 2.0)
    kernel, params = policy_for(inst, {"variant": variant, **extra})
    if quantile == "schedule":
        assert math.isnan(params[1])
        prepared = kernel.prepare(params, 100)
        np.testing.assert_allclose(prepared[-100:], ndtri(1 - 1 / np.arange(1, 101)), rtol=0, atol=1e-12)
    else:
        assert params[1] == pytest.approx(quantile, abs=1e-12)
        assert quantile == pytest.approx(float(ndtri(1 - 0.05 / (3 if variant in ("A4", "A8") else 2))), abs=1e-12)
