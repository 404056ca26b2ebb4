"""Fixtures of the dataset-layer tests: no network, the local mirror (when present), small stand-ins."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from banditrepro.data import network, resolve_mirror
from banditrepro.data.standin import write_standin

REPO_ROOT = Path(__file__).resolve().parents[2]


class NetworkTouched(AssertionError):
    pass


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test here runs offline: opening an internet connection fails the test."""

    def refuse(*args, **kwargs):
        raise NetworkTouched(f"a test tried to open a network connection: {args[1:] or kwargs}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    # the availability check's host probes (banditrepro.data.network) then find every host unreachable,
    # unless a test asks for `network_up`; answers are remembered per process, so each test starts afresh
    network.forget()
    yield
    network.forget()


@pytest.fixture
def network_up(monkeypatch) -> list:
    """Every download host answers the availability probe (no connection is opened); the list collects the
    probed (host, port) pairs."""
    probed = []
    monkeypatch.setattr(network, "connect", lambda endpoint, timeout: probed.append(endpoint))
    return probed


@pytest.fixture
def network_down(monkeypatch) -> list:
    """No download host answers the availability probe; the list collects the probed (host, port) pairs."""
    probed = []

    def unreachable(endpoint, timeout):
        probed.append(endpoint)
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(network, "connect", unreachable)
    return probed


@pytest.fixture
def no_kaggle_credentials(monkeypatch, tmp_path):
    for variable in ("KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_API_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    empty = tmp_path / "kaggle-config"
    empty.mkdir()
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def kaggle_credentials(monkeypatch):
    monkeypatch.setenv("KAGGLE_USERNAME", "someone")
    monkeypatch.setenv("KAGGLE_KEY", "0123456789abcdef")


@pytest.fixture(scope="session")
def real_mirror() -> Path:
    """The shared data mirror (../shared/data or $BANDITREPRO_DATA_MIRROR); tests using it skip without it."""
    mirror = resolve_mirror({"data": {"mirror": None}}, REPO_ROOT)
    if mirror is None or not (mirror / "movielens-1m" / "ratings.dat").is_file():
        pytest.skip("local data mirror not found (set BANDITREPRO_DATA_MIRROR or provide ../shared/data)")
    return mirror


@pytest.fixture(scope="session")
def standin_records(tmp_path_factory) -> dict[str, Path]:
    """Small stand-in raw files (real schemas) for outbrain and coupon, generated once per session."""
    root = tmp_path_factory.mktemp("standin-raw")
    return {name: write_standin(name, root, seed=7, size="small") for name in ("outbrain", "coupon")}
