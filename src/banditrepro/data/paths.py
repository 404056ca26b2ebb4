"""Where data lives: the mirror, raw, processed and stand-in folders (all derived from the config)."""

from __future__ import annotations

import os
from pathlib import Path

MIRROR_ENV = "BANDITREPRO_DATA_MIRROR"
STANDIN_ROOT = Path("data/standin")
RECORD_NAME = "fetch_record.json"


def _data_config(config: dict) -> dict:
    return dict(config.get("data") or {})


def resolve_mirror(config: dict, repo_root: Path) -> Path | None:
    """The local mirror folder: $BANDITREPRO_DATA_MIRROR, else config data.mirror, else ../shared/data.

    An explicitly named mirror (env or config) is returned even when it does not exist, so that callers can
    say so; the ../shared/data default is used only when it exists. Relative config paths are relative to
    the repository root.
    """
    repo_root = Path(repo_root)
    from_env = os.environ.get(MIRROR_ENV)
    if from_env:
        return Path(from_env).expanduser().resolve()
    from_config = _data_config(config).get("mirror")
    if from_config:
        path = Path(from_config).expanduser()
        return (path if path.is_absolute() else repo_root / path).resolve()
    default = (repo_root / ".." / "shared" / "data").resolve()
    return default if default.is_dir() else None


def raw_dir(config: dict) -> Path:
    """Relative to the repository root (as configured)."""
    return Path(_data_config(config).get("raw_dir") or "data/raw")


def processed_dir(config: dict) -> Path:
    return Path(_data_config(config).get("processed_dir") or "data/processed")


def standin_raw_dir() -> Path:
    return STANDIN_ROOT / "raw"


def standin_processed_dir() -> Path:
    return STANDIN_ROOT / "processed"


def record_path(config: dict, name: str, standin: bool = False) -> Path:
    base = standin_raw_dir() if standin else raw_dir(config)
    return base / name / RECORD_NAME
