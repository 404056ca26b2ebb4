"""MovieLens 1M -> per-movie rating histograms.

Output (``data/processed/movielens_1m/``):

``movie_rating_histograms.csv``
    One row per movie with at least one rating (3,706 rows for ML-1M), sorted by ``movie_id``.
    Columns (all int64): ``movie_id`` (MovieLens id), ``count`` (number of ratings), ``n1`` … ``n5`` (number
    of ratings with 1 … 5 stars; ``n1 + … + n5 == count``).
``movielens_1m.provenance.json``
    Inputs' sha256, output sha256, and the selection sizes below.

Consumers select "popular" movies by ``count > m0``. With the real data, m0 = 2500 / 2000 / 1250 select
13 / 31 / 118 movies; no movie has exactly 2500, 2000 or 1250 ratings, so ``>=`` selects the same sets
(tests/data/test_movielens.py checks both on the mirror).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import portable
from .fetch import load_record, record_file_path
from .integrity import DataError, staged_file
from .sidecar import write_sidecar

HISTOGRAM_FILE = "movie_rating_histograms.csv"
HISTOGRAM_COLUMNS = ["movie_id", "count", "n1", "n2", "n3", "n4", "n5"]
SELECTION_THRESHOLDS = (2500, 2000, 1250)


def read_ratings(path: Path) -> pd.DataFrame:
    """ratings.dat: ``UserID::MovieID::Rating::Timestamp``; parsed with ':' so the fast C parser works."""
    frame = pd.read_csv(path, sep=":", header=None, usecols=[0, 2, 4, 6], engine="c",
                        names=["user_id", "_a", "movie_id", "_b", "rating", "_c", "timestamp"],
                        dtype={"user_id": np.int32, "movie_id": np.int32, "rating": np.int8,
                               "timestamp": np.int64}, **portable.csv_float_options(pd.__version__))
    return frame


def rating_histograms(ratings: pd.DataFrame) -> pd.DataFrame:
    bad = ~ratings["rating"].between(1, 5)
    if bad.any():
        raise DataError(f"ratings.dat: {int(bad.sum())} ratings outside 1..5")
    table = pd.crosstab(ratings["movie_id"], ratings["rating"]).reindex(columns=range(1, 6), fill_value=0)
    table.columns = [f"n{star}" for star in table.columns]
    table.insert(0, "count", table.sum(axis=1))
    table = table.reset_index().rename(columns={"index": "movie_id"})
    return table[HISTOGRAM_COLUMNS].astype(np.int64).sort_values("movie_id", ignore_index=True)


def preprocess(record_file: Path, out_dir: Path) -> list[Path]:
    record = load_record(record_file)
    ratings = read_ratings(record_file_path(record, "ratings.dat"))
    histograms = rating_histograms(ratings)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / HISTOGRAM_FILE
    with staged_file(target) as tmp:
        histograms.to_csv(tmp, index=False)
    counts = histograms["count"]
    summary = {
        "ratings": int(len(ratings)),
        "movies_rated": int(len(histograms)),
        "users": int(ratings["user_id"].nunique()),
        "selected_count_gt": {str(m0): int((counts > m0).sum()) for m0 in SELECTION_THRESHOLDS},
        "selected_count_ge": {str(m0): int((counts >= m0).sum()) for m0 in SELECTION_THRESHOLDS},
    }
    write_sidecar(out_dir, "movielens_1m", record, [target], parameters={}, summary=summary)
    return [target]
