"""Fetch a dataset's raw files into ``data/raw/<dataset>/`` and write its ``fetch_record.json``.

Sources are tried per file in the manifest's order: the local mirror, the canonical public URL, Kaggle.
A file from a source is verified (size, sha256, rows/cols; see :mod:`.integrity`) before it takes its final
name. A checksum mismatch is an error, never a reason to try the next source: a corrupt mirror or a changed
upstream file is something the user must see. A source that simply does not have the file (not in the
mirror, no network, no Kaggle credentials) is skipped, and its reason is kept for the one-line message.

``fetch_record.json`` is written last (atomically). Its existence means every required file verified; it
lists, per file, the stored path, size, sha256 (pinned on first download where the manifest has none),
rows/cols and origin. Preprocessing reads only files named in a record.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pandas as pd

from . import kaggle_client
from .integrity import (
    ChecksumMismatch,
    DataError,
    check_shape,
    clear_checksum_failures,
    copy_verified,
    record_checksum_failure,
    remove_stale_parts,
    sha256_file,
    staged_file,
    table_content_sha256,
    verify_file,
)
from .manifest import DatasetSpec, FileSpec, dataset_spec
from .paths import RECORD_NAME

log = logging.getLogger(__name__)

URL_TIMEOUT_S = 60


class SourceUnavailable(Exception):
    """This source does not have the file (not an integrity problem); try the next one."""


def _utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------------------------- mirror
def _from_mirror(spec: DatasetSpec, file: FileSpec, mirror: Path | None, destination: Path) -> dict:
    if mirror is None:
        raise SourceUnavailable("no mirror configured")
    source = mirror / spec.mirror_dir / file.name
    if not source.is_file():
        raise SourceUnavailable(f"not in mirror {mirror}")
    log.info("%s: copying %s from the mirror", spec.name, file.name)
    return copy_verified(source, destination, file, origin=f"mirror {source}")


# ------------------------------------------------------------------------------------------------ url
def download_url(url: str, destination: Path) -> None:
    """Stream ``url`` into ``destination`` (a temporary path owned by the caller)."""
    try:
        with urllib.request.urlopen(url, timeout=URL_TIMEOUT_S) as response, open(destination, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise SourceUnavailable(f"download of {url} failed ({exc})") from None


class _UrlCache:
    """One download of a dataset's archive per fetch, shared by its files; deleted at the end."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.paths: dict[str, Path] = {}
        self.failures: dict[str, str] = {}

    def get(self, url: str) -> Path:
        if url in self.failures:
            raise SourceUnavailable(self.failures[url])
        if url not in self.paths:
            target = self.folder / Path(url.split("?")[0]).name
            log.info("downloading %s", url)
            try:
                with staged_file(target) as tmp:
                    download_url(url, tmp)
            except SourceUnavailable as exc:
                self.failures[url] = str(exc)
                raise
            log.info("downloaded %s: %d bytes, sha256 %s", url, target.stat().st_size, sha256_file(target))
            self.paths[url] = target
        return self.paths[url]


def _from_url(spec: DatasetSpec, file: FileSpec, cache: _UrlCache, destination: Path) -> tuple[dict, Path]:
    if spec.url is None:
        raise SourceUnavailable("no public URL")
    archive = cache.get(spec.url.href)
    origin = f"url {spec.url.href}"
    if spec.url.kind == "zip":
        member = spec.url.member_prefix + file.name
        with zipfile.ZipFile(archive) as bundle:
            if member not in bundle.namelist():
                raise DataError(f"{file.name}: {spec.url.href} has no member {member}")
            with staged_file(destination) as tmp:
                with bundle.open(member) as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                return verify_file(tmp, file, origin), destination
    if spec.url.kind == "file":
        # The canonical file has another format than the manifest entry (AmesHousing: TSV vs the mirror's
        # CSV): keep its own name and verify it by shape, header and content checksum (manifest comment).
        stored = destination.with_name(spec.url.stored_as or destination.name)
        with staged_file(stored) as tmp:
            shutil.copyfile(archive, tmp)
            entry = _verify_reformatted_table(tmp, file, spec.url.format or "csv", origin)
        entry["format"] = spec.url.format
        return entry, stored
    raise DataError(f"{spec.name}: unknown url kind {spec.url.kind!r} in the manifest")


def read_raw_table(path: Path, fmt: str, encoding: str | None = "utf-8-sig") -> pd.DataFrame:
    """Read a raw table with every cell as the literal string in the file (no NA guessing)."""
    sep = "\t" if fmt == "tsv" else ","
    return pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, encoding=encoding or "utf-8-sig")


def _verify_reformatted_table(path: Path, file: FileSpec, fmt: str, origin: str) -> dict:
    table = read_raw_table(path, fmt)
    rows, cols = table.shape
    if (file.rows is not None and rows != file.rows) or (file.cols is not None and cols != file.cols):
        raise DataError(f"{file.name} (from {origin}): expected {file.rows} x {file.cols}, got {rows} x {cols}")
    content = table_content_sha256(table)
    if file.content_sha256 and content != file.content_sha256:
        log.warning("%s (from %s): content checksum %s differs from the mirror's %s; shape and header match, "
                    "so the file is kept (see manifest comment)", file.name, origin, content, file.content_sha256)
    return {"name": file.name, "size": path.stat().st_size, "sha256": sha256_file(path), "sha256_known": False,
            "content_sha256": content, "rows": rows, "cols": cols, "origin": origin}


# --------------------------------------------------------------------------------------------- kaggle
def _kaggle_candidates(file: FileSpec) -> list[str]:
    """Names to ask Kaggle for: the manifest's kaggle_file (or name), then the zipped/unzipped variant."""
    first = file.kaggle_file or file.name
    other = first[: -len(".zip")] if first.endswith(".zip") else first + ".zip"
    return [first, other]


def _from_kaggle(spec: DatasetSpec, file: FileSpec, destination: Path, work: Path) -> dict:
    if not spec.kaggle:
        raise SourceUnavailable("not on Kaggle")
    folder = Path(tempfile.mkdtemp(prefix=".kaggle-", dir=work))
    try:
        downloaded, remote = None, None
        for remote in _kaggle_candidates(file):
            try:
                downloaded = kaggle_client.download_competition_file(spec.kaggle, remote, folder)
                break
            except FileNotFoundError:
                continue
        if downloaded is None:
            raise DataError(f"Kaggle competition {spec.kaggle} has none of {_kaggle_candidates(file)}")
        origin = f"kaggle {spec.kaggle}/{remote}"
        with staged_file(destination) as tmp:
            is_zip = zipfile.is_zipfile(downloaded)
            if is_zip and not file.name.endswith(".zip"):
                with zipfile.ZipFile(downloaded) as bundle:
                    members = [m for m in bundle.namelist() if not m.endswith("/")]
                    if len(members) != 1:
                        raise DataError(f"{remote} from Kaggle holds {members}, expected one file")
                    with bundle.open(members[0]) as src, open(tmp, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
            elif not is_zip and file.name.endswith(".zip"):
                # Served unzipped: store it zipped under the manifest's name (one member, as Kaggle's zips).
                with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
                    bundle.write(downloaded, file.name[: -len(".zip")])
            else:
                shutil.move(downloaded, tmp)
            return verify_file(tmp, file, origin)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------ orchestrate
def _reuse_existing(spec: DatasetSpec, file: FileSpec, destination: Path, previous: dict) -> dict | None:
    """A file already at its final name got there verified; re-check it cheaply and reuse it."""
    if not destination.is_file():
        return None
    known = file.sha256 or previous.get(file.name, {}).get("sha256")
    if known and destination.stat().st_size == (file.size or destination.stat().st_size):
        actual = sha256_file(destination)
        if actual == known:
            entry = dict(previous.get(file.name, {}))
            entry.update({"name": file.name, "size": destination.stat().st_size, "sha256": actual,
                          "sha256_known": bool(file.sha256)})
            entry.setdefault("origin", "already in raw dir")
            return entry
        log.warning("%s: existing %s has sha256 %s, expected %s; fetching again",
                    spec.name, destination, actual, known)
        destination.unlink()
        return None
    if not known:
        rows, cols = check_shape(destination, file, origin=f"existing {destination}")
        return {"name": file.name, "size": destination.stat().st_size, "sha256": sha256_file(destination),
                "sha256_known": False, "rows": rows, "cols": cols, "origin": "already in raw dir"}
    return None


def fetch_dataset(name: str, raw_root: Path, mirror: Path | None, allow_network: bool = True,
                  spec: DatasetSpec | None = None) -> dict:
    """Fetch every file of dataset ``name`` into ``raw_root/name`` and write the fetch record.

    ``spec`` defaults to the manifest's entry (tests pass their own for synthetic files).
    Raises DataError with a one-line message naming each missing file and why no source had it.
    """
    spec = spec or dataset_spec(name)
    folder = Path(raw_root) / name
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(folder)
    record_file = folder / RECORD_NAME
    previous = {}
    if record_file.is_file():
        previous = json.loads(record_file.read_text(encoding="utf-8")).get("files", {})
        record_file.unlink()  # rewritten below only if everything verifies

    entries: dict[str, dict] = {}
    missing: dict[str, list[str]] = {}  # reason -> files, so one line names each cause once
    kaggle_refusal: str | None = None  # after one refusal (credentials, 403) the other files are not tried
    url_work = Path(tempfile.mkdtemp(prefix=".download-", dir=folder))
    try:
        cache = _UrlCache(url_work)
        for file in spec.files:
            destination = folder / file.name
            entry = _reuse_existing(spec, file, destination, previous)
            stored = destination
            reasons = []
            for source in file.sources if entry is None else ():
                try:
                    if source == "mirror":
                        entry = _from_mirror(spec, file, mirror, destination)
                    elif source == "url":
                        if not allow_network:
                            raise SourceUnavailable("network disabled")
                        entry, stored = _from_url(spec, file, cache, destination)
                    elif source == "kaggle":
                        if not allow_network:
                            raise SourceUnavailable("network disabled")
                        if kaggle_refusal:
                            raise SourceUnavailable(kaggle_refusal)
                        entry = _from_kaggle(spec, file, destination, folder)
                    else:
                        raise DataError(f"{name}: unknown source {source!r} in the manifest")
                    break
                except ChecksumMismatch as exc:
                    if source == "mirror":  # so that `status` and the workflow say "corrupt" from now on
                        record_checksum_failure(folder, mirror / spec.mirror_dir / file.name, exc)
                    raise
                except SourceUnavailable as exc:
                    reasons.append(f"{source}: {exc}")
                except kaggle_client.KaggleUnavailable as exc:
                    kaggle_refusal = str(exc)
                    reasons.append(f"kaggle: {exc}")
            if entry is None:
                if file.required:
                    missing.setdefault("; ".join(reasons), []).append(file.name)
                else:
                    log.info("%s: optional file %s skipped (%s)", name, file.name, "; ".join(reasons))
                continue
            entry["path"] = stored.name
            entries[file.name] = entry
    finally:
        shutil.rmtree(url_work, ignore_errors=True)

    if missing:
        raise DataError(f"{name}: could not get " + "; ".join(
            f"{', '.join(files)} ({reason})" for reason, files in missing.items()))

    record = {"dataset": name, "title": spec.title, "standin": False, "fetched_at": _utc_now(),
              "mirror": str(mirror) if mirror else None, "files": entries}
    write_json_atomic(record_file, record)
    clear_checksum_failures(folder)
    for entry in entries.values():
        log.info("%s: %s ok (%s, %s bytes, sha256 %s%s)", name, entry["name"], entry["origin"], entry["size"],
                 entry["sha256"], "" if entry.get("sha256_known") else ", pinned now")
    return record


def write_json_atomic(path: Path, payload: dict) -> None:
    with staged_file(Path(path)) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def load_record(record_file: Path) -> dict:
    record_file = Path(record_file)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    record["_dir"] = str(record_file.parent)
    return record


def record_file_path(record: dict, name: str) -> Path:
    try:
        entry = record["files"][name]
    except KeyError:
        raise DataError(f"{record['dataset']}: the fetch record lists no {name}") from None
    return Path(record["_dir"]) / entry["path"]


__all__ = ["ChecksumMismatch", "DataError", "fetch_dataset", "load_record", "record_file_path"]
