"""Dataset layer: fetch, verify, mirror and preprocess MovieLens 1M, AmesHousing, Outbrain and Coupon.

Public API (used by the workflow's paper rules and the report):

- :func:`resolve_mirror` – the local mirror folder, or None.
- :func:`dataset_status` – cheap availability check (file existence and credentials only; no hashing of
  big files, no network) used at DAG-construction time.
- :func:`processed_outputs` – processed files (relative to the repo root) a consumer rule lists as inputs.
- CLI: ``python -m banditrepro.data {fetch,preprocess,standin,status} ...`` (see ``__main__``).

Datasets, their processed files and preprocessing functions are declared once, in ``manifest.yaml``
(``DATASET_NAMES``, ``KAGGLE_DATASETS`` and ``PROCESSED_FILES`` are read from it).

Processed outputs per dataset (documented in full in each module's docstring and in docs/data.md):

=============  ==========================================================================================
movielens_1m   ``movielens_1m/movie_rating_histograms.csv`` (3706 x 7: movie_id, count, n1..n5; int64)
ameshousing    ``ameshousing/ames_model_table.csv`` (2930 x 79: 78 integer-coded predictors + Sale_Price)
               and ``ameshousing/ames_model_table.columns.csv`` (column kind and factor levels)
outbrain       ``outbrain/rewards_top{5,10,20}.npy`` (T x k int8 one-hot rewards; T = 10^6 with real data),
               ``outbrain/arms_top{5,10,20}.csv`` (arm, category_id, clicks, frequency)
coupon         ``coupon/rewards_weekday.npy`` (T x 7 int8, Mon..Sun; encoding chosen by the spec's rule),
               ``coupon/rewards_weekday_{ge1,eq1}.npy`` (both encodings, same rows),
               ``coupon/arms_weekday.csv`` (arm, weekday, column, mean_ge1, mean_eq1)
=============  ==========================================================================================

Each folder also holds ``<dataset>.provenance.json`` (``"standin": true|false``). Stand-in outputs live under
``data/standin/processed/<dataset>/`` with a ``STANDIN`` marker file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import kaggle_client
from .manifest import DATASET_NAMES, KAGGLE_DATASETS, PROCESSED_FILES, dataset_spec
from .paths import (
    processed_dir,
    raw_dir,
    record_path,
    resolve_mirror,
    standin_processed_dir,
)
from .sidecar import sidecar_name

__all__ = [
    "PROCESSED_FILES",
    "DATASET_NAMES",
    "DatasetStatus",
    "available_processed_outputs",
    "dataset_status",
    "processed_outputs",
    "processed_root",
    "resolve_mirror",
]

@dataclass(frozen=True)
class DatasetStatus:
    name: str
    available: bool
    standin: bool
    reason: str

    def line(self) -> str:
        """One line for the user: what is used, or what is missing and what to do."""
        if self.available and self.standin:
            return f"{self.name}: STAND-IN DATA - {self.reason}"
        if self.available:
            return f"{self.name}: available - {self.reason}"
        return f"{self.name}: NOT AVAILABLE - {self.reason}"


def _check_name(name: str) -> None:
    if name not in DATASET_NAMES:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASET_NAMES)}")


def _real_status(name: str, config: dict, repo_root: Path) -> tuple[bool, str]:
    spec = dataset_spec(name)
    record = Path(repo_root) / record_path(config, name)
    if record.is_file():
        return True, f"fetched and verified ({record_path(config, name)})"
    mirror = resolve_mirror(config, repo_root)
    # data.allow_download: false declares the machine offline, so only local files count
    downloads = bool((config.get("data") or {}).get("allow_download", True))
    creds, creds_detail = kaggle_client.credentials_available()
    raw_folder = Path(repo_root) / raw_dir(config) / name
    plan: dict[str, list[str]] = {}
    missing: list[str] = []
    for file in spec.required_files:
        where = None
        if (raw_folder / file.name).is_file():
            where = "raw dir"
        elif "mirror" in file.sources and mirror is not None and (mirror / spec.mirror_dir / file.name).is_file():
            where = "mirror"
        elif downloads and "url" in file.sources and spec.url is not None:
            where = spec.url.href
        elif downloads and "kaggle" in file.sources and spec.kaggle and creds:
            where = f"Kaggle {spec.kaggle}"
        if where is None:
            missing.append(file.name)
        else:
            plan.setdefault(where, []).append(file.name)
    if missing:
        mirror_text = f"not in mirror {mirror}" if mirror else "no mirror (set BANDITREPRO_DATA_MIRROR)"
        if not downloads:
            kaggle_text = "downloads are off (config data.allow_download: false)"
        else:
            kaggle_text = (kaggle_client.missing_credentials_message(spec.kaggle, creds_detail)
                           if spec.kaggle else "no other source")
        return False, f"missing {', '.join(missing)}: {mirror_text}; {kaggle_text}"
    return True, "will fetch " + "; ".join(f"{', '.join(files)} from {where}" for where, files in plan.items())


def dataset_status(name: str, config: dict, repo_root: Path) -> DatasetStatus:
    """Can ``name`` be built, from real data or (if config data.standin) from stand-ins? Cheap and offline.

    "Available" means every required raw file is already fetched, or present in the mirror, or has a source
    that will be tried (public URL; Kaggle with credentials present). Whether a download then succeeds is
    only known when the fetch job runs; its failure message says what to do.
    """
    _check_name(name)
    available, reason = _real_status(name, config, Path(repo_root))
    if available:
        return DatasetStatus(name, True, False, reason)
    wants_standin = bool((config.get("data") or {}).get("standin"))
    if wants_standin and name in KAGGLE_DATASETS:
        return DatasetStatus(name, True, True,
                             f"synthetic files of the real schema (config data.standin: true); real data: {reason}")
    if name in KAGGLE_DATASETS:
        reason += " (or set data.standin: true to build its figures on labelled stand-in data)"
    return DatasetStatus(name, False, False, reason)


def processed_root(name: str, config: dict, repo_root: Path | None = None) -> Path:
    """Folder (relative to the repo root) of the processed files that consumers of ``name`` should use."""
    _check_name(name)
    use_standin = False
    if name in KAGGLE_DATASETS and (config.get("data") or {}).get("standin"):
        status = dataset_status(name, config, Path(repo_root) if repo_root is not None else Path.cwd())
        use_standin = status.standin
    return (standin_processed_dir() if use_standin else processed_dir(config)) / name


def processed_outputs(name: str, config: dict, repo_root: Path | None = None) -> list[str]:
    """Processed files (paths relative to the repo root) a consumer rule should list as inputs.

    The provenance sidecar is the last entry; read its ``standin`` field to label outputs. With
    ``data.standin: true`` and no real Kaggle data, the paths point under ``data/standin/processed/``.
    ``repo_root`` defaults to the current directory (Snakemake's working directory).
    """
    folder = processed_root(name, config, repo_root)
    return [str(folder / f) for f in PROCESSED_FILES[name]] + [str(folder / sidecar_name(name))]


def available_processed_outputs(config: dict, repo_root: Path) -> list[str]:
    """Processed files of every dataset that can be built (real, or stand-in when configured)."""
    files: list[str] = []
    for name in DATASET_NAMES:
        if dataset_status(name, config, repo_root).available:
            files += processed_outputs(name, config, repo_root)
    return files
