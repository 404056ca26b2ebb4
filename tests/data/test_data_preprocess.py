"""Preprocessing of each dataset: hand-made fixtures with known answers, generated stand-ins checked
against an independent (naive pandas) implementation, and the real mirror files where present."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from banditrepro.data import ameshousing, coupon, movielens, outbrain
from banditrepro.data.fetch import fetch_dataset, read_raw_table
from banditrepro.data.integrity import table_content_sha256
from banditrepro.data.sidecar import STANDIN_MARKER, read_sidecar
from banditrepro.data.standin import _zip_csv


def _record(folder: Path, dataset: str, files: list[str], standin: bool = False, formats=None) -> Path:
    formats = formats or {}
    entries = {name: {"name": name, "path": name, "sha256": "0" * 64, "origin": "test",
                      **({"format": formats[name]} if name in formats else {})} for name in files}
    path = folder / "fetch_record.json"
    path.write_text(json.dumps({"dataset": dataset, "standin": standin, "files": entries}))
    return path


# ------------------------------------------------------------------------------------------- MovieLens
def test_movielens_histograms_on_a_tiny_file(tmp_path):
    lines = ["1::10::5::1", "2::10::5::2", "3::10::1::3", "1::20::3::4", "2::30::4::5", "3::30::4::6", "4::30::2::7"]
    (tmp_path / "ratings.dat").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    movielens.preprocess(_record(tmp_path, "movielens_1m", ["ratings.dat"]), out)
    table = pd.read_csv(out / "movie_rating_histograms.csv")
    assert list(table.columns) == ["movie_id", "count", "n1", "n2", "n3", "n4", "n5"]
    assert table.to_dict("list") == {"movie_id": [10, 20, 30], "count": [3, 1, 3], "n1": [1, 0, 0],
                                     "n2": [0, 0, 1], "n3": [0, 1, 0], "n4": [0, 0, 2], "n5": [2, 0, 0]}
    assert read_sidecar(out, "movielens_1m")["standin"] is False


@pytest.mark.needs_data
def test_movielens_paper_selection_sizes_on_the_real_data(tmp_path, real_mirror):
    """The paper's 13 / 31 / 118 movies for m0 = 2500 / 2000 / 1250 (count > m0; >= gives the same)."""
    record = fetch_dataset("movielens_1m", tmp_path / "raw", real_mirror, allow_network=False)
    assert record["files"]["ratings.dat"]["rows"] == 1_000_209
    out = tmp_path / "processed"
    movielens.preprocess(tmp_path / "raw" / "movielens_1m" / "fetch_record.json", out)
    table = pd.read_csv(out / "movie_rating_histograms.csv")
    assert len(table) == 3706 and table["count"].sum() == 1_000_209
    assert (table[["n1", "n2", "n3", "n4", "n5"]].sum(axis=1) == table["count"]).all()
    for m0, expected in ((2500, 13), (2000, 31), (1250, 118)):
        assert int((table["count"] > m0).sum()) == expected
        assert int((table["count"] >= m0).sum()) == expected


# ------------------------------------------------------------------------------------------ AmesHousing
def test_ames_reader_keeps_none_distinct_from_missing(tmp_path):
    text = "Order,Mas Vnr Type,Alley,Sale Type\r\n1,None,NA,WD \r\n2,,Pave,New\r\n3,Stone,NA,COD\r\n"
    path = tmp_path / "ames.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    raw = ameshousing.read_ames_raw(path)
    assert list(raw.columns) == ["Order", "Mas Vnr Type", "Alley", "Sale Type"]  # BOM not in the name
    assert raw.loc[0, "Mas Vnr Type"] == "None" and pd.isna(raw.loc[1, "Mas Vnr Type"])
    assert raw["Alley"].isna().tolist() == [True, False, True]
    assert raw.loc[0, "Sale Type"] == "WD"  # trimmed like R's readr


def test_table_content_checksum_ignores_format_but_not_content(tmp_path):
    frame = pd.DataFrame({"a": ["1", "None", ""], "b c": ["x", "NA", "z"]})
    csv, tsv = tmp_path / "t.csv", tmp_path / "t.txt"
    csv.write_bytes(b"\xef\xbb\xbf" + frame.to_csv(index=False, lineterminator="\r\n").encode())
    tsv.write_text(frame.to_csv(index=False, sep="\t"))
    from_csv, from_tsv = read_raw_table(csv, "csv"), read_raw_table(tsv, "tsv")
    assert table_content_sha256(from_csv) == table_content_sha256(from_tsv)
    changed = from_tsv.copy()
    changed.loc[1, "a"] = ""
    assert table_content_sha256(changed) != table_content_sha256(from_csv)


@pytest.mark.needs_data
def test_ames_model_table_on_the_real_data(tmp_path, real_mirror):
    fetch_dataset("ameshousing", tmp_path / "raw", real_mirror, allow_network=False)
    out = tmp_path / "processed"
    ameshousing.preprocess(tmp_path / "raw" / "ameshousing" / "fetch_record.json", out)
    table = pd.read_csv(out / "ames_model_table.csv")
    columns = pd.read_csv(out / "ames_model_table.columns.csv", keep_default_na=False)
    assert table.shape == (2930, 79) and table.columns[-1] == "Sale_Price"
    assert not table.isna().any().any() and all(dtype.kind == "i" for dtype in table.dtypes)
    assert {"Order", "PID", "Garage_Yr_Blt"}.isdisjoint(table.columns)
    assert table["Sale_Price"].mean() == pytest.approx(180796.06, abs=0.01)
    levels = columns.set_index("column")["levels"].str.split("|")
    assert len(columns) == 79 and (columns["kind"] == "factor").sum() == 46
    # "None" (1752 literal + 23 missing filled as in make_ames) is its own level, not "missing".
    none_code = levels["Mas_Vnr_Type"].index("None") + 1
    assert int((table["Mas_Vnr_Type"] == none_code).sum()) == 1775
    assert levels["Electrical"][-1] == "Unknown" and int((table["Electrical"] == 6).sum()) == 1
    assert levels["Bsmt_Qual"].count("No_Basement") == 1
    assert table["BsmtFin_SF_1"].between(0, 7).all()  # make_ames' factor-code quirk, reproduced
    for column, kind in columns.set_index("column")["kind"].items():
        if kind == "factor":
            assert table[column].between(1, len(levels[column])).all(), column
    # The same table from a tab-separated rendition (the JSE archive's format).
    raw = read_raw_table(real_mirror / "ameshousing" / "AmesHousing.csv", "csv")
    tsv_dir = tmp_path / "tsv"
    tsv_dir.mkdir()
    raw.to_csv(tsv_dir / "AmesHousing.txt", sep="\t", index=False)
    record = _record(tsv_dir, "ameshousing", ["AmesHousing.csv"])
    payload = json.loads(record.read_text())
    payload["files"]["AmesHousing.csv"].update(path="AmesHousing.txt", format="tsv")
    record.write_text(json.dumps(payload))
    ameshousing.preprocess(record, tmp_path / "from_tsv")
    assert pd.read_csv(tmp_path / "from_tsv" / "ames_model_table.csv").equals(table)


# --------------------------------------------------------------------------------------------- Outbrain
def _write_outbrain(folder: Path, clicks, events, promoted, categories) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows, columns in (
        ("clicks_train.csv", clicks, ["display_id", "ad_id", "clicked"]),
        ("events.csv", events, ["display_id", "uuid", "document_id", "timestamp", "platform", "geo_location"]),
        ("promoted_content.csv", promoted, ["ad_id", "document_id", "campaign_id", "advertiser_id"]),
        ("documents_categories.csv", categories, ["document_id", "category_id", "confidence_level"]),
    ):
        _zip_csv(pd.DataFrame(rows, columns=columns), folder / f"{name}.zip", name)
    return _record(folder, "outbrain", [f"{n}.zip" for n in ("clicks_train.csv", "events.csv",
                                                              "promoted_content.csv", "documents_categories.csv")])


def test_outbrain_rules_on_a_hand_made_example(tmp_path):
    clicks = [(1, 1, 0), (1, 2, 1), (2, 3, 1), (2, 1, 0), (3, 4, 1), (4, 1, 1), (4, 5, 0), (5, 5, 1), (6, 5, 1)]
    events = [(d, "abcdef01234567", 9, t, "1", "US>CA>807") for d, t in ((1, 500), (2, 10), (3, 100), (4, 100),
                                                                         (5, 50))]  # display 6: no event
    promoted = [(1, 10, 1, 1), (2, 20, 1, 1), (3, 30, 2, 1), (4, 40, 2, 1), (5, 50, 3, 2)]
    categories = [(10, 100, 0.9), (10, 200, 0.1), (20, 200, 0.5), (20, 100, 0.5), (40, 300, 0.7), (50, 200, 0.8)]
    record = _write_outbrain(tmp_path / "raw", clicks, events, promoted, categories)
    out = tmp_path / "out"
    outbrain.preprocess(record, out, horizon=10, arm_counts=(2, 3), chunk_rows=2)
    # Ordered: d5 (t=50, cat 200), d3 (t=100, cat 300), d4 (t=100, tie -> display id, cat 100),
    # d1 (t=500, doc 20: confidence tie -> category 100). d2 has no category, d6 no event.
    top3 = np.load(out / "rewards_top3.npy")
    arms3 = pd.read_csv(out / "arms_top3.csv")
    assert arms3["category_id"].tolist() == [100, 200, 300]  # by clicks, tie 200/300 -> smaller id
    assert top3.dtype == np.int8 and top3.tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0]]
    top2 = np.load(out / "rewards_top2.npy")
    assert top2.tolist() == [[0, 1], [1, 0], [1, 0]]  # category 300 dropped
    summary = read_sidecar(out, "outbrain")["summary"]
    assert summary["displays_without_category"] == 1 and summary["displays_without_event"] == 1
    assert summary["top2"]["i_star"] == 0 and summary["top2"]["T_used"] == 3
    outbrain.preprocess(record, tmp_path / "short", horizon=2, arm_counts=(3,))
    assert np.load(tmp_path / "short" / "rewards_top3.npy").tolist() == [[0, 1, 0], [0, 0, 1]]


def _naive_outbrain_sequence(folder: Path) -> list[int]:
    clicks = pd.read_csv(folder / "clicks_train.csv.zip")
    events = pd.read_csv(folder / "events.csv.zip")
    promoted = pd.read_csv(folder / "promoted_content.csv.zip")
    cats = pd.read_csv(folder / "documents_categories.csv.zip")
    best = (cats.sort_values(["confidence_level", "category_id"], ascending=[False, True])
            .groupby("document_id", as_index=False).first())
    frame = (clicks[clicks["clicked"] == 1].merge(promoted, on="ad_id").merge(best, on="document_id")
             .merge(events[["display_id", "timestamp"]], on="display_id"))
    return frame.sort_values(["timestamp", "display_id"])["category_id"].tolist()


def test_outbrain_standin_matches_a_naive_implementation(tmp_path, standin_records):
    record = standin_records["outbrain"]
    out = tmp_path / "out"
    outbrain.preprocess(record, out, chunk_rows=1000)
    sequence = _naive_outbrain_sequence(record.parent)
    counts = pd.Series(sequence).value_counts()
    for k in (5, 10, 20):
        top = sorted(counts.index, key=lambda c: (-counts[c], c))[:k]
        kept = [top.index(c) for c in sequence if c in top]
        matrix = np.load(out / f"rewards_top{k}.npy")
        assert matrix.shape == (len(kept), k) and (matrix.sum(axis=1) == 1).all()
        assert matrix.argmax(axis=1).tolist() == kept
        assert pd.read_csv(out / f"arms_top{k}.csv")["category_id"].tolist() == top
    sidecar = read_sidecar(out, "outbrain")
    assert sidecar["standin"] is True and sidecar["label"] == "STAND-IN DATA"
    assert (out / STANDIN_MARKER).is_file()


def test_outbrain_standin_has_the_kaggle_schema(standin_records):
    folder = standin_records["outbrain"].parent
    expected = {
        "clicks_train.csv": ["display_id", "ad_id", "clicked"],
        "events.csv": ["display_id", "uuid", "document_id", "timestamp", "platform", "geo_location"],
        "promoted_content.csv": ["ad_id", "document_id", "campaign_id", "advertiser_id"],
        "documents_categories.csv": ["document_id", "category_id", "confidence_level"],
    }
    import zipfile

    for member, columns in expected.items():
        with zipfile.ZipFile(folder / f"{member}.zip") as bundle:
            assert bundle.namelist() == [member]
            header = bundle.open(member).readline().decode().strip().split(",")
        assert header == columns
    clicks = pd.read_csv(folder / "clicks_train.csv.zip")
    assert (clicks.groupby("display_id")["clicked"].sum() == 1).all()
    assert all(dtype.kind == "i" for dtype in clicks.dtypes)


# ----------------------------------------------------------------------------------------------- Coupon
VISIT_COLUMNS = ["PURCHASE_FLG", "I_DATE", "PAGE_SERIAL", "REFERRER_hash", "VIEW_COUPON_ID_hash", "USER_ID_hash",
                 "SESSION_ID_hash", "PURCHASEID_hash"]


def _write_coupon(folder: Path, coupons: dict[str, list], visits: list[tuple[str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [dict(zip(coupon.FLAG_COLUMNS, flags), COUPON_ID_hash=cid) for cid, flags in coupons.items()]
    pd.DataFrame(rows).to_csv(folder / "coupon_list_train.csv", index=False, na_rep="NA")
    pd.DataFrame([(0, date, 1, "r", cid, "u", "s", "") for date, cid in visits], columns=VISIT_COLUMNS).to_csv(
        folder / "coupon_visit_train.csv", index=False)
    return _record(folder, "coupon", ["coupon_list_train.csv", "coupon_visit_train.csv"])


def test_coupon_rules_on_a_hand_made_example(tmp_path):
    nan = float("nan")
    coupons = {"a": [1, 2, 0, nan, 1, 1, 0], "b": [nan] * 7, "c": [0, 0, 1, 1, 2, 0, 0]}
    visits = [("2011-07-03 10:00:00", "c"), ("2011-07-01 09:00:00", "a"), ("2011-07-02 00:00:00", "b"),
              ("2011-07-01 09:00:00", "c"), ("2011-07-01 08:00:00", "zzz")]
    record = _write_coupon(tmp_path / "raw", coupons, visits)
    out = tmp_path / "out"
    coupon.preprocess(record, out, chunk_rows=2)
    # Time order with file order on ties: zzz (no attributes: dropped), a, c, b (all NA: dropped), c.
    ge1 = np.load(out / "rewards_weekday_ge1.npy")
    eq1 = np.load(out / "rewards_weekday_eq1.npy")
    assert ge1.tolist() == [[1, 1, 0, 0, 1, 1, 0], [0, 0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 0, 0]]
    assert eq1.tolist() == [[1, 0, 0, 0, 1, 1, 0], [0, 0, 1, 1, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0]]
    summary = read_sidecar(out, "coupon")["summary"]
    assert summary["encoding"] == "ge1" and summary["T_used"] == 3
    assert summary["visits_without_coupon_attributes"] == 1 and summary["visits_with_all_flags_na"] == 1
    assert np.array_equal(np.load(out / "rewards_weekday.npy"), ge1)
    assert summary["i_star"] == int(np.argmax(ge1.sum(axis=0)))


def test_coupon_switches_to_strict_encoding_when_arms_are_identical(tmp_path):
    coupons = {"a": [1] * 7, "b": [2, 2, 1, 1, 2, 2, 2]}
    visits = [("2011-07-01 09:00:00", "a"), ("2011-07-01 10:00:00", "b")]
    out = tmp_path / "out"
    coupon.preprocess(_write_coupon(tmp_path / "raw", coupons, visits), out)
    summary = read_sidecar(out, "coupon")["summary"]
    assert summary["spread_ge1"] == 0 and summary["encoding"] == "eq1"
    assert np.load(out / "rewards_weekday.npy").tolist() == [[1] * 7, [0, 0, 1, 1, 0, 0, 0]]


def test_coupon_standin_matches_a_naive_implementation(tmp_path, standin_records):
    record = standin_records["coupon"]
    out = tmp_path / "out"
    coupon.preprocess(record, out, horizon=1500, chunk_rows=700)
    folder = record.parent
    visits = pd.read_csv(folder / "coupon_visit_train.csv", keep_default_na=False)
    visits["order"] = np.arange(len(visits))
    visits = visits.sort_values(["I_DATE", "order"])
    flags = pd.read_csv(folder / "coupon_list_train.csv")
    joined = visits.merge(flags, left_on="VIEW_COUPON_ID_hash", right_on="COUPON_ID_hash", how="inner",
                          sort=False).sort_values(["I_DATE", "order"])
    joined = joined[joined[list(coupon.FLAG_COLUMNS)].notna().any(axis=1)].head(1500)
    expected = (joined[list(coupon.FLAG_COLUMNS)].fillna(0) >= 1).astype(np.int8).to_numpy()
    assert np.array_equal(np.load(out / "rewards_weekday_ge1.npy"), expected)
    sidecar = read_sidecar(out, "coupon")
    assert sidecar["standin"] is True and sidecar["outputs"]["rewards_weekday.npy"]["shape"] == [1500, 7]
    assert (out / STANDIN_MARKER).is_file()


def test_coupon_standin_has_the_real_column_layout(standin_records, real_mirror):
    folder = standin_records["coupon"].parent
    real_header = (real_mirror / "coupon-purchase" / "coupon_list_train.csv").open(encoding="utf-8").readline()
    assert (folder / "coupon_list_train.csv").open(encoding="utf-8").readline() == real_header
    assert (folder / "coupon_visit_train.csv").open().readline().strip().split(",") == VISIT_COLUMNS
