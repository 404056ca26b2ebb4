"""Synthetic stand-ins for the Kaggle files, with the exact raw schemas of the real files.

Used (a) by tests, to run the real preprocessing code end to end on small files, and (b) only when the user
sets ``data.standin: true`` and the real Kaggle files cannot be had, to build the Kaggle-based figures on
data labelled STAND-IN DATA. Files go to ``data/standin/raw/<dataset>/`` (never beside real raw files),
with a ``fetch_record.json`` whose ``standin`` is true; every processed output built from them carries
``"standin": true`` in its provenance sidecar and a ``STANDIN`` marker file.

Schemas reproduced (column names and order, value formats, compression as stored in data/raw/):

- Outbrain (each a zip holding one CSV named like the zip without ``.zip``, as Kaggle serves them):
  ``clicks_train.csv.zip``: display_id,ad_id,clicked (ints; rows grouped by display, exactly one click each);
  ``events.csv.zip``: display_id,uuid,document_id,timestamp,platform,geo_location (uuid 14 hex chars,
  timestamp ms since 2016-06-14 00:00 UTC, platform 1/2/3 or ``\\N``, geo like ``US>CA>807``, may be empty);
  ``promoted_content.csv.zip``: ad_id,document_id,campaign_id,advertiser_id;
  ``documents_categories.csv.zip``: document_id,category_id,confidence_level (1-2 categories per document).
- Coupon (plain CSV, as stored after extraction from Kaggle's zips):
  ``coupon_list_train.csv``: the 24 columns of the real file, in its order (flags 0/1/2 or NA);
  ``coupon_visit_train.csv``: PURCHASE_FLG,I_DATE,PAGE_SERIAL,REFERRER_hash,VIEW_COUPON_ID_hash,USER_ID_hash,
  SESSION_ID_hash,PURCHASEID_hash (hashes 32 hex chars; PURCHASEID_hash empty unless PURCHASE_FLG is 1).

Content is random (seeded) with a skewed category / weekday distribution so that the bandit problems are
non-trivial; it says nothing about the real data. ``size="full"`` yields at least 10^6 usable rows after
preprocessing (the experiments' T); ``size="small"`` a few thousand rows (tests).
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from .integrity import sha256_file, staged_file
from .paths import RECORD_NAME

SIZES = {
    # displays, ads, documents, categories / visits, coupons
    "outbrain": {"small": (4000, 600, 500, 30), "full": (1_400_000, 60_000, 40_000, 97)},
    "coupon": {"small": (5000, 400), "full": (1_250_000, 19_413)},
}
COUPON_LIST_COLUMNS = (
    "CAPSULE_TEXT", "GENRE_NAME", "PRICE_RATE", "CATALOG_PRICE", "DISCOUNT_PRICE", "DISPFROM", "DISPEND",
    "DISPPERIOD", "VALIDFROM", "VALIDEND", "VALIDPERIOD", "USABLE_DATE_MON", "USABLE_DATE_TUE",
    "USABLE_DATE_WED", "USABLE_DATE_THU", "USABLE_DATE_FRI", "USABLE_DATE_SAT", "USABLE_DATE_SUN",
    "USABLE_DATE_HOLIDAY", "USABLE_DATE_BEFORE_HOLIDAY", "large_area_name", "ken_name", "small_area_name",
    "COUPON_ID_hash",
)
COUPON_VISIT_COLUMNS = ("PURCHASE_FLG", "I_DATE", "PAGE_SERIAL", "REFERRER_hash", "VIEW_COUPON_ID_hash",
                        "USER_ID_hash", "SESSION_ID_hash", "PURCHASEID_hash")
_GENRES = ("グルメ", "ヘアサロン", "スパ", "ホテル・旅館", "リラクゼーション", "レッスン", "宅配", "その他のクーポン")
_AREAS = (("関東", "東京都", "渋谷・青山・自由が丘"), ("関東", "埼玉県", "埼玉"), ("関西", "大阪府", "ミナミ他"),
          ("東海", "愛知県", "愛知"), ("九州・沖縄", "福岡県", "福岡"))
_GEO = ("US>CA>807", "US>SC>519", "US>TX>623", "US>NY>501", "GB>H9", "SG>00", "CA>ON", "US>FL>528", "")


def _hex_fast(rng: np.random.Generator, n: int, width: int) -> np.ndarray:
    """n random lowercase hex strings of the given width (<= 32), vectorised."""
    high = rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)
    low = rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)
    text = np.char.add(np.char.mod("%016x", high), np.char.mod("%016x", low))
    return text.astype(f"<U{width}")


def _zip_csv(frame: pd.DataFrame, target: Path, member: str) -> None:
    with (staged_file(target) as tmp,
          zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as bundle,
          bundle.open(member, "w", force_zip64=True) as handle):
        frame.to_csv(handle, index=False, lineterminator="\n", encoding="utf-8")


def _plain_csv(frame: pd.DataFrame, target: Path) -> None:
    with staged_file(target) as tmp:
        frame.to_csv(tmp, index=False, lineterminator="\n", encoding="utf-8")


def _skewed(rng: np.random.Generator, n_items: int, exponent: float = 1.1) -> np.ndarray:
    weights = 1.0 / np.arange(1, n_items + 1) ** exponent
    return rng.permutation(weights / weights.sum())


def generate_outbrain(folder: Path, seed: int, size: str = "small") -> list[Path]:
    rng = np.random.default_rng(seed)
    n_displays, n_ads, n_docs, n_categories = SIZES["outbrain"][size]
    category_ids = np.sort(rng.choice(np.arange(1000, 2110), size=n_categories, replace=False))
    # Documents: ids spread out like the real ones; ~4 % without any category row.
    doc_ids = np.sort(rng.choice(np.arange(1, 3_000_000), size=n_docs, replace=False)).astype(np.int64)
    doc_best = rng.choice(n_categories, size=n_docs, p=_skewed(rng, n_categories, 1.6))
    has_category = rng.random(n_docs) > 0.04
    second = rng.random(n_docs) < 0.5
    rows_doc = np.concatenate([doc_ids[has_category], doc_ids[has_category & second]])
    rows_cat = np.concatenate([category_ids[doc_best[has_category]],
                               category_ids[rng.integers(0, n_categories, int((has_category & second).sum()))]])
    best_conf = rng.uniform(0.5, 0.95, size=int(has_category.sum()))
    rows_conf = np.concatenate([best_conf, rng.uniform(0.01, 0.49, size=int((has_category & second).sum()))])
    categories = pd.DataFrame({"document_id": rows_doc, "category_id": rows_cat,
                               "confidence_level": np.round(rows_conf, 6)})
    categories = categories.sample(frac=1.0, random_state=seed).reset_index(drop=True)

    ad_ids = np.arange(1, n_ads + 1)
    ad_doc = rng.integers(0, n_docs, size=n_ads)
    promoted = pd.DataFrame({"ad_id": ad_ids, "document_id": doc_ids[ad_doc],
                             "campaign_id": rng.integers(1, max(2, n_ads // 8), size=n_ads),
                             "advertiser_id": rng.integers(1, max(2, n_ads // 40), size=n_ads)})

    # Displays: 2-4 ads each, exactly one clicked; clicked ads favour popular categories via their documents.
    per_display = rng.integers(2, 5, size=n_displays)
    display_ids = np.repeat(np.arange(1, n_displays + 1), per_display)
    shown_ads = rng.integers(1, n_ads + 1, size=len(display_ids))
    starts = np.concatenate([[0], np.cumsum(per_display)[:-1]])
    ad_popularity = _skewed(rng, n_ads, 0.8)
    clicked_position = starts + rng.integers(0, per_display)
    shown_ads[clicked_position] = rng.choice(ad_ids, size=n_displays, p=ad_popularity)
    clicked = np.zeros(len(display_ids), dtype=np.int8)
    clicked[clicked_position] = 1
    clicks = pd.DataFrame({"display_id": display_ids, "ad_id": shown_ads, "clicked": clicked})

    # Events: one per display (0.2 % missing), timestamps roughly increasing with display_id, some ties.
    has_event = rng.random(n_displays) > 0.002
    event_ids = np.arange(1, n_displays + 1)[has_event]
    span_ms = 1_300_000_000
    stamps = (event_ids / n_displays * span_ms + rng.integers(-60_000, 60_000, size=len(event_ids))).astype(np.int64)
    stamps = np.clip(stamps, 0, None) // 1000 * 1000  # second resolution makes ties, exercising the tie rule
    platform = rng.choice(np.array(["1", "2", "3", "\\N"]), size=len(event_ids), p=[0.4, 0.45, 0.149, 0.001])
    events = pd.DataFrame({"display_id": event_ids, "uuid": _hex_fast(rng, len(event_ids), 14),
                           "document_id": doc_ids[rng.integers(0, n_docs, size=len(event_ids))],
                           "timestamp": stamps, "platform": platform,
                           "geo_location": rng.choice(np.array(_GEO), size=len(event_ids))})

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (("clicks_train.csv", clicks), ("events.csv", events), ("promoted_content.csv", promoted),
                        ("documents_categories.csv", categories)):
        target = folder / f"{name}.zip"
        _zip_csv(frame, target, name)
        written.append(target)
    return written


def generate_coupon(folder: Path, seed: int, size: str = "small") -> list[Path]:
    rng = np.random.default_rng(seed)
    n_visits, n_coupons = SIZES["coupon"][size]
    coupon_ids = _hex_fast(rng, n_coupons, 32)
    start = np.datetime64("2011-07-01T12:00:00")
    disp_from = start + rng.integers(0, 350, size=n_coupons).astype("timedelta64[D]")
    disp_days = rng.integers(1, 8, size=n_coupons)
    valid_days = rng.integers(30, 180, size=n_coupons).astype(float)
    no_validity = rng.random(n_coupons) < 0.3  # real file: VALIDFROM/VALIDEND/VALIDPERIOD and flags NA
    valid_from = (disp_from + disp_days.astype("timedelta64[D]")).astype("datetime64[D]")
    catalog = rng.integers(5, 300, size=n_coupons) * 100
    rate = rng.integers(20, 90, size=n_coupons)
    area = rng.integers(0, len(_AREAS), size=n_coupons)
    weekday_usable = np.array([0.78, 0.8, 0.79, 0.8, 0.72, 0.55, 0.5])  # weekends less often, like the real one
    flags = np.where(rng.random((n_coupons, 7)) < weekday_usable, 1.0, 0.0)
    flags[rng.random((n_coupons, 7)) < 0.05] = 2.0
    holiday = rng.choice([0.0, 1.0, 2.0], size=(n_coupons, 2), p=[0.35, 0.6, 0.05])
    flags[no_validity & (rng.random(n_coupons) < 0.15)] = np.nan
    holiday[np.isnan(flags).all(axis=1)] = np.nan
    coupons = pd.DataFrame({
        "CAPSULE_TEXT": rng.choice(np.array(_GENRES), size=n_coupons),
        "GENRE_NAME": rng.choice(np.array(_GENRES), size=n_coupons),
        "PRICE_RATE": rate, "CATALOG_PRICE": catalog,
        "DISCOUNT_PRICE": (catalog * (100 - rate) // 100).astype(np.int64),
        "DISPFROM": pd.to_datetime(disp_from).strftime("%Y-%m-%d %H:%M:%S"),
        "DISPEND": pd.to_datetime(disp_from + disp_days.astype("timedelta64[D]")).strftime("%Y-%m-%d %H:%M:%S"),
        "DISPPERIOD": disp_days,
        "VALIDFROM": np.where(no_validity, "NA", pd.to_datetime(valid_from).strftime("%Y-%m-%d")),
        "VALIDEND": np.where(no_validity, "NA", pd.to_datetime(
            valid_from + valid_days.astype(int).astype("timedelta64[D]")).strftime("%Y-%m-%d")),
        "VALIDPERIOD": np.where(no_validity, np.nan, valid_days),
    })
    for j, column in enumerate(COUPON_LIST_COLUMNS[11:18]):
        coupons[column] = flags[:, j]
    coupons["USABLE_DATE_HOLIDAY"], coupons["USABLE_DATE_BEFORE_HOLIDAY"] = holiday[:, 0], holiday[:, 1]
    coupons["large_area_name"] = [_AREAS[a][0] for a in area]
    coupons["ken_name"] = [_AREAS[a][1] for a in area]
    coupons["small_area_name"] = [_AREAS[a][2] for a in area]
    coupons["COUPON_ID_hash"] = coupon_ids
    # The real file writes integers without a decimal point and NA as "NA".
    for column in ("VALIDPERIOD", *COUPON_LIST_COLUMNS[11:20]):
        coupons[column] = coupons[column].map(lambda v: "NA" if np.isnan(v) else str(int(v)))
    coupons = coupons[list(COUPON_LIST_COLUMNS)]

    # Visits: ~12 % view coupons that have no attributes (as in the real data: 32,628 viewed vs 19,413 listed).
    unknown_ids = _hex_fast(rng, max(1, n_coupons // 2), 32)
    viewed = np.where(rng.random(n_visits) < 0.12, rng.choice(unknown_ids, size=n_visits),
                      rng.choice(coupon_ids, size=n_visits, p=_skewed(rng, n_coupons, 0.7)))
    seconds = np.sort(rng.integers(0, 357 * 86400, size=n_visits))
    seconds[1::7] = seconds[0::7][: len(seconds[1::7])]  # duplicate timestamps exercise the file-order tie rule
    i_date = (start - np.timedelta64(12, "h") + seconds.astype("timedelta64[s]"))
    rng.shuffle(i_date[: n_visits // 10])  # the real file is not sorted by time
    purchase = (rng.random(n_visits) < 0.05).astype(np.int64)
    n_users = max(10, n_visits // 120)
    users = _hex_fast(rng, n_users, 32)
    purchase_ids = _hex_fast(rng, n_visits, 32)
    visits = pd.DataFrame({
        "PURCHASE_FLG": purchase,
        "I_DATE": pd.to_datetime(i_date).strftime("%Y-%m-%d %H:%M:%S"),
        "PAGE_SERIAL": rng.integers(1, 30, size=n_visits),
        "REFERRER_hash": rng.choice(_hex_fast(rng, 50, 32), size=n_visits),
        "VIEW_COUPON_ID_hash": viewed,
        "USER_ID_hash": rng.choice(users, size=n_visits),
        "SESSION_ID_hash": _hex_fast(rng, n_visits, 32),
        "PURCHASEID_hash": np.where(purchase == 1, purchase_ids, ""),
    })
    folder.mkdir(parents=True, exist_ok=True)
    list_path, visit_path = folder / "coupon_list_train.csv", folder / "coupon_visit_train.csv"
    _plain_csv(coupons, list_path)
    _plain_csv(visits[list(COUPON_VISIT_COLUMNS)], visit_path)
    return [list_path, visit_path]


def write_standin(name: str, out_dir: Path, seed: int = 20171128, size: str = "small") -> Path:
    """Generate stand-in raw files for ``name`` under ``out_dir/name`` and return its fetch record path."""
    folder = Path(out_dir) / name
    from .manifest import dataset_spec  # the manifest names each dataset's generator

    generator = dataset_spec(name).standin_generator()
    files = generator(folder, seed, size)
    record = {
        "dataset": name, "standin": True, "label": "STAND-IN DATA",
        "fetched_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "generator": {"module": __name__, "seed": seed, "size": size},
        "files": {p.name: {"name": p.name, "path": p.name, "size": p.stat().st_size, "sha256": sha256_file(p),
                           "sha256_known": False, "origin": f"standin seed={seed} size={size}"} for p in files},
    }
    record_path = folder / RECORD_NAME
    with staged_file(record_path) as tmp:
        tmp.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return record_path
