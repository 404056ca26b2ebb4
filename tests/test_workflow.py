"""End-to-end runs of the Snakemake workflow in a temporary copy of the repository."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from repo_copy import CHEAP_PAPER, copy_build
from repo_copy import copy_repo as _copy_repo
from repo_copy import run_snakemake as _snakemake

from banditrepro import workflow_worker
from banditrepro.experiments.spec import load_paper
from banditrepro.report.vocabulary import VERDICTS

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = sorted(p.stem for p in (REPO_ROOT / "config" / "papers").glob("*.yaml"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    # ../shared/data resolves from the copy as it does from the repository; without it the copy is offline
    return _copy_repo(tmp_path_factory.mktemp("wf") / "repo")


DETERMINISM_TARGETS = ["results/satisficing_ucl/fig1/summary.csv", "results/satisficing_ucl/fig3/summary.csv",
                       "figures/satisficing_ucl/fig1.png", "figures/satisficing_ucl/fig1.pdf"]


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_smoke_dag_builds_figures_summaries_and_claims(smoke_build, paper):
    workdir = smoke_build(paper)  # `snakemake --cores 2 <paper> --config scale=smoke` in a copy (conftest.py)
    spec = load_paper(paper, "smoke", workdir)
    claims = pd.read_csv(workdir / "results" / paper / "claims.csv")
    # the contract columns first and unchanged, then the diagnosis (report/diagnosis.py)
    assert list(claims.columns) == ["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind",
                                    "cause"]
    assert (workdir / "results" / paper / "readings.csv").exists()
    assert set(claims.claim_id) == {c["id"] for c in spec.claims}
    assert set(claims.verdict) <= set(VERDICTS)
    assert (workdir / "results" / paper / "report.md").exists()
    built = [f.stem for f in (workdir / "figures" / paper).glob("*.png")]
    assert built, "no figure was built"
    for fig in built:
        assert (workdir / "figures" / paper / f"{fig}.pdf").stat().st_size > 1000
        summary = pd.read_csv(workdir / "results" / paper / fig / "summary.csv")
        assert list(summary.columns) == ["panel", "algorithm", "metric", "t", "mean", "se", "n"]
        assert len(summary) > 0 and summary["n"].min() >= 1
        assert (workdir / "results" / paper / fig / "summary.csv.provenance.json").exists()
    # a whole paper is far more than workflow_worker.MIN_JOBS jobs: its build ran them in the worker (unless the
    # environment switches it off)
    if os.environ.get(workflow_worker.OPT_OUT, "on").lower() not in ("off", "0", "false", "no"):
        log = (workdir / workflow_worker.LOG_NAME).read_text(encoding="utf-8")
        assert re.search(r"worker stopped after [1-9]\d* jobs", log), log[-2000:]


@pytest.mark.slow
def test_results_are_identical_across_sharding_and_cores(tmp_path):
    """Summaries and figures are byte-identical whether replications run as 5 shards on 2 cores, with
    one experiment's own shard_size (3) overriding the global one, or as one shard on 1 core, and
    across rebuilds from scratch."""
    builds = []
    for i, (cores, shard_size) in enumerate((("2", "5"), ("1", "1000"))):
        repo = _copy_repo(tmp_path / f"build{i}")
        if shard_size == "5":
            cfg_path = repo / "config/papers/satisficing_ucl.yaml"
            cfg = yaml.safe_load(cfg_path.read_text())
            cfg["experiments"]["mean_reward"]["shard_size"] = 3
            cfg_path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
        _snakemake(repo, "--cores", cores, *DETERMINISM_TARGETS, "--config", "scale=smoke", f"shard_size={shard_size}")
        shards = list((repo / "results/satisficing_ucl/shards/mean_reward").glob("*.npz"))
        replications = load_paper("satisficing_ucl", "smoke", repo).experiments["mean_reward"].replications
        assert len(shards) == (math.ceil(replications / 3) if shard_size == "5" else 1)
        builds.append({t: (repo / t).read_bytes() for t in DETERMINISM_TARGETS})
    different = [t for t in DETERMINISM_TARGETS if builds[0][t] != builds[1][t]]
    assert not different, f"outputs differ between builds: {different}"


@pytest.mark.slow
def test_invalid_config_key_stops_the_run_naming_it(workdir):
    proc = _snakemake(workdir, "-n", "--config", "sead=3", check=False)
    assert proc.returncode != 0
    assert "sead" in proc.stderr + proc.stdout


@pytest.mark.slow
def test_invalid_config_value_stops_the_run_naming_it(workdir):
    proc = _snakemake(workdir, "-n", "--config", "scale=huge", check=False)
    assert proc.returncode != 0
    out = proc.stderr + proc.stdout
    assert "huge" in out and "scale" in out


@pytest.mark.slow
def test_lint_is_clean(workdir):
    proc = _snakemake(workdir, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_smoke_results_match_the_committed_lock(smoke_build, paper, tmp_path):
    """`verify` of each paper's smoke build (the builds above) against its lock in config/locks/ (.ci/run verifies
    all papers at once after the tests)."""
    repo = copy_build(smoke_build(paper), tmp_path / "repo")
    proc = _snakemake(repo, "--cores", "2", "verify", "--config", "scale=smoke", f"papers=[{paper}]", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"smoke results differ from the committed lock:\n{out[-6000:]}"
    assert "verify OK at scale smoke" in out


@pytest.mark.slow
def test_changed_seed_fails_verify_naming_a_summary_and_its_first_differing_row(smoke_build, tmp_path):
    workdir = copy_build(smoke_build(CHEAP_PAPER), tmp_path / "repo")
    proc = _snakemake(workdir, "--cores", "2", "verify", "--config", "scale=smoke", "seed=1",
                      "papers=[satisficing_ucl]", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"verify passed with another seed:\n{out[-3000:]}"
    assert "verify FAILED at scale smoke" in out
    assert re.search(r"results/satisficing_ucl/\w+/summary\.csv: differs", out), out[-4000:]
    assert re.search(r"satisficing_ucl, \w+, panel=\w+, algorithm=\w+, metric=\w+, t=\d+: \w+ locked \S+ new \S+",
                     out), out[-4000:]
