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

The table as cached data: its ``train_seconds`` are measured times, so every recompute (on another
machine, or again on the same one) gives other numbers, and the paper-scale grid costs about 80
CPU-minutes. The paper-scale table is therefore shipped with the repository (``SHIPPED_TABLE``,
only ``SHIPPED_COLUMNS``) with a provenance sidecar naming the machine, libraries, date and command
that made it and the file's sha256, checked before every use (``read_verified``). The paper's option
``ames_forest`` (config/papers/censored_resources.yaml) picks the source: ``cached`` (the shipped
table), ``recompute`` (the forest jobs on this machine), ``off`` (no Ames parts).

This module is the model and the table; its command line is :mod:`.forest_cli`, the rule file's
DAG-time helpers are :mod:`.forest_dag`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ... import layout, portable

if TYPE_CHECKING:  # planning imports this module (forest_dag): pandas is imported where a table is read or made
    import pandas as pd
PAPER = "censored_resources"
TARGET = "Sale_Price"
COLUMNS = ["run", "num_trees", "mtry", "min_node_size", "sample_fraction", "rmse", "train_seconds",
           "y_test_mean", "y_test_sd", "y_test_range"]
# What the bandit (R = 1 - RMSE / range of y_test, C = train_seconds) and the tables read.
SHIPPED_COLUMNS = ["run", "num_trees", "mtry", "min_node_size", "sample_fraction", "rmse", "train_seconds",
                   "y_test_range"]
# The paper-scale table shipped with the repository (relative to the repository root).
SHIPPED_TABLE = "data/ames_forest/surrogate_table.csv"
# The table the `ames` experiment replays, whatever its source (its `requires:` path).
ACTIVE_TABLE = layout.paper_file(PAPER, "forest", "surrogate_table.csv")
# What one recompute of the paper-scale table on another machine gave (training-time quartiles, Fig. 5's
# verdicts), committed beside the shipped table so that every report can show both (forest_cli `record`).
RECOMPUTE_RECORD = "data/ames_forest/recompute_check.json"
GRID_KEYS = ("num_trees", "mtry", "min_node_size", "sample_fraction")  # with "runs": a table's grid
PROGRESS_SECONDS = 5.0  # a chunk log line at least this often (one increment of 100 trees takes about 1 s)


def split_indices(n_rows: int, run: int, seed: int, train_fraction: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """Training and test rows of run ``run`` (one SeedSequence child per run)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))
    perm = rng.permutation(n_rows)
    n_train = int(round(train_fraction * n_rows))
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


def load_model_table(path: Path | str) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd
    df = pd.read_csv(path, **portable.csv_float_options(pd.__version__))
    if TARGET not in df.columns:
        raise ValueError(f"{path}: no {TARGET} column")
    y = df[TARGET].to_numpy(dtype=np.float64)
    X = df.drop(columns=[TARGET]).to_numpy(dtype=np.float32)
    return X, y


class Progress:
    """Log lines "fits done/total, elapsed, estimate of the rest" at least every ``every`` seconds (wall)."""

    def __init__(self, total: int, label: str = "", every: float = PROGRESS_SECONDS, stream=None):
        self.total, self.label, self.every = int(total), label, float(every)
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.start = self.last = time.perf_counter()

    def announce(self) -> None:
        print(f"{self.label}fits 0/{self.total}, starting", file=self.stream, flush=True)

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            elapsed = now - self.start
            rest = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
            print(f"{self.label}fits {self.done}/{self.total}, elapsed {elapsed:.0f} s, about {rest:.0f} s left",
                  file=self.stream, flush=True)


def fit_prefix_forests(X_train, y_train, X_test, y_test, tree_counts, mtry: int, min_node_size: int,
                       sample_fraction: float, seed: int, progress: Progress | None = None
                       ) -> list[tuple[int, float, float]]:
    """(num_trees, rmse, train_seconds) for every value of ``tree_counts`` (increasing), from one forest.

    A "fit" for ``progress`` is one num.trees prefix (one warm-start increment).
    """
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
        if progress is not None:
            progress.step()
    return out


def run_chunk(table: Path | str, run: int, mtry_values, tree_counts, node_sizes, fractions, seed: int,
              train_fraction: float = 0.7, progress_every: float = PROGRESS_SECONDS, log=None) -> pd.DataFrame:
    X, y = load_model_table(table)
    train, test = split_indices(len(y), run, seed, train_fraction)
    y_test = y[test]
    n_fits = len(mtry_values) * len(node_sizes) * len(fractions) * len(tree_counts)
    progress = Progress(n_fits, f"run {run}, mtry {' '.join(str(m) for m in mtry_values)}: ", progress_every, log)
    progress.announce()
    rows = []
    for mtry in mtry_values:
        for node in node_sizes:
            for frac in fractions:
                # one forest seed per (run, configuration): stable whatever the chunking
                fseed = int(np.random.SeedSequence(seed, spawn_key=(run, int(mtry), int(node), int(round(frac * 1000)))
                                                   ).generate_state(1)[0])
                for count, rmse, secs in fit_prefix_forests(X[train], y[train], X[test], y_test, tree_counts, mtry,
                                                            node, frac, fseed, progress):
                    rows.append((run, count, int(mtry), int(node), float(frac), rmse, secs, float(y_test.mean()),
                                 float(y_test.std(ddof=1)), float(y_test.max() - y_test.min())))
    import pandas as pd
    return pd.DataFrame(rows, columns=COLUMNS)


def merge_chunks(paths) -> pd.DataFrame:
    import pandas as pd
    df = pd.concat([pd.read_csv(p, **portable.csv_float_options(pd.__version__)) for p in paths], ignore_index=True)
    return df.sort_values(["run", "num_trees", "mtry", "min_node_size", "sample_fraction"]).reset_index(drop=True)


def nrmse(df: pd.DataFrame, normaliser: str = "range") -> np.ndarray:
    column = {"range": "y_test_range", "sd": "y_test_sd", "mean": "y_test_mean"}[normaliser]
    if column not in df.columns:
        raise ValueError(f"normaliser {normaliser!r} needs column {column}, which the shipped table does not carry "
                         f"(it keeps {', '.join(SHIPPED_COLUMNS)}); build the full table with ames_forest: recompute")
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


# --- the table as cached data: provenance, sha256, export and install ----------------------------


def sha256_of(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sidecar_path(path: Path | str) -> Path:
    return Path(layout.sidecar(path))


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo; else what platform reports)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_record() -> dict:
    """Whose training times these are: the machine and the libraries that measured them."""
    from importlib.metadata import PackageNotFoundError, version

    libs = {"python": platform.python_version()}
    for dist in ("numpy", "pandas", "scikit-learn", "scipy", "joblib", "banditrepro"):
        try:
            libs[dist] = version(dist)
        except PackageNotFoundError:
            libs[dist] = "absent"
    return {
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "threads_per_fit": 1,  # n_jobs = 1 (digest A11); the times are that thread's CPU seconds
        "platform": platform.platform(),
        "libraries": libs,
    }


def time_quartiles(df: pd.DataFrame) -> dict:
    """Q1, median, Q3 of all arm-run training times and of run 0's (the limit grid's source)."""
    q_all = np.percentile(df["train_seconds"], [25, 50, 75])
    q_first = np.percentile(df.loc[df["run"] == df["run"].min(), "train_seconds"], [25, 50, 75])
    return {"all_runs": dict(zip(("q1", "median", "q3"), map(float, q_all))),
            "first_run": dict(zip(("q1", "median", "q3"), map(float, q_first)))}


def export_table(merged: Path | str, out: Path | str, command: str, merge_record: dict | None = None,
                 source_label: str | None = None) -> dict:
    """Write the ``SHIPPED_COLUMNS`` of a merged table to ``out`` with its provenance sidecar (sha256 included).

    ``merge_record`` says how the merged table was made (command, date, seed, commit, ``measured_on``: the
    machine that ran the forests); by default the merged table's own sidecar written by ``merge``. Where a
    field is absent, the machine is taken to be this one.
    """
    import pandas as pd
    df = pd.read_csv(merged, **portable.csv_float_options(pd.__version__))
    missing = [c for c in SHIPPED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{merged}: no column(s) {', '.join(missing)}")
    df = df[SHIPPED_COLUMNS]
    arm_tables(df)  # every configuration has every run
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    df.to_csv(tmp, index=False)  # floats in shortest round-trip form: the same numbers as the merged table
    tmp.replace(out)
    merged_prov = merge_record
    if merged_prov is None:
        merged_prov = json.loads(sidecar_path(merged).read_text()) if sidecar_path(merged).exists() else {}
    measured = merged_prov.get("measured_on") or machine_record()
    keys = ["run", "mtry", "min_node_size", "sample_fraction"]
    prov = {
        "what": "AmesHousing random-forest surrogate table of censored_resources (Sec. 5.2): one row per "
                "(run, num_trees, mtry, min_node_size, sample_fraction); train_seconds is the single-thread "
                "CPU time of the fit, measured on the machine below",
        "file": out.name,
        "sha256": sha256_of(out),
        "rows": len(df),
        "columns": SHIPPED_COLUMNS,
        "grid": {"runs": int(df["run"].nunique()), **{k: sorted(df[k].unique().tolist()) for k in GRID_KEYS}},
        "forest_fits": len(df.groupby(keys)),
        "total_training_seconds": float(df.groupby(keys)["train_seconds"].max().sum()),
        "train_seconds_quartiles": time_quartiles(df),
        "measured_on": measured,
        "made_by": {"forest_command": merged_prov.get("command", "unknown"),
                    "forest_date": merged_prov.get("date", "unknown"),
                    "seed": merged_prov.get("seed"),
                    "git_commit": merged_prov.get("git_commit", "unknown"),
                    "export_command": command},
        "date": merged_prov.get("date", "unknown"),
    }
    if source_label:
        prov["source"] = source_label
    sidecar_path(out).write_text(json.dumps(prov, indent=2, sort_keys=True) + "\n")
    return prov


def read_provenance(path: Path | str) -> dict:
    side = sidecar_path(path)
    if not side.exists():
        raise ValueError(f"{path}: no provenance sidecar {side.name}; the surrogate table cannot be checked")
    return json.loads(side.read_text())


def verify(path: Path | str) -> dict:
    """Check ``path`` against the sha256 of its provenance sidecar; return the provenance."""
    prov = read_provenance(path)
    actual = sha256_of(path)
    if actual != prov.get("sha256"):
        raise ValueError(f"{path}: sha256 {actual} differs from {prov.get('sha256')} recorded in "
                         f"{sidecar_path(path).name}: the table was edited or damaged. Restore it (git checkout) "
                         "or rebuild it with ames_forest: recompute")
    return prov


def read_verified(path: Path | str) -> tuple[pd.DataFrame, dict]:
    """The surrogate table and its provenance, after the sha256 check."""
    prov = verify(path)
    import pandas as pd
    return pd.read_csv(path, **portable.csv_float_options(pd.__version__)), prov


def install_table(table: Path | str, out: Path | str, source: str) -> dict:
    """Verify ``table`` and copy it with its provenance to ``out`` (the experiment's ``requires:`` path)."""
    prov = verify(table)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(table, out)
    prov = dict(prov, source=source, installed_from=str(table))
    sidecar_path(out).write_text(json.dumps(prov, indent=2, sort_keys=True) + "\n")
    return prov


def training_time_summary(df: pd.DataFrame) -> dict:
    """Total single-thread training time of the table's forests and the quartiles of its arm-run times."""
    keys = ["run", "mtry", "min_node_size", "sample_fraction"]
    return {"total_training_seconds": float(df.groupby(keys)["train_seconds"].max().sum()),
            "train_seconds_quartiles": time_quartiles(df)}


def record_recompute(table: Path | str, claims: Path | str, out: Path | str, command: str,
                     wall_seconds: float | None = None) -> dict:
    """Write the record of a recomputed table: whose times, their quartiles and the figure's claims.

    ``table`` is the recomputed table the Ames experiment replayed (sha256-checked, labelled as a
    recompute), ``claims`` the per-figure claims file of that build (results/censored_resources/claims/fig5.csv).
    """
    df, prov = read_verified(table)
    if prov.get("source") == "cached":
        raise ValueError(f"{table} is the shipped table, not a recompute: build with --config ames_forest=recompute")
    import pandas as pd
    rows = pd.read_csv(claims, dtype=str, keep_default_na=False)
    made = prov.get("made_by", {})
    record = {
        "what": "one recompute of the AmesHousing forest table (ames_forest: recompute) and the verdicts of "
                "Fig. 5's claims on it; the report's table ames_table_sources shows it beside the active table",
        "measured_on": prov.get("measured_on", {}),
        "date": prov.get("date", "unknown"),
        "sha256": prov.get("sha256"),
        "git_commit": made.get("git_commit", "unknown"),
        "forest_command": made.get("forest_command", "unknown"),
        "record_command": command,
        "wall_seconds": wall_seconds,
        **training_time_summary(df),
        "claims": rows[["claim_id", "kind", "verdict", "measured"]].to_dict("records"),
    }
    Path(out).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def describe_source(prov: dict) -> str:
    """One line: where the training times of a table come from."""
    m = prov.get("measured_on", {})
    where = f"{m.get('cpu_model', 'unknown CPU')}, {m.get('threads_per_fit', 1)} thread per fit"
    when = prov.get("date", "unknown date")
    if prov.get("source") == "cached":
        return f"shipped table (sha256 {prov.get('sha256', '?')[:12]}), measured on {where}, {when}"
    return f"recomputed on this machine ({where}), {when}"
