"""The lines a run prints about data it cannot have (workflow/rules/common.smk, ``announce_not_built``): only when
the run's targets reach a job that needs those data, and then each line once."""

from __future__ import annotations

import subprocess

import pytest
from repo_copy import REPO_ROOT, SNAKEMAKE, copy_repo, snakemake_env

from banditrepro.data import KAGGLE_DATASETS
from banditrepro.experiments.spec import discover_papers, load_paper


def notices(repo, env, target: str) -> list[str]:
    """The ``banditrepro:`` lines of ``snakemake -n <target>`` at smoke scale."""
    proc = subprocess.run([*SNAKEMAKE, "--directory", str(repo), "--snakefile", str(repo / "Snakefile"), "-n", target,
                           "--config", "scale=smoke"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return [line for line in proc.stderr.splitlines() if line.startswith("banditrepro: ")]


@pytest.mark.slow
def test_kaggle_lines_only_for_a_target_that_needs_kaggle_data_and_each_once(tmp_path):
    # an offline machine with an empty mirror and no Kaggle credentials: no data set can be had
    repo = copy_repo(tmp_path / "place" / "repo")
    config = repo / "config" / "config.yaml"
    config.write_text(config.read_text().replace("allow_download: true", "allow_download: false"))
    (tmp_path / "empty-mirror").mkdir()
    env = {k: v for k, v in snakemake_env(repo).items() if not k.startswith("KAGGLE_")}
    env.update(BANDITREPRO_DATA_MIRROR=str(tmp_path / "empty-mirror"), HOME=str(tmp_path / "home"),
               KAGGLE_CONFIG_DIR=str(tmp_path / "home" / ".kaggle"))

    # what each paper's figures need, from their experiments' `data:`: a paper that needs no data set, and the
    # paper whose figures need the Kaggle data
    specs = [load_paper(paper, "smoke", REPO_ROOT) for paper in discover_papers(REPO_ROOT)]
    dataless = next(s for s in specs if not any(s.figure_datasets(fig) for fig in s.figures))
    kaggle_spec = next(s for s in specs if any(set(s.figure_datasets(fig)) & set(KAGGLE_DATASETS) for fig in s.figures))
    needs = {fig: kaggle_spec.figure_datasets(fig) for fig in kaggle_spec.figures if kaggle_spec.figure_datasets(fig)}
    kaggle = list(dict.fromkeys(name for names in needs.values() for name in names))
    assert set(kaggle) == set(KAGGLE_DATASETS) and len(needs) >= 2, needs

    assert notices(repo, env, dataless.paper) == []  # nothing about another paper's Kaggle data

    lines = notices(repo, env, kaggle_spec.paper)
    datasets = [line.split()[2] for line in lines if line.startswith("banditrepro: dataset ")]
    skipped = [line.split()[2] for line in lines if line.startswith(f"banditrepro: {kaggle_spec.paper} ")]
    assert sorted(datasets) == sorted(kaggle), lines  # once each, and no data set of another paper
    assert skipped == list(needs), lines  # once each, in config order
    assert len(lines) == len(datasets) + len(skipped), lines  # nothing about another paper
    assert all(line.startswith("banditrepro: dataset ") for line in lines[: len(datasets)]), lines  # data sets first
