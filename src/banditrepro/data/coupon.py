"""Coupon Purchase Prediction -> weekday reward matrices (composite_anonymous §4.2).

Pipeline (spec composite_anonymous.md §4.2, resolutions [R] there):

1. Each ``coupon_visit_train`` row is one user clicking a coupon to see its details (the paper's "click").
   Rows are sorted by ``I_DATE`` (stable sort, so ties keep file order).
2. Inner join ``VIEW_COUPON_ID_hash`` -> ``coupon_list_train.COUPON_ID_hash`` (visits of coupons without
   attributes are dropped). Rows whose 7 weekday flags ``USABLE_DATE_MON..SUN`` are all NA are dropped.
3. Arms j = 0..6 = Mon..Sun. Encoding ">=1" (primary): ``S[t, j] = 1[USABLE_DATE_j >= 1]`` (NA -> 0);
   encoding "==1" (sensitivity, "strict"): ``S[t, j] = 1[USABLE_DATE_j == 1]``.
4. The first T rows (T = 10^6 by default; fewer only if the data has fewer, recorded as ``T_used``). If the
   per-arm means of ">=1" span less than 0.02 (all arms near-identical), the primary matrix switches to
   "==1" and ``encoding`` in the provenance says so.

Outputs (``data/processed/coupon/``, or ``data/standin/processed/coupon/`` for stand-in data):

``rewards_weekday.npy``
    int8 (T_used, 7), the primary matrix (encoding named in the provenance: ``ge1`` or ``eq1``).
``rewards_weekday_ge1.npy`` / ``rewards_weekday_eq1.npy``
    int8 (T_used, 7), both encodings, same rows.
``arms_weekday.csv``
    ``arm`` (0..6), ``weekday`` (Mon..Sun), ``column`` (USABLE_DATE_*), ``mean_ge1``, ``mean_eq1``.
``coupon.provenance.json``
    ``standin``, inputs/outputs sha256, parameters, summary: ``T_used``, ``encoding``, ``spread_ge1``
    (max - min of the ">=1" means), rows dropped at each step, ``i_star`` of the primary matrix.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from .. import portable
from .fetch import load_record, record_file_path
from .integrity import DataError, staged_file
from .sidecar import write_sidecar

log = logging.getLogger(__name__)

DEFAULT_HORIZON = 1_000_000
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
FLAG_COLUMNS = tuple(f"USABLE_DATE_{day.upper()}" for day in WEEKDAYS)
MIN_SPREAD = 0.02
CHUNK_ROWS = 1_000_000


def ordered_visits(path: Path, chunk_rows: int = CHUNK_ROWS) -> pd.Series:
    """Viewed coupon ids in (I_DATE, file order) order."""
    parts = [chunk for chunk in pd.read_csv(path, usecols=["I_DATE", "VIEW_COUPON_ID_hash"], dtype=str,
                                            keep_default_na=False, chunksize=chunk_rows)]
    visits = pd.concat(parts, ignore_index=True)
    stamps = pd.to_datetime(visits["I_DATE"], format="%Y-%m-%d %H:%M:%S", errors="raise")
    order = np.argsort(stamps.to_numpy(), kind="stable")
    return visits["VIEW_COUPON_ID_hash"].iloc[order].reset_index(drop=True)


def coupon_flags(path: Path) -> pd.DataFrame:
    coupons = pd.read_csv(path, usecols=["COUPON_ID_hash", *FLAG_COLUMNS], dtype={c: float for c in FLAG_COLUMNS},
                          **portable.csv_float_options(pd.__version__))
    if coupons["COUPON_ID_hash"].duplicated().any():
        raise DataError("coupon_list_train.csv: duplicated COUPON_ID_hash")
    return coupons.set_index("COUPON_ID_hash")[list(FLAG_COLUMNS)]


def weekday_rewards(viewed: pd.Series, flags: pd.DataFrame, horizon: int) -> tuple[dict, pd.DataFrame, dict]:
    position = flags.index.get_indexer(viewed.to_numpy())
    matched = position >= 0
    values = flags.to_numpy()[position[matched]]
    all_na = np.isnan(values).all(axis=1)
    values = values[~all_na][:horizon]
    t_used = len(values)
    if t_used < horizon:
        log.warning("coupon: only %d usable visits, fewer than T=%d", t_used, horizon)
    with np.errstate(invalid="ignore"):
        ge1 = (np.nan_to_num(values, nan=0.0) >= 1).astype(np.int8)
        eq1 = (np.nan_to_num(values, nan=0.0) == 1).astype(np.int8)
    mean_ge1 = ge1.mean(axis=0) if t_used else np.zeros(7)
    mean_eq1 = eq1.mean(axis=0) if t_used else np.zeros(7)
    spread = float(mean_ge1.max() - mean_ge1.min())
    encoding = "ge1" if spread >= MIN_SPREAD else "eq1"
    primary = ge1 if encoding == "ge1" else eq1
    arms = pd.DataFrame({"arm": range(7), "weekday": WEEKDAYS, "column": FLAG_COLUMNS,
                         "mean_ge1": mean_ge1, "mean_eq1": mean_eq1})
    summary = {"visits": int(len(viewed)), "visits_without_coupon_attributes": int((~matched).sum()),
               "visits_with_all_flags_na": int(all_na.sum()), "T_used": t_used, "encoding": encoding,
               "spread_ge1": spread, "i_star": int(np.argmax(primary.sum(axis=0))) if t_used else None}
    return {"rewards_weekday": primary, "rewards_weekday_ge1": ge1, "rewards_weekday_eq1": eq1}, arms, summary


def preprocess(record_file: Path, out_dir: Path, horizon: int = DEFAULT_HORIZON,
               chunk_rows: int = CHUNK_ROWS) -> list[Path]:
    record = load_record(record_file)
    viewed = ordered_visits(record_file_path(record, "coupon_visit_train.csv"), chunk_rows)
    flags = coupon_flags(record_file_path(record, "coupon_list_train.csv"))
    matrices, arms, summary = weekday_rewards(viewed, flags, horizon)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = []
    for stem, matrix in matrices.items():
        path = out_dir / f"{stem}.npy"
        with staged_file(path) as tmp, open(tmp, "wb") as handle:
            np.save(handle, matrix)
        outputs.append(path)
    arms_path = out_dir / "arms_weekday.csv"
    with staged_file(arms_path) as tmp:
        arms.to_csv(tmp, index=False)
    outputs.append(arms_path)
    write_sidecar(out_dir, "coupon", record, outputs,
                  parameters={"horizon": horizon, "min_spread": MIN_SPREAD,
                              "order": "I_DATE, ties -> file order"},
                  summary=summary)
    return outputs
