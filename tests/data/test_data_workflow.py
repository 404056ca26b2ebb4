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

SNAKEFILE = f"""
from pathlib import Path

configfile: "config.yaml"

REPO_ROOT = Path(workflow.basedir).resolve()

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
    assert "fetched and verified" in report[0] and "fetched and verified" in report[1]
    assert report[2].startswith("outbrain: NOT AVAILABLE") and "kaggle.json" in report[2]
    assert (project / "data" / "processed" / "movielens_1m" / "movie_rating_histograms.csv").is_file()
    assert (project / "data" / "processed" / "ameshousing" / "ames_model_table.csv").is_file()
    assert not (project / "data" / "raw" / "outbrain").exists()
