"""Cluster-ready jobs (#14.2): the cheapest paper's smoke DAG through snakemake-executor-plugin-cluster-generic,
each job a separate process started from its own job script (tests/cluster/submit.sh backgrounds it and
prints an id; status.sh reports it), ends byte-identical to a local run. This proves every job is
self-contained: inputs and outputs declared, no state from the main process, the data mirror found
from inside a job."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_copy import CHEAP_PAPER, copy_repo, result_bytes, run_snakemake

pytest.importorskip("snakemake_executor_plugin_cluster_generic",
                    reason="snakemake-executor-plugin-cluster-generic not installed (pip install -e '.[test]')")
CLUSTER = Path(__file__).resolve().parent / "cluster"


@pytest.mark.slow
def test_cluster_generic_run_matches_local_run(tmp_path, cheap_paper_reference, monkeypatch):
    repo = copy_repo(tmp_path / "repo")
    spool = tmp_path / "spool"
    monkeypatch.setenv("BANDITREPRO_TEST_SPOOL", str(spool))
    run_snakemake(repo, "--executor", "cluster-generic", "--jobs", "2",
                  "--cluster-generic-submit-cmd", str(CLUSTER / "submit.sh"),
                  "--cluster-generic-status-cmd", str(CLUSTER / "status.sh"),
                  "--latency-wait", "30", "--max-status-checks-per-second", "5",
                  CHEAP_PAPER, "--config", "scale=smoke")
    statuses = list(spool.glob("*.status"))
    assert len(statuses) >= 5, f"only {len(statuses)} jobs went through the submit command"
    assert all(s.read_text().strip() == "0" for s in statuses)
    simulated = [s for s in spool.glob("*.out") if "simulate_shard" in s.read_text()]
    assert simulated, "no simulation job ran through the submit command"
    cluster, local = result_bytes(repo, CHEAP_PAPER), result_bytes(cheap_paper_reference, CHEAP_PAPER)
    different = sorted(p for p in set(cluster) | set(local) if cluster.get(p) != local.get(p))
    assert not different, f"cluster-generic run differs from the local run: {different[:10]}"
