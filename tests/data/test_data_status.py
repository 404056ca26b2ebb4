"""Mirror resolution, cheap dataset status, processed output paths, and the CLI's one-line report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from banditrepro.data import (
    DATASET_NAMES,
    PROCESSED_FILES,
    available_processed_outputs,
    dataset_status,
    processed_outputs,
    resolve_mirror,
)
from banditrepro.data.__main__ import main as cli_main
from banditrepro.data.manifest import load_manifest


def _config(mirror=None, standin=False):
    return {"data": {"mirror": mirror, "raw_dir": "data/raw", "processed_dir": "data/processed",
                     "standin": standin}}


def _fake_mirror(root: Path, datasets=("movielens_1m", "ameshousing", "outbrain", "coupon"),
                 skip=("clicks_train.csv.zip", "events.csv.zip", "documents_categories.csv.zip",
                       "coupon_visit_train.csv")) -> Path:
    """Empty files with the mirror's layout: status is cheap and must not read or hash them."""
    manifest = load_manifest()
    for name in datasets:
        spec = manifest[name]
        (root / spec.mirror_dir).mkdir(parents=True, exist_ok=True)
        for file in spec.files:
            if file.name not in skip:
                (root / spec.mirror_dir / file.name).touch()
    return root


def test_mirror_order_env_then_config_then_shared_default(tmp_path, monkeypatch):
    repo = tmp_path / "work" / "main"
    repo.mkdir(parents=True)
    monkeypatch.delenv("BANDITREPRO_DATA_MIRROR", raising=False)
    assert resolve_mirror(_config(), repo) is None
    shared = tmp_path / "work" / "shared" / "data"
    shared.mkdir(parents=True)
    assert resolve_mirror(_config(), repo) == shared.resolve()
    assert resolve_mirror(_config("mirrors/x"), repo) == (repo / "mirrors" / "x").resolve()
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "elsewhere"))
    assert resolve_mirror(_config("mirrors/x"), repo) == (tmp_path / "elsewhere").resolve()


def test_status_with_the_usual_partial_mirror(tmp_path, monkeypatch, no_kaggle_credentials):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    repo = tmp_path / "repo"
    repo.mkdir()
    config = _config()
    assert dataset_status("movielens_1m", config, repo).available
    assert dataset_status("ameshousing", config, repo).available
    outbrain = dataset_status("outbrain", config, repo)
    assert not outbrain.available and not outbrain.standin
    assert "clicks_train.csv.zip" in outbrain.reason and "no Kaggle credentials" in outbrain.reason
    assert "\n" not in outbrain.line() and outbrain.line().startswith("outbrain: NOT AVAILABLE")
    coupon = dataset_status("coupon", config, repo)
    assert "coupon_visit_train.csv" in coupon.reason and "coupon_list_train" not in coupon.reason.split(":")[0]
    # The paper rules build only what is available.
    outputs = available_processed_outputs(config, repo)
    assert any("movielens_1m" in p for p in outputs) and not any("outbrain" in p for p in outputs)


def test_status_with_kaggle_credentials_plans_the_download(tmp_path, monkeypatch, kaggle_credentials):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    status = dataset_status("outbrain", _config(), tmp_path)
    assert status.available and not status.standin
    assert "Kaggle outbrain-click-prediction" in status.reason and "promoted_content.csv.zip from mirror" in status.reason


def test_standin_only_when_asked_and_only_for_kaggle_data(tmp_path, monkeypatch, no_kaggle_credentials):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    config = _config(standin=True)
    outbrain = dataset_status("outbrain", config, tmp_path)
    assert outbrain.available and outbrain.standin and "STAND-IN" in outbrain.line()
    assert processed_outputs("outbrain", config, tmp_path) == [
        f"data/standin/processed/outbrain/{f}" for f in PROCESSED_FILES["outbrain"]
    ] + ["data/standin/processed/outbrain/outbrain.provenance.json"]
    movielens = dataset_status("movielens_1m", config, tmp_path)
    assert movielens.available and not movielens.standin  # public URL, never a stand-in
    assert processed_outputs("coupon", _config(), tmp_path)[0] == "data/processed/coupon/rewards_weekday.npy"


def test_fetched_record_makes_a_dataset_available_without_a_mirror(tmp_path, monkeypatch, no_kaggle_credentials):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    record = tmp_path / "data" / "raw" / "coupon" / "fetch_record.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"dataset": "coupon", "files": {}}))
    status = dataset_status("coupon", _config(standin=True), tmp_path)
    assert status.available and not status.standin and "fetched and verified" in status.reason


def test_unknown_dataset_name_is_rejected(tmp_path):
    with pytest.raises(KeyError, match="known: movielens_1m"):
        dataset_status("netflix", _config(), tmp_path)


def test_cli_status_prints_one_line_per_dataset(tmp_path, monkeypatch, capsys, no_kaggle_credentials):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    config_file = tmp_path / "config.yaml"
    config_file.write_text(json.dumps(_config()))  # JSON is YAML
    assert cli_main(["status", "--config", str(config_file), "--repo-root", str(tmp_path),
                     "--out", str(tmp_path / "status.txt")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == list(DATASET_NAMES)
    assert (tmp_path / "status.txt").read_text().splitlines() == lines


def test_cli_fetch_error_is_one_line_and_exit_2(tmp_path, capsys, no_kaggle_credentials):
    code = cli_main(["fetch", "outbrain", "--raw-dir", str(tmp_path / "raw"), "--mirror", str(tmp_path)])
    assert code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("ERROR outbrain: could not get") and "kaggle.json" in error
