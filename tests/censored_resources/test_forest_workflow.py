"""The `ames_forest` switch in the workflow (dry runs in a copy of the repository): which jobs each mode plans."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from banditrepro.experiments.censored_resources import forest_dag
from banditrepro.experiments.spec import load_paper

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Tracked and untracked-but-not-ignored files (a fresh clone), with ../shared beside it as in CI."""
    root = tmp_path_factory.mktemp("forest_wf")
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO_ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        if (REPO_ROOT / f).is_file():
            (root / "repo" / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / f, root / "repo" / f)
    if (REPO_ROOT.parent / "shared").exists():
        (root / "shared").symlink_to(REPO_ROOT.parent / "shared")
    return root / "repo"


def dry_run(repo: Path, *config: str, check: bool = True) -> tuple[dict, str]:
    """({rule: planned job count}, stderr) of `snakemake -n censored_resources --config scale=smoke ...`."""
    env = {k: v for k, v in os.environ.items() if k != "BANDITREPRO_DATA_MIRROR"}
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--directory", str(repo), "--snakefile",
                           str(repo / "Snakefile"), "censored_resources", "--config", "scale=smoke", *config],
                          capture_output=True, text=True, env=env)
    out = proc.stdout + proc.stderr
    if check:
        assert proc.returncode == 0, out[-6000:]
    stats = out.split("Job stats:")[1] if "Job stats:" in out else ""
    jobs = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)}
    return jobs, out


@pytest.mark.slow
def test_cached_plans_no_forest_job(repo):
    jobs, out = dry_run(repo)  # the default: ames_forest: cached
    assert jobs["censored_resources_forest_cached"] == 1
    assert not any(rule.startswith("censored_resources_forest_chunk") for rule in jobs)
    assert "data_fetch" not in jobs  # the shipped table needs no AmesHousing data
    assert "censored_resources fig5 skipped" not in out


@pytest.mark.slow
def test_recompute_plans_one_job_per_run_and_mtry(repo):
    jobs, out = dry_run(repo, "ames_forest=recompute")
    if "dataset ameshousing unavailable" in out:
        # a clone without the data mirror (and offline): recomputing needs AmesHousing, so the workflow says
        # so in one line and plans neither the forests nor fig5, instead of a download job that must fail
        assert "censored_resources fig5 skipped: needs ameshousing" in out
        assert not any(rule.startswith("censored_resources_forest") for rule in jobs)
        return
    grid = forest_dag.forest_grid(load_paper("censored_resources", "smoke", REPO_ROOT))
    assert jobs["censored_resources_forest_chunk"] == grid["runs"] * len(grid["mtry"])
    assert jobs["censored_resources_forest_table"] == 1 and jobs["censored_resources_forest_recomputed"] == 1
    assert "censored_resources_forest_cached" not in jobs


@pytest.mark.slow
def test_off_skips_the_ames_parts_with_one_notice(repo):
    on, _ = dry_run(repo)
    off, out = dry_run(repo, "ames_forest=off")
    notices = [line for line in out.splitlines() if line.startswith("banditrepro: censored_resources")]
    assert notices == [f"banditrepro: censored_resources {figure} skipped: ames_forest=off (the AmesHousing forest "
                       "table is switched off)" for figure in ("fig5", "reading_ames")]
    assert not any(rule.startswith("censored_resources_forest") for rule in off)
    # fig5 and the Ames readings' figure (one summary, one plot each), the shards of the four Ames experiments
    # (ames and its shuffled, ms and cs readings) and the three Ames tables (table_ames, forest_cost,
    # ames_table_sources) are gone; the rest stays
    assert on["summarize_figure"] - off["summarize_figure"] == 2
    assert on["plot_figure"] - off["plot_figure"] == 2
    assert on["simulate_shard"] - off["simulate_shard"] == 4
    assert on["table"] - off["table"] == 3
    assert off["claims"] == 1 and off["paper_report"] == 1


@pytest.mark.slow
def test_a_bad_value_stops_the_run_naming_the_key(repo):
    _, out = dry_run(repo, "ames_forest=sometimes", check=False)
    assert "ames_forest" in out and "sometimes" in out and "Job stats" not in out
