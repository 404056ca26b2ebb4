"""Runner: replication blocks, progress lines in the job log, per-experiment shard sizes."""

import io
import re
from pathlib import Path

import numpy as np
import pytest

from banditrepro.engine import SimulationOutput
from banditrepro.experiments.runner import Progress, concatenate_outputs, run_experiment_block
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[1]
SEED = 20171128


def _same(a: dict[str, SimulationOutput], b: dict[str, SimulationOutput]) -> bool:
    return a.keys() == b.keys() and all(
        all(np.array_equal(a[k].curves[c], b[k].curves[c]) for c in a[k].curves)
        and all(np.array_equal(a[k].finals[f], b[k].finals[f]) for f in a[k].finals)
        and ((a[k].pulls is None and b[k].pulls is None) or np.array_equal(a[k].pulls, b[k].pulls))
        for k in a)


# censored_resources' case is slow: its loop takes about 60 CPU-s to compile on an empty numba cache
CENSORED_F2_N20 = pytest.param("censored_resources", "f2_n20", marks=pytest.mark.slow)


@pytest.mark.parametrize("paper,experiment", [("satisficing_ucl", "mean_reward"), CENSORED_F2_N20])
def test_progress_blocks_and_shards_change_no_number(paper, experiment, request):
    """One block per replication, one block for all, and two shards give the same arrays."""
    if paper == "censored_resources":
        request.getfixturevalue("censored_simulate")  # compiled by one pytest worker (conftest.py)
    exp = load_paper(paper, "smoke", REPO_ROOT).experiments[experiment]
    n = exp.replications
    whole = run_experiment_block(exp, SEED, 0, n, log=io.StringIO(), progress_target_s=1e9)
    per_rep_log = io.StringIO()
    per_rep = run_experiment_block(exp, SEED, 0, n, log=per_rep_log, progress_target_s=0.0)
    assert _same(whole, per_rep)
    assert per_rep_log.getvalue().count("progress:") == n * len(exp.algorithms)  # one block per replication
    half = n // 2
    first = run_experiment_block(exp, SEED, 0, half, log=io.StringIO())
    second = run_experiment_block(exp, SEED, half, n, log=io.StringIO())
    joined = {a: concatenate_outputs([first[a], second[a]]) for a in first}
    assert _same(whole, joined)


@pytest.mark.parametrize("paper,experiment", [("satisficing_ucl", "mean_reward"), CENSORED_F2_N20])
def test_a_subset_of_algorithms_gets_the_numbers_of_a_full_run(paper, experiment, request):
    """The mutant rules rerun only a mutated algorithm and copy the rest: that is sound only if an
    algorithm's runs do not depend on which other algorithms ran."""
    if paper == "censored_resources":
        request.getfixturevalue("censored_simulate")  # compiled by one pytest worker (conftest.py)
    exp = load_paper(paper, "smoke", REPO_ROOT).experiments[experiment]
    whole = run_experiment_block(exp, SEED, 0, 4, log=io.StringIO())
    last = list(exp.algorithms)[-1:]
    alone = run_experiment_block(exp, SEED, 0, 4, log=io.StringIO(), algorithms=last)
    assert list(alone) == last
    assert _same({a: whole[a] for a in last}, alone)
    with pytest.raises(ValueError, match="no algorithm"):
        run_experiment_block(exp, SEED, 0, 4, log=io.StringIO(), algorithms=["not_here"])


def test_progress_lines_count_up_to_the_total_and_estimate_the_rest():
    exp = load_paper("satisficing_ucl", "smoke", REPO_ROOT).experiments["mean_reward"]
    log = io.StringIO()
    run_experiment_block(exp, SEED, 0, 4, log=log, progress_target_s=0.0)
    lines = [ln for ln in log.getvalue().splitlines() if "progress:" in ln]
    pattern = re.compile(r"progress: (\d+)/(\d+) replication runs done \((\S+) (\d+)/4\), elapsed ([\d.]+) s, "
                         r"about (\d+) s left")
    parsed = [pattern.search(ln) for ln in lines]
    assert all(parsed), lines[:3]
    done = [int(m.group(1)) for m in parsed]
    assert done == list(range(1, 4 * len(exp.algorithms) + 1))
    assert {int(m.group(2)) for m in parsed} == {4 * len(exp.algorithms)}
    assert int(parsed[-1].group(6)) == 0  # nothing left after the last block
    elapsed = [float(m.group(5)) for m in parsed]
    assert elapsed == sorted(elapsed)


def test_progress_estimate_by_hand():
    """Current algorithm at its own rate, algorithms not started at the mean rate seen so far."""
    class Exp:
        paper, id = "p", "e"
        algorithms = {"a": {}, "b": {}, "c": {}}

    p = Progress(Exp(), 0, 10, io.StringIO())
    p.advance("a", 10, 2.0)  # a done: 10 reps at 2 s
    p.advance("b", 4, 4.0)  # b: 4 of 10 at 4 s
    # b: 6 left * 4 s = 24 s; c: 10 reps * mean(2, 4) = 30 s
    assert p.remaining_seconds("b") == pytest.approx(54.0)
    assert "14/30 replication runs done (b 4/10)" in p.line("b")


def test_an_experiment_shard_size_overrides_the_global_one():
    spec = load_paper("censored_resources", "paper", REPO_ROOT)
    f2 = spec.experiments["f2_n80"]
    assert f2.shard_size == 10
    assert f2.job_shards(250) == [(a, a + 10) for a in range(0, 100, 10)]
    f1m1 = spec.experiments["f1m1_poscorr"]  # no shard_size of its own: the global one
    assert f1m1.shard_size is None and f1m1.job_shards(250) == [(0, 100)]


def test_the_first_call_of_each_algorithm_runs_under_the_builders_compile_lock(monkeypatch):
    """The call that compiles (the first replication block) takes numba_cache.compiling(<paper>-<builder>), so
    two jobs starting together on an empty cache do not compile the same loops at once; later blocks do not."""
    from contextlib import contextmanager

    from banditrepro.experiments import runner

    exp = load_paper("satisficing_ucl", "smoke", REPO_ROOT).experiments["mean_reward"]
    held = []
    calls = []

    @contextmanager
    def compiling(name):
        held.append(name)
        yield
        held.pop()

    real_build = runner.lookup(runner.SIMULATION_BUILDERS, "simulation builder", exp.builder)

    def build(exp_, algorithm):
        sim = real_build(exp_, algorithm)
        run = sim.run

        def recorded(noise, policy, checkpoints):
            calls.append((algorithm, len(noise), list(held)))
            return run(noise, policy, checkpoints)

        sim.run = recorded
        return sim

    monkeypatch.setattr(runner.numba_cache, "compiling", compiling)
    monkeypatch.setattr(runner, "lookup", lambda *args: build)
    run_experiment_block(exp, SEED, 0, exp.replications, log=io.StringIO(), progress_target_s=0.0)
    for algorithm in exp.algorithms:
        mine = [c for c in calls if c[0] == algorithm]
        assert mine[0][2] == [f"satisficing_ucl-{exp.builder}"] and mine[0][1] == 1
        assert all(c[2] == [] for c in mine[1:]) and len(mine) == exp.replications
