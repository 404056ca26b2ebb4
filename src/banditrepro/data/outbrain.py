"""Outbrain Click Prediction -> time-ordered one-hot category reward matrices (composite_anonymous §4.1).

Pipeline (spec composite_anonymous.md §4.1, resolutions [R] there):

1. clicks = ``clicks_train[clicked == 1]`` -> (display_id, ad_id); read in chunks with int32 columns.
   Kaggle's file has exactly one click per display; if a display had several, its first row is kept (the
   number of such rows is logged in the provenance summary).
2. ad -> landing document: ``promoted_content.document_id``.
3. document -> category: the ``documents_categories`` row with the largest ``confidence_level`` (ties ->
   smaller ``category_id``). Displays whose ad (or ad document) has no category are dropped.
4. Order: ``events.timestamp`` (ms since 2016-06-14), ties by ``display_id``; displays without an event row
   are dropped.
5. Arms: the k most frequent clicked categories over the whole ordered sequence (ties -> smaller
   category_id); arm 0 is the most frequent. Displays whose category is not among them are dropped.
   k = 10 is the primary setting; k = 5 and 20 are the spec's sensitivity runs.
6. The first T displays (T = 10^6 by default; fewer only if the data has fewer, recorded as ``T_used``):
   ``S[t, i] = 1[category(t) == arm i]``.

Outputs (``data/processed/outbrain/``, or ``data/standin/processed/outbrain/`` for stand-in data):

``rewards_top{k}.npy`` for k in 5, 10, 20
    int8 array of shape (T_used, k), exactly one 1 per row (one click per user). Row t = the t-th user.
``arms_top{k}.csv``
    columns ``arm`` (0..k-1, column index in the matrix), ``category_id``, ``clicks_all`` (clicks of that
    category in the whole ordered sequence), ``clicks_T`` (column sum of the matrix), ``frequency_T``
    (``clicks_T / T_used``).
``outbrain.provenance.json``
    ``standin``, inputs' sha256, outputs' sha256/shape/dtype, parameters (horizon, ks) and summary per k:
    ``T_used``, ``i_star`` (argmax column sum over the T rows = best arm in hindsight), ``best_frequency``,
    ``second_frequency``, ``gap`` (their difference; matters for claim C4), plus the drop counts of steps 1-4.

Memory: the largest objects are the clicked (display_id, ad_id) pairs (~17M x 8 bytes) and a timestamp
lookup indexed by display_id (~23M x 8 bytes), i.e. well under 1 GB.
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
ARM_COUNTS = (5, 10, 20)
PRIMARY_ARMS = 10
CHUNK_ROWS = 5_000_000


def _chunks(path: Path, columns: list[str], dtypes: dict, chunk_rows: int):
    return pd.read_csv(path, usecols=columns, dtype=dtypes, chunksize=chunk_rows, **portable.csv_float_options(pd.__version__))


def read_clicked(path: Path, chunk_rows: int = CHUNK_ROWS) -> pd.DataFrame:
    parts = []
    for chunk in _chunks(path, ["display_id", "ad_id", "clicked"],
                         {"display_id": np.int32, "ad_id": np.int32, "clicked": np.int8}, chunk_rows):
        parts.append(chunk.loc[chunk["clicked"] == 1, ["display_id", "ad_id"]])
    return pd.concat(parts, ignore_index=True)


def _lookup(keys: np.ndarray, values: np.ndarray, fill, dtype) -> np.ndarray:
    """Dense array ``table[key] = value`` (keys are small non-negative ints in these files)."""
    if len(keys) and keys.min() < 0:
        raise DataError("negative id in an Outbrain key column")
    table = np.full(int(keys.max()) + 2 if len(keys) else 1, fill, dtype=dtype)
    table[keys] = values
    return table


def _take(table: np.ndarray, keys: np.ndarray, fill) -> np.ndarray:
    inside = (keys >= 0) & (keys < len(table))
    out = np.full(len(keys), fill, dtype=table.dtype)
    out[inside] = table[keys[inside]]
    return out


def document_categories(path: Path, documents: np.ndarray, chunk_rows: int = CHUNK_ROWS) -> pd.Series:
    """document_id -> category_id of its highest-confidence row (ties -> smaller category_id)."""
    wanted = np.unique(documents)
    parts = []
    for chunk in _chunks(path, ["document_id", "category_id", "confidence_level"],
                         {"document_id": np.int32, "category_id": np.int32, "confidence_level": np.float64},
                         chunk_rows):
        parts.append(chunk[np.isin(chunk["document_id"].to_numpy(), wanted)])
    rows = pd.concat(parts, ignore_index=True)
    rows = rows.sort_values(["document_id", "confidence_level", "category_id"], ascending=[True, False, True],
                            kind="mergesort")
    best = rows.drop_duplicates("document_id", keep="first")
    return pd.Series(best["category_id"].to_numpy(), index=best["document_id"].to_numpy())


def display_timestamps(path: Path, chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """Dense lookup display_id -> timestamp (ms); -1 where the display has no event row."""
    ids, stamps = [], []
    for chunk in _chunks(path, ["display_id", "timestamp"], {"display_id": np.int32, "timestamp": np.int64},
                         chunk_rows):
        ids.append(chunk["display_id"].to_numpy())
        stamps.append(chunk["timestamp"].to_numpy())
    return _lookup(np.concatenate(ids), np.concatenate(stamps), -1, np.int64)


def ordered_click_categories(clicks_path: Path, events_path: Path, promoted_path: Path, categories_path: Path,
                             chunk_rows: int = CHUNK_ROWS) -> tuple[np.ndarray, dict]:
    """Steps 1-4: the clicked category of every usable display, in time order."""
    clicks = read_clicked(clicks_path, chunk_rows)
    n_clicked = len(clicks)
    clicks = clicks.drop_duplicates("display_id", keep="first")
    duplicate_clicks = n_clicked - len(clicks)

    promoted = pd.read_csv(promoted_path, usecols=["ad_id", "document_id"], dtype={"ad_id": np.int32, "document_id": np.int32},
                           **portable.csv_float_options(pd.__version__))
    ad_document = _lookup(promoted["ad_id"].to_numpy(), promoted["document_id"].to_numpy(), -1, np.int32)
    documents = _take(ad_document, clicks["ad_id"].to_numpy(), -1)

    best_category = document_categories(categories_path, documents[documents >= 0], chunk_rows)
    category_lookup = _lookup(best_category.index.to_numpy(), best_category.to_numpy(), -1, np.int32)
    categories = np.where(documents >= 0, _take(category_lookup, documents, -1), -1)
    no_category = int((categories < 0).sum())

    display_ids = clicks["display_id"].to_numpy()
    stamps = _take(display_timestamps(events_path, chunk_rows), display_ids, -1)
    no_event = int(((stamps < 0) & (categories >= 0)).sum())

    keep = (categories >= 0) & (stamps >= 0)
    display_ids, stamps, categories = display_ids[keep], stamps[keep], categories[keep]
    order = np.lexsort((display_ids, stamps))  # last key is primary: timestamp, then display_id
    stats = {"clicked_rows": int(n_clicked), "duplicate_clicks_dropped": int(duplicate_clicks),
             "displays_without_category": no_category, "displays_without_event": no_event,
             "ordered_displays": int(keep.sum()), "distinct_categories": int(len(np.unique(categories)))}
    return categories[order], stats


def reward_matrix(sequence: np.ndarray, k: int, horizon: int) -> tuple[np.ndarray, pd.DataFrame, dict]:
    """Steps 5-6 for k arms: (S int8 (T_used, k), arms table, summary)."""
    ids, counts = np.unique(sequence, return_counts=True)
    if len(ids) < k:
        raise DataError(f"outbrain: only {len(ids)} clicked categories, cannot form {k} arms")
    ranking = np.lexsort((ids, -counts))[:k]  # most clicks first, ties -> smaller category_id
    arm_categories, arm_clicks = ids[ranking], counts[ranking]
    arm_of = pd.Series(np.arange(k), index=arm_categories)
    in_top = np.isin(sequence, arm_categories)
    used = sequence[in_top][:horizon]
    t_used = len(used)
    if t_used < horizon:
        log.warning("outbrain top-%d: only %d displays, fewer than T=%d", k, t_used, horizon)
    columns = arm_of.loc[used].to_numpy()
    matrix = np.zeros((t_used, k), dtype=np.int8)
    matrix[np.arange(t_used), columns] = 1
    sums = matrix.sum(axis=0, dtype=np.int64)
    arms = pd.DataFrame({"arm": np.arange(k), "category_id": arm_categories, "clicks_all": arm_clicks,
                         "clicks_T": sums, "frequency_T": sums / max(t_used, 1)})
    ranked = np.sort(sums)[::-1] / max(t_used, 1)
    summary = {"T_used": t_used, "displays_outside_arms": int((~in_top).sum()),
               "i_star": int(np.argmax(sums)), "best_frequency": float(ranked[0]),
               "second_frequency": float(ranked[1]), "gap": float(ranked[0] - ranked[1])}
    return matrix, arms, summary


def preprocess(record_file: Path, out_dir: Path, horizon: int = DEFAULT_HORIZON,
               arm_counts: tuple[int, ...] = ARM_COUNTS, chunk_rows: int = CHUNK_ROWS) -> list[Path]:
    record = load_record(record_file)
    sequence, stats = ordered_click_categories(
        record_file_path(record, "clicks_train.csv.zip"), record_file_path(record, "events.csv.zip"),
        record_file_path(record, "promoted_content.csv.zip"),
        record_file_path(record, "documents_categories.csv.zip"), chunk_rows)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs, per_k = [], {}
    for k in arm_counts:
        matrix, arms, summary = reward_matrix(sequence, k, horizon)
        matrix_path, arms_path = out_dir / f"rewards_top{k}.npy", out_dir / f"arms_top{k}.csv"
        with staged_file(matrix_path) as tmp, open(tmp, "wb") as handle:
            np.save(handle, matrix)
        with staged_file(arms_path) as tmp:
            arms.to_csv(tmp, index=False)
        outputs += [matrix_path, arms_path]
        per_k[f"top{k}"] = summary
    write_sidecar(out_dir, "outbrain", record, outputs,
                  parameters={"horizon": horizon, "arm_counts": list(arm_counts), "primary_arms": PRIMARY_ARMS,
                              "category_rule": "max confidence_level, ties -> smaller category_id",
                              "order": "events.timestamp, ties -> display_id"},
                  summary={**stats, **per_k})
    return outputs
