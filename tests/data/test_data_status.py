"""Mirror resolution, cheap dataset status, processed output paths, and the CLI's one-line report."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from banditrepro.data import (
    DATASET_NAMES,
    PROCESSED_FILES,
    available_processed_outputs,
    dataset_status,
    dataset_statuses,
    network,
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
    """Files with the mirror's layout and the manifest's sizes, all zero bytes (sparse): status is cheap and
    must not read or hash them; it checks only their size."""
    manifest = load_manifest()
    for name in datasets:
        spec = manifest[name]
        (root / spec.mirror_dir).mkdir(parents=True, exist_ok=True)
        for file in spec.files:
            if file.name not in skip:
                with open(root / spec.mirror_dir / file.name, "wb") as handle:
                    handle.truncate(file.size or 0)
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
    assert "\n" not in outbrain.line() and outbrain.line().startswith("outbrain: missing - ")
    coupon = dataset_status("coupon", config, repo)
    assert "coupon_visit_train.csv" in coupon.reason and "coupon_list_train" not in coupon.reason.split(":")[0]
    # The paper rules build only what is available.
    outputs = available_processed_outputs(config, repo)
    assert any("movielens_1m" in p for p in outputs) and not any("outbrain" in p for p in outputs)


def test_status_with_kaggle_credentials_plans_the_download(tmp_path, monkeypatch, kaggle_credentials, network_up):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    status = dataset_status("outbrain", _config(), tmp_path)
    assert status.available and not status.standin
    assert "Kaggle outbrain-click-prediction" in status.reason and "promoted_content.csv.zip from mirror" in status.reason
    assert network_up == [("www.kaggle.com", 443)]


def test_standin_only_when_asked_and_only_for_kaggle_data(tmp_path, monkeypatch, no_kaggle_credentials, network_up):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    config = _config(standin=True)
    outbrain = dataset_status("outbrain", config, tmp_path)
    assert outbrain.available and outbrain.standin and outbrain.line().startswith("outbrain: stand-in - ")
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
    assert status.state == "fetched" and status.line().startswith("coupon: fetched - verified (")


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


# ------------------------------------------------------------------ availability decided up front (network probe)
def test_no_mirror_and_no_network_makes_download_datasets_unavailable_saying_how_to_provide_them(
        tmp_path, monkeypatch, no_kaggle_credentials, network_down):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "empty-mirror"))
    (tmp_path / "empty-mirror").mkdir()
    statuses = dataset_statuses(DATASET_NAMES, _config(), tmp_path)
    assert not any(s.available for s in statuses.values())
    movielens = statuses["movielens_1m"].line()
    assert movielens.startswith("movielens_1m: missing - ") and "\n" not in movielens
    assert "BANDITREPRO_DATA_MIRROR" in movielens and str(tmp_path / "empty-mirror" / "movielens-1m") in movielens
    assert "https://files.grouplens.org/datasets/movielens/ml-1m.zip unreachable" in movielens
    assert "jse.amstat.org" in statuses["ameshousing"].line()
    for kaggle_set in ("outbrain", "coupon"):  # no credentials: Kaggle is not probed, the line says what to set
        assert "KAGGLE_USERNAME and KAGGLE_KEY" in statuses[kaggle_set].line()
    # one probe per host, remembered: asking again probes nothing
    assert sorted(network_down) == [("files.grouplens.org", 443), ("jse.amstat.org", 80)]
    dataset_status("movielens_1m", _config(), tmp_path)
    assert len(network_down) == 2


def test_reachable_download_host_makes_the_dataset_available(tmp_path, monkeypatch, no_kaggle_credentials,
                                                             network_up):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    status = dataset_status("movielens_1m", _config(), tmp_path)
    assert status.available and status.state == "fetchable"
    assert status.reason == ("will fetch ratings.dat, movies.dat, users.dat, README from "
                             "https://files.grouplens.org/datasets/movielens/ml-1m.zip")
    assert network_up == [("files.grouplens.org", 443)]


def test_files_on_this_machine_or_downloads_off_need_no_probe(tmp_path, monkeypatch, no_kaggle_credentials,
                                                              network_down):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    assert dataset_status("movielens_1m", _config(), tmp_path).available  # in the mirror
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    offline = {**_config(), "data": {**_config()["data"], "allow_download": False}}
    status = dataset_status("ameshousing", offline, tmp_path)
    assert not status.available and "downloads are off" in status.reason
    assert network_down == []


def test_kaggle_with_credentials_but_no_network_is_unavailable(tmp_path, monkeypatch, kaggle_credentials,
                                                               network_down):
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(_fake_mirror(tmp_path / "mirror")))
    status = dataset_status("coupon", _config(), tmp_path)
    assert not status.available
    assert "coupon_visit_train.csv" in status.reason and "Kaggle coupon-purchase-prediction unreachable" in status.reason
    assert network_down == [("www.kaggle.com", 443)]


def test_the_probe_never_waits_longer_than_its_timeout(monkeypatch):
    """A resolver or connection that hangs counts as unreachable after the timeout, all hosts together."""
    release = threading.Event()
    monkeypatch.setattr(network, "connect", lambda endpoint, timeout: release.wait(30))
    start = time.monotonic()
    answers = network.probe([("hangs.example", 443), ("also-hangs.example", 80)], timeout=0.3)
    elapsed = time.monotonic() - start
    release.set()
    assert elapsed < 1.5, f"the probe waited {elapsed:.1f} s"
    assert answers == {("hangs.example", 443): "no answer within 0.3 s",
                       ("also-hangs.example", 80): "no answer within 0.3 s"}


def test_overall_report_lists_what_was_not_built_and_why(tmp_path, monkeypatch, no_kaggle_credentials,
                                                         network_down):
    """results/report.md's "Not built" section, from the workflow's not_built() structure (common.smk)."""
    import pandas as pd

    from banditrepro import provenance
    from banditrepro.report.report import overall_report

    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(tmp_path / "no-mirror"))
    movielens = dataset_status("movielens_1m", _config(), tmp_path)
    (tmp_path / "toy").mkdir()
    pd.DataFrame([("C1", "fig3", "s", "not measured", "", "inconclusive", "headline")],
                 columns=["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]
                 ).to_csv(tmp_path / "toy" / "claims.csv", index=False)
    not_built = {"datasets": {"movielens_1m": movielens.reason},
                 "figures": {"toy": {"fig3": "needs movielens_1m (unavailable; see `snakemake datasets`)"}}}
    prov = provenance.record({"scale": "paper"}, 7, tmp_path)
    text = overall_report({"toy": tmp_path / "toy" / "claims.csv"}, {"toy": tmp_path / "toy" / "report.md"},
                          tmp_path / "report.md", prov, not_built=not_built)
    section = text.split("## Not built\n\n", 1)[1].splitlines()
    assert section[0] == f"- data set `movielens_1m`: {movielens.reason}" and "unreachable" in section[0]
    assert section[1] == "- `toy` fig3: needs movielens_1m (unavailable; see `snakemake datasets`)"
    assert "## Not built" not in overall_report({"toy": tmp_path / "toy" / "claims.csv"},
                                                {"toy": tmp_path / "toy" / "report.md"}, tmp_path / "r2.md",
                                                prov, not_built={"datasets": {}, "figures": {}})
