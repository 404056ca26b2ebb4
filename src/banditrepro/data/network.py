"""Can a download host be reached? A bounded probe, asked once per host and remembered for the process.

The workflow decides which datasets it can have while it builds the DAG (``dataset_status``): a dataset whose
files are neither fetched nor in the mirror counts as available only if its download host answers. Without
this, a machine with no network planned every MovieLens figure, ran simulations for minutes and then failed
the whole build at the download job.

The probe opens a TCP connection to the host's port (no HTTP request, nothing downloaded). Name resolution
is not bounded by a socket timeout, so every host is probed in its own daemon thread and the caller waits at
most ``timeout`` seconds in all: a host that has not answered by then counts as unreachable, and a hung
resolver never holds up the run (or its exit: daemon threads are not joined).
"""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit

PROBE_TIMEOUT_S = 3.0

Endpoint = tuple[str, int]  # (host, port)

# The answers of this process: {endpoint: None (reachable) or why not}. One Snakemake run builds its DAG in
# one process, so each host is probed at most once per run.
_answers: dict[Endpoint, str | None] = {}
_lock = threading.Lock()
_skip = False  # see skip_probes


def url_endpoint(url: str) -> Endpoint:
    """(host, port) of an http(s) URL."""
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def connect(endpoint: Endpoint, timeout: float) -> None:
    """Open and close one TCP connection (tests replace this function to simulate a network or none)."""
    socket.create_connection(endpoint, timeout=timeout).close()


def _probe_one(endpoint: Endpoint, timeout: float, answers: dict) -> None:
    try:
        connect(endpoint, timeout)
        answers[endpoint] = None
    except Exception as exc:  # noqa: BLE001 - any failure (DNS, refused, timeout) means "not reachable"
        answers[endpoint] = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def probe(endpoints, timeout: float = PROBE_TIMEOUT_S) -> dict[Endpoint, str | None]:
    """{endpoint: None if it accepted a connection, else why not}, waiting at most ``timeout`` s in all.

    Endpoints asked before in this process are not probed again.
    """
    endpoints = list(dict.fromkeys(endpoints))
    if _skip:
        return dict.fromkeys(endpoints)
    with _lock:
        todo = [e for e in endpoints if e not in _answers]
        fresh: dict[Endpoint, str | None] = {}
        threads = []
        for endpoint in todo:
            thread = threading.Thread(target=_probe_one, args=(endpoint, timeout, fresh), daemon=True,
                                      name=f"probe {endpoint[0]}")
            thread.start()
            threads.append((endpoint, thread))
        deadline = time.monotonic() + timeout
        for endpoint, thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            # a thread still resolving or connecting has no entry yet: its late answer is not waited for
            _answers[endpoint] = fresh.get(endpoint, f"no answer within {timeout:g} s")
        return {e: _answers[e] for e in endpoints}


def skip_probes() -> None:
    """Answer every later probe "reachable" without connecting (a workflow job process: the main process
    already decided what can be had, and a compute node's network is not the question)."""
    global _skip
    _skip = True


def forget() -> None:
    """Drop the remembered answers (tests; a long-lived process that wants to ask again)."""
    global _skip
    with _lock:
        _answers.clear()
        _skip = False
