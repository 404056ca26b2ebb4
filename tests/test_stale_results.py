"""No stale results (docs/reproducibility.md, "No stale results"): after an edit to a kernel a paper imports, a
build reruns the paper's jobs, and `verify` never says OK on results the edited code did not make; nor on
results made from another config (a claim threshold edited since) or by other workflow scripts, which
`--rerun-triggers mtime` keeps.

One scratch clone holds a smoke build of the cheapest paper (copied from the session's reference build, with
Snakemake's records). Its jobs and Snakemake import the clone's own sources (PYTHONPATH), as a fresh clone's
would. Only dry runs and `verify` run here: no simulation is repeated.
"""

from __future__ import annotations

import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest
from repo_copy import CHEAP_PAPER, copy_build, copy_repo, run_snakemake

pytestmark = pytest.mark.slow

SMOKE = ("--config", "scale=smoke", f"papers=[{CHEAP_PAPER}]")
# what verify tells to run then: the rebuild and the next verify keep papers= (else they would run every paper)
REBUILD = f"snakemake --cores 2 {CHEAP_PAPER} --config scale=smoke 'papers=[{CHEAP_PAPER}]' --forcerun simulate_shard"
THEN = f"snakemake --cores 2 verify --config scale=smoke 'papers=[{CHEAP_PAPER}]'"
# a claim threshold of the cheap paper (its config), and a workflow script its tables are made by
THRESHOLD = (f"config/papers/{CHEAP_PAPER}.yaml", "max_relative: 0.005}", "max_relative: 0.004}")
TABLE_SCRIPT = ("workflow/scripts/table.py", "    df = build_table(ctx, w.table)\n",
                "    df = build_table(ctx, w.table)\n    df = df.head(len(df))\n")
HANDOFF = ("workflow/scripts/worker_handoff.py", "PROTOCOL = 1\n", "PROTOCOL = 1  # edited\n")
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
    assert f"`{REBUILD}`" in text


def test_an_edited_kernel_reruns_the_paper_or_verify_refuses_its_results(built_clone):
    check_stale_results(built_clone)


# ------------------------------------------------------------------- another config, other workflow scripts


@pytest.fixture
def smoke_copy(smoke_build, tmp_path, monkeypatch) -> Path:
    """A copy of the session's smoke build of the cheap paper (Snakemake finds it up to date)."""
    repo = copy_build(smoke_build(CHEAP_PAPER), tmp_path / "repo")
    monkeypatch.setenv("PYTHONPATH", str(repo / "src"))
    return repo


@contextmanager
def _edited(repo: Path, edit: tuple[str, str, str]):
    """``edit`` applied within; afterwards the file as built, with its times (so no rerun trigger sees it)."""
    path = repo / edit[0]
    text, times = path.read_bytes(), path.stat()
    _edit(repo, edit)
    try:
        yield
    finally:
        path.write_bytes(text)
        os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


def _named(text: str) -> list[str]:
    """The result files a refusal names (one per line, with what differs)."""
    return re.findall(r"^    (results/\S+) \(", text, re.M)


def _refused(proc, what: str) -> str:
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0, text[-3000:]
    assert "verify OK" not in text
    assert f"verify FAILED at scale smoke: results built from {what} than this tree's" in text, text[-3000:]
    assert f"`{REBUILD}`, then `{THEN}`" in text, text[-3000:]  # papers= kept in both commands
    return text


def test_a_threshold_or_script_edit_kept_by_mtime_triggers_is_refused_naming_the_file(smoke_copy):
    """Issue 53: with --rerun-triggers mtime (or no Snakemake records) nothing reruns after an edit to a claim
    threshold or to a workflow script; verify used to say OK. It names each result, the config key or the script."""
    repo = smoke_copy
    proc = verify(repo, "--rerun-triggers", "mtime")
    # the fresh build's records agree with what verify computes from the tree (lock.result_configs, the rules' scripts)
    assert proc.returncode == 0 and "verify OK at scale smoke" in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]

    with _edited(repo, THRESHOLD):
        text = _refused(verify(repo, "--rerun-triggers", "mtime"), "another config")
    assert re.search(rf"    results/{CHEAP_PAPER}/claims\.csv \(config differs at claims\[\d+\]\.check\.max_relative: "
                     rf"recorded 0\.005, this tree's 0\.004; config/papers/{CHEAP_PAPER}\.yaml\)", text), text[-3000:]
    assert _named(text) == [f"results/{CHEAP_PAPER}/claims.csv"]  # the threshold is in no other result's config

    with _edited(repo, TABLE_SCRIPT):
        text = _refused(verify(repo, "--rerun-triggers", "mtime"), "other workflow scripts")
    assert re.search(rf"    results/{CHEAP_PAPER}/tables/\w+\.csv \(workflow script workflow/scripts/table\.py of rule "
                     r"table differs\)", text), text[-3000:]
    assert _named(text) and all(re.fullmatch(rf"results/{CHEAP_PAPER}/tables/\w+\.csv", f) for f in _named(text))

    # a module the scripts import: no rerun trigger covers it (not even the default ones), so nothing reruns,
    # and every result made through it is refused
    with _edited(repo, HANDOFF):
        assert dry_run(repo) == {}
        text = _refused(verify(repo), "other workflow scripts")
    assert re.search(rf"    results/{CHEAP_PAPER}/\S+ \(workflow script workflow/scripts/worker_handoff\.py of rule \w+ "
                     r"differs\)", text), text[-3000:]
    proc = verify(repo)  # as built again
    assert proc.returncode == 0 and "verify OK at scale smoke" in proc.stdout + proc.stderr
