"""The build's worker: one process that has imported everything the workflow scripts need and runs each
job handed to it in a fresh fork of itself, so that a job does not pay the interpreter's start, the
imports (numpy, numba, pandas, scipy, matplotlib, the paper packages) and numba's start-up again.

A local ``snakemake`` run starts it in the Snakefile's ``onstart`` (:func:`start`) and stops it in
``onsuccess`` / ``onerror`` (:func:`stop`); it also stops by itself when the Snakemake process that started
it is gone. Every job is still a Snakemake job of its own: Snakemake starts the rule's script as always, and
the script's first import (``workflow/scripts/worker_handoff.py``, standard library only) sends the job here
over a unix socket together with its standard input, output and error, waits, and exits with the job's exit
status. So every shard stays its own output (an interrupted build resumes), every job writes its own log,
and ``--cores`` bounds the jobs running at once (each handed job holds its Snakemake slot until it ends).

What the worker guarantees:

* It runs only the current sources: it hashes the package's sources before importing them
  (:func:`banditrepro.numba_cache.source_hash`) and again for every job; once they differ it refuses every
  job (each then runs in its own process, as without a worker) and restarts itself when its running jobs
  have ended.
* It runs a job only in the environment the job would have had: the same Python, and the same values of the
  variables that decide imports and numerics (``PYTHON*``, ``NUMBA_*``, ``BANDITREPRO_*``, thread counts);
  else it refuses the job. The fork takes the job's working directory, environment, ``sys.path`` and
  standard streams.
* A job cannot harm another: each runs in its own fork (a crash, an exception or ``os._exit`` ends that fork
  only) and starts from the worker's state, never from another job's. A fork whose job was cancelled (its
  script's process ended) is killed with its process group; a fork whose worker died is killed by the kernel
  (Linux), and its job fails with a message instead of running twice.
* No worker, no change: on a cluster (non-local executor), under ``--no-hooks``, with
  ``BANDITREPRO_WORKER=off``, in a run of fewer than :data:`MIN_JOBS` jobs that do work (the worker's own
  start, about 3.4 CPU-s of imports, would cost more than it saves: about 1.4 CPU-s a job, and the first jobs
  start before it listens), or while the worker is still starting, the jobs run in their own processes.
* A mutant's job (``python -m banditrepro.mutation job <copy> <job>``, a ``shell:`` rule with the scratch
  copy's src/ first on ``PYTHONPATH``) is handed over too: its fork drops every module of the package and
  of the workflow's scripts before it runs the job, so the job imports the copy's package, as in a process
  of its own (``banditrepro.mutation.run_job`` still stops if it imported another); numpy, numba, pandas
  and the rest stay imported, which is what a mutant job used to spend most of its time on.

Protocol (one connection per job): the client sends, with file descriptors 0, 1, 2 attached, a frame
(4-byte big-endian length, then bytes) with a JSON header (protocol, script, argv, cwd, environ, path,
executable, prefix; for a mutant's job also ``mutant: {tree}``) and a frame with the pickled ``snakemake``
object (a mutant's job: its description as JSON). The worker answers one JSON line
``{"accepted": bool, "say": str}`` and, for an accepted job, a second ``{"exit": status}`` when it ended.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import hashlib
import json
import os
import pickle
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

PROTOCOL = 1
SOCKET_VARIABLE = "BANDITREPRO_WORKER_SOCKET"  # as workflow/scripts/worker_handoff.py reads them
INSIDE_VARIABLE = "BANDITREPRO_WORKER_JOB"
OPT_OUT = "BANDITREPRO_WORKER"  # "off": no worker
HANDOFF_MODULE = "worker_handoff"
PACKAGE = "banditrepro"  # (not __name__: the worker runs as __main__)
LOG_NAME = "logs/worker.log"
# variables that change what a process imports or how it computes: a job runs in the worker only where
# they are the worker's own (Snakemake sets the thread counts per job to its `threads`)
ENVIRONMENT_PREFIXES = ("PYTHON", "NUMBA_", "BANDITREPRO_", "OMP_", "OPENBLAS_", "MKL_", "GOTO_", "VECLIB_",
                        "NUMEXPR_", "LD_PRELOAD", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
KILL_GRACE_S = 5.0
# the fewest jobs with work (a script or a shell command) for which a run starts a worker: a `verify` or a rebuild
# of one figure (1-3 jobs) paid about 1.2 CPU-s more with a worker than without (2-core VM)
MIN_JOBS = 4
_started: dict[str, subprocess.Popen] = {}  # working directory -> the worker this process started


# ------------------------------------------------------------------------------------ start and stop


def socket_path(workdir: Path | str) -> Path:
    """Where the worker of the build in ``workdir`` listens: a private folder of this user under the
    temporary directory (a unix socket path must stay short), one socket per working directory."""
    key = hashlib.sha256(str(Path(workdir).resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"banditrepro-worker-{os.getuid()}" / f"{key}.sock"


def _private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, exist_ok=True)
    st = folder.stat()
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise OSError(f"{folder} is not a private folder of this user")


def start(workdir: Path | str, repo: Path | str, local: bool, threads: int = 1, jobs: int | None = None
          ) -> Path | None:
    """Start the worker of a local build in ``workdir`` (Snakefile ``onstart``; ``repo`` holds the workflow
    scripts) and point the jobs at it (``$BANDITREPRO_WORKER_SOCKET``, inherited by every job's process);
    returns the socket, or None where no worker is started (a cluster run, ``BANDITREPRO_WORKER=off``, fewer
    than :data:`MIN_JOBS` ``jobs`` with work in this run, no unix sockets or pidfds on this system). Returns at
    once: jobs that start before the worker listens run in their own processes."""
    if not local or os.environ.get(OPT_OUT, "on").lower() in ("off", "0", "false", "no"):
        return None
    if jobs is not None and jobs < MIN_JOBS:
        return None
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(os, "fork")):
        return None
    path = socket_path(workdir)
    try:
        _private_folder(path.parent)
    except OSError as err:
        print(f"banditrepro: no worker ({err}); every job runs in its own process", file=sys.stderr)
        return None
    log = Path(workdir) / LOG_NAME
    log.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for name in THREAD_VARIABLES:  # what Snakemake gives a job of `threads` threads (one by default)
        env[name] = str(threads)
    env.pop(SOCKET_VARIABLE, None)
    with open(log, "w", encoding="utf-8") as out:
        worker = subprocess.Popen([sys.executable, "-m", "banditrepro.workflow_worker", "serve", str(path),
                                   "--parent", str(os.getpid()), "--repo", str(Path(repo).resolve())],
                                  cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    _started[str(Path(workdir).resolve())] = worker
    os.environ[SOCKET_VARIABLE] = str(path)
    return path


def stop(workdir: Path | str) -> None:
    """Stop the worker that :func:`start` started for ``workdir`` in this process (Snakefile ``onsuccess`` /
    ``onerror``); nothing if none runs. It ends its running jobs' forks (none, after a build)."""
    os.environ.pop(SOCKET_VARIABLE, None)
    worker = _started.pop(str(Path(workdir).resolve()), None)
    if worker is not None and worker.poll() is None:
        worker.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.wait(timeout=10)


# ------------------------------------------------------------------------------------ the server


def handed_off_scripts(repo: Path) -> list[Path]:
    """The workflow scripts that import the hand-off module (the jobs the worker runs)."""
    return [p for p in sorted((repo / "workflow" / "scripts").glob("*.py"))
            if any(isinstance(node, ast.Import) and any(a.name == HANDOFF_MODULE for a in node.names)
                   for node in ast.parse(p.read_text(encoding="utf-8")).body)]


def preload(repo: Path) -> list[str]:
    """Import what the handed-off scripts import (their top-level imports), every paper package and
    Snakemake's job object; start numba's compiler (its typing and target registries, about 0.4 CPU-s that
    every job would pay on its first kernel). Returns the scripts."""
    scripts = handed_off_scripts(repo)
    for script in scripts:
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
                    isinstance(node, ast.Import) and any(a.name == HANDOFF_MODULE for a in node.names)):
                exec(compile(ast.Module([node], []), str(script), "exec"), {})
    import importlib

    import numpy as np
    import snakemake.script  # noqa: F401 - the job object the clients send (Snakemake < 9 defines it here)

    from .engine import _no_metric
    from .experiments.spec import import_paper_package, select_papers

    with contextlib.suppress(ImportError):
        importlib.import_module("snakemake.iocontainers")  # ... and Snakemake >= 9 here
    for paper in select_papers(repo, None):
        import_paper_package(paper)
    _no_metric(1, np.zeros((1, 1)), np.zeros(1), 0)
    return [s.name for s in scripts]


def _compatible(header: dict, environ: dict) -> str | None:
    """Why a job cannot run in this worker (None: it can). ``environ``: the worker's environment."""
    from . import numba_cache

    if header.get("protocol") != PROTOCOL:
        return "another protocol version"
    if os.path.realpath(header["executable"]) != os.path.realpath(sys.executable) or header["prefix"] != sys.prefix:
        return f"another Python ({header['executable']})"
    job = header["environ"]
    # numba's cache: the same base folder (the package puts each state of its sources in its own directory);
    # where in it a kernel's entries sit (numba_cache.LOCATORS) decides no number
    ignored = {SOCKET_VARIABLE, INSIDE_VARIABLE, "NUMBA_CACHE_DIR", numba_cache.LOCATORS_VARIABLE}
    mutant = header.get("mutant")
    if mutant and job.get("PYTHONPATH") and (os.path.realpath(os.path.join(header["cwd"], job["PYTHONPATH"]))
                                             == os.path.realpath(Path(mutant["tree"]) / "src")):
        ignored.add("PYTHONPATH")  # the mutant rules' copy first on the path (as the rule writes it, relative)
    names = {k for k in (*job, *environ) if k.startswith(ENVIRONMENT_PREFIXES)} - ignored
    differ = sorted(k for k in names if job.get(k) != environ.get(k))
    if numba_cache.base_dir(job) != numba_cache.base_dir(environ):
        differ.append("NUMBA_CACHE_DIR")
    return f"the environment differs ({', '.join(differ)})" if differ else None


def _read_request(conn: socket.socket) -> tuple[dict, bytes, list[int]]:
    """(header, pickled job, the client's fds 0-2) of one request (two frames, the fds on the first bytes)."""
    fds: list[int] = []
    buf = bytearray()

    def take(n: int) -> bytes:
        while len(buf) < n:
            if not buf and not fds:
                chunk, got, _, _ = socket.recv_fds(conn, 1 << 16, 8)
                fds.extend(got)
            else:
                chunk = conn.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the client closed the connection")
            buf.extend(chunk)
        out = bytes(buf[:n])
        del buf[:n]
        return out

    conn.settimeout(30)
    try:
        header = json.loads(take(struct.unpack("!I", take(4))[0]))
        job = take(struct.unpack("!I", take(4))[0])
        if len(fds) != 3:
            raise ConnectionError(f"expected 3 file descriptors, got {len(fds)}")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        conn.settimeout(None)
    return header, job, fds


def _send(conn: socket.socket, message: dict) -> None:
    with contextlib.suppress(OSError):
        conn.sendall((json.dumps(message) + "\n").encode())


def _forget_the_package(repo: Path) -> None:
    """In a mutant job's fork: drop the modules of this package (and its generated step runners) and of the
    workflow's scripts that the worker imported, so that the job imports the scratch copy's instead."""
    import importlib

    importlib.invalidate_caches()  # the copy may have been written after the worker read its folders
    workflow = (repo / "workflow").resolve()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if (name == PACKAGE or name.startswith((f"{PACKAGE}.", f"{PACKAGE}_"))
                or (file and Path(file).resolve().is_relative_to(workflow))):
            del sys.modules[name]


def _run_job(header: dict, job: bytes, fds: list[int], repo: Path) -> int:
    """In the fork: become the job's process (streams, directory, environment, path) and run its script: a
    Snakemake job's script, or a mutant's job under its scratch copy (banditrepro.mutation.run_job)."""
    import importlib
    import runpy

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(header["cwd"])
    tempfile.tempdir = None  # the job's TMPDIR, not the one the worker may have cached
    os.environ.clear()
    os.environ.update(header["environ"])
    os.environ[INSIDE_VARIABLE] = "1"
    sys.path[:] = header["path"]
    sys.argv[:] = header["argv"]
    try:
        if header.get("mutant"):
            _forget_the_package(repo)
            # the copy's package (its src/ is first on the path); run_job stops if it is not
            importlib.import_module(f"{PACKAGE}.mutation").run_job(header["mutant"]["tree"], json.loads(job))
        else:
            snakemake_job = pickle.loads(job)
            runpy.run_path(header["script"], init_globals={"snakemake": snakemake_job}, run_name="__main__")
    except SystemExit as done:
        code = done.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001 - whatever a script raises fails its job only
        traceback.print_exc()
        return 1
    return 0


def _die_with_parent() -> None:
    """Have the kernel kill this fork when the worker dies (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


class Server:
    def __init__(self, path: Path, parent: int, repo: Path):
        self.path = path
        self.parent = parent
        self.repo = repo
        self.sources = None
        self.environ = dict(os.environ)
        self.selector = selectors.DefaultSelector()
        self.jobs: dict[int, tuple[socket.socket, int, float | None]] = {}  # pid -> (conn, pidfd, killed at)
        self.stale = False
        self.stopping = False
        self.n_jobs = 0
        self.listener: socket.socket | None = None

    def log(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)

    def serve(self) -> None:
        from .numba_cache import source_hash

        self.sources = source_hash()  # before the imports: a source edited after this is seen as a change
        t0 = time.perf_counter()
        scripts = preload(self.repo)
        # what the forks share stays shared: the forks' garbage collections no longer write to the headers of
        # the preloaded objects (copy-on-write of the pages that hold them); in a smoke build of satisficing_ucl
        # the 34 jobs' forks took 14.6 CPU-s instead of 17.5 (3 runs each, interleaved)
        gc.freeze()
        self.log(f"worker {os.getpid()}: imported for {', '.join(scripts)} in {time.perf_counter() - t0:.1f} s")
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stopping", True))
        self.listener = self._listen()
        self.selector.register(self.listener, selectors.EVENT_READ, ("accept", None))
        try:
            while not (self.stopping and not self.jobs) and not (self.stale and not self.jobs):
                if self.stopping:
                    self._close_listener()
                for key, _ in self.selector.select(timeout=1.0):
                    kind, data = key.data
                    try:
                        if kind == "accept":
                            self._accept()
                        elif kind == "exit":
                            self._reap(data)
                        elif kind == "client":
                            self._client_gone(data)
                    except Exception:  # noqa: BLE001 - a fault of one request must not stop the jobs running
                        self.log(f"error while handling {kind} {data}:\n{traceback.format_exc()}")
                if not self._parent_alive():
                    self.log("the Snakemake process that started the worker is gone: stopping")
                    self.stopping = True
                    for pid in list(self.jobs):
                        self._kill(pid)
                self._escalate()
        finally:
            self._close_listener()
        if self.stale and not self.stopping:
            self.log("the package's sources changed: restarting the worker")
            os.execv(sys.executable, [sys.executable, "-m", "banditrepro.workflow_worker", *sys.argv[1:]])
        import resource

        own, forks = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        # (both counts of CPU time include the worker's earlier lives, before a restart on new sources)
        self.log(f"worker stopped after {self.n_jobs} jobs: {own.ru_utime + own.ru_stime:.1f} CPU-s in the worker, "
                 f"{forks.ru_utime + forks.ru_stime:.1f} CPU-s in the jobs' forks")

    def _listen(self) -> socket.socket:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        tmp.unlink(missing_ok=True)
        listener.bind(str(tmp))
        listener.listen(64)
        os.replace(tmp, self.path)  # clients see the socket only once it accepts
        self.log(f"listening on {self.path}")
        return listener

    def _close_listener(self) -> None:
        if self.listener is None:
            return
        self.selector.unregister(self.listener)
        self.listener.close()
        self.listener = None
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _parent_alive(self) -> bool:
        try:
            os.kill(self.parent, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        try:
            header, job, fds = _read_request(conn)
        except (OSError, ValueError) as err:
            self.log(f"bad request: {err}")
            conn.close()
            return
        try:
            pid = self._start_job(conn, header, job, fds)
        except Exception as err:  # noqa: BLE001 - the client then runs its job itself
            _send(conn, {"accepted": False, "say": f"worker error ({type(err).__name__}: {err})"})
            conn.close()
            raise
        finally:
            for fd in fds:
                os.close(fd)
        if pid is None:
            conn.close()

    def _start_job(self, conn: socket.socket, header: dict, job: bytes, fds: list[int]) -> int | None:
        """Fork the job and tell the client it runs (its pid), or tell it why not (None)."""
        from .numba_cache import source_hash

        why = _compatible(header, self.environ)
        if why is None and not self.stale and source_hash() != self.sources:
            self.stale = True
        if self.stale:
            why = "the package's sources changed since the worker started (it restarts when its jobs end)"
        if why is not None:
            self.log(f"refused {header.get('script')}: {why}")
            _send(conn, {"accepted": False, "say": why})
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the job's fork
            code = 1
            try:
                os.setpgid(0, 0)
                _die_with_parent()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                self.selector.close()
                if self.listener is not None:
                    self.listener.close()
                for other, other_pidfd, _ in self.jobs.values():
                    other.close()
                    os.close(other_pidfd)
                conn.close()
                code = _run_job(header, job, fds, self.repo)
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code if 0 <= code < 256 else 1)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise
        _send(conn, {"accepted": True})
        self.n_jobs += 1
        self.jobs[pid] = (conn, pidfd, None)
        self.selector.register(pidfd, selectors.EVENT_READ, ("exit", pid))
        self.selector.register(conn, selectors.EVENT_READ, ("client", pid))
        self.log(f"job {pid}: {header['script']} {json.dumps(_wildcards(header, job))}")
        return pid

    def _reap(self, pid: int) -> None:
        conn, pidfd, _ = self.jobs.pop(pid)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        code = code if code >= 0 else 128 - code  # killed by signal n: 128 + n, as a shell says
        self.selector.unregister(pidfd)
        with contextlib.suppress(KeyError):  # already unregistered where the client went first
            self.selector.unregister(conn)
        os.close(pidfd)
        _send(conn, {"exit": code})
        conn.close()
        self.log(f"job {pid}: exit {code}")

    def _client_gone(self, pid: int) -> None:
        conn = self.jobs[pid][0]
        try:
            data = conn.recv(1, socket.MSG_PEEK)
        except OSError:
            data = b""
        if data:
            return
        self.selector.unregister(conn)
        self.log(f"job {pid}: its Snakemake job ended (cancelled): killing it")
        self._kill(pid)

    def _kill(self, pid: int) -> None:
        conn, pidfd, killed = self.jobs[pid]
        if killed is None:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGTERM)
            self.jobs[pid] = (conn, pidfd, time.monotonic())

    def _escalate(self) -> None:
        for pid, (_, _, killed) in self.jobs.items():
            if killed is not None and time.monotonic() - killed > KILL_GRACE_S:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)


def _wildcards(header: dict, job: bytes) -> dict:
    try:
        if header.get("mutant"):
            return dict(json.loads(job)["wildcards"])
        return dict(pickle.loads(job).wildcards.items())
    except Exception:  # noqa: BLE001 - only for the worker's log line
        return {}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m banditrepro.workflow_worker", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the worker (the Snakefile's onstart does this)")
    serve.add_argument("socket")
    serve.add_argument("--parent", type=int, required=True, help="stop when this process (Snakemake) is gone")
    serve.add_argument("--repo", default=".", help="the repository root (its workflow/scripts and config/papers)")
    args = parser.parse_args(argv)
    Server(Path(args.socket), args.parent, Path(args.repo)).serve()


if __name__ == "__main__":
    main(sys.argv[1:])
