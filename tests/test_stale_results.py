"""No stale results (docs/reproducibility.md, "No stale results"): after an edit to a kernel a paper imports, a
build reruns the paper's jobs, and `verify` never says OK on results the edited code did not make.

One scratch clone holds a smoke build of the cheapest paper (copied from the session's reference build, with
Snakemake's records). Its jobs and Snakemake import the clone's own sources (PYTHONPATH), as a fresh clone's
would. Only dry runs and `verify` run here: no simulation is repeated.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from repo_copy import CHEAP_PAPER, copy_repo, run_snakemake

pytestmark = pytest.mark.slow

SMOKE = ("--config", "scale=smoke", f"papers=[{CHEAP_PAPER}]")
# a kernel the cheap paper runs (satisficing_ucl: the UCL posterior sd) and one it never imports
IMPORTED = ("src/banditrepro/algorithms/ucl.py", "/ math.sqrt(n)", "/ math.sqrt(n + 1)")
NOT_IMPORTED = ("src/banditrepro/algorithms/fairness.py", "ucb = mean[k] + radius_scale * inv_sqrt_n[k]",
                "ucb = mean[k] + 2.0 * radius_scale * inv_sqrt_n[k]")


def _edit(repo: Path, edit: tuple[str, str, str]) -> None:
    rel, old, new = edit
    text = (repo / rel).read_text()
    assert text.count(old) == 1, f"{rel} no longer holds {old!r} once: update this test"
    (repo / rel).write_text(text.replace(old, new))


def job_stats(output: str) -> dict[str, int]:
    """{rule: jobs} of a dry run's "Job stats" table ({} when there is nothing to do)."""
    if "Job stats:" not in output:
        return {}
    stats = {}
    for line in output.split("Job stats:", 1)[1].splitlines()[3:]:
        found = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if not found:
            break
        stats[found.group(1)] = int(found.group(2))
    stats.pop("total", None)
    return stats


def dry_run(repo: Path, *args: str) -> dict[str, int]:
    proc = run_snakemake(repo, "-n", CHEAP_PAPER, *args, *SMOKE)
    return job_stats(proc.stdout + proc.stderr)


def verify(repo: Path, *args: str):
    return run_snakemake(repo, "--cores", "1", "verify", *args, *SMOKE, check=False)


@pytest.fixture
def built_clone(cheap_paper_reference, tmp_path, monkeypatch) -> Path:
    """A fresh clone holding the reference smoke build of the cheap paper and Snakemake's records of it."""
    repo = copy_repo(tmp_path / "repo")
    for top in ("results", "figures", ".snakemake/metadata"):
        if (cheap_paper_reference / top).exists():
            shutil.copytree(cheap_paper_reference / top, repo / top, symlinks=True, dirs_exist_ok=True)
    # Snakemake (which computes the sources digest) and its jobs import the clone's package, not the one the
    # tests run from
    monkeypatch.setenv("PYTHONPATH", str(repo / "src"))
    return repo


def check_stale_results(repo: Path) -> None:
    """What a contributor sees in ``repo`` (a built clone) after editing a kernel."""
    every_job = dry_run(repo, "--forceall")
    assert every_job.get("simulate_shard", 0) > 0, every_job
    assert dry_run(repo) == {}, "the copied build is not current: the test cannot tell a rerun from a stale copy"

    # a kernel the paper never imports reruns none of its jobs
    _edit(repo, NOT_IMPORTED)
    assert dry_run(repo) == {}, f"an edit to {NOT_IMPORTED[0]}, which {CHEAP_PAPER} never imports, reruns its jobs"

    # a kernel it imports reruns every job of the paper, simulations first
    _edit(repo, IMPORTED)
    rerun = dry_run(repo)
    assert rerun == every_job, f"after an edit to {IMPORTED[0]} a build reruns {rerun}, not every job {every_job}"

    # kept by --rerun-triggers mtime (nothing reruns), the stale results are refused: never OK
    proc = verify(repo, "--rerun-triggers", "mtime")
    _assert_refused(proc)

    # copied in without Snakemake's records (nothing reruns either): refused as well, and the command it names
    # reruns every job of the paper
    shutil.rmtree(repo / ".snakemake" / "metadata")
    proc = verify(repo)
    _assert_refused(proc)
    assert dry_run(repo, "--forcerun", "simulate_shard") == every_job, "the rebuild command verify names falls short"


def _assert_refused(proc) -> None:
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text[-3000:]
    assert "verify OK" not in text
    assert "verify FAILED at scale smoke: results built from other package sources than this tree's" in text
    assert re.search(rf"results/{CHEAP_PAPER}/\S+ \(sources [0-9a-f]{{12}}\)", text), text[-3000:]
    assert f"`snakemake --cores 2 {CHEAP_PAPER} --config scale=smoke --forcerun simulate_shard`" in text


def test_an_edited_kernel_reruns_the_paper_or_verify_refuses_its_results(built_clone):
    check_stale_results(built_clone)
