"""AmesHousing random-forest surrogate table (Sec. 5.2, digest §4).

Live training inside the bandit loop is infeasible (about 4e5 forest fits), so every configuration is
run K times beforehand and the bandits replay the table (pull of arm i: a run k ~ U{0..K-1},
R = 1 - NRMSE_{i,k}, C = training time_{i,k}).

* Run k uses one seeded random 70:30 split shared by all configurations (common random numbers).
* ranger -> scikit-learn mapping (digest §4): n_estimators = num.trees, max_features = mtry,
  bootstrap = True, max_samples = sample.fraction, min_samples_split = min.node.size + 1 (ranger
  stops splitting when a node has <= min.node.size samples), min_samples_leaf = 1, max_depth = None,
  n_jobs = 1 (single thread, digest A11).
* The num.trees values are prefixes of one forest grown with ``warm_start`` in increments: the
  training time of the first k*step trees is the sum of the first k increments' times, and its
  predictions are the mean of the first k*step trees' predictions. One fit of the largest forest
  thus serves every num.trees value.
* Training time is the CPU time of the single-threaded fit (``time.process_time``): on an idle
  machine it equals the wall time the paper measured, and unlike wall time it does not absorb
  other jobs' load (the precomputation shares its cores with the rest of the workflow).
* Stored per (configuration, run): RMSE, training seconds, and mean/sd/range of y_test so that any
  NRMSE normaliser can be recomputed; the default is RMSE / (max y_test - min y_test).

Command line (used by workflow/rules/papers/censored_resources.smk)::

    python -m banditrepro.experiments.censored_resources.forest chunk --table T --run K --mtry M \
        --trees 100 200 ... --node-sizes 3 5 7 9 --fractions .55 .632 .75 .8 --seed S --out chunk.csv
    python -m banditrepro.experiments.censored_resources.forest merge chunk1.csv ... --out table.csv
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

TARGET = "Sale_Price"
COLUMNS = ["run", "num_trees", "mtry", "min_node_size", "sample_fraction", "rmse", "train_seconds",
           "y_test_mean", "y_test_sd", "y_test_range"]


def split_indices(n_rows: int, run: int, seed: int, train_fraction: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """Training and test rows of run ``run`` (one SeedSequence child per run)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))
    perm = rng.permutation(n_rows)
    n_train = int(round(train_fraction * n_rows))
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


def load_model_table(path: Path | str) -> tuple[np.ndarray, np.ndarray]:
    df = pd.read_csv(path)
    if TARGET not in df.columns:
        raise ValueError(f"{path}: no {TARGET} column")
    y = df[TARGET].to_numpy(dtype=np.float64)
    X = df.drop(columns=[TARGET]).to_numpy(dtype=np.float32)
    return X, y


def fit_prefix_forests(X_train, y_train, X_test, y_test, tree_counts, mtry: int, min_node_size: int,
                       sample_fraction: float, seed: int) -> list[tuple[int, float, float]]:
    """(num_trees, rmse, train_seconds) for every value of ``tree_counts`` (increasing), from one forest."""
    from sklearn.ensemble import RandomForestRegressor

    tree_counts = sorted(int(k) for k in tree_counts)
    forest = RandomForestRegressor(n_estimators=0, max_features=int(mtry), min_samples_split=int(min_node_size) + 1,
                                   min_samples_leaf=1, max_depth=None, bootstrap=True,
                                   max_samples=float(sample_fraction), warm_start=True, n_jobs=1,
                                   random_state=int(seed))
    out = []
    elapsed = 0.0
    pred_sum = np.zeros(len(y_test))
    used = 0
    for count in tree_counts:
        forest.set_params(n_estimators=count)
        t0 = time.process_time()
        forest.fit(X_train, y_train)
        elapsed += time.process_time() - t0
        for tree in forest.estimators_[used:count]:
            pred_sum += tree.predict(X_test)
        used = count
        rmse = float(np.sqrt(np.mean((pred_sum / count - y_test) ** 2)))
        out.append((count, rmse, elapsed))
    return out


def run_chunk(table: Path | str, run: int, mtry_values, tree_counts, node_sizes, fractions, seed: int,
              train_fraction: float = 0.7) -> pd.DataFrame:
    X, y = load_model_table(table)
    train, test = split_indices(len(y), run, seed, train_fraction)
    y_test = y[test]
    rows = []
    for mtry in mtry_values:
        for node in node_sizes:
            for frac in fractions:
                # one forest seed per (run, configuration): stable whatever the chunking
                fseed = int(np.random.SeedSequence(seed, spawn_key=(run, int(mtry), int(node), int(round(frac * 1000)))
                                                   ).generate_state(1)[0])
                for count, rmse, secs in fit_prefix_forests(X[train], y[train], X[test], y_test, tree_counts, mtry,
                                                            node, frac, fseed):
                    rows.append((run, count, int(mtry), int(node), float(frac), rmse, secs, float(y_test.mean()),
                                 float(y_test.std(ddof=1)), float(y_test.max() - y_test.min())))
    return pd.DataFrame(rows, columns=COLUMNS)


def merge_chunks(paths) -> pd.DataFrame:
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    return df.sort_values(["run", "num_trees", "mtry", "min_node_size", "sample_fraction"]).reset_index(drop=True)


def nrmse(df: pd.DataFrame, normaliser: str = "range") -> np.ndarray:
    column = {"range": "y_test_range", "sd": "y_test_sd", "mean": "y_test_mean"}[normaliser]
    return df["rmse"].to_numpy() / df[column].to_numpy()


def arm_tables(df: pd.DataFrame, normaliser: str = "range") -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """(rewards (n_arms, K), training times (n_arms, K), arm list) from a merged surrogate table.

    Arms are ordered num.trees, mtry, min.node.size, sample.fraction (the paper's listing order).
    """
    keys = ["num_trees", "mtry", "min_node_size", "sample_fraction"]
    df = df.assign(reward=1.0 - nrmse(df, normaliser))
    arms = df[keys].drop_duplicates().sort_values(keys).reset_index(drop=True)
    runs = np.sort(df["run"].unique())
    rew = df.pivot_table(index=keys, columns="run", values="reward").loc[[tuple(r) for r in arms.to_numpy()]]
    sec = df.pivot_table(index=keys, columns="run", values="train_seconds").loc[[tuple(r) for r in arms.to_numpy()]]
    if rew.isna().any().any() or rew.shape[1] != len(runs):
        raise ValueError("surrogate table is incomplete: every configuration needs every run")
    return rew.to_numpy(), sec.to_numpy(), arms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m banditrepro.experiments.censored_resources.forest")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("chunk")
    c.add_argument("--table", required=True)
    c.add_argument("--run", type=int, required=True)
    c.add_argument("--mtry", type=int, nargs="+", required=True)
    c.add_argument("--trees", type=int, nargs="+", required=True)
    c.add_argument("--node-sizes", type=int, nargs="+", required=True)
    c.add_argument("--fractions", type=float, nargs="+", required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--out", required=True)
    m = sub.add_parser("merge")
    m.add_argument("chunks", nargs="+")
    m.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "chunk":
        t0 = time.process_time()
        df = run_chunk(args.table, args.run, args.mtry, args.trees, args.node_sizes, args.fractions, args.seed)
        tmp = Path(args.out).with_suffix(".tmp")
        df.to_csv(tmp, index=False)
        tmp.replace(args.out)
        print(f"run {args.run}, mtry {args.mtry}: {len(df)} rows, CPU {time.process_time() - t0:.1f} s", file=sys.stderr)
    else:
        df = merge_chunks(args.chunks)
        df.to_csv(args.out, index=False)
        print(f"merged {len(args.chunks)} chunks: {len(df)} rows; total training time "
              f"{df.groupby(['run', 'mtry', 'min_node_size', 'sample_fraction'])['train_seconds'].max().sum():.1f} s",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- helpers for workflow/rules/papers/censored_resources.smk --------------------------------


def forest_grid(scale: str, repo_root) -> dict:
    """The ``ames`` experiment's forest grid at ``scale`` (read from the paper config)."""
    from ..spec import load_paper

    return load_paper("censored_resources", scale, repo_root).experiments["ames"].params["forest"]


def chunk_paths(scale: str, repo_root) -> list[str]:
    """Chunk files of the surrogate table at ``scale``: one per (run, mtry)."""
    grid = forest_grid(scale, repo_root)
    return [f"results/censored_resources/forest/{scale}/chunks/run{k:02d}_mtry{m}.csv"
            for k in range(int(grid["runs"])) for m in grid["mtry"]]


def grid_argument(scale: str, repo_root, key: str) -> str:
    """Space-separated values of one grid entry, for the chunk command line."""
    return " ".join(str(v) for v in forest_grid(scale, repo_root)[key])
