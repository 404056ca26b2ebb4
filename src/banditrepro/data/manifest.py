"""Typed view of ``manifest.yaml`` (the list of raw files, their sources and their checksums)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

MANIFEST_PATH = Path(__file__).with_name("manifest.yaml")

DATASET_NAMES = ("movielens_1m", "ameshousing", "outbrain", "coupon")
KAGGLE_DATASETS = ("outbrain", "coupon")


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


@lru_cache(maxsize=4)
def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, DatasetSpec]:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    datasets: dict[str, DatasetSpec] = {}
    for name, entry in raw["datasets"].items():
        url = UrlSource(**entry["url"]) if entry.get("url") else None
        datasets[name] = DatasetSpec(
            name=name,
            title=entry["title"],
            mirror_dir=entry["mirror_dir"],
            files=tuple(_file_spec(f) for f in entry["files"]),
            url=url,
            kaggle=entry.get("kaggle"),
            license=entry.get("license"),
        )
    unknown = set(datasets) - set(DATASET_NAMES)
    if unknown or set(DATASET_NAMES) - set(datasets):
        raise ValueError(f"manifest datasets {sorted(datasets)} differ from {DATASET_NAMES}")
    return datasets


def dataset_spec(name: str) -> DatasetSpec:
    manifest = load_manifest()
    if name not in manifest:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASET_NAMES)}")
    return manifest[name]
