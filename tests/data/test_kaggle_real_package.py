"""The real ``kaggle`` package (no fake) behind the project's fetch code, with dummy credentials, offline.

Each test imports kaggle afresh under its own environment and drives ``fetch_dataset`` or
``kaggle_client`` through kaggle and kagglesdk down to ``requests``' transport adapter, the last call before
a socket; there it records the request and answers as Kaggle would (or fails as a dead network does).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
from importlib import metadata

import pytest
import requests
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict

from banditrepro.data import kaggle_client
from banditrepro.data.fetch import fetch_dataset
from banditrepro.data.integrity import DataError
from banditrepro.data.manifest import DatasetSpec, FileSpec

DUMMY_USER, DUMMY_KEY = "someone", "0123456789abcdef"
COMPETITION = "coupon-purchase-prediction"


@pytest.fixture
def dummy_credentials_only(monkeypatch, tmp_path):
    """Dummy KAGGLE_USERNAME/KAGGLE_KEY and nothing else kaggle could read (no token, no config file)."""
    monkeypatch.delenv("KAGGLE_API_TOKEN", raising=False)
    monkeypatch.setenv("KAGGLE_USERNAME", DUMMY_USER)
    monkeypatch.setenv("KAGGLE_KEY", DUMMY_KEY)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path / "kaggle-config"))
    (tmp_path / "kaggle-config").mkdir()


@pytest.fixture
def network_attempts(monkeypatch) -> list[str]:
    """Refuse and record every connection; kaggle's import swallows exceptions, so the record is what tells."""
    attempts: list[str] = []

    def refuse(*args, **kwargs):
        attempts.append(repr(args[1:] or kwargs))
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


@pytest.fixture
def fresh_kaggle_import(monkeypatch):
    """Forget kaggle's modules so that the next import runs its import-time authentication in this test's
    environment (the originals come back afterwards)."""
    for name in [n for n in sys.modules if n == "kaggle" or n.startswith("kaggle.")]:
        monkeypatch.delitem(sys.modules, name)


class KaggleAtTheTransport:
    """Replaces ``HTTPAdapter.send``: records each request and answers with ``status``, or raises ``failure``."""

    def __init__(self, monkeypatch, status: int | None = None, failure: Exception | None = None):
        self.status, self.failure, self.requests = status, failure, []

        def send(adapter, request, **kwargs):
            return self.answer(request)

        monkeypatch.setattr(HTTPAdapter, "send", send)

    def answer(self, request) -> requests.Response:
        self.requests.append(request)
        if self.failure is not None:
            raise self.failure
        response = requests.Response()
        response.status_code = self.status
        response.reason = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}.get(self.status, "Error")
        response.headers = CaseInsensitiveDict({"Content-Type": "application/json"})
        response._content = json.dumps({"code": self.status, "message": f"test answer {self.status}"}).encode()
        response.encoding = "utf-8"
        response.url = request.url
        response.request = request
        return response


def _kaggle_only_spec() -> DatasetSpec:
    return DatasetSpec(name="coupon", title="synthetic", mirror_dir="synthetic", kaggle=COMPETITION,
                       files=(FileSpec(name="coupon_visit_train.csv", rows=3, cols=2, sources=("kaggle",),
                                       kaggle_file="coupon_visit_train.csv.zip"),))


def test_import_kaggle_in_a_fresh_interpreter_with_dummy_credentials_is_offline(tmp_path):
    """`import kaggle` in a new process (as `snakemake datasets` does it): it must import (kaggle 2.2.5 with
    python-dateutil 4 lacked `six`), not exit, and not open a connection (it would hang without network)."""
    probe = (
        "import json, socket\n"
        "attempts = []\n"
        "def refuse(*args, **kwargs):\n"
        "    attempts.append(repr(args[1:] or kwargs))\n"
        "    raise OSError('network disabled by the test')\n"
        "socket.socket.connect = socket.socket.connect_ex = refuse\n"
        "socket.create_connection = socket.getaddrinfo = refuse\n"
        "import kaggle\n"
        "print(json.dumps({'attempts': attempts, 'has_api': hasattr(kaggle, 'api')}))\n"
    )
    (tmp_path / "kaggle-config").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAGGLE_")}
    env.update(KAGGLE_USERNAME=DUMMY_USER, KAGGLE_KEY=DUMMY_KEY, HOME=str(tmp_path),
               KAGGLE_CONFIG_DIR=str(tmp_path / "kaggle-config"))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"`import kaggle` failed:\n{done.stderr[-2000:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"attempts": [], "has_api": True}


@pytest.mark.parametrize("status, error, needles", [
    (403, kaggle_client.KaggleUnavailable, ("HTTP 403", f"https://www.kaggle.com/c/{COMPETITION}/rules")),
    (401, kaggle_client.KaggleUnavailable, ("HTTP 401", "KAGGLE_USERNAME")),
    (404, DataError, (f"Kaggle competition {COMPETITION} has none of",)),
])
def test_fetch_reaches_kaggles_http_call_and_reports_its_answer(tmp_path, monkeypatch, dummy_credentials_only,
                                                                network_attempts, fresh_kaggle_import,
                                                                status, error, needles):
    transport = KaggleAtTheTransport(monkeypatch, status=status)
    with pytest.raises(DataError) as failure:
        fetch_dataset("coupon", tmp_path / "raw", mirror=None, spec=_kaggle_only_spec())
    message = str(failure.value)
    for needle in needles:
        assert needle in message, message
    if error is kaggle_client.KaggleUnavailable:
        # the refusal is what fetch_dataset reports, once, for the file
        assert "coupon_visit_train.csv (kaggle: Kaggle " in message
    assert network_attempts == []

    asked = transport.requests[0]
    assert asked.url.startswith("https://") and "kaggle.com" in asked.url and asked.url.endswith("DownloadDataFile")
    assert json.loads(asked.body) == {"competitionName": COMPETITION, "fileName": "coupon_visit_train.csv.zip"}
    basic = base64.b64encode(f"{DUMMY_USER}:{DUMMY_KEY}".encode()).decode()
    assert asked.headers["Authorization"] == f"Basic {basic}"
    # a 404 tries the unzipped name next; a refusal (401/403) stops at the first request
    expected_names = ["coupon_visit_train.csv.zip", "coupon_visit_train.csv"] if status == 404 else [
        "coupon_visit_train.csv.zip"]
    assert [json.loads(r.body)["fileName"] for r in transport.requests] == expected_names


def test_dead_network_under_kaggle_is_a_data_error_naming_the_file(tmp_path, monkeypatch, dummy_credentials_only,
                                                                   network_attempts, fresh_kaggle_import):
    transport = KaggleAtTheTransport(monkeypatch, failure=requests.exceptions.ConnectionError("no route to host"))
    with pytest.raises(DataError, match=rf"Kaggle download of {COMPETITION}/coupon_visit_train.csv.zip failed: "
                                        r"ConnectionError: no route to host"):
        kaggle_client.download_competition_file(COMPETITION, "coupon_visit_train.csv.zip", tmp_path)
    assert len(transport.requests) == 1 and network_attempts == []


def test_a_missing_dependency_of_kaggle_is_named_with_its_fix(tmp_path, monkeypatch, dummy_credentials_only,
                                                              fresh_kaggle_import):
    """The real failure of kaggle 2.2.5 without six: the message names six and `pip install six`, not
    `pip install kaggle` (which does nothing when kaggle is installed)."""
    monkeypatch.setitem(sys.modules, "six", None)  # `import six` now fails as when six is not installed
    with pytest.raises(kaggle_client.KaggleUnavailable) as failure:
        kaggle_client.download_competition_file(COMPETITION, "coupon_visit_train.csv.zip", tmp_path)
    message = str(failure.value)
    assert f"kaggle {metadata.version('kaggle')} is installed but cannot be imported" in message
    assert "the module 'six' it needs is missing" in message
    assert "`pip install six`" in message and "pip install --require-hashes -r requirements.lock" in message
    assert "pip install kaggle" not in message


def test_kaggle_not_installed_says_install_kaggle(tmp_path, monkeypatch, dummy_credentials_only,
                                                  fresh_kaggle_import):
    monkeypatch.setitem(sys.modules, "kaggle", None)  # `import kaggle` now fails as when it is not installed
    with pytest.raises(kaggle_client.KaggleUnavailable) as failure:
        kaggle_client.download_competition_file(COMPETITION, "coupon_visit_train.csv.zip", tmp_path)
    message = str(failure.value)
    assert message.startswith("the 'kaggle' package is not installed") and "`pip install kaggle`" in message


@pytest.mark.parametrize("exc, needle", [
    (ModuleNotFoundError("No module named 'google'", name="google.protobuf"), "`pip install protobuf`"),
    (ModuleNotFoundError("No module named 'dateutil'", name="dateutil"), "`pip install python-dateutil`"),
    (ImportError("cannot import name 'Thing' from 'requests'"), "a dependency at a version it does not support"),
])
def test_import_failure_message_names_the_distribution_to_install(exc, needle):
    message = kaggle_client.import_failure_message(exc)
    assert needle in message and "pip install --require-hashes -r requirements.lock" in message
    assert "pip install kaggle" not in message
