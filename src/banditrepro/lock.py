"""The committed results lock: what `snakemake lock` records and `snakemake verify` checks.

One lock per paper and scale, ``config/locks/<paper>.<scale>.lock.json``: the sha256 of every locked result
CSV (each figure's summary.csv and reference.csv, each table CSV, claims.csv) after normalisation, the
package versions it was made with, and the figures that were not built where it was made. Beside it,
``<paper>.<scale>.content.json.gz`` keeps the normalised CSV text itself (gzip, no timestamp) so that a
mismatch can name the first differing rows with their locked and new values.

Normalisation leaves out what is not a result: comment lines (``#``), provenance-only columns (git commit,
package version) and wall-clock measurements (columns whose header ends in ``(s)``, e.g. a table of
training times). The provenance sidecars (``*.provenance.json``)
are never locked.

Paper scale adds ``config/locks/verdicts.paper.csv``: paper, claim_id, kind, measured and verdict of the
last paper-scale build. `verify` at paper scale compares verdicts and kinds exactly and every number in
``measured`` within :data:`MEASURED_REL_TOL` (relative) or one unit of its last printed digit, whichever is
larger, the text around the numbers exactly.

A lock is only ever compared with, or made from, results of the current tree: every result records the
digest of the package sources its job ran with (banditrepro.sources; a shard in its own provenance, a CSV in
its sidecar), the hash of the config subset it was made from and the digest of the workflow scripts that
made it (banditrepro.provenance), and :func:`stale_results` finds those that record another sources digest, a
config hash other than the one the current config gives that result (computed here from the config, not by
the scripts that write it), or other scripts than those the rule that made it runs now (or none). `verify`
and `lock` refuse them, naming the files, what differs (the config key, the script) and the command that
rebuilds them (:func:`stale_lines`).

Every number is meant to come out the same bits on any x86-64 CPU (banditrepro.portable). A file whose
numbers differ from the lock only in their last bits (every differing value within
:data:`PLATFORM_REL_TOL` relative, the text around the numbers and every other cell unchanged) is
reported as platform rounding, not as a change of results: `verify` names it without failing and without
inviting a re-lock.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import platform
import re
import shlex
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from .layout import LOCK_DIR, VERDICTS_FILE, content_path, lock_path, sidecar
from .provenance import config_sha256, recorded_config, recorded_scripts, recorded_sources
from .report.vocabulary import DEFAULT_KIND
from .shards import ShardError, read_shard_provenance

__all__ = ["LOCK_DIR", "VERDICTS_FILE", "content_path", "lock_path"]  # where the locks live: banditrepro.layout

VERDICT_COLUMNS = ["paper", "claim_id", "kind", "measured", "verdict"]
VERSIONED_PACKAGES = ("numpy", "numba", "pandas", "scipy", "scikit-learn", "snakemake", "banditrepro")
#: relative tolerance of the numbers in claims' ``measured`` text at paper scale (verdicts compare exactly)
MEASURED_REL_TOL = 1e-3
#: columns that record where or with what a result was made, not the result
PROVENANCE_COLUMNS = frozenset({"git_commit", "commit", "package_version", "provenance", "hostname"})
#: headers of wall-clock measurements (seconds): they differ between any two runs
WALL_CLOCK_HEADER = re.compile(r"\(s\)\s*$")
MASK = "<not locked>"
#: rows named per differing file in a mismatch message
ROWS_SHOWN = 3
#: largest relative difference of a number that counts as platform rounding (a CPU-dependent last bit,
#: about 1e-16 per rounding step) rather than a change of results
PLATFORM_REL_TOL = 1e-12
#: FileDiff.problem of a file that differs from the lock by platform rounding only
PLATFORM_ROUNDING = "platform rounding"
#: compressed content above this size is not stored (the lock keeps the hashes; rows cannot be named)
MAX_CONTENT_BYTES = 4_000_000
#: stale result files named per paper in a refusal (then how many more)
STALE_SHOWN = 5

# Key columns that identify a row, per kind of result file (the first that fits is used).
ROW_KEYS = (
    ("panel", "algorithm", "metric", "t"),  # summary.csv
    ("panel", "curve", "metric", "t"),  # reference.csv
    ("claim_id",),  # claims.csv
)


def installed_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


# --------------------------------------------------------------------------------------------- content


def read_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return [row for row in csv.reader(lines)]


def normalise(text: str) -> str:
    """CSV text without comment lines, provenance-only columns and wall-clock measurements."""
    rows = read_rows(text)
    if not rows:
        return ""
    masked = {i for i, name in enumerate(rows[0])
              if name.strip().lower() in PROVENANCE_COLUMNS or WALL_CLOCK_HEADER.search(name)}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(rows[0])
    for row in rows[1:]:
        writer.writerow([MASK if i in masked else v for i, v in enumerate(row)])
    return out.getvalue()


def masked_columns(text: str) -> list[str]:
    rows = read_rows(text)
    return [name for name in (rows[0] if rows else [])
            if name.strip().lower() in PROVENANCE_COLUMNS or WALL_CLOCK_HEADER.search(name)]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def measured_time_figures(spec, figures: list[str], experiments: dict[str, str]) -> dict[str, str]:
    """{figure: why} for the ``figures`` of a paper spec that show one of ``experiments`` ({experiment: why}).

    Those experiments replay wall-clock times measured on this machine (a paper declares them under an
    option value, experiments/options.py), so their figures change with machine load and no two builds
    agree bit for bit: the lock records them (and the tables built from them) as measured-time results
    and `verify` does not compare them."""
    found = {}
    for fig in figures:
        for exp in spec.figure_experiments(fig):
            if exp in experiments:
                found[fig] = experiments[exp]
    return found


def measured_time_files(spec, figures: dict[str, str], files: dict[str, str]) -> list[str]:
    """Of ``files`` ({path: what it holds}, banditrepro.layout.result_csvs), the curves of measured-time
    ``figures`` and the tables built from them."""
    tables = {t for t, tspec in spec.tables.items() if set(tspec.get("figures", [])) & set(figures)}
    held = set(figures) | {f"table {t}" for t in tables}
    return [rel for rel, what in files.items() if what in held]


# ------------------------------------------------------------------------------------------- writing


def make_lock(root: Path | str, paper: str, scale: str, files, not_built: dict[str, str],
              seed: int, measured_time: dict[str, str] | None = None) -> tuple[dict, dict[str, str]]:
    """The lock record and the normalised content of each of ``files`` (paths relative to ``root``); rows of
    ``measured_time`` figures are left out of files with a ``figure`` column (claims.csv)."""
    root = Path(root)
    content, entries = {}, {}
    for rel in sorted(files):
        text = without_figures(normalise((root / rel).read_text()), set(measured_time or {}))
        content[rel] = text
        entries[rel] = {"sha256": sha256(text), "rows": max(text.count("\n") - 1, 0),
                        "not_locked_columns": masked_columns(text)}
    lock = {
        "paper": paper,
        "scale": scale,
        "seed": int(seed),
        "versions": installed_versions(),
        "files": entries,
        "not_built": dict(sorted(not_built.items())),
        "measured_time": dict(sorted((measured_time or {}).items())),
        "refresh": f"snakemake --cores 2 lock --config scale={scale}",
    }
    return lock, content


def write_lock(root: Path | str, lock: dict, content: dict[str, str]) -> list[Path]:
    """Write the lock and its content (byte-stable: sorted keys, gzip without a timestamp)."""
    path = lock_path(root, lock["paper"], lock["scale"])
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(payload)
    cpath = content_path(root, lock["paper"], lock["scale"])
    if len(buf.getvalue()) <= MAX_CONTENT_BYTES:
        cpath.write_bytes(buf.getvalue())
        lock["content"] = cpath.name
    else:
        cpath.unlink(missing_ok=True)
        lock["content"] = None
    path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return [path] + ([cpath] if lock["content"] else [])


def read_lock(root: Path | str, paper: str, scale: str) -> dict | None:
    path = lock_path(root, paper, scale)
    return json.loads(path.read_text()) if path.exists() else None


def read_content(root: Path | str, lock: dict) -> dict[str, str]:
    if not lock.get("content"):
        return {}
    path = Path(root) / LOCK_DIR / lock["content"]
    return json.loads(gzip.decompress(path.read_bytes())) if path.exists() else {}


# --------------------------------------------------------------------------------------------- diffs


@dataclass
class FileDiff:
    path: str
    problem: str  # "differs", "missing", "not in lock", PLATFORM_ROUNDING
    rows: list[str] = field(default_factory=list)
    max_relative: float | None = None  # PLATFORM_ROUNDING: the largest relative difference of a number


def _row_key(header: list[str]) -> list[int] | None:
    for key in ROW_KEYS:
        if set(key) <= set(header):
            return [header.index(k) for k in key]
    return None


def _describe(where: str, header: list[str], row: list[str]) -> str:
    named = dict(zip(header, row))
    parts = [where]
    for col in ("panel", "algorithm", "curve", "metric", "claim_id"):
        if named.get(col):
            parts.append(f"{col}={named[col]}")
    if "t" in named:
        parts.append(f"t={named['t']}")
    if len(parts) == 1 and header:  # a table: its first column names the row
        parts.append(f"{header[0]}={row[0] if row else ''}")
    return ", ".join(parts)


def diff_rows(where: str, locked_text: str, new_text: str, limit: int = ROWS_SHOWN) -> list[str]:
    """Up to ``limit`` lines naming the first differing rows: ``where`` ("<paper>, <what the file holds>"),
    the row's key, column, locked value, new value."""
    old, new = read_rows(locked_text), read_rows(new_text)
    if not old or not new:
        return [f"{'locked' if not old else 'new'} file is empty"]
    lines: list[str] = []
    if old[0] != new[0]:
        lines.append(f"columns differ: locked {old[0]}, new {new[0]}")
        shared = [c for c in old[0] if c in new[0]]
        if _row_key(shared) is None:
            return lines
        # a column added or dropped (e.g. claims.csv's cause): still name the rows whose shared cells moved
        old = [[row[old[0].index(c)] if old[0].index(c) < len(row) else "" for c in shared] for row in old]
        new = [[row[new[0].index(c)] if new[0].index(c) < len(row) else "" for c in shared] for row in new]
        old[0] = new[0] = shared
    header = old[0]
    key = _row_key(header)
    old_rows, new_rows = old[1:], new[1:]
    if key is not None:
        new_by_key = {tuple(r[i] for i in key): r for r in new_rows}
        old_keys = {tuple(r[i] for i in key) for r in old_rows}
        unique = len(new_by_key) == len(new_rows) and len(old_keys) == len(old_rows)
    else:
        unique = False
    for i, row in enumerate(old_rows):
        if len(lines) >= limit:
            return lines
        if unique:
            other = new_by_key.get(tuple(row[j] for j in key))
        else:
            other = new_rows[i] if i < len(new_rows) else None
        if other is None:
            lines.append(f"{_describe(where, header, row)}: row missing from the new file")
        elif other != row:
            cols = [c for c, a, b in zip(header, row, other) if a != b]
            col = cols[0]
            j = header.index(col)
            more = f" (and {', '.join(cols[1:])})" if len(cols) > 1 else ""
            lines.append(f"{_describe(where, header, row)}: {col} locked {row[j]} new {other[j]}{more}")
    if unique:
        for row in new_rows:
            if len(lines) >= limit:
                break
            if tuple(row[j] for j in key) not in old_keys:
                lines.append(f"{_describe(where, header, row)}: row not in the lock")
    elif len(new_rows) > len(old_rows) and len(lines) < limit:
        lines.append(f"{len(new_rows) - len(old_rows)} rows more than the lock's {len(old_rows)}")
    return lines


def _relative(a: float, b: float) -> float:
    return 0.0 if a == b else abs(a - b) / max(abs(a), abs(b))


def cell_relative_difference(locked: str, new: str) -> float | None:
    """Largest relative difference between the numbers of two cells whose text around the numbers is the
    same (a bare number or e.g. claims' ``measured``); None when the text, the count of numbers or a
    non-finite number differs."""
    if locked == new:
        return 0.0
    if _NUMBER.sub("#", locked) != _NUMBER.sub("#", new):
        return None
    worst = 0.0
    for a, b in zip(_NUMBER.findall(locked), _NUMBER.findall(new)):
        x, y = float(a), float(b)
        if not (math.isfinite(x) and math.isfinite(y)):
            if a.lower() != b.lower():
                return None
            continue
        worst = max(worst, _relative(x, y))
    return worst


def rounding_difference(locked_text: str, new_text: str) -> float | None:
    """Largest relative difference between two CSV texts that differ only in the values of numbers (same
    header, rows in the same order, the same text in every cell around its numbers); None otherwise."""
    old, new = read_rows(locked_text), read_rows(new_text)
    if len(old) != len(new) or not old or old[0] != new[0]:
        return None
    worst = 0.0
    for a_row, b_row in zip(old[1:], new[1:]):
        if len(a_row) != len(b_row):
            return None
        for a, b in zip(a_row, b_row):
            rel = cell_relative_difference(a, b)
            if rel is None:
                return None
            worst = max(worst, rel)
    return worst


def rounding_lines(diffs: list[FileDiff]) -> list[str]:
    """What `verify` says about files that differ by platform rounding only: the largest difference, why it
    is not a change of results, and the first differing rows. It never asks for a re-lock: relocking would
    only move the difference to the machines the lock was made on."""
    rounding = [d for d in diffs if d.problem == PLATFORM_ROUNDING]
    if not rounding:
        return []
    worst = max(d.max_relative or 0.0 for d in rounding)
    lines = [f"platform rounding (max relative difference {worst:.2g}), not a change of results: "
             f"{len(rounding)} file(s) differ from the lock only in the last bits of numbers (each within "
             f"{PLATFORM_REL_TOL:g} relative, no text or verdict changed). Do not re-lock: a call whose "
             "rounding depends on the CPU reaches these numbers; make it portable (docs/locks.md, Portability)."]
    for d in rounding:
        lines.append(f"{d.path}: platform rounding (max relative difference {d.max_relative:.2g})")
        lines += [f"    {row}" for row in d.rows]
    return lines


def without_figures(text: str, figures: set[str]) -> str:
    """CSV text without the rows of ``figures`` (files with a ``figure`` column, e.g. claims.csv)."""
    rows = read_rows(text)
    if not figures or not rows or "figure" not in rows[0]:
        return text
    j = rows[0].index("figure")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([rows[0]] + [r for r in rows[1:] if r[j] not in figures])
    return out.getvalue()


def verify_paper(root: Path | str, lock: dict, files: dict[str, str], not_built_here: set[str] = frozenset()
                 ) -> list[FileDiff]:
    """Compare the built ``files`` of one paper ({path: what it holds}, banditrepro.layout.result_csvs)
    with its lock. Figures built on only one of the two machines
    (data available here or there) are left out on both sides: their files, and their rows in files with a
    ``figure`` column (claims.csv); the caller names them."""
    root = Path(root)
    content = read_content(root, lock)
    one_sided = set(not_built_here) ^ set(lock.get("not_built", {}))
    drop = one_sided | set(lock.get("measured_time", {}))
    diffs = []
    locked = lock["files"]
    for rel in sorted(set(files) | set(locked)):
        if rel not in files or files[rel] in one_sided:
            continue
        if rel not in locked:
            diffs.append(FileDiff(rel, "not in lock"))
            continue
        path = root / rel
        if not path.exists():
            diffs.append(FileDiff(rel, "missing"))
            continue
        text = without_figures(normalise(path.read_text()), set(lock.get("measured_time", {})))
        if sha256(text) == locked[rel]["sha256"]:
            continue
        if rel not in content:
            diffs.append(FileDiff(rel, "differs", ["(the lock keeps no content for this file: rows cannot be named)"]))
            continue
        old, new = without_figures(content[rel], drop), without_figures(text, drop)
        if old != new:
            where = f"{lock['paper']}, {files[rel]}"
            rounding = rounding_difference(old, new)
            if rounding is not None and rounding <= PLATFORM_REL_TOL:
                diffs.append(FileDiff(rel, PLATFORM_ROUNDING, diff_rows(where, old, new), max_relative=rounding))
            else:
                diffs.append(FileDiff(rel, "differs", diff_rows(where, old, new)))
    return diffs


def version_differences(locked: dict[str, str], installed: dict[str, str] | None = None) -> list[str]:
    installed = installed or installed_versions()
    return [f"{name} {installed.get(name, 'not installed')} (lock: {version})"
            for name, version in sorted(locked.items()) if installed.get(name) != version]


# ------------------------------------------------------------------------------------- stale results


@dataclass
class StaleResult:
    path: str
    recorded: str | None  # the sources digest its provenance records; None when it records none
    #: why its numbers say nothing about the tree: "sources <digest>", "config differs at ...", "script ... differs"
    reasons: list[str] = field(default_factory=list)
    #: which of STALE_KINDS differ
    kinds: list[str] = field(default_factory=list)


#: what a result may have been built from other than the tree's, as the refusal names it
STALE_KINDS = {"sources": "package sources", "config": "config", "scripts": "workflow scripts"}
#: characters of a recorded or expected config value shown in a refusal
CONFIG_SHOWN = 60


def result_provenance(root: Path | str, rel: str) -> dict | None:
    """The provenance a result records: a shard (``.npz``) in its own provenance, any other result in its sidecar
    (``<file>.provenance.json``). None when it records none or its provenance cannot be read."""
    path = Path(root) / rel
    try:
        if path.suffix == ".npz":
            prov = read_shard_provenance(path)
        else:
            prov = json.loads(Path(sidecar(path)).read_text(encoding="utf-8"))
    except (OSError, ValueError, ShardError):
        return None
    return prov if isinstance(prov, dict) else None


def result_sources(root: Path | str, rel: str) -> str | None:
    """The sources digest a result records (:func:`result_provenance`); None when it records none."""
    prov = result_provenance(root, rel)
    return recorded_sources(prov) if prov is not None else None


def _shown(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= CONFIG_SHOWN else text[:CONFIG_SHOWN - 3] + "..."


def config_difference(recorded, expected, where: str = "") -> str | None:
    """Where two configs (JSON values) first differ, with both values: ``claims[2].threshold: recorded 0.1, this
    tree's 0.2``; None where they are equal."""
    if isinstance(recorded, dict) and isinstance(expected, dict):
        for key in sorted(set(recorded) | set(expected), key=str):
            at = f"{where}.{key}" if where else str(key)
            if key not in recorded:
                return f"{at}: not recorded, this tree's {_shown(expected[key])}"
            if key not in expected:
                return f"{at}: recorded {_shown(recorded[key])}, not in this tree's"
            found = config_difference(recorded[key], expected[key], at)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(expected, list):
        for i, (a, b) in enumerate(zip(recorded, expected)):
            found = config_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(recorded) != len(expected):
            return f"{where or 'config'}: {len(recorded)} entries recorded, {len(expected)} in this tree's"
        return None
    if recorded != expected or type(recorded) is not type(expected):
        return f"{where or 'config'}: recorded {_shown(recorded)}, this tree's {_shown(expected)}"
    return None


def _config_reason(prov: dict, expected: dict, config_file: str) -> str | None:
    """Why a result's recorded config is not the one the tree gives it (``expected``: the config subset its job
    would record now), or None. Compares the recorded hash with the hash of ``expected``."""
    if prov.get("config_sha256") == config_sha256(expected):
        return None
    recorded = prov.get("config")
    if "config_sha256" not in prov or recorded is None:
        return f"config not recorded; {config_file}"
    where = config_difference(recorded, recorded_config(expected)) or \
        f"config sha256 recorded {str(prov.get('config_sha256'))[:12]}, this tree's {config_sha256(expected)[:12]}"
    return f"config differs at {where}; {config_file}"


def _scripts_reason(prov: dict, scripts: dict[str, dict]) -> str | None:
    """Why a result's recorded workflow scripts are not those the tree's rule that made it runs (``scripts``:
    {rule: banditrepro.sources.scripts_record of its script}), or None."""
    recorded = recorded_scripts(prov)
    if recorded is None:
        return "workflow scripts not recorded"
    rule = recorded.get("rule")
    if rule not in scripts:
        return f"made by rule {rule}, which runs no script in this tree"
    expected = scripts[rule]
    if recorded.get("sha256") == expected["sha256"] and recorded["files"] == expected["files"]:
        return None
    old, new = recorded["files"], expected["files"]
    differ = [path + (" (not run now)" if path not in new else " (not run then)" if path not in old else "")
              for path in sorted(set(old) | set(new)) if old.get(path) != new.get(path)]
    return f"workflow script {', '.join(differ) or 'digest'} of rule {rule} differs"


def result_configs(spec, scale: str, files: dict[str, str], shards: dict[str, str]) -> dict[str, dict]:
    """{path: the config subset its job records} of a paper's result CSVs ``files`` ({path: what it holds},
    banditrepro.layout.result_csvs: a figure id, ``table <id>`` or ``claims``) and ``shards`` ({path: experiment}),
    from ``spec`` (the paper as the current config gives it) at ``scale``. Written from what each result is made
    of, apart from the scripts that record it (summarize_figure, table, claims_merge, simulate_shard), so that
    `verify` checks their record rather than repeats it; a fresh build's results match it
    (tests/test_lock.py)."""
    configs = {}
    for rel, what in files.items():
        if what == "claims":
            configs[rel] = {"claims": spec.claims, "scale": scale}
        elif what.startswith("table "):
            configs[rel] = {"table": spec.tables[what[len("table "):]], "scale": scale}
        else:
            configs[rel] = {"figure": spec.figures[what],
                            "experiments": {e: spec.experiments[e].config for e in spec.figure_experiments(what)},
                            "scale": scale}
    for rel, experiment in shards.items():
        configs[rel] = {"experiment": spec.experiments[experiment].config, "scale": scale}
    return configs


def stale_results(root: Path | str, files, current: str, configs: dict | None = None,
                  scripts: dict[str, dict] | None = None, config_file: str = "the paper's config"
                  ) -> list[StaleResult]:
    """Of ``files`` (paths relative to ``root``), those that exist and record other package sources than
    ``current`` (the digest of the tree's sources for their paper), or none; and, where given, another config
    than ``configs[path]`` (the config subset the file's job would record from the tree's config; a file not in
    ``configs`` is not checked) or other workflow scripts than ``scripts`` ({rule: the tree's
    banditrepro.sources.scripts_record of the rule's script}). Made by other code or from another config than
    the current tree's, their numbers say nothing about it. A missing file is not stale (it is missing)."""
    stale = []
    for rel in sorted(set(files)):
        if not (Path(root) / rel).exists():
            continue
        prov = result_provenance(root, rel) or {}
        recorded = recorded_sources(prov)
        found = StaleResult(rel, recorded)
        if recorded != current:
            found.reasons.append(f"sources {recorded[:12] if recorded else 'not recorded'}")
            found.kinds.append("sources")
        if configs is not None and rel in configs:
            reason = _config_reason(prov, configs[rel], config_file)
            if reason:
                found.reasons.append(reason)
                found.kinds.append("config")
        if scripts is not None:
            reason = _scripts_reason(prov, scripts)
            if reason:
                found.reasons.append(reason)
                found.kinds.append("scripts")
        if found.reasons:
            stale.append(found)
    return stale


def stale_by_paper(root: Path | str, results: dict[str, list[str]], sources: dict[str, dict],
                   configs: dict[str, dict] | None = None, scripts: dict[str, dict] | None = None,
                   config_files: dict[str, str] | None = None) -> dict[str, list[StaleResult]]:
    """{paper: its stale results} of the papers in ``results`` ({paper: result paths}) that have any, each
    compared with ``sources[paper]`` (the tree's, ``{"sha256", "files"}``), ``configs[paper]`` ({path: the
    config subset the tree gives it}, where given) and ``scripts`` ({rule: the tree's scripts record})."""
    stale = {paper: stale_results(root, files, sources[paper]["sha256"],
                                  None if configs is None else configs.get(paper, {}), scripts,
                                  (config_files or {}).get(paper, f"config/papers/{paper}.yaml"))
             for paper, files in results.items()}
    return {paper: files for paper, files in stale.items() if files}


def stale_what(stale: dict[str, list[StaleResult]]) -> str:
    """What the stale results were built from: "other package sources", "another config", ... joined."""
    kinds = {k for files in stale.values() for item in files for k in item.kinds}
    return " and ".join(("other " if k != "config" else "another ") + STALE_KINDS[k]
                        for k in STALE_KINDS if k in kinds) or "other package sources"


def config_words(scale: str, overrides: dict | None = None, papers=None) -> str:
    """``--config scale=<scale> ...``: the ``--config`` settings the user gave (``overrides``, Snakemake's
    ``--config`` as parsed: ``papers`` a list) with the scale first, ``papers`` replaced by ``papers`` where given;
    each word quoted for the shell where it needs it (``'papers=[<paper>]'``)."""
    settings = {"scale": scale, **{k: v for k, v in (overrides or {}).items() if k != "scale"}}
    if papers is not None:
        settings["papers"] = list(papers)
    words = []
    for key, value in settings.items():
        if isinstance(value, (list, tuple)):
            text = "[" + ",".join(str(v) for v in value) + "]"
        elif isinstance(value, bool):
            text = str(value).lower()
        elif isinstance(value, dict):
            text = json.dumps(value, separators=(",", ":"))
        else:
            text = str(value)
        words.append(shlex.quote(f"{key}={text}"))
    return "--config " + " ".join(words)


def rebuild_command(papers, scale: str, overrides: dict | None = None) -> str:
    """The command that rebuilds every result of ``papers`` with the current sources, config and scripts: forcing
    the simulations reruns everything made from them, whatever Snakemake recorded (or did not) about the files
    there. The user's other ``--config`` settings (``overrides``) are kept: ``papers=`` selects what is built."""
    return f"snakemake --cores 2 {' '.join(papers)} {config_words(scale, overrides)} --forcerun simulate_shard"


def stale_lines(stale: dict[str, list[StaleResult]], current: dict[str, dict], scale: str, then: str,
                overrides: dict | None = None) -> list[str]:
    """What `verify` and `lock` say about results built from other sources, another config or other workflow
    scripts than the tree's: per paper how many, the first few with what differs in each, and the command that
    rebuilds them (``then``: what to run after it; ``overrides``: the user's ``--config``, kept in it)."""
    papers = [p for p, files in stale.items() if files]
    if not papers:
        return []
    lines = [f"{sum(len(stale[p]) for p in papers)} result file(s) of {', '.join(papers)} were built from "
             f"{stale_what(stale)} than this tree's (or record none), so they say nothing about the current code:"]
    for paper in papers:
        here = current[paper]
        lines.append(f"  {paper}: {len(stale[paper])} file(s); the tree's sources for it are "
                     f"{here['sha256'][:12]} ({here['files']} files)")
        for item in stale[paper][:STALE_SHOWN]:
            lines.append(f"    {item.path} ({'; '.join(item.reasons)})")
        if len(stale[paper]) > STALE_SHOWN:
            lines.append(f"    ... and {len(stale[paper]) - STALE_SHOWN} more")
    lines.append(f"Rebuild them with the current tree: `{rebuild_command(papers, scale, overrides)}`, then {then}. "
                 "(A build reruns such results by itself where Snakemake recorded making them and its default rerun "
                 "triggers are on, since the sources and config are params of their jobs and a script newer than a "
                 "result reruns it; results copied in, kept by `--rerun-triggers mtime`, or made before an edit to "
                 "a module a script imports need the --forcerun.)")
    return lines


# ------------------------------------------------------------------------------------------ verdicts

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan", re.IGNORECASE)


def _tolerance(printed: str, value: float) -> float:
    """MEASURED_REL_TOL relative, or one unit of the last printed digit of a rounded decimal (two runs whose
    values differ by a hair can print one unit apart); integers (counts) get the relative tolerance only."""
    mantissa, _, exponent = printed.lower().partition("e")
    if "." not in mantissa and not exponent:
        return MEASURED_REL_TOL * abs(value)
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return max(MEASURED_REL_TOL * abs(value), 10.0 ** (int(exponent or 0) - decimals))


def measured_agrees(locked: str, new: str) -> bool:
    """Same text around the numbers; every number within its tolerance."""
    locked, new = str(locked), str(new)
    if _NUMBER.sub("#", locked) != _NUMBER.sub("#", new):
        return False
    for a, b in zip(_NUMBER.findall(locked), _NUMBER.findall(new)):
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
            if a.lower() != b.lower():
                return False
        elif abs(x - y) > _tolerance(a, x):
            return False
    return True


def read_verdicts(path: Path | str) -> list[dict[str, str]]:
    path = Path(path)
    if not path.exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def claims_rows(paper: str, claims_csv: Path | str) -> list[dict[str, str]]:
    with open(claims_csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{"paper": paper, "claim_id": r["claim_id"], "kind": r.get("kind") or DEFAULT_KIND,
             "measured": r["measured"], "verdict": r["verdict"]} for r in rows]


def write_verdicts(path: Path | str, claims: dict[str, Path | str], order: list[str]) -> None:
    """Replace the rows of the papers in ``claims`` (paper -> claims.csv); keep the other papers' rows."""
    kept = [r for r in read_verdicts(path) if r["paper"] not in claims]
    rows = kept + [r for paper, f in claims.items() for r in claims_rows(paper, f)]
    rank = {p: i for i, p in enumerate(order)}
    rows.sort(key=lambda r: rank.get(r["paper"], len(rank)))  # stable: claims keep their order
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, VERDICT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: r[k] for k in VERDICT_COLUMNS} for r in rows)


def verify_verdicts(locked: list[dict[str, str]], paper: str, claims_csv: Path | str) -> list[str]:
    """Lines naming each claim whose verdict or kind differs, or whose measured value moved."""
    old = {r["claim_id"]: r for r in locked if r["paper"] == paper}
    new = {r["claim_id"]: r for r in claims_rows(paper, claims_csv)}
    lines = []
    for cid, r in old.items():
        n = new.get(cid)
        if n is None:
            lines.append(f"{paper}, claim {cid}: in the verdicts file, not in claims.csv")
            continue
        for col in ("verdict", "kind"):
            if n[col] != r[col]:
                lines.append(f"{paper}, claim {cid}: {col} locked {r[col]} new {n[col]}")
        if not measured_agrees(r["measured"], n["measured"]):
            lines.append(f"{paper}, claim {cid}: measured locked '{r['measured']}' new '{n['measured']}' "
                         f"(tolerance {MEASURED_REL_TOL:g} relative)")
    lines += [f"{paper}, claim {cid}: not in the verdicts file" for cid in new if cid not in old]
    return lines

