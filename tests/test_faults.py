"""Fault tests: real Snakemake runs on temporary copies of the project at smoke scale (cheapest paper).

- a build (of two figures) stopped by SIGTERM in the middle of a simulation job resumes and ends byte-identical;
- a truncated or corrupted shard makes the summarize job fail naming the file, writing no summary.csv;
- after deleting a damaged shard as advised, the next build rebuilds every missing output;
- a failed shard write leaves no temporary file; `python -m banditrepro.bench` rejects bad counts (exit 2);
- a second snakemake in the same directory while one runs stops with a clear message, damaging nothing;
- a build at one scale does not silently replace results built at the other.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from repo_copy import (
    CHEAP_PAPER,
    SNAKEMAKE,
    copy_build,
    copy_repo,
    result_bytes,
    run_snakemake,
    snakemake_env,
)

from banditrepro.engine import SimulationOutput
from banditrepro.shards import ShardError, load_shards, read_shard, save_shard

SMOKE = ("--config", "scale=smoke")
PAPER_CMD = ("--cores", "2", CHEAP_PAPER, *SMOKE)
# Two figures' plots and claims: two simulation shards (mean_reward and robust, side by side on 2 cores), their
# summaries, plots and claims; 8 of the paper's 37 jobs. The run that is stopped and resumed builds these.
FIGURES = ("fig1", "fig4")
FIGURE_TARGETS = tuple(t for f in FIGURES for t in (f"figures/{CHEAP_PAPER}/{f}.png", f"results/{CHEAP_PAPER}/claims/{f}.csv"))
FIGURES_CMD = ("--cores", "2", *FIGURE_TARGETS, *SMOKE)


def _start(repo: Path, *args: str) -> subprocess.Popen:
    # its own session, so that a signal reaches snakemake and its jobs as a CI runner's cancel would
    return subprocess.Popen([*SNAKEMAKE, "--directory", str(repo), "--snakefile", str(repo / "Snakefile"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=snakemake_env(repo),
                            start_new_session=True)


def _running_simulation(repo: Path) -> Path | None:
    """The shard of a simulation job that has started (its log exists) and not finished (no shard yet)."""
    for log in (repo / "logs" / CHEAP_PAPER / "simulate").glob("*/*.log"):
        shard = repo / "results" / CHEAP_PAPER / "shards" / log.parent.name / f"{log.stem}.npz"
        if not shard.exists():
            return shard
    return None


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 600.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(f"snakemake ended (rc {proc.returncode}) before the awaited moment:\n{out[-4000:]}")
        time.sleep(0.02)
    raise AssertionError("timed out waiting for the build to reach the awaited moment")


def _differences(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


def _figures_differ_from(repo: Path, reference: Path) -> list[str]:
    """The files of ``repo``'s FIGURES build that are missing (the targets) or differ from ``reference``'s."""
    built, expected = result_bytes(repo, CHEAP_PAPER), result_bytes(reference, CHEAP_PAPER)
    assert sum(p.endswith(".npz") for p in built) == 2, sorted(built)
    return sorted({t for t in FIGURE_TARGETS if t not in built} | {p for p in built if built[p] != expected.get(p)})


@pytest.mark.slow
def test_sigterm_mid_simulation_resumes_byte_identical(tmp_path, cheap_paper_reference):
    """Two figures of the cheapest paper (FIGURES: two shards side by side) are built, stopped by SIGTERM while a
    simulation runs, and resumed by the same command: every file equals the paper's uninterrupted smoke build."""
    repo = copy_repo(tmp_path / "repo")
    proc = _start(repo, *FIGURES_CMD)
    shard = _wait_for(lambda: _running_simulation(repo), proc)
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode != 0, f"the build ended normally before SIGTERM could stop it:\n{out[-3000:]}"
    if shard.exists():  # the job finished in the instant before the signal: then the shard is whole
        read_shard(shard)
    assert not all((repo / t).exists() for t in FIGURE_TARGETS)

    run_snakemake(repo, *FIGURES_CMD)  # the documented resume: the same command again
    different = _figures_differ_from(repo, cheap_paper_reference)
    assert not different, f"resumed build differs: {different[:10]}"


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_damaged_shard_fails_summarize_naming_the_file(tmp_path, cheap_paper_reference, damage):
    repo = copy_build(cheap_paper_reference, tmp_path / "repo")
    summary = repo / "results" / CHEAP_PAPER / "fig1" / "summary.csv"
    shard = min((repo / "results" / CHEAP_PAPER / "shards" / "mean_reward").glob("*.npz"))
    data = shard.read_bytes()
    if damage == "truncated":
        shard.write_bytes(data[: len(data) // 2])
    else:  # same length, bytes in the middle of the compressed arrays overwritten
        middle = len(data) // 2
        shard.write_bytes(data[:middle] + bytes(b ^ 0xFF for b in data[middle:middle + 64]) + data[middle + 64:])
    summary.unlink()

    proc = run_snakemake(repo, "--cores", "1", str(summary.relative_to(repo)), *SMOKE, "--show-failed-logs",
                         check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"summarize succeeded on a {damage} shard:\n{out[-3000:]}"
    rel = str(shard.relative_to(repo))
    assert rel in out and "truncated or corrupted" in out, f"the failure does not name {rel}:\n{out[-4000:]}"
    assert not summary.exists(), "a summary.csv was written from a damaged shard"


@pytest.mark.slow
def test_deleting_a_damaged_shard_as_advised_rebuilds_every_missing_output(tmp_path, cheap_paper_reference):
    """The failed summarize jobs remove their summary.csv and reference.csv; after the damaged shard is deleted
    as the message advises, the paper target rebuilds the shard and every missing file (it used to say "Nothing
    to be done": Snakemake does not rebuild a missing intermediate file while what was made from it exists)."""
    repo = copy_build(cheap_paper_reference, tmp_path / "repo")
    shard = min((repo / "results" / CHEAP_PAPER / "shards" / "mean_reward").glob("*.npz"))
    data = bytearray(shard.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    shard.write_bytes(bytes(data))
    failed = run_snakemake(repo, *PAPER_CMD, check=False)
    out = failed.stdout + failed.stderr
    assert failed.returncode != 0 and "delete it and rerun" in out, out[-3000:]
    missing = _differences(result_bytes(repo, CHEAP_PAPER), result_bytes(cheap_paper_reference, CHEAP_PAPER))
    assert any(p.endswith("summary.csv") for p in missing), f"no summary was removed by the failure: {missing}"

    shard.unlink()
    rebuilt = run_snakemake(repo, *PAPER_CMD)
    assert "Nothing to be done" not in rebuilt.stdout + rebuilt.stderr
    built, reference = result_bytes(repo, CHEAP_PAPER), result_bytes(cheap_paper_reference, CHEAP_PAPER)
    assert not _differences(built, reference), f"not rebuilt or different: {_differences(built, reference)[:10]}"


def test_a_failed_shard_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    """save_shard writes <name>.npz.tmp and renames it; a write that fails (disk full) removes the .tmp."""
    results = {"A": SimulationOutput(checkpoints=np.arange(1, 4), curves={"regret": np.ones((2, 3))}, finals={},
                                     pulls=None)}
    written = []

    def disk_full(self, data):
        written.append(self)
        with open(self, "wb") as handle:
            handle.write(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    with pytest.raises(OSError, match="No space left"):
        save_shard(tmp_path / "r000000-000002.npz", results, 0, 2, {"seed": 1})
    assert written == [tmp_path / "r000000-000002.npz.tmp"]
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    save_shard(tmp_path / "r000000-000002.npz", results, 0, 2, {"seed": 1})  # and a good write still works
    assert [p.name for p in tmp_path.iterdir()] == ["r000000-000002.npz"]
    assert read_shard(tmp_path / "r000000-000002.npz")["replications"].tolist() == [0, 2]


BAD_COUNTS = ["--reps=0", "--reps=-5", "--horizon=1", "--naive-reps=0", "--reps=many"]
# `python -m banditrepro.bench <argument>` for each argument in one child (runpy runs the module as -m does), so
# that the package and numba are imported once: [exit status, stderr] per argument
BENCH_CHILD = """
import contextlib, io, json, runpy, sys, traceback
results = {}
for argument in json.loads(sys.argv[1]):
    sys.argv = [sys.argv[0], argument]
    err, status = io.StringIO(), 0
    with contextlib.redirect_stderr(err):
        try:
            runpy.run_module("banditrepro.bench", run_name="__main__", alter_sys=True)
        except SystemExit as stop:
            status = stop.code
        except BaseException:
            traceback.print_exc()
            status = 1
    results[argument] = [status, err.getvalue()]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def bench_with_bad_counts() -> dict[str, list]:
    proc = subprocess.run([sys.executable, "-c", BENCH_CHILD, json.dumps(BAD_COUNTS)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("argument", BAD_COUNTS)
def test_bench_rejects_a_bad_count_with_a_usage_error(bench_with_bad_counts, argument):
    status, stderr = bench_with_bad_counts[argument]
    assert status == 2, stderr[-2000:]
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith(f"bench.py: error: argument {argument.split('=')[0]}: ")


@pytest.mark.slow
def test_second_snakemake_in_the_same_directory_stops_and_damages_nothing(tmp_path, cheap_paper_reference):
    """While the paper builds, the same build started again in the same directory stops with a clear message;
    the first ends byte-identical to the paper's smoke build. (The whole paper, not FIGURES: the second run must
    start while the first still runs, and a build of two figures could end while the second plans its DAG.)"""
    repo = copy_repo(tmp_path / "repo")
    first = _start(repo, *PAPER_CMD)
    _wait_for(lambda: _running_simulation(repo), first)
    second = run_snakemake(repo, *PAPER_CMD, check=False, timeout=600)
    first_out, _ = first.communicate(timeout=900)
    out = second.stdout + second.stderr
    assert second.returncode != 0, f"a second snakemake ran beside the first:\n{out[-3000:]}"
    # Snakemake stops a second run at its directory lock, or earlier, while building the DAG, at the first run's
    # in-progress outputs (marked incomplete); which one depends on how far the first run has got. Both stop it
    # before it runs or deletes anything.
    assert "cannot be locked" in out or "IncompleteFilesException" in out, \
        f"no clear message from the second snakemake:\n{out[-3000:]}"
    assert first.returncode == 0, f"the first build was damaged by the second:\n{first_out[-4000:]}"
    built, reference = result_bytes(repo, CHEAP_PAPER), result_bytes(cheap_paper_reference, CHEAP_PAPER)
    assert not _differences(built, reference), f"outputs differ: {_differences(built, reference)[:10]}"


def test_load_shards_tiles_from_the_replication_asked(tmp_path):
    """A whole experiment's shards start at replication 0; one later shard (a mutant job copies the main
    build's shard r50-100) is read with ``first`` at its own start."""
    later = tmp_path / "r000050-000100.npz"
    np.savez_compressed(later, replications=np.array([50, 100]), **{"A/checkpoints": np.arange(5),
                                                                     "A/curve/regret": np.ones((50, 5))})
    assert load_shards([later], first=50)["A"].curves["regret"].shape == (50, 5)
    with pytest.raises(ValueError, match="gap or overlap at replication 0"):
        load_shards([later])


@pytest.mark.parametrize("damage", ["truncated", "corrupted", "empty", "not a shard"])
def test_load_shards_names_a_damaged_file(tmp_path, damage):
    good, bad = tmp_path / "r000000-000002.npz", tmp_path / "r000002-000004.npz"
    for path, (a, b) in ((good, (0, 2)), (bad, (2, 4))):
        np.savez_compressed(path, replications=np.array([a, b]), **{"A/checkpoints": np.arange(50),
                                                                     "A/curve/regret": np.ones((2, 50))})
    data = bad.read_bytes()
    if damage == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    elif damage == "corrupted":
        middle = len(data) // 2
        bad.write_bytes(data[:middle] + bytes(b ^ 0xFF for b in data[middle:middle + 16]) + data[middle + 16:])
    elif damage == "empty":
        bad.write_bytes(b"")
    else:
        np.savez_compressed(bad, something=np.ones(3))
    assert load_shards([good])["A"].curves["regret"].shape == (2, 50)
    with pytest.raises(ShardError, match=str(bad)):
        load_shards([good, bad])


@pytest.mark.slow
def test_a_build_at_the_other_scale_stops_instead_of_replacing_results(tmp_path, cheap_paper_reference):
    """results/ built at one scale: a build at the other stops before running anything, saying how to proceed
    (replace_results=true, or move results/ away); with replace_results=true it goes ahead."""
    repo = copy_build(cheap_paper_reference, tmp_path / "repo")
    smoke_results = result_bytes(repo, CHEAP_PAPER)
    stopped = run_snakemake(repo, "--cores", "2", CHEAP_PAPER, "--config", "scale=paper", check=False)
    out = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0, f"a paper-scale build ran over smoke results:\n{out[-3000:]}"
    assert "results/ holds smoke-scale results" in out and "nothing was run" in out, out[-3000:]
    assert "replace_results=true" in out and "mv results results.old" in out
    assert not _differences(result_bytes(repo, CHEAP_PAPER), smoke_results), "results changed"

    # the other way round: results recorded as paper scale (their sidecars say so), one summary missing
    for sidecar in (repo / "results" / CHEAP_PAPER).glob("*/*.csv.provenance.json"):
        sidecar.write_text(sidecar.read_text().replace('"scale": "smoke"', '"scale": "paper"'))
    summary = repo / "results" / CHEAP_PAPER / "fig1" / "summary.csv"
    summary.unlink()
    stopped = run_snakemake(repo, *PAPER_CMD, check=False)
    out = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0 and "results/ holds paper-scale results" in out, out[-3000:]
    assert not summary.exists()
    run_snakemake(repo, *PAPER_CMD, "replace_results=true")
    assert summary.read_bytes() == smoke_results[str(summary.relative_to(repo))]
