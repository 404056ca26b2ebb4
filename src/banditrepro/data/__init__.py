"""Dataset layer: fetch, verify, mirror and preprocess MovieLens 1M, AmesHousing, Outbrain and Coupon.

Public API (used by the workflow's paper rules and the report):

- :func:`resolve_mirror` – the local mirror folder, or None.
- :func:`dataset_status` / :func:`dataset_statuses` – cheap availability check used at DAG-construction time
  (file existence, sizes, credentials, known checksum failures and a bounded probe of download hosts; no
  hashing, nothing downloaded).
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

from . import kaggle_client, network
from .integrity import mirror_file_problem, read_checksum_failures
from .manifest import DATASET_NAMES, KAGGLE_DATASETS, PROCESSED_FILES, dataset_spec
from .paths import (
    MIRROR_ENV,
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
    "STATUS_WORDS",
    "available_processed_outputs",
    "dataset_status",
    "dataset_statuses",
    "download_endpoints",
    "processed_outputs",
    "processed_root",
    "resolve_mirror",
]

#: The word that opens each line of `banditrepro data status` (and of `python -m banditrepro.data status`, `snakemake
#: datasets`), with what it means for the user; README.md and docs/data.md use the same words (tests/test_readme.py).
STATUS_WORDS = {
    "fetched": "its files are on this machine, verified",
    "fetchable": "the build fetches its files (from the mirror or a download host that answers)",
    "stand-in": "its figures are built on labelled synthetic files (config data.standin: true)",
    "missing": "it cannot be had here: its figures are skipped; the line says how to provide it",
}


@dataclass(frozen=True)
class DatasetStatus:
    name: str
    available: bool
    standin: bool
    reason: str
    fetched: bool = False  # every required file already fetched and verified (data/raw/<name>/fetch_record.json)

    @property
    def state(self) -> str:
        """One of :data:`STATUS_WORDS`: fetched, fetchable, stand-in or missing."""
        if not self.available:
            return "missing"
        if self.standin:
            return "stand-in"
        return "fetched" if self.fetched else "fetchable"

    def line(self) -> str:
        """One line for the user: the state, then what is used, or what is missing and what to do."""
        # the state says it already: "fetched - verified (...)", "missing - ratings.dat, ...: no mirror ..."
        detail = self.reason.removeprefix({"missing": "missing ", "fetched": "fetched and "}.get(self.state, ""))
        return f"{self.name}: {self.state} - {detail}"


def _check_name(name: str) -> None:
    if name not in DATASET_NAMES:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASET_NAMES)}")


@dataclass(frozen=True)
class _FilePlan:
    """Where one required raw file would come from, decided without hashing or downloading."""

    name: str
    local: str | None = None  # "raw dir" or "mirror": already on this machine
    corrupt: str | None = None  # a mirror copy that failed (or cannot pass) its checks: why, and what to do
    downloads: tuple[tuple[str, network.Endpoint], ...] = ()  # (source label, host to probe), in order


def _plan_files(name: str, config: dict, repo_root: Path) -> list[_FilePlan] | None:
    """The plan of each required file, or None when the fetch record says every file verified already."""
    spec = dataset_spec(name)
    if (Path(repo_root) / record_path(config, name)).is_file():
        return None
    mirror = resolve_mirror(config, repo_root)
    # data.allow_download: false declares the machine offline, so only local files count
    downloads = bool((config.get("data") or {}).get("allow_download", True))
    creds, _ = kaggle_client.credentials_available()
    raw_folder = Path(repo_root) / raw_dir(config) / name
    failures = read_checksum_failures(raw_folder)
    plans = []
    for file in spec.required_files:
        if (raw_folder / file.name).is_file():
            plans.append(_FilePlan(file.name, local="raw dir"))
            continue
        if "mirror" in file.sources and mirror is not None and (mirror / spec.mirror_dir / file.name).is_file():
            problem = mirror_file_problem(mirror / spec.mirror_dir / file.name, file, failures.get(file.name))
            plans.append(_FilePlan(file.name, local=None if problem else "mirror", corrupt=problem))
            continue
        sources = []
        if downloads and "url" in file.sources and spec.url is not None:
            sources.append((spec.url.href, network.url_endpoint(spec.url.href)))
        if downloads and "kaggle" in file.sources and spec.kaggle and creds:
            sources.append((f"Kaggle {spec.kaggle}", kaggle_client.API_ENDPOINT))
        plans.append(_FilePlan(file.name, downloads=tuple(sources)))
    return plans


def download_endpoints(name: str, config: dict, repo_root: Path) -> set[network.Endpoint]:
    """Hosts whose answer decides whether ``name`` can be had (none when its files are local)."""
    return {endpoint for plan in _plan_files(name, config, Path(repo_root)) or ()
            for _, endpoint in plan.downloads}


def _real_status(name: str, config: dict, repo_root: Path) -> tuple[bool, str]:
    plans = _plan_files(name, config, repo_root)
    if plans is None:
        return True, f"fetched and verified ({record_path(config, name)})"
    spec = dataset_spec(name)
    answers = network.probe({e for p in plans for _, e in p.downloads})
    corrupt = [p.corrupt for p in plans if p.corrupt]
    if corrupt:
        return False, "; ".join(corrupt)
    plan_by_source: dict[str, list[str]] = {}
    missing: list[str] = []
    unreachable: dict[str, str] = {}  # source -> why its host did not answer
    for p in plans:
        where = p.local
        for label, endpoint in p.downloads if where is None else ():
            if answers[endpoint] is None:
                where = label
                break
            unreachable[label] = f"{label} unreachable ({endpoint[0]}: {answers[endpoint]})"
        if where is None:
            missing.append(p.name)
        else:
            plan_by_source.setdefault(where, []).append(p.name)
    if missing:
        return False, f"missing {', '.join(missing)}: " + _how_to_provide(spec, config, repo_root, unreachable)
    return True, "will fetch " + "; ".join(f"{', '.join(files)} from {where}" for where, files in plan_by_source.items())


def _how_to_provide(spec, config: dict, repo_root: Path, unreachable: dict[str, str]) -> str:
    """Why the missing files cannot be had here, and each way to provide them (one line)."""
    mirror = resolve_mirror(config, repo_root)
    folder = spec.mirror_dir + "/"
    if mirror is None:
        parts = [f"no mirror (put the files in <mirror>/{folder} and set {MIRROR_ENV}=<mirror> or config data.mirror)"]
    else:
        parts = [f"not in mirror {mirror} (put them in {mirror / spec.mirror_dir}/, or point {MIRROR_ENV} or "
                 "config data.mirror at a mirror that has them)"]
    downloads = bool((config.get("data") or {}).get("allow_download", True))
    if not downloads:
        parts.append("downloads are off (config data.allow_download: false)")
    else:
        parts += unreachable.values()
        if spec.kaggle and not kaggle_client.credentials_available()[0]:
            parts.append(kaggle_client.missing_credentials_message(spec.kaggle,
                                                                  kaggle_client.credentials_available()[1]))
        elif not spec.kaggle and not spec.url:
            parts.append("no other source")
    return "; ".join(parts)


def dataset_status(name: str, config: dict, repo_root: Path) -> DatasetStatus:
    """Can ``name`` be built, from real data or (if config data.standin) from stand-ins? Cheap: no hashing.

    "Available" means every required raw file is already fetched, or present in the mirror (and not known
    to be corrupt), or has a download source whose host answers a bounded probe (public URL; Kaggle with
    credentials present; see :mod:`.network`, at most 3 s, once per host and process). Whether a download
    then succeeds is only known when the fetch job runs; its failure message says what to do.
    """
    _check_name(name)
    available, reason = _real_status(name, config, Path(repo_root))
    if available:
        return DatasetStatus(name, True, False, reason, fetched=_plan_files(name, config, Path(repo_root)) is None)
    wants_standin = bool((config.get("data") or {}).get("standin"))
    if wants_standin and name in KAGGLE_DATASETS:
        return DatasetStatus(name, True, True,
                             f"synthetic files of the real schema (config data.standin: true); real data: {reason}")
    if name in KAGGLE_DATASETS:
        reason += " (or set data.standin: true to build its figures on labelled stand-in data)"
    return DatasetStatus(name, False, False, reason)


def dataset_statuses(names, config: dict, repo_root: Path) -> dict[str, DatasetStatus]:
    """:func:`dataset_status` of several datasets, their download hosts probed together (one wait in all)."""
    names = list(names)
    network.probe({e for name in names for e in download_endpoints(name, config, repo_root)})
    return {name: dataset_status(name, config, repo_root) for name in names}


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
