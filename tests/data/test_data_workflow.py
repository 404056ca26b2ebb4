"""workflow/rules/data.smk through Snakemake, in a scratch project that includes only the data rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_SMK = REPO_ROOT / "workflow" / "rules" / "data.smk"
DATA_COMMON_SMK = REPO_ROOT / "workflow" / "rules" / "data_common.smk"

SNAKEFILE = f"""
from pathlib import Path

configfile: "config.yaml"

REPO_ROOT = Path(workflow.basedir).resolve()

include: "{DATA_COMMON_SMK}"
include: "{DATA_SMK}"
"""


def _project(tmp_path: Path, standin: bool) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Snakefile").write_text(SNAKEFILE)
    config = {"data": {"mirror": None, "raw_dir": "data/raw", "processed_dir": "data/processed",
                       "standin": standin}, "seed": 1}
    (project / "config.yaml").write_text(json.dumps(config))
    return project


def _snakemake(project: Path, mirror: Path, *args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAGGLE_")}
    env.update(BANDITREPRO_DATA_MIRROR=str(mirror), HOME=str(home), KAGGLE_CONFIG_DIR=str(home / ".kaggle"))
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_datasets_dag_uses_standins_only_when_asked(tmp_path, real_mirror):
    """With data.standin the Kaggle sets (not in the mirror) are planned from stand-ins; the real-data run
    below checks the default (no stand-in) DAG."""
    standin = True
    project = _project(tmp_path, standin)
    result = _snakemake(project, real_mirror, "-n", "datasets", home=tmp_path)
    assert result.returncode == 0, result.stderr
    dag = result.stdout + result.stderr
    for rule in ("data_preprocess_movielens_1m", "data_preprocess_ameshousing", "data_fetch"):
        assert rule in dag
    assert ("data_preprocess_outbrain_standin" in dag) is standin
    assert ("data_standin" in dag) is standin
    assert "data_preprocess_outbrain\n" not in dag and "rule data_preprocess_coupon:" not in dag


@pytest.mark.slow
@pytest.mark.needs_data
def test_datasets_target_builds_real_data_and_reports_one_line_each(tmp_path, real_mirror):
    project = _project(tmp_path, standin=False)
    result = _snakemake(project, real_mirror, "datasets", home=tmp_path)
    assert result.returncode == 0, result.stderr
    report = (project / "logs" / "data" / "datasets.log").read_text().splitlines()
    assert [line.split(":")[0] for line in report] == ["movielens_1m", "ameshousing", "outbrain", "coupon"]
    assert report[0].startswith("movielens_1m: fetched - verified") and report[1].startswith("ameshousing: fetched - ")
    assert report[2].startswith("outbrain: missing - ") and "kaggle.json" in report[2]
    assert (project / "data" / "processed" / "movielens_1m" / "movie_rating_histograms.csv").is_file()
    assert (project / "data" / "processed" / "ameshousing" / "ames_model_table.csv").is_file()
    assert not (project / "data" / "raw" / "outbrain").exists()


# Imported by every Python process of the run below (on PYTHONPATH): no socket reaches any host.
NO_NETWORK_SITECUSTOMIZE = '''
import socket

def _unreachable(*args, **kwargs):
    raise OSError(101, "Network is unreachable (test: no network)")

socket.create_connection = _unreachable
socket.getaddrinfo = _unreachable
socket.socket.connect = _unreachable
'''


@pytest.mark.slow
def test_main_command_without_network_or_mirror_says_what_is_missing_and_plans_no_data_job(tmp_path):
    """The README's main command (`snakemake --cores all`, downloads on) as a dry run on a machine with no
    network and an empty mirror: exit 0, one line per dataset that cannot be had (how to provide it) before the
    lines of the figures it skips, and no fetch, preprocessing or figure job that needs data in the plan."""
    from repo_copy import copy_repo

    (tmp_path / "place").mkdir()
    repo = copy_repo(tmp_path / "place" / "repo")
    shared = tmp_path / "place" / "shared"
    if shared.is_symlink():
        shared.unlink()  # no ../shared/data mirror either
    config = repo / "config" / "config.yaml"
    config.write_text(config.read_text().replace("allow_download: false", "allow_download: true"))
    (tmp_path / "empty-mirror").mkdir()
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(NO_NETWORK_SITECUSTOMIZE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAGGLE_")}
    env.update(BANDITREPRO_DATA_MIRROR=str(tmp_path / "empty-mirror"), HOME=str(tmp_path / "home"),
               KAGGLE_CONFIG_DIR=str(tmp_path / "home" / ".kaggle"), PYTHONPATH=str(tmp_path / "site"))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--directory", str(repo), "--snakefile",
                             str(repo / "Snakefile"), "-n", "--cores", "all"],
                            env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stderr.splitlines()
    announced = {line.split()[2]: line for line in lines if line.startswith("banditrepro: dataset ")}
    assert set(announced) == {"movielens_1m", "outbrain", "coupon"}, lines[:10]
    # each printed once: first what cannot be had and how to provide it, then the figures skipped for it
    assert all(lines.count(line) == 1 for line in announced.values())
    for name, line in announced.items():
        skipped = [i for i, other in enumerate(lines) if " skipped: needs " in other and name in other.split(" skipped: ")[1]]
        assert skipped and lines.index(line) < min(skipped), (name, lines[:12])
    empty_mirror = str(tmp_path / "empty-mirror")
    assert f"not in mirror {empty_mirror}" in announced["movielens_1m"]
    assert "BANDITREPRO_DATA_MIRROR" in announced["movielens_1m"]
    assert "ml-1m.zip unreachable" in announced["movielens_1m"] and "Network is unreachable" in announced["movielens_1m"]
    for kaggle_set in ("outbrain", "coupon"):
        assert "export KAGGLE_USERNAME and KAGGLE_KEY" in announced[kaggle_set]
    plan = result.stdout
    assert "rule simulate_shard:" in plan and "rule report:" in plan  # what needs no data is still built
    for needs_data in ("rule data_fetch:", "rule data_preprocess_", "figures/penalized_fairness/fig3.png",
                       "figures/composite_anonymous/fig5.png", "results/penalized_fairness/shards/s3_m"):
        assert needs_data not in plan, f"{needs_data} planned without its data"
