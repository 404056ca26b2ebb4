"""Cluster-ready jobs (#14.2): one figure of the cheapest paper at smoke scale through
snakemake-executor-plugin-cluster-generic, each job a separate process started from its own job script
(tests/cluster/submit.sh backgrounds it and prints an id; status.sh reports it), ends byte-identical to the
local smoke build. The figure's DAG holds one job of each kind that computes (a simulation shard, its
summary, the plot, the figure's claims), so each kind is shown self-contained: inputs and outputs declared,
no state from the main process. The paper's other jobs (tables, the claims merge, readings, report pages)
are not run here; the whole paper through the executor took one Snakemake process per job, 37 of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_copy import CHEAP_PAPER, copy_repo, result_bytes, run_snakemake

pytest.importorskip("snakemake_executor_plugin_cluster_generic",
                    reason="snakemake-executor-plugin-cluster-generic not installed (pip install -e '.[test]')")
CLUSTER = Path(__file__).resolve().parent / "cluster"
FIGURE = "fig1"  # one shard, one summary, a plot and claims: a job of each kind
TARGETS = (f"figures/{CHEAP_PAPER}/{FIGURE}.png", f"results/{CHEAP_PAPER}/claims/{FIGURE}.csv")
JOB_KINDS = ("simulate_shard", "summarize_figure", "plot_figure", "claims_figure")


@pytest.mark.slow
def test_cluster_generic_run_matches_local_run(tmp_path, cheap_paper_reference, monkeypatch):
    repo = copy_repo(tmp_path / "repo")
    spool = tmp_path / "spool"
    monkeypatch.setenv("BANDITREPRO_TEST_SPOOL", str(spool))
    run_snakemake(repo, "--executor", "cluster-generic", "--jobs", "2",
                  "--cluster-generic-submit-cmd", str(CLUSTER / "submit.sh"),
                  "--cluster-generic-status-cmd", str(CLUSTER / "status.sh"),
                  "--latency-wait", "30", "--max-status-checks-per-second", "5",
                  *TARGETS, "--config", "scale=smoke")
    statuses = list(spool.glob("*.status"))
    assert all(s.read_text().strip() == "0" for s in statuses)
    scripts = [s.read_text() for s in spool.glob("*.out")]
    missing = [kind for kind in JOB_KINDS if not any(kind in text for text in scripts)]
    assert not missing, f"these kinds of job did not go through the submit command: {missing}"
    cluster, local = result_bytes(repo, CHEAP_PAPER), result_bytes(cheap_paper_reference, CHEAP_PAPER)
    assert all(target in cluster for target in TARGETS), sorted(cluster)
    assert any(path.endswith(".npz") for path in cluster), "no shard was written by the cluster run"
    different = sorted(p for p in cluster if cluster[p] != local.get(p))
    assert not different, f"cluster-generic run differs from the local run: {different[:10]}"
