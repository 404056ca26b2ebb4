"""The Kaggle API boundary: credential check, lazy import, and the one-line messages users need.

``import kaggle`` authenticates at import time. kaggle 1.x calls ``exit(1)`` when it finds no credentials;
kaggle 2.2.5 (the version in requirements.lock) catches that exit and leaves the API unauthenticated, so the
server answers 401. With a username and key (environment or ``kaggle.json``) kaggle 2.2.5 opens no
connection at import (tests/data/test_kaggle_real_package.py); with an access token (``KAGGLE_API_TOKEN``)
it asks the server about the token there. So the package is imported only here, only after
:func:`credentials_available` said yes, and inside a guard that turns its ``SystemExit`` into a
:class:`KaggleUnavailable` error and a failed import into a message naming the missing module and its fix.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path

from .integrity import DataError

# How to get back the environment that was tested (README "Quick start", docs/environment.md).
PINNED_INSTALL = "pip install --require-hashes -r requirements.lock"

# Modules that kaggle and kagglesdk import whose distribution on PyPI has another name.
MODULE_DISTRIBUTIONS = {"dateutil": "python-dateutil", "dotenv": "python-dotenv", "google": "protobuf",
                        "slugify": "python-slugify"}

SETUP_STEPS = (
    "create an API token at https://www.kaggle.com/settings (API > Create New Token), save it as "
    "~/.kaggle/kaggle.json (chmod 600) or export KAGGLE_USERNAME and KAGGLE_KEY, accept the rules at "
    "https://www.kaggle.com/c/{competition}/rules, then re-run `snakemake --cores 2 datasets`"
)

# Where the Kaggle API answers (https://www.kaggle.com/api/v1): the host the availability check probes.
API_ENDPOINT = ("www.kaggle.com", 443)


class KaggleUnavailable(DataError):
    """Kaggle cannot serve the file: no or bad credentials, or competition rules not accepted."""


def _config_dir() -> Path:
    return Path(os.environ.get("KAGGLE_CONFIG_DIR") or Path.home() / ".kaggle")


def credentials_available() -> tuple[bool, str]:
    """Cheap check (no import, no network): (found, where)."""
    if os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY"):
        return True, "environment variables KAGGLE_USERNAME/KAGGLE_KEY"
    if os.environ.get("KAGGLE_API_TOKEN"):
        return True, "environment variable KAGGLE_API_TOKEN"
    config_file = _config_dir() / "kaggle.json"
    if config_file.is_file():
        try:
            content = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False, f"{config_file} is not readable JSON"
        if content.get("username") and content.get("key"):
            return True, str(config_file)
        return False, f"{config_file} lacks 'username' or 'key'"
    return False, "no KAGGLE_USERNAME/KAGGLE_KEY and no ~/.kaggle/kaggle.json"


def missing_credentials_message(competition: str, detail: str) -> str:
    return f"no Kaggle credentials ({detail}): " + SETUP_STEPS.format(competition=competition)


def import_kaggle_api():
    """Import the ``kaggle`` package (which authenticates) and return its API object."""
    import kaggle  # noqa: PLC0415 - deliberately lazy, see module docstring

    return kaggle.api


def get_kaggle_api(competition: str):
    found, detail = credentials_available()
    if not found:
        raise KaggleUnavailable(missing_credentials_message(competition, detail))
    try:
        return import_kaggle_api()
    except SystemExit as exc:  # kaggle's authenticate() exits when the credentials are unusable
        raise KaggleUnavailable(
            f"Kaggle rejected the credentials from {detail} (exit {exc.code}): "
            + SETUP_STEPS.format(competition=competition)
        ) from None
    except ImportError as exc:
        raise KaggleUnavailable(import_failure_message(exc)) from None


def import_failure_message(exc: ImportError) -> str:
    """What failed to import and the install that fixes it.

    ``pip install kaggle`` only helps when kaggle itself is absent: when kaggle is installed and one of its
    own imports fails (kaggle 2.2 imports ``six`` without declaring it), the fix is to install that module.
    """
    pinned = f"or install the tested environment with `{PINNED_INSTALL}`"
    missing = (exc.name or "").split(".")[0] if isinstance(exc, ModuleNotFoundError) else ""
    if missing == "kaggle":
        return f"the 'kaggle' package is not installed ({exc}): install it with `pip install kaggle`, {pinned}"
    try:
        installed = f"kaggle {metadata.version('kaggle')}"
    except metadata.PackageNotFoundError:
        installed = "kaggle"
    if missing:
        package = MODULE_DISTRIBUTIONS.get(missing, missing)
        return (f"{installed} is installed but cannot be imported: the module '{missing}' it needs is missing "
                f"({exc}): install it with `pip install {package}`, {pinned}")
    return (f"{installed} is installed but cannot be imported ({type(exc).__name__}: {exc}), likely a dependency "
            f"at a version it does not support: {pinned}")


def http_status(exc: BaseException) -> int | None:
    """The HTTP status carried by an exception from kaggle/kagglesdk/requests/urllib, if any."""
    for attr in ("status", "status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def download_competition_file(competition: str, file_name: str, folder: Path) -> Path:
    """Download one competition file into ``folder`` (empty) and return the path Kaggle wrote.

    Kaggle names the file after its download URL (e.g. ``x.csv.zip`` for ``x.csv``), so the result is
    whatever single file appeared in ``folder``.
    """
    api = get_kaggle_api(competition)
    try:
        api.competition_download_file(competition, file_name, path=str(folder), force=True, quiet=True)
    except Exception as exc:  # noqa: BLE001 - classify by HTTP status below, re-raise the rest as DataError
        status = http_status(exc)
        if status == 403:
            raise KaggleUnavailable(
                f"Kaggle refused {competition}/{file_name} (HTTP 403: competition rules not accepted for this "
                f"account): accept them at https://www.kaggle.com/c/{competition}/rules, then re-run "
                "`snakemake --cores 2 datasets`"
            ) from None
        if status == 401:
            raise KaggleUnavailable(
                f"Kaggle rejected the credentials (HTTP 401) for {competition}/{file_name}: "
                + SETUP_STEPS.format(competition=competition)
            ) from None
        if status == 404:
            raise FileNotFoundError(f"Kaggle has no file {file_name} in competition {competition}") from None
        raise DataError(f"Kaggle download of {competition}/{file_name} failed: {type(exc).__name__}: {exc}") from None
    written = [p for p in folder.iterdir() if p.is_file()]
    if len(written) != 1:
        raise DataError(f"Kaggle download of {competition}/{file_name} left {len(written)} files, expected 1")
    return written[0]
