"""Typed view of ``manifest.yaml``: the one declaration of every dataset (raw files, sources, checksums,
preprocessing function and processed files, stand-in generator).

Adding a dataset is one entry there plus its preprocessing module in this package; the names below, the
workflow's data rules and the paper configs' ``data:`` checks are all derived from the manifest.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

MANIFEST_PATH = Path(__file__).with_name("manifest.yaml")


@dataclass(frozen=True)
class FileSpec:
    name: str
    size: int | None = None
    sha256: str | None = None
    content_sha256: str | None = None
    rows: int | None = None
    rows_tolerance: float = 0.0
    cols: int | None = None
    columns: tuple[str, ...] = ()
    delimiter: str | None = None
    header: bool = True
    encoding: str | None = None
    required: bool = True
    sources: tuple[str, ...] = ("mirror",)
    kaggle_file: str | None = None


@dataclass(frozen=True)
class UrlSource:
    href: str
    kind: str  # "zip" (members extracted) or "file" (one file, stored as stored_as)
    member_prefix: str = ""
    stored_as: str | None = None
    format: str | None = None


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    title: str
    mirror_dir: str
    files: tuple[FileSpec, ...]
    url: UrlSource | None = None
    kaggle: str | None = None
    license: str | None = None
    extra: dict = field(default_factory=dict)
    preprocess: str | None = None  # "module:function" of banditrepro.data
    preprocess_options: tuple[str, ...] = ()
    processed: tuple[str, ...] = ()
    standin: str | None = None  # "module:function" of banditrepro.data

    def preprocessor(self) -> Callable:
        """``fn(record, out_dir, **options) -> list[Path]`` named by the manifest's ``preprocess``."""
        if not self.preprocess:
            raise KeyError(f"{self.name}: the manifest names no 'preprocess' function")
        return _function(self.preprocess)

    def standin_generator(self) -> Callable:
        """``fn(folder, seed, size) -> list[Path]`` named by the manifest's ``standin``."""
        if not self.standin:
            raise KeyError(f"{self.name}: the manifest names no 'standin' generator")
        return _function(self.standin)

    def file(self, name: str) -> FileSpec:
        for spec in self.files:
            if spec.name == name:
                return spec
        raise KeyError(f"{self.name}: no file {name!r} in the manifest")

    @property
    def required_files(self) -> tuple[FileSpec, ...]:
        return tuple(f for f in self.files if f.required)


def _file_spec(entry: dict) -> FileSpec:
    entry = dict(entry)
    entry["columns"] = tuple(entry.get("columns") or ())
    entry["sources"] = tuple(entry.get("sources") or ("mirror",))
    return FileSpec(**entry)


def _function(ref: str) -> Callable:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


DATASET_KEYS = {"title", "mirror_dir", "files", "url", "kaggle", "license", "preprocess", "preprocess_options",
                "processed", "standin"}


@lru_cache(maxsize=4)
def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, DatasetSpec]:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    datasets: dict[str, DatasetSpec] = {}
    for name, entry in raw["datasets"].items():
        unknown = set(entry) - DATASET_KEYS
        if unknown:
            raise ValueError(f"{path}: dataset {name}: unknown keys {sorted(unknown)} (known: {sorted(DATASET_KEYS)})")
        if entry.get("kaggle") and not entry.get("standin"):
            raise ValueError(f"{path}: dataset {name}: a Kaggle dataset needs a 'standin' generator")
        url = UrlSource(**entry["url"]) if entry.get("url") else None
        datasets[name] = DatasetSpec(
            name=name,
            title=entry["title"],
            mirror_dir=entry["mirror_dir"],
            files=tuple(_file_spec(f) for f in entry["files"]),
            url=url,
            kaggle=entry.get("kaggle"),
            license=entry.get("license"),
            preprocess=entry.get("preprocess"),
            preprocess_options=tuple(entry.get("preprocess_options") or ()),
            processed=tuple(entry.get("processed") or ()),
            standin=entry.get("standin"),
        )
    return datasets


# Derived from the manifest (in its order): every dataset, and those served by Kaggle (which have stand-ins).
DATASET_NAMES: tuple[str, ...] = tuple(load_manifest())
KAGGLE_DATASETS: tuple[str, ...] = tuple(name for name, spec in load_manifest().items() if spec.kaggle)
PROCESSED_FILES: dict[str, tuple[str, ...]] = {name: spec.processed for name, spec in load_manifest().items()}


def dataset_spec(name: str) -> DatasetSpec:
    manifest = load_manifest()
    if name not in manifest:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASET_NAMES)}")
    return manifest[name]
