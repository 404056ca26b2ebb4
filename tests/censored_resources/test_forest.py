"""AmesHousing surrogate table: the forest code on a tiny grid, its progress lines, and the table as cached data
(export with provenance and sha256, the check before every use, the shipped paper-scale table)."""

from __future__ import annotations

import io
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from banditrepro.experiments.censored_resources import forest_cli, forest_dag
from banditrepro.experiments.censored_resources import forest_model as forest
from banditrepro.experiments.spec import load_paper

TREES, MTRY, NODES, FRACTIONS, SEED = [2, 4], [2, 3], [3], [0.8], 7


@pytest.fixture(scope="module")
def model_table(tmp_path_factory):
    """A small regression data set in the processed AmesHousing layout (Sale_Price + numeric predictors)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = 1e5 + 3e4 * X[:, 0] - 2e4 * X[:, 1] ** 2 + 5e3 * rng.normal(size=120)
    path = tmp_path_factory.mktemp("ames") / "model_table.csv"
    pd.DataFrame(X, columns=[f"x{i}" for i in range(4)]).assign(Sale_Price=y).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def chunks(model_table, tmp_path_factory):
    """Chunk files of a tiny grid (2 runs x 2 mtry values), made with the chunk command line."""
    folder = tmp_path_factory.mktemp("chunks")
    paths = []
    for run in (0, 1):
        for mtry in MTRY:
            out = folder / f"run{run:02d}_mtry{mtry}.csv"
            forest_cli.main(["chunk", "--table", str(model_table), "--run", str(run), "--mtry", str(mtry),
                         "--trees", *map(str, TREES), "--node-sizes", *map(str, NODES),
                         "--fractions", *map(str, FRACTIONS), "--seed", str(SEED), "--out", str(out)])
            paths.append(out)
    return paths


@pytest.fixture(scope="module")
def merged(chunks, tmp_path_factory):
    out = tmp_path_factory.mktemp("merged") / "surrogate_table.csv"
    forest_cli.main(["merge", *map(str, chunks), "--seed", str(SEED), "--out", str(out)])
    return out


def test_chunk_rows_cover_the_grid_and_rmse_is_deterministic(model_table, chunks):
    df = pd.read_csv(chunks[0])
    assert list(df.columns) == forest.COLUMNS
    assert len(df) == len(TREES) * len(NODES) * len(FRACTIONS)
    assert sorted(df["num_trees"]) == TREES
    again = forest.run_chunk(model_table, 0, [MTRY[0]], TREES, NODES, FRACTIONS, SEED)
    # the forests are seeded: the same RMSE on every recompute; only the measured times differ
    np.testing.assert_array_equal(again["rmse"].to_numpy(), df["rmse"].to_numpy())
    assert (df["train_seconds"] > 0).all()
    # prefix times are cumulative: the 4-tree forest took at least as long as its first 2 trees
    assert df.sort_values("num_trees")["train_seconds"].is_monotonic_increasing


def test_prefix_rmse_equals_a_fresh_forest_of_that_size(model_table):
    """One warm-started forest serves every num.trees value: its first k trees are the k-tree forest."""
    from sklearn.ensemble import RandomForestRegressor

    X, y = forest.load_model_table(model_table)
    train, test = forest.split_indices(len(y), 1, SEED)
    assert len(train) == round(0.7 * len(y)) and len(np.intersect1d(train, test)) == 0
    out = forest.fit_prefix_forests(X[train], y[train], X[test], y[test], [2, 4], 3, 3, 0.8, seed=11)
    for count, rmse, _ in out:
        fresh = RandomForestRegressor(n_estimators=count, max_features=3, min_samples_split=4, bootstrap=True,
                                      max_samples=0.8, n_jobs=1, random_state=11).fit(X[train], y[train])
        by_hand = np.sqrt(np.mean((fresh.predict(X[test]) - y[test]) ** 2))
        assert rmse == pytest.approx(by_hand, rel=1e-12)


def test_progress_lines_say_done_total_elapsed_and_rest(model_table):
    log = io.StringIO()
    forest.run_chunk(model_table, 0, MTRY, TREES, NODES, FRACTIONS, SEED, progress_every=0.0, log=log)
    lines = log.getvalue().splitlines()
    n_fits = len(MTRY) * len(TREES) * len(NODES) * len(FRACTIONS)
    assert len(lines) == 1 + n_fits  # a start line, then every fit when the interval is 0
    assert lines[0] == "run 0, mtry 2 3: fits 0/4, starting"
    assert lines[1].startswith("run 0, mtry 2 3: fits 1/4, elapsed ")
    assert lines[-1].endswith("about 0 s left") and "fits 4/4" in lines[-1]


def test_progress_is_rate_limited():
    log = io.StringIO()
    progress = forest.Progress(1000, every=3600.0, stream=log)
    for _ in range(999):
        progress.step()
    assert log.getvalue() == ""  # nothing within the interval ...
    progress.step()
    assert "fits 1000/1000" in log.getvalue()  # ... but the last fit always


def test_merge_records_the_machine_and_export_keeps_the_numbers(merged, tmp_path):
    prov = json.loads(forest.sidecar_path(merged).read_text())
    assert prov["sha256"] == forest.sha256_of(merged)
    assert prov["measured_on"]["cpu_model"] and prov["measured_on"]["threads_per_fit"] == 1
    assert "scikit-learn" in prov["measured_on"]["libraries"] and prov["seed"] == SEED

    shipped = tmp_path / "shipped.csv"
    meta = forest.export_table(merged, shipped, "test")
    table = pd.read_csv(shipped)
    assert list(table.columns) == forest.SHIPPED_COLUMNS
    assert meta["sha256"] == forest.sha256_of(shipped) and meta["rows"] == len(table)
    assert meta["measured_on"] == prov["measured_on"]  # whose times: the machine that ran the forests
    full, small = forest.arm_tables(pd.read_csv(merged)), forest.arm_tables(table)
    np.testing.assert_array_equal(full[0], small[0])  # rewards, bit for bit
    np.testing.assert_array_equal(full[1], small[1])  # training times
    q = np.percentile(table["train_seconds"], [25, 75])
    assert meta["train_seconds_quartiles"]["all_runs"]["q1"] == pytest.approx(q[0])
    assert meta["train_seconds_quartiles"]["all_runs"]["q3"] == pytest.approx(q[1])


def test_install_checks_the_sha256_before_use(merged, tmp_path):
    shipped = tmp_path / "shipped.csv"
    forest.export_table(merged, shipped, "test")
    active = tmp_path / "active" / "surrogate_table.csv"
    prov = forest.install_table(shipped, active, "cached")
    assert prov["source"] == "cached" and forest.describe_source(prov).startswith("shipped table")
    table, _ = forest.read_verified(active)
    assert len(table) == prov["rows"]

    damaged = tmp_path / "damaged.csv"
    shutil.copy(shipped, damaged)
    shutil.copy(forest.sidecar_path(shipped), forest.sidecar_path(damaged))
    text = damaged.read_text().splitlines()
    text[1] = text[1].replace(",", ",9", 1)  # one edited cell
    damaged.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match="sha256"):
        forest.install_table(damaged, tmp_path / "other.csv", "cached")
    forest.sidecar_path(damaged).unlink()
    with pytest.raises(ValueError, match="no provenance sidecar"):
        forest.read_verified(damaged)


def test_a_normaliser_the_shipped_table_lacks_is_named(merged, tmp_path):
    shipped = tmp_path / "shipped.csv"
    forest.export_table(merged, shipped, "test")
    with pytest.raises(ValueError, match="y_test_sd"):
        forest.arm_tables(pd.read_csv(shipped), "sd")
    assert forest.arm_tables(pd.read_csv(merged), "sd")[0].shape == (len(TREES) * len(MTRY) * len(NODES), 2)


# --- the shipped paper-scale table -------------------------------------------------------------


def test_shipped_table_matches_its_sha256_and_provenance(repo_root):
    path = repo_root / forest.SHIPPED_TABLE
    table, prov = forest.read_verified(path)
    assert list(table.columns) == forest.SHIPPED_COLUMNS
    assert prov["rows"] == len(table)
    for key in ("cpu_model", "logical_cpus", "threads_per_fit", "libraries"):
        assert prov["measured_on"][key], key
    assert prov["made_by"]["forest_command"] and prov["date"]


def _shipped_table_serves(repo_root, scale):
    """The workflow's own DAG-time check passes, the grid is the config's and T = 2 n m (Sec. 5.2)."""
    spec = load_paper("censored_resources", scale, repo_root)
    grid = forest_dag.forest_grid(spec)
    assert forest_dag.shipped_table_problem(grid, scale, repo_root) is None
    exp = spec.experiments["ames"]
    table = pd.read_csv(repo_root / forest.SHIPPED_TABLE)
    for key in forest.GRID_KEYS:
        assert sorted(table[key].unique().tolist()) == sorted(grid[key]), key
    assert table["run"].nunique() == grid["runs"]
    rewards, _, arms = forest.arm_tables(table, exp.params["normaliser"])
    assert rewards.shape == (len(arms), grid["runs"])
    assert exp.horizon == 2 * len(arms) * exp.params["grid_size"]


def test_smoke_scale_replays_the_shipped_table(repo_root):
    """Smoke results are deterministic (and lockable): no measured time is recomputed."""
    _shipped_table_serves(repo_root, "smoke")


def test_paper_scale_replays_the_shipped_table(repo_root):
    _shipped_table_serves(repo_root, "paper")


def test_a_missing_table_or_another_grid_is_named_before_the_dag(repo_root, tmp_path):
    shutil.copytree(repo_root / "config", tmp_path / "config")
    grid = forest_dag.forest_grid(load_paper("censored_resources", "smoke", repo_root))
    assert "no shipped forest table" in forest_dag.shipped_table_problem(grid, "smoke", tmp_path)
    shipped = tmp_path / forest.SHIPPED_TABLE
    shipped.parent.mkdir(parents=True)
    shutil.copy(repo_root / forest.SHIPPED_TABLE, shipped)
    prov = json.loads(forest.sidecar_path(repo_root / forest.SHIPPED_TABLE).read_text())
    forest.sidecar_path(shipped).write_text(json.dumps(prov))
    assert forest_dag.shipped_table_problem(grid, "smoke", tmp_path) is None
    prov["grid"]["runs"] += 1  # a table of another grid
    forest.sidecar_path(shipped).write_text(json.dumps(prov))
    assert "is not the smoke-scale grid" in forest_dag.shipped_table_problem(grid, "smoke", tmp_path)


# --- the record of a recompute on another machine, shown beside the active table ----------------------


def _claims_csv(path, rows):
    pd.DataFrame(rows, columns=["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]).to_csv(
        path, index=False)
    return path


def test_record_of_a_recompute_keeps_its_quartiles_and_verdicts(merged, tmp_path):
    recomputed = tmp_path / "surrogate_table.csv"
    meta = forest.export_table(merged, recomputed, "test", source_label="recompute")
    claims = _claims_csv(tmp_path / "fig5.csv", [("T5_ts", "fig5", "s", "0.25 ± 0.01", "<= 0.3", "reproduced", "headline")])
    rec = forest.record_recompute(recomputed, claims, tmp_path / "rec.json", "cmd", wall_seconds=61.5)
    on_disk = json.loads((tmp_path / "rec.json").read_text())
    assert on_disk == json.loads(json.dumps(rec))
    assert rec["sha256"] == meta["sha256"] and rec["wall_seconds"] == 61.5
    assert rec["train_seconds_quartiles"] == meta["train_seconds_quartiles"]
    assert rec["total_training_seconds"] == pytest.approx(meta["total_training_seconds"])
    assert rec["claims"] == [{"claim_id": "T5_ts", "kind": "headline", "verdict": "reproduced", "measured": "0.25 ± 0.01"}]
    shipped = tmp_path / "shipped.csv"
    forest.export_table(merged, shipped, "test")
    installed = tmp_path / "active" / "surrogate_table.csv"
    forest.install_table(shipped, installed, "cached")
    with pytest.raises(ValueError, match="shipped table, not a recompute"):
        forest.record_recompute(installed, claims, tmp_path / "other.json", "cmd")


def test_ames_table_sources_sets_the_active_table_beside_the_recorded_recompute(merged, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from banditrepro.experiments.censored_resources import builders, tables
    from banditrepro.report import claims as report_claims
    from banditrepro.report.context import ResultsContext

    recomputed = tmp_path / "recomputed.csv"
    forest.export_table(merged, recomputed, "test", source_label="recompute")
    recorded = _claims_csv(tmp_path / "fig5.csv", [("T5_ts", "fig5", "s", "0.25", "t", "reproduced", "headline")])
    forest.record_recompute(recomputed, recorded, tmp_path / "rec.json", "cmd", wall_seconds=100.0)
    shipped = tmp_path / "shipped.csv"
    forest.export_table(merged, shipped, "test")
    active = tmp_path / "active.csv"
    prov = forest.install_table(shipped, active, "cached")
    monkeypatch.setattr(builders, "ames_table", lambda exp: (pd.read_csv(active), prov))
    (tmp_path / "built").mkdir()
    now = _claims_csv(tmp_path / "built" / "fig5.csv", [("T5_ts", "fig5", "s", "0.31", "t", "not_reproduced", "headline"),
                                                        ("T5_new", "fig5", "s", "1.10", "t", "reproduced", "variant")])

    def no_evaluation(*args, **kwargs):
        raise AssertionError("a table reads the built claims, it does not evaluate them")

    monkeypatch.setattr(report_claims, "evaluate_claims", no_evaluation)
    spec = SimpleNamespace(experiments={"ames": SimpleNamespace(repo_root=tmp_path)})
    ctx = ResultsContext(spec, claims={"fig5": now})

    df = tables.ames_table_sources(ctx, "ames", "fig5", "rec.json").set_index("quantity")
    assert df.loc["training times", "this build"].startswith("shipped table")
    assert df.loc["training times", "recorded recompute"].startswith("recomputed on ")
    assert df.loc["wall time of the recompute build (s)", "recorded recompute"] == "100"
    assert df.loc["T5_ts (headline)", "this build"] == "not_reproduced: 0.31"
    assert df.loc["T5_ts (headline)", "recorded recompute"] == "reproduced: 0.25"
    assert df.loc["T5_new (variant)", "recorded recompute"] == "not recorded"
    assert df.loc["T5_new (variant)", "this build"] == "reproduced: 1.10"  # as the claims file writes it
    q = np.percentile(pd.read_csv(active)["train_seconds"], [25, 50, 75])
    assert df.loc["arm-run time Q1 / median / Q3 (s)", "this build"] == " / ".join(f"{v:.3f}" for v in q)

    missing = tables.ames_table_sources(ctx, "ames", "fig5", "absent.json").set_index("quantity")
    assert missing.loc["T5_ts (headline)", "recorded recompute"].startswith("no recompute recorded")
