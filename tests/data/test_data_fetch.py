"""Fetch and verification: mirror copies, checksum mismatch, interruption, Kaggle credential/403 paths."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import zipfile
from pathlib import Path

import pytest
import requests

from banditrepro.data import fetch as fetch_module
from banditrepro.data import kaggle_client
from banditrepro.data.__main__ import main as cli_main
from banditrepro.data.fetch import fetch_dataset
from banditrepro.data.integrity import ChecksumMismatch, DataError, read_checksum_failures
from banditrepro.data.manifest import DatasetSpec, FileSpec, UrlSource, dataset_spec


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


TABLE = b"a,b,c\n1,2,3\n4,5,6\n7,8,9\n"


def _synthetic_spec(sources=("mirror",), kaggle=None, sha=True) -> DatasetSpec:
    return DatasetSpec(
        name="movielens_1m", title="synthetic", mirror_dir="synthetic", kaggle=kaggle,
        files=(FileSpec(name="table.csv", size=len(TABLE) if sha else None, sha256=_sha(TABLE) if sha else None,
                        rows=3, cols=3, columns=("a", "b", "c"), sources=tuple(sources)),),
    )


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_mirror_copy_is_verified_and_recorded(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    (mirror / "synthetic" / "table.csv").write_bytes(TABLE)
    record = fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec())
    folder = tmp_path / "raw" / "movielens_1m"
    assert (folder / "table.csv").read_bytes() == TABLE
    on_disk = json.loads((folder / "fetch_record.json").read_text())
    assert on_disk["files"]["table.csv"]["sha256"] == _sha(TABLE) == record["files"]["table.csv"]["sha256"]
    assert on_disk["files"]["table.csv"]["rows"] == 3 and on_disk["standin"] is False
    assert _leftovers(folder) == ["fetch_record.json", "table.csv"]


def test_corrupt_mirror_file_stops_with_both_hashes_and_leaves_nothing(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    corrupt = TABLE.replace(b"5", b"6")  # same size, different bytes
    (mirror / "synthetic" / "table.csv").write_bytes(corrupt)
    with pytest.raises(ChecksumMismatch) as failure:
        fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec())
    message = str(failure.value)
    assert "table.csv" in message and _sha(TABLE) in message and _sha(corrupt) in message
    # nothing of the file is kept, only the note that the status check reads (tests/data/test_data_status.py)
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == ["checksum_failures.json"]
    failures = read_checksum_failures(tmp_path / "raw" / "movielens_1m")
    assert failures["table.csv"]["actual"] == _sha(corrupt) and failures["table.csv"]["expected"] == _sha(TABLE)
    # a good copy in the mirror: the next fetch succeeds and drops the note
    (mirror / "synthetic" / "table.csv").write_bytes(TABLE)
    fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec())
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == ["fetch_record.json", "table.csv"]


def test_real_manifest_detects_a_corrupted_mirror_copy(tmp_path, real_mirror):
    """The real manifest entry of MovieLens' README against a one-byte-corrupted copy of the real file."""
    mirror = tmp_path / "mirror"
    (mirror / "movielens-1m").mkdir(parents=True)
    original = (real_mirror / "movielens-1m" / "README").read_bytes()
    corrupt = bytes([original[0] ^ 1]) + original[1:]
    (mirror / "movielens-1m" / "README").write_bytes(corrupt)
    for name in ("ratings.dat", "movies.dat", "users.dat"):
        os.symlink(real_mirror / "movielens-1m" / name, mirror / "movielens-1m" / name)
    with pytest.raises(ChecksumMismatch) as failure:
        fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False)
    message = str(failure.value)
    assert "README" in message
    assert dataset_spec("movielens_1m").file("README").sha256 in message and _sha(corrupt) in message
    folder = tmp_path / "raw" / "movielens_1m"
    assert not (folder / "README").exists() and not (folder / "fetch_record.json").exists()
    assert not [p for p in _leftovers(folder) if ".part-" in p]


def test_status_after_a_checksum_failure_says_corrupt_not_will_fetch(tmp_path, monkeypatch, capsys, real_mirror,
                                                                    no_kaggle_credentials):
    """`python -m banditrepro.data status` after a mirror file failed its checksum: "corrupt" and what to do
    (it used to say "will fetch ... from mirror"), until the file is replaced."""
    mirror = tmp_path / "mirror"
    (mirror / "movielens-1m").mkdir(parents=True)
    original = (real_mirror / "movielens-1m" / "README").read_bytes()
    (mirror / "movielens-1m" / "README").write_bytes(bytes([original[0] ^ 1]) + original[1:])  # same size
    for name in ("ratings.dat", "movies.dat", "users.dat"):
        os.symlink(real_mirror / "movielens-1m" / name, mirror / "movielens-1m" / name)
    monkeypatch.setenv("BANDITREPRO_DATA_MIRROR", str(mirror))
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({"data": {"mirror": None, "raw_dir": "raw", "processed_dir": "processed",
                                           "standin": False}}))

    def status_line() -> str:
        assert cli_main(["status", "--config", str(config), "--repo-root", str(tmp_path)]) == 0
        return capsys.readouterr().out.splitlines()[0]

    assert "will fetch" in status_line() and "from mirror" in status_line()  # nothing known against it yet
    with pytest.raises(ChecksumMismatch):
        fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False)
    line = status_line()
    assert line.startswith("movielens_1m: missing - ") and "will fetch" not in line
    assert "README in the mirror is corrupt" in line and "failed its checksum" in line
    assert "replace it with a good copy" in line and str(mirror / "movielens-1m" / "README") in line
    # a truncated mirror file is known corrupt by its size alone, before any fetch
    (mirror / "movielens-1m" / "README").write_bytes(original[:100])
    assert "README in the mirror is corrupt" in status_line() and "100 bytes" in status_line()
    # the good file back: available again
    (mirror / "movielens-1m" / "README").write_bytes(original)
    assert "will fetch" in status_line()


def test_wrong_row_count_is_an_error_naming_the_file(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    (mirror / "synthetic" / "table.csv").write_bytes(TABLE + b"10,11,12\n")
    with pytest.raises(DataError, match=r"table\.csv .*expected 3 data rows, found 4"):
        fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec(sha=False))
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == []


def test_interrupted_copy_leaves_no_partial_file(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    (mirror / "synthetic" / "table.csv").write_bytes(TABLE)

    def copy_half_then_interrupt(src, dst, length=0):
        dst.write(src.read(5))
        raise KeyboardInterrupt

    monkeypatch.setattr("banditrepro.data.integrity.shutil.copyfileobj", copy_half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec())
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == []


def test_parts_left_by_a_killed_process_are_removed(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    (mirror / "synthetic" / "table.csv").write_bytes(TABLE)
    folder = tmp_path / "raw" / "movielens_1m"
    folder.mkdir(parents=True)
    (folder / ".table.csv.part-abc123").write_bytes(b"half")
    fetch_dataset("movielens_1m", tmp_path / "raw", mirror, allow_network=False, spec=_synthetic_spec())
    assert _leftovers(folder) == ["fetch_record.json", "table.csv"]


def test_missing_everywhere_gives_one_line_naming_file_and_sources(tmp_path, no_kaggle_credentials):
    spec = _synthetic_spec(sources=("mirror", "kaggle"), kaggle="outbrain-click-prediction")
    with pytest.raises(DataError) as failure:
        fetch_dataset("outbrain", tmp_path / "raw", tmp_path / "empty-mirror", spec=spec)
    message = str(failure.value)
    assert "\n" not in message
    assert message.startswith("outbrain: could not get table.csv")
    assert "not in mirror" in message and "no Kaggle credentials" in message


def test_url_source_offline_is_reported_not_crashed(tmp_path, monkeypatch):
    """Without a mirror the URL is tried; an offline machine (urlopen fails) gets a one-line error."""
    import urllib.error

    def offline(url, timeout=None):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(fetch_module.urllib.request, "urlopen", offline)
    spec = dataset_spec("movielens_1m")
    with pytest.raises(DataError) as failure:
        fetch_dataset("movielens_1m", tmp_path / "raw", None, spec=spec)
    message = str(failure.value)
    assert "https://files.grouplens.org/datasets/movielens/ml-1m.zip" in message
    assert "ratings.dat" in message and "\n" not in message
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == []


def test_url_zip_members_are_extracted_and_verified(tmp_path, monkeypatch):
    """ml-1m.zip layout: members under ml-1m/; the extracted bytes are checked against the manifest."""
    spec = DatasetSpec(
        name="movielens_1m", title="synthetic", mirror_dir="synthetic",
        url=UrlSource(href="https://example.invalid/ml-1m.zip", kind="zip", member_prefix="ml-1m/"),
        files=(FileSpec(name="table.csv", size=len(TABLE), sha256=_sha(TABLE), rows=3, cols=3, sources=("url",)),),
    )

    def fake_download(url, destination):
        with zipfile.ZipFile(destination, "w") as bundle:
            bundle.writestr("ml-1m/table.csv", TABLE)

    monkeypatch.setattr(fetch_module, "download_url", fake_download)
    record = fetch_dataset("movielens_1m", tmp_path / "raw", None, spec=spec)
    assert record["files"]["table.csv"]["origin"] == "url https://example.invalid/ml-1m.zip"
    assert _leftovers(tmp_path / "raw" / "movielens_1m") == ["fetch_record.json", "table.csv"]


# ------------------------------------------------------------------------------------------- Kaggle
def test_missing_kaggle_credentials_never_import_kaggle(tmp_path, no_kaggle_credentials, monkeypatch):
    def must_not_import():
        raise AssertionError("kaggle must not be imported without credentials (it exits on import)")

    monkeypatch.setattr(kaggle_client, "import_kaggle_api", must_not_import)
    with pytest.raises(kaggle_client.KaggleUnavailable) as failure:
        kaggle_client.download_competition_file("outbrain-click-prediction", "events.csv.zip", tmp_path)
    message = str(failure.value)
    for needle in ("no Kaggle credentials", "kaggle.json", "KAGGLE_USERNAME", "KAGGLE_KEY",
                   "https://www.kaggle.com/c/outbrain-click-prediction/rules"):
        assert needle in message


def test_kaggle_json_file_counts_as_credentials(tmp_path, no_kaggle_credentials, monkeypatch):
    config_dir = Path(os.environ["KAGGLE_CONFIG_DIR"])
    (config_dir / "kaggle.json").write_text(json.dumps({"username": "u", "key": "k"}))
    assert kaggle_client.credentials_available()[0]


class _FakeKaggleApi:
    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.calls = []

    def competition_download_file(self, competition, file_name, path=None, force=False, quiet=False):
        self.calls.append((competition, file_name))
        return self.behaviour(competition, file_name, Path(path))


def _http_error(status: int) -> requests.HTTPError:
    response = requests.Response()
    response.status_code = status
    return requests.HTTPError(f"{status} Client Error", response=response)


def test_kaggle_403_says_accept_the_rules(tmp_path, kaggle_credentials, monkeypatch):
    def forbidden(competition, file_name, folder):
        raise _http_error(403)

    api = _FakeKaggleApi(forbidden)
    monkeypatch.setattr(kaggle_client, "import_kaggle_api", lambda: api)
    spec = dataset_spec("coupon")
    with pytest.raises(DataError) as failure:
        fetch_dataset("coupon", tmp_path / "raw", tmp_path / "empty-mirror", spec=spec)
    message = str(failure.value)
    assert "HTTP 403" in message and "accept" in message
    assert "https://www.kaggle.com/c/coupon-purchase-prediction/rules" in message
    assert api.calls == [("coupon-purchase-prediction", "coupon_list_train.csv.zip")]  # asked once
    assert not (tmp_path / "raw" / "coupon" / "fetch_record.json").exists()


def test_kaggle_exit_on_bad_credentials_becomes_a_message(tmp_path, kaggle_credentials, monkeypatch):
    def exits():
        raise SystemExit(1)

    monkeypatch.setattr(kaggle_client, "import_kaggle_api", exits)
    with pytest.raises(kaggle_client.KaggleUnavailable, match="rejected the credentials"):
        kaggle_client.download_competition_file("coupon-purchase-prediction", "x.csv.zip", tmp_path)


def test_kaggle_download_is_unzipped_verified_and_hash_pinned(tmp_path, kaggle_credentials, monkeypatch,
                                                              standin_records, real_mirror):
    """Coupon from a fake Kaggle: coupon_list_train comes from the mirror (sha256 known), the visits file
    is served zipped by the fake API, extracted, row-checked and its sha256 pinned in the record."""
    visits = standin_records["coupon"].parent / "coupon_visit_train.csv"
    rows = sum(1 for _ in visits.open()) - 1

    def serve(competition, file_name, folder):
        assert file_name == "coupon_visit_train.csv.zip"
        with zipfile.ZipFile(folder / file_name, "w") as bundle:
            bundle.write(visits, "coupon_visit_train.csv")

    monkeypatch.setattr(kaggle_client, "import_kaggle_api", lambda: _FakeKaggleApi(serve))
    real = dataset_spec("coupon")
    visits_spec = real.file("coupon_visit_train.csv")
    spec = DatasetSpec(name="coupon", title=real.title, mirror_dir=real.mirror_dir, kaggle=real.kaggle,
                       files=(real.file("coupon_list_train.csv"),
                              FileSpec(**{**visits_spec.__dict__, "rows": rows, "rows_tolerance": 0.0})))
    record = fetch_dataset("coupon", tmp_path / "raw", real_mirror, spec=spec)
    entry = record["files"]["coupon_visit_train.csv"]
    assert entry["sha256"] == hashlib.sha256(visits.read_bytes()).hexdigest()
    assert entry["sha256_known"] is False and entry["rows"] == rows and entry["origin"].startswith("kaggle ")
    assert record["files"]["coupon_list_train.csv"]["origin"].startswith("mirror ")
    folder = tmp_path / "raw" / "coupon"
    assert _leftovers(folder) == ["coupon_list_train.csv", "coupon_visit_train.csv", "fetch_record.json"]

    # A second fetch re-uses the verified files and the pinned hash instead of downloading again.
    monkeypatch.setattr(kaggle_client, "import_kaggle_api", lambda: pytest.fail("downloaded again"))
    again = fetch_dataset("coupon", tmp_path / "raw", real_mirror, spec=spec)
    assert again["files"]["coupon_visit_train.csv"]["sha256"] == entry["sha256"]


def test_network_guard_is_active():
    with pytest.raises(AssertionError, match="network"):
        socket.create_connection(("files.grouplens.org", 443), timeout=1)


def test_shutil_is_untouched_by_other_tests():
    # Guard against a monkeypatch leaking out of test_interrupted_copy_leaves_no_partial_file.
    assert shutil.copyfileobj.__module__ == "shutil"


@pytest.mark.needs_data
def test_ames_from_the_tab_separated_archive_is_verified_by_content(tmp_path, monkeypatch, real_mirror):
    """No mirror: the JSE archive's TSV is fetched (faked here from the mirror's table), kept as
    AmesHousing.txt, and verified by shape and content checksum, which equals the mirror CSV's."""
    table = fetch_module.read_raw_table(real_mirror / "ameshousing" / "AmesHousing.csv", "csv")

    def fake_download(url, destination):
        assert url == "http://jse.amstat.org/v19n3/decock/AmesHousing.txt"
        table.to_csv(destination, sep="\t", index=False)

    monkeypatch.setattr(fetch_module, "download_url", fake_download)
    record = fetch_dataset("ameshousing", tmp_path / "raw", None)
    entry = record["files"]["AmesHousing.csv"]
    assert entry["path"] == "AmesHousing.txt" and entry["format"] == "tsv"
    assert entry["content_sha256"] == dataset_spec("ameshousing").file("AmesHousing.csv").content_sha256
    assert (entry["rows"], entry["cols"]) == (2930, 82)
    assert "AmesHousing_DataDocumentation.txt" not in record["files"]  # optional, mirror only


def test_row_count_handles_zips_and_missing_final_newline(tmp_path):
    from banditrepro.data.integrity import count_table

    spec = FileSpec(name="t.csv", rows=3, cols=3)
    plain = tmp_path / "t.csv"
    plain.write_bytes(TABLE.rstrip(b"\n"))
    assert count_table(plain, spec)[:2] == (3, 3)
    zipped = tmp_path / "t.csv.zip"
    with zipfile.ZipFile(zipped, "w") as bundle:
        bundle.writestr("t.csv", TABLE)
    assert count_table(zipped, FileSpec(name="t.csv.zip")) == (3, 3, ["a", "b", "c"])


def test_kaggle_refusal_is_asked_once_and_reported_once(tmp_path, kaggle_credentials, monkeypatch):
    def forbidden(competition, file_name, folder):
        raise _http_error(403)

    api = _FakeKaggleApi(forbidden)
    monkeypatch.setattr(kaggle_client, "import_kaggle_api", lambda: api)
    with pytest.raises(DataError) as failure:
        fetch_dataset("outbrain", tmp_path / "raw", tmp_path / "empty-mirror")
    message = str(failure.value)
    assert len(api.calls) == 1
    assert message.count("HTTP 403") == 1 and "\n" not in message
    for name in ("promoted_content.csv.zip", "clicks_train.csv.zip", "events.csv.zip", "documents_categories.csv.zip"):
        assert name in message


def test_zipped_mirror_file_is_counted_inside_the_zip(tmp_path):
    """A .csv.zip copied through a temporary name (.x.csv.zip.part-…) is still read as a zip."""
    mirror = tmp_path / "mirror"
    (mirror / "synthetic").mkdir(parents=True)
    with zipfile.ZipFile(mirror / "synthetic" / "table.csv.zip", "w") as bundle:
        bundle.writestr("table.csv", TABLE)
    spec = DatasetSpec(name="outbrain", title="synthetic", mirror_dir="synthetic",
                       files=(FileSpec(name="table.csv.zip", rows=3, cols=3, columns=("a", "b", "c")),))
    record = fetch_dataset("outbrain", tmp_path / "raw", mirror, allow_network=False, spec=spec)
    assert (record["files"]["table.csv.zip"]["rows"], record["files"]["table.csv.zip"]["cols"]) == (3, 3)


def test_kaggle_file_served_unzipped_under_the_other_name_is_stored_zipped(tmp_path, kaggle_credentials,
                                                                          monkeypatch):
    def serve(competition, file_name, folder):
        if file_name.endswith(".zip"):
            raise _http_error(404)
        (folder / file_name).write_bytes(TABLE)

    api = _FakeKaggleApi(serve)
    monkeypatch.setattr(kaggle_client, "import_kaggle_api", lambda: api)
    spec = DatasetSpec(name="outbrain", title="synthetic", mirror_dir="synthetic", kaggle="outbrain-click-prediction",
                       files=(FileSpec(name="table.csv.zip", rows=3, cols=3, sources=("kaggle",)),))
    record = fetch_dataset("outbrain", tmp_path / "raw", None, spec=spec)
    assert api.calls == [("outbrain-click-prediction", "table.csv.zip"), ("outbrain-click-prediction", "table.csv")]
    with zipfile.ZipFile(tmp_path / "raw" / "outbrain" / "table.csv.zip") as bundle:
        assert bundle.namelist() == ["table.csv"] and bundle.read("table.csv") == TABLE
    assert record["files"]["table.csv.zip"]["rows"] == 3
