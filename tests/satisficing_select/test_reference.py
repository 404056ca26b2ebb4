"""The reference guards (select_matches_reference): the build's runs against the end-to-end reference.

The reference (src/banditrepro/experiments/satisficing_select/reference.py) builds its own instances, grids,
rewards, learners, SELECT loop and regrets from the paper, so besides a policy bug it sees a bug in an instance, the
reward draws, SELECT's loop, Agarwal's algorithm or a metric. The last tests plant such bugs in the build and require
the guard to fail. A bug inside a compiled loop is planted in the loop's Python twin (``py_func``, the same source
run by the interpreter, with the patched line): a control test shows the unpatched twin passes the guard, so the
failures come from the bugs.
"""

import dataclasses
import inspect
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from shard_context import shard_context

from banditrepro.algorithms import convex_1d
from banditrepro.algorithms import select as select_alg
from banditrepro.environments import continuous
from banditrepro.experiments.satisficing_select import builders, loops
from banditrepro.experiments.satisficing_select import reference as ref
from banditrepro.experiments.satisficing_select.checks import matches_reference
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC = load_paper("satisficing_select", "smoke", REPO_ROOT)


def _context(tmp_path, experiment, **kwargs):
    return shard_context(SPEC, experiment, tmp_path, **kwargs)


# slow: each case simulates a whole experiment twice (the build's kernels and the reference), tens of
# CPU-seconds with the first compiles; the full suite runs them, the fast loop does not
@pytest.mark.slow
@pytest.mark.parametrize("experiment", list(SPEC.experiments))
def test_the_build_equals_the_reference(tmp_path, experiment):
    """Every algorithm of every experiment, SELECT and its variants included, to the bit (curves and finals)."""
    algorithms = list(SPEC.experiments[experiment].algorithms)
    res = matches_reference(_context(tmp_path, experiment), [experiment], algorithms, replications=2)
    assert res.verdict == "reproduced", res.measured
    assert res.measured.startswith(f"{len(algorithms)}/{len(algorithms)} ")


# slow: the guard runs the build's loops and the reference end to end (on an empty numba cache, their first
# compiles); the full suite runs it, the fast loop does not
@pytest.mark.slow
def test_a_run_that_differs_fails(tmp_path):
    def one_more_round(results):
        results["select"].finals["rounds_started"][1] += 1.0

    ctx = _context(tmp_path, "finite_realizable", algorithms=["thompson", "select"], edit=one_more_round)
    res = matches_reference(ctx, ["finite_realizable"], ["thompson", "select"], replications=2)
    assert res.verdict == "not_reproduced"
    assert res.measured.startswith("1/2 ") and "finite_realizable/select: final rounds_started differs" in res.measured


def test_an_experiment_or_algorithm_the_reference_does_not_know_is_an_error():
    exp = SPEC.experiments["finite_realizable"]
    keys = np.array([1], np.uint64)
    with pytest.raises(ValueError, match="no finite_realizable/select_v9"):
        ref.REFERENCE.run(exp, "select_v9", keys, keys, np.array([100]))
    with pytest.raises(ValueError, match="does not run"):
        ref.REFERENCE.run(exp, "convex", keys, keys, np.array([100]))
    with pytest.raises(ValueError, match="without Step 1"):
        ref.REFERENCE.run(exp, "select_no_step1", keys, keys, np.array([100]))


def test_the_reference_transcribes_the_paper():
    """Spot checks against the paper and the digest: Sec. 6's instances, the grids of digest §3 and the schedule of
    digest §2.1."""
    inst = ref.SETTINGS["lipschitz_realizable"].instance
    assert ref.SETTINGS["finite_realizable"].instance.params == (0.6, 0.7, 0.8, 1.0)
    assert ref.mean_at(ref.CONCAVE, np.array(ref.SEC_6_2.params), 0.25, 0.0) == 1.0
    assert ref.mean_at(ref.CONCAVE, np.array(ref.SEC_6_2.params), 1.0, 0.0) == -8.0
    assert ref.mean_at(ref.BUMP, np.array(inst.params), 0.55, 0.7) == 1.0  # inside the plateau
    assert round(inst.lipschitz, 3) == 29.646
    cells = [ref.grid_cells(inst.lipschitz, T, 2) for T in range(500, 5001, 500)]
    assert cells == [12, 14, 15, 16, 17, 18, 18, 19, 20, 20]  # digest §3, Fig 4
    assert [ref.grid_cells(24.0, T, 1) for T in range(500, 5001, 500)] == [23, 29, 34, 37, 40, 42, 44, 46, 48, 50]
    # the rounds of Algorithm 1 (alpha = 3/4): (t_i, T_i) = (3, 2), (7, 3), (16, 4), (41, 7) (digest §2.1)
    out = ref.REFERENCE.run(SPEC.experiments["lipschitz_realizable"], "select_no_step3", np.array([7], np.uint64),
                            np.array([8], np.uint64), np.array([5, 15, 35, 83]))
    assert out.curves["round"].tolist() == [[1.0, 2.0, 3.0, 4.0]]  # each round ends after t_i + T_i steps
    sigma = ref.SETTINGS["lipschitz_realizable_sigma"]
    assert sigma.units == 0.1 and sigma.level == 0.5 / 0.1 and sigma.instance.lipschitz == inst.lipschitz


@pytest.mark.parametrize("warm", [False, True])
def test_the_reference_v3_uniform_ucb_oracle_is_one_ucb_on_the_horizons_grid(warm):
    """V3 with Uniform UCB (resolution sensitivity_variants, issue 38), by hand: with horizon H = 31 the run is
    rounds 1-2 (t_i, T_i) = (3, 2), (7, 3) and round 3's Step 1 (16 steps, to t = 31), on Fig 4(b)'s level S = 1.5
    (no LCB test passes). Not restarted, the oracle is UCB(H) on the grid of H (M = ceil((31 L)^(1/4)) = 6, 36 cells,
    ln H) paused outside Step 1: its 26 Step-1 pulls are its first sweep, cells 0..25 in index order, across the
    rounds. Restarted (the printed Algorithm 1), each round sweeps the grid of its own t_i from cell 0."""
    setting = ref.SETTINGS["lipschitz_nonrealizable_v3"]
    assert setting == ref.SETTINGS["lipschitz_nonrealizable"]  # the Fig 4(b) instance
    inst = setting.instance
    params = np.array(inst.params)
    out = ref.REFERENCE.run(SPEC.experiments["lipschitz_nonrealizable_v3"], "select_v3" if warm else "select",
                            np.array([3], np.uint64), np.array([4], np.uint64), np.arange(1, 32))
    assert out.curves["round"][0].tolist() == [1.0] * 5 + [2.0] * 10 + [3.0] * 16
    pulled = 1.0 - np.diff(out.curves["regret"][0], prepend=0.0)  # r(X_t) = r* - (the regret step t adds)
    step1 = np.r_[0:3, 5:12, 15:31]  # the Step-1 steps (0-based t - 1)
    if warm:
        assert ref.grid_cells(inst.lipschitz, 31, 2) == 6
        expected = ref.grid_means(inst.kind, params, 2, 6)[:26]
    else:  # grids of t_i = 3, 7, 16: 4, 4, 5 cells per axis (ceil((t_i L)^(1/4)))
        expected = np.concatenate([ref.grid_means(inst.kind, params, 2, m)[:t_i] for m, t_i in ((4, 3), (4, 7),
                                                                                             (5, 16))])
    np.testing.assert_allclose(pulled[step1], expected, rtol=0, atol=1e-12)


# --- planted bugs outside the policies, which the earlier (policy-only) reference could not see ------------------


def python_twin(monkeypatch, where, name, old=None, new=None):
    """Replace ``where.name`` (compiled, or plain Python) by its source run by the interpreter, with ``old`` ->
    ``new`` patched in (exactly once). The twin's globals are those of the module that defines it, looked up at
    call time, so what it calls may be replaced too."""
    func = getattr(where, name)
    func = getattr(func, "py_func", func)
    source = textwrap.dedent(inspect.getsource(func))
    source = "\n".join(line for line in source.splitlines() if not line.startswith("@"))
    if old is not None:
        assert source.count(old) == 1, f"{old!r} is not once in {name}"
        source = source.replace(old, new)
    twin = {}
    exec(compile(source, f"<{name} twin>", "exec"), vars(sys.modules[func.__module__]), twin)
    monkeypatch.setattr(where, name, twin[name])
    return twin[name]


@pytest.mark.slow
def test_the_python_twins_of_the_loops_pass(tmp_path, monkeypatch):
    """Control: the unpatched twins give the build's numbers, so the failures below come from the bugs."""
    for name in ("run_select", "run_convex_1d", "run_index_policy"):
        python_twin(monkeypatch, loops, name)
    res = matches_reference(_context(tmp_path, "concave_realizable", algorithms=["select", "convex", "sat_ucb"]),
                            ["concave_realizable"], ["select", "convex", "sat_ucb"], replications=2)
    assert res.verdict == "reproduced", res.measured


@pytest.mark.slow
def test_an_instance_bug_fails(tmp_path, monkeypatch):
    """The bump's Lipschitz constant in the Euclidean norm, 20 sqrt(ln 3) = 20.96 (digest §3), instead of the
    sup-norm 29.646: the grids of Uniform UCB change."""
    real = builders.make_environment

    def euclidean(spec):
        env = real(spec)
        return dataclasses.replace(env, lipschitz=20.0 * math.sqrt(math.log(3.0))) if env.dim == 2 else env

    monkeypatch.setattr(builders, "make_environment", euclidean)
    res = matches_reference(_context(tmp_path, "lipschitz_realizable", algorithms=["uniform_ucb"]),
                            ["lipschitz_realizable"], ["uniform_ucb"], replications=2)
    assert res.verdict == "not_reproduced" and "lipschitz_realizable/uniform_ucb" in res.measured, res.measured


@pytest.mark.slow
def test_a_reward_bug_fails(tmp_path, monkeypatch):
    """The noise of step t read at counter t - 1 (1-based steps read as 0-based counters), planted in the step
    draws that the index policies' loop tabulates once per replication (fill_step_draws -> step_draw)."""
    python_twin(monkeypatch, loops, "run_index_policy")
    python_twin(monkeypatch, loops, "fill_step_draws")  # its twin looks step_draw up in continuous at call time
    python_twin(monkeypatch, continuous, "step_draw", "noise(noise_key, t)", "noise(noise_key, t - 1)")
    res = matches_reference(_context(tmp_path, "finite_realizable", algorithms=["thompson"]), ["finite_realizable"],
                            ["thompson"], replications=2)
    assert res.verdict == "not_reproduced" and "finite_realizable/thompson: curve" in res.measured, res.measured


@pytest.mark.slow
def test_a_metric_bug_fails(tmp_path, monkeypatch):
    """The sigma run's satisficing regret not multiplied back by sigma (left in units of the instance r / sigma)."""
    monkeypatch.setattr(builders, "REWARD_UNIT_CURVES", ("regret", "reward"))
    res = matches_reference(_context(tmp_path, "lipschitz_realizable_sigma", algorithms=["sat_ucb"]),
                            ["lipschitz_realizable_sigma"], ["sat_ucb"], replications=2)
    assert res.verdict == "not_reproduced" and "curve satisficing_regret differs" in res.measured, res.measured


@pytest.mark.slow
def test_a_select_loop_bug_fails(tmp_path, monkeypatch):
    """Mutant select_candidate_last_step: Step 1's reservoir replaces the candidate at every step (u <= 1 instead
    of u s <= 1), so the candidate is the oracle's last arm -- the paper's statements could not tell it from the
    agarwal_last_query reading (docs/mutants.md)."""
    python_twin(monkeypatch, loops, "run_select", "rng.stream_uniform(stream) * s <= 1.0",
                "rng.stream_uniform(stream) <= 1.0")
    res = matches_reference(_context(tmp_path, "concave_realizable", algorithms=["select"]), ["concave_realizable"],
                            ["select"], replications=2)
    assert res.verdict == "not_reproduced" and "concave_realizable/select" in res.measured, res.measured


@pytest.mark.slow
def test_a_select_schedule_bug_fails(tmp_path, monkeypatch):
    """Mutant select_round_index_off_by_one: round i uses gamma_{i-1} (t_i and T_i one round behind)."""
    python_twin(monkeypatch, select_alg, "round_schedule", "2.0 ** (-i * (1.0 - alpha) / alpha)",
                "2.0 ** (-(i - 1) * (1.0 - alpha) / alpha)")
    res = matches_reference(_context(tmp_path, "ablation", algorithms=["select"]), ["ablation"], ["select"],
                            replications=2)
    assert res.verdict == "not_reproduced" and "ablation/select" in res.measured, res.measured


@pytest.mark.slow
def test_a_convex_algorithm_bug_fails(tmp_path, monkeypatch):
    """Mutant convex_samples_gamma_power: each point sampled 2 sigma^2 ln H / gamma times instead of / gamma^2."""
    python_twin(monkeypatch, loops, "run_convex_1d")
    for name in ("convex_reset", "convex_update"):  # they size the rounds with convex_1d._samples_per_point
        monkeypatch.setattr(loops, name, python_twin(monkeypatch, convex_1d, name))
    python_twin(monkeypatch, convex_1d, "_samples_per_point", "/ (gamma * gamma))", "/ gamma)")
    res = matches_reference(_context(tmp_path, "concave_nonrealizable", algorithms=["convex"]),
                            ["concave_nonrealizable"], ["convex"], replications=2)
    assert res.verdict == "not_reproduced" and "concave_nonrealizable/convex" in res.measured, res.measured
