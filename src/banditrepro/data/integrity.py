"""File integrity: hashing, atomic placement, and checks against the dataset manifest.

Every raw file reaches ``data/raw/<dataset>/`` the same way, whatever its source: it is first written to a
temporary file in the destination folder (``.<name>.part-<random>``), checked (size, sha256, table shape),
and only then renamed onto its final name. ``os.replace`` within one folder is atomic, so an interruption
leaves either the old state or the verified file, never a half-written one under the final name; a failed
check deletes the temporary file before the error propagates.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .manifest import FileSpec

if TYPE_CHECKING:  # planning imports this module (the datasets' states): pandas only where a table is read
    import pandas as pd

log = logging.getLogger(__name__)

_CHUNK = 1 << 20


class DataError(RuntimeError):
    """A dataset could not be fetched or verified. The message is meant for the user, one line."""


class ChecksumMismatch(DataError):
    """A file's sha256 differs from the manifest's."""

    def __init__(self, name: str, expected: str, actual: str, origin: str):
        self.name, self.expected, self.actual, self.origin = name, expected, actual, origin
        super().__init__(
            f"checksum mismatch for {name} (from {origin}): expected sha256 {expected}, got {actual}; "
            "the file was not kept"
        )


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def staged_file(final_path: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``final_path``; rename it onto ``final_path`` only if the block succeeds.

    On any exception (including KeyboardInterrupt) the temporary file is removed and nothing is renamed.
    """
    final_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final_path.name}.part-", dir=final_path.parent)
    os.close(fd)
    tmp_path = Path(tmp_name)
    try:
        yield tmp_path
        # mkstemp creates 0600; give the final file the usual permissions (0666 minus umask).
        os.chmod(tmp_path, 0o666 & ~_current_umask())
        os.replace(tmp_path, final_path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def remove_stale_parts(folder: Path) -> None:
    """Delete temporary files left by a killed process (SIGKILL skips the cleanup in staged_file)."""
    if folder.is_dir():
        for stale in folder.glob(".*.part-*"):
            stale.unlink(missing_ok=True)


# Checksum failures of mirror files, kept beside the raw files (data/raw/<dataset>/) so that the cheap
# status check can say "corrupt" for a mirror file that failed, without hashing it again on every run.
CHECKSUM_FAILURES = "checksum_failures.json"


def read_checksum_failures(raw_folder: Path) -> dict[str, dict]:
    """{file name: {source, size, mtime_ns, expected, actual}} of the checksum failures recorded for a dataset."""
    try:
        return json.loads((Path(raw_folder) / CHECKSUM_FAILURES).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def record_checksum_failure(raw_folder: Path, source: Path, error: ChecksumMismatch) -> None:
    """Remember that ``source`` (as it is now: size and mtime) failed its checksum."""
    failures = read_checksum_failures(raw_folder)
    stat = Path(source).stat()
    failures[error.name] = {"source": str(source), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                            "expected": error.expected, "actual": error.actual}
    with staged_file(Path(raw_folder) / CHECKSUM_FAILURES) as tmp:
        tmp.write_text(json.dumps(failures, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def clear_checksum_failures(raw_folder: Path) -> None:
    (Path(raw_folder) / CHECKSUM_FAILURES).unlink(missing_ok=True)


def mirror_file_problem(path: Path, spec: FileSpec, failure: dict | None) -> str | None:
    """Why a mirror file cannot pass its checks, known without hashing it (None when nothing is known).

    A size other than the manifest's, or a recorded checksum failure of this very file (same path, size and
    modification time: a replaced file is judged afresh). The message says what to do.
    """
    stat = Path(path).stat()
    fix = ("replace it with a good copy" + (f" (sha256 {spec.sha256})" if spec.sha256 else "")
           + " or remove it from the mirror, then re-run")
    if spec.size is not None and stat.st_size != spec.size:
        return f"{spec.name} in the mirror is corrupt ({path}: {stat.st_size} bytes, expected {spec.size}): {fix}"
    if failure and failure.get("source") == str(path) and failure.get("size") == stat.st_size \
            and failure.get("mtime_ns") == stat.st_mtime_ns:
        return (f"{spec.name} in the mirror is corrupt ({path} failed its checksum: expected sha256 "
                f"{failure.get('expected')}, got {failure.get('actual')}): {fix}")
    return None


def open_table_text(path: Path, encoding: str = "utf-8", zipped: bool | None = None) -> io.TextIOBase:
    """Open a CSV/DAT file or the single CSV member of a zip as text.

    ``zipped`` defaults to the file name; pass it explicitly for temporary files (``.x.zip.part-…``).
    """
    if zipped is None:
        zipped = path.suffix == ".zip"
    if zipped:
        archive = zipfile.ZipFile(path)
        members = [m for m in archive.namelist() if not m.endswith("/") and not m.startswith("__MACOSX")]
        if len(members) != 1:
            raise DataError(f"{path.name}: expected one file inside the zip, found {members}")
        return io.TextIOWrapper(archive.open(members[0]), encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def count_table(path: Path, spec: FileSpec) -> tuple[int, int, list[str]]:
    """Return (data rows, columns, header names) without loading the table.

    Rows are counted as line breaks (files here have no quoted multi-line cells); the header line is not
    counted when the file has one. Columns are counted on the first line with the file's delimiter.
    """
    encoding = spec.encoding or "utf-8"
    with open_table_text(path, encoding=encoding, zipped=spec.name.endswith(".zip")) as handle:
        first_line = handle.readline()
        first = first_line.rstrip("\r\n")
        lines = 1 if first_line.endswith("\n") else 0
        last_char = first_line[-1:] or "\n"
        for block in iter(lambda: handle.read(_CHUNK * 8), ""):
            lines += block.count("\n")
            last_char = block[-1]
    if last_char != "\n":
        lines += 1  # a last line without a trailing newline still counts
    delimiter = spec.delimiter or ","
    fields = first.split(delimiter)
    header = [f.strip().strip('"') for f in fields] if spec.header else []
    rows = lines - (1 if spec.header else 0)
    return rows, len(fields), header


def check_shape(path: Path, spec: FileSpec, origin: str) -> tuple[int, int]:
    """Check rows/cols/column names against the manifest; raise DataError naming the file otherwise."""
    if spec.rows is None and spec.cols is None and not spec.columns:
        return (-1, -1)
    rows, cols, header = count_table(path, spec)
    if spec.cols is not None and cols != spec.cols:
        raise DataError(f"{spec.name} (from {origin}): expected {spec.cols} columns, found {cols}")
    if spec.columns:
        missing = [c for c in spec.columns if c not in header]
        if missing:
            raise DataError(f"{spec.name} (from {origin}): columns {missing} missing; header is {header}")
    if spec.rows is not None:
        allowed = spec.rows * spec.rows_tolerance
        if abs(rows - spec.rows) > allowed:
            expectation = f"{spec.rows}" if allowed == 0 else f"{spec.rows} +- {allowed:.0f}"
            raise DataError(f"{spec.name} (from {origin}): expected {expectation} data rows, found {rows}")
    return rows, cols


def verify_file(path: Path, spec: FileSpec, origin: str, check_table: bool = True) -> dict:
    """Verify a (temporary) file against its manifest entry; return what was measured.

    Raises ChecksumMismatch / DataError. The caller deletes the file on error (see staged_file).
    """
    size = path.stat().st_size
    if spec.size is not None and size != spec.size:
        # Compute the hash anyway so that the message names both hashes.
        actual = sha256_file(path)
        if spec.sha256:
            raise ChecksumMismatch(spec.name, spec.sha256, actual, origin)
        raise DataError(f"{spec.name} (from {origin}): expected {spec.size} bytes, got {size} (sha256 {actual})")
    actual = sha256_file(path)
    if spec.sha256 and actual != spec.sha256:
        raise ChecksumMismatch(spec.name, spec.sha256, actual, origin)
    if not spec.sha256:
        log.warning("%s (from %s): no sha256 in the manifest; computed %s (pinned in fetch_record.json)",
                    spec.name, origin, actual)
    rows = cols = None
    if check_table:
        rows, cols = check_shape(path, spec, origin)
    return {"name": spec.name, "size": size, "sha256": actual, "sha256_known": bool(spec.sha256),
            "rows": rows, "cols": cols, "origin": origin}


def copy_verified(source: Path, destination: Path, spec: FileSpec, origin: str) -> dict:
    """Copy ``source`` to ``destination`` through a temporary file, verifying before the rename."""
    with staged_file(destination) as tmp:
        with open(source, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst, _CHUNK)
        return verify_file(tmp, spec, origin)


def table_content_sha256(frame: pd.DataFrame) -> str:
    """Checksum of a table's content, independent of delimiter, quoting, BOM and line endings.

    All cells are compared as the strings read from the file (``dtype=str``, no NA conversion), with
    surrounding whitespace stripped; header names likewise. Rows are hashed in file order, cells joined by
    the unit separator (U+001F) and rows by the record separator (U+001E), so that no cell text can fake a
    boundary.
    """
    digest = hashlib.sha256()
    header = "\x1f".join(str(c).strip() for c in frame.columns)
    digest.update(header.encode("utf-8") + b"\x1e")
    values = frame.astype(str).apply(lambda col: col.str.strip())
    for row in values.itertuples(index=False, name=None):
        digest.update("\x1f".join(row).encode("utf-8") + b"\x1e")
    return digest.hexdigest()
