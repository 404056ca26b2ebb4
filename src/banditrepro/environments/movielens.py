"""MovieLens-1M arms: each popular movie is an arm whose reward is a draw from its empirical rating
distribution over the raw ratings {1, ..., 5} (penalized_fairness Setting 3).

Input: the processed table ``data/processed/movielens_1m/movie_rating_histograms.csv`` written by
:mod:`banditrepro.data.movielens` (columns ``movie_id, count, n1..n5``). A movie is kept when its
``count > m0`` (the paper's "greater than m0"); arms are ordered by descending count, ties by movie id
(the order does not matter to the algorithms, it only fixes arm labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import portable
from .finite import CATEGORICAL, categorical_arms

RATINGS = np.arange(1, 6, dtype=np.float64)
HISTOGRAM_COLUMNS = ["n1", "n2", "n3", "n4", "n5"]


@dataclass(frozen=True)
class MovieArms:
    movie_ids: np.ndarray  # (K,)
    counts: np.ndarray  # (K,) number of ratings
    probs: np.ndarray  # (K, 5) empirical P(rating = j)

    @property
    def means(self) -> np.ndarray:
        # Element-wise product summed per row, not ``probs @ RATINGS``: BLAS's gemv rounds differently
        # with each CPU's kernel (banditrepro.portable), and these means set every arm's gap.
        return (self.probs * RATINGS).sum(axis=1)

    @property
    def n_arms(self) -> int:
        return int(self.movie_ids.size)

    def env(self):
        """(CATEGORICAL environment kernel, env_params) over the values 1..5."""
        return categorical_arms(RATINGS, self.probs)


def read_histograms(path: Path | str) -> pd.DataFrame:
    table = pd.read_csv(path, **portable.csv_float_options(pd.__version__))
    missing = {"movie_id", "count", *HISTOGRAM_COLUMNS} - set(table.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    if not (table[HISTOGRAM_COLUMNS].sum(axis=1) == table["count"]).all():
        raise ValueError(f"{path}: n1..n5 do not add up to count")
    return table


def popular_movies(histograms: pd.DataFrame, m0: int) -> MovieArms:
    """Movies with more than ``m0`` ratings, by descending count then movie id."""
    keep = histograms[histograms["count"] > m0].sort_values(["count", "movie_id"], ascending=[False, True])
    if keep.empty:
        raise ValueError(f"no movie has more than {m0} ratings")
    hist = keep[HISTOGRAM_COLUMNS].to_numpy(dtype=np.float64)
    counts = keep["count"].to_numpy(dtype=np.int64)
    return MovieArms(movie_ids=keep["movie_id"].to_numpy(dtype=np.int64), counts=counts,
                     probs=hist / counts[:, None])


def movielens_arms(path: Path | str, m0: int) -> MovieArms:
    return popular_movies(read_histograms(path), m0)


__all__ = ["CATEGORICAL", "MovieArms", "movielens_arms", "popular_movies", "read_histograms"]
