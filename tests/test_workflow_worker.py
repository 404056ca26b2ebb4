"""The build's worker (banditrepro.workflow_worker) and the scripts' hand-off (workflow/scripts/worker_handoff.py):
a handed job runs in a fork of the worker with the job's streams, directory, environment and exit status; a job
the worker cannot run (another environment, changed sources) runs in its own process; a cancelled job's fork is
killed; a failing job harms no other."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from banditrepro import workflow_worker

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = REPO_ROOT / "workflow" / "scripts"

# a workflow script as Snakemake runs it: its preamble defines `snakemake`, then the script's first import
TOY = textwrap.dedent("""
    import pickle, sys
    sys.path.append({scripts!r})
    snakemake = pickle.loads(open(sys.argv[1], "rb").read())
    import worker_handoff
    import json, os, time
    p = snakemake.params
    print("to stdout", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    with open(snakemake.output[0], "w") as out:
        json.dump({{"pid": os.getpid(), "worker": os.environ.get("BANDITREPRO_WORKER_JOB"), "cwd": os.getcwd(),
                   "extra": os.environ.get("TOY_EXTRA"), "params": dict(p.items())}}, out)
    if p.sleep:
        time.sleep(p.sleep)
    if p.crash:
        os._exit(p.exit)
    sys.exit(p.exit)
""")


def _job(tmp_path: Path, name: str, exit=0, sleep=0, crash=False) -> Path:
    try:  # Snakemake >= 9
        from snakemake.iocontainers import InputFiles, Log, OutputFiles, Params, ResourceList, Snakemake, Wildcards
    except ImportError:
        from snakemake.io import InputFiles, Log, OutputFiles, Params, Wildcards
        from snakemake.io import Resources as ResourceList
        from snakemake.script import Snakemake

    params = Params(fromdict={"exit": exit, "sleep": sleep, "crash": crash})
    job = Snakemake(InputFiles(), OutputFiles([str(tmp_path / f"{name}.json")]), params, Wildcards(), 1, ResourceList(),
                    Log(), {}, "toy", 0, str(SCRIPTS))
    path = tmp_path / f"{name}.pickle"
    path.write_bytes(pickle.dumps(job, protocol=4))
    return path


def _run(tmp_path, toy, name, env, **kw):
    job = _job(tmp_path, name, **kw)
    done = subprocess.run([sys.executable, str(toy), str(job)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    return done, json.loads((tmp_path / f"{name}.json").read_text())


@pytest.fixture
def worker(tmp_path):
    """A worker serving from a copy of the package (PYTHONPATH), so that the test can edit its sources."""
    package = tmp_path / "package"
    shutil.copytree(REPO_ROOT / "src" / "banditrepro", package / "banditrepro",
                    ignore=shutil.ignore_patterns("__pycache__"))
    sock = tmp_path / "w.sock"
    env = {**os.environ, "PYTHONPATH": str(package)}
    env.pop(workflow_worker.SOCKET_VARIABLE, None)
    with open(tmp_path / "worker.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "banditrepro.workflow_worker", "serve", str(sock), "--parent",
                                 str(os.getpid()), "--repo", str(REPO_ROOT)], env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 240
    while not sock.exists():
        assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
        time.sleep(0.2)
    toy = tmp_path / "toy.py"
    toy.write_text(TOY.format(scripts=str(SCRIPTS)))
    yield proc, {**env, workflow_worker.SOCKET_VARIABLE: str(sock)}, toy, package, sock
    proc.terminate()
    proc.wait(timeout=30)


@pytest.mark.slow
def test_worker_runs_jobs_in_forks_and_refuses_what_it_cannot_run(worker, tmp_path):
    proc, env, toy, package, sock = worker
    log = tmp_path / "worker.log"

    # a handed job: runs in a fork (not in the client process), with the job's streams and exit status
    done, seen = _run(tmp_path, toy, "a", env, exit=3)
    assert seen["worker"] == "1" and seen["cwd"] == str(tmp_path)
    assert done.returncode == 3 and "to stdout" in done.stdout and "to stderr" in done.stderr
    # a crashing job (os._exit) fails alone; the next job runs in a fresh fork
    done, crashed = _run(tmp_path, toy, "b", env, exit=7, crash=True)
    assert done.returncode == 7 and crashed["worker"] == "1"
    done, seen = _run(tmp_path, toy, "c", {**env, "TOY_EXTRA": "x"})
    assert done.returncode == 0 and seen["worker"] == "1" and seen["extra"] == "x"  # the job's own environment
    assert seen["pid"] != crashed["pid"]

    # another value of a variable that decides imports or numerics: the job runs in its own process
    done, seen = _run(tmp_path, toy, "d", {**env, "NUMBA_OPT": "1"})
    assert done.returncode == 0 and seen["worker"] is None
    assert "environment differs (NUMBA_OPT)" in log.read_text()

    # a cancelled job (its script's process killed): the worker kills the fork
    job = _job(tmp_path, "e", sleep=120)
    client = subprocess.Popen([sys.executable, str(toy), str(job)], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (tmp_path / "e.json").exists():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    fork = json.loads((tmp_path / "e.json").read_text())["pid"]
    client.send_signal(signal.SIGKILL)
    client.wait()
    deadline = time.monotonic() + 30
    while _alive(fork):
        assert time.monotonic() < deadline, "the cancelled job's fork still runs"
        time.sleep(0.1)

    # the package's sources changed: the job runs in its own process and the worker restarts on the new sources
    kernel = package / "banditrepro" / "rng.py"
    kernel.write_text(kernel.read_text() + "\n# edited\n")
    done, seen = _run(tmp_path, toy, "f", env)
    assert done.returncode == 0 and seen["worker"] is None
    assert "sources changed" in done.stderr
    deadline = time.monotonic() + 240
    while "listening" not in log.read_text().split("restarting")[-1]:
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    done, seen = _run(tmp_path, toy, "g", env)
    assert done.returncode == 0 and seen["worker"] == "1"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (ended, not yet reaped) counts as gone
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(")")[-1].split()[0] == "Z")


def test_no_worker_without_local_execution_or_when_switched_off(tmp_path, monkeypatch):
    monkeypatch.delenv(workflow_worker.SOCKET_VARIABLE, raising=False)
    assert workflow_worker.start(tmp_path, REPO_ROOT, local=False) is None
    # a run of a few jobs: the worker's start would cost more than it saves
    assert workflow_worker.start(tmp_path, REPO_ROOT, local=True, jobs=workflow_worker.MIN_JOBS - 1) is None
    assert not (tmp_path / workflow_worker.LOG_NAME).exists()
    monkeypatch.setenv(workflow_worker.OPT_OUT, "off")
    assert workflow_worker.start(tmp_path, REPO_ROOT, local=True) is None
    assert workflow_worker.SOCKET_VARIABLE not in os.environ


def test_the_worker_preloads_every_script_that_hands_off():
    """Every script of a rule that the main build runs many times imports the hand-off first."""
    handed = set(workflow_worker.handed_off_scripts(REPO_ROOT))
    for name in ("simulate_shard", "summarize_figure", "plot_figure", "claims", "table"):
        script = SCRIPTS / f"{name}.py"
        assert script in handed
        first = next(line for line in script.read_text().splitlines() if line.startswith(("import ", "from ")))
        assert first.startswith("import worker_handoff"), f"{name}.py: the hand-off must be the first import"


def test_the_hand_off_speaks_the_workers_protocol(monkeypatch):
    """worker_handoff.py cannot import the package (it must stay light): its constants are the worker's."""
    handoff = _load_handoff(monkeypatch)
    for name in ("PROTOCOL", "SOCKET_VARIABLE", "INSIDE_VARIABLE"):
        assert getattr(handoff, name) == getattr(workflow_worker, name), name
    assert workflow_worker.HANDOFF_MODULE == "worker_handoff"


def _load_handoff(monkeypatch):
    import importlib.util

    monkeypatch.delenv(workflow_worker.SOCKET_VARIABLE, raising=False)  # importing it then hands nothing off
    spec = importlib.util.spec_from_file_location("worker_handoff_under_test", SCRIPTS / "worker_handoff.py")
    handoff = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(handoff)
    return handoff


@pytest.mark.parametrize(("replies", "status"), [
    (b'{"accepted": true}\n{"exit": 3}\n', 3),  # the job ended before the client read "accepted": one read
    (b'{"accepted": true}\n', 1),  # the worker stopped while the job ran
    (b'{"accepted": false, "say": "another environment"}\n', None),  # refused: run it here
], ids=["both-replies-in-one-read", "worker-stopped", "refused"])
def test_the_hand_off_reads_replies_that_arrive_together(monkeypatch, tmp_path, replies, status):
    """A worker whose replies reach the client in one read (a job that ends before its client, waiting for a
    core, reads "accepted") gives the job's exit status; seen as "JSONDecodeError: Extra data" on a loaded
    AVX-512 VM when the client read a chunk per reply."""
    import socket
    import threading

    handoff = _load_handoff(monkeypatch)
    path = tmp_path / "worker.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def fake_worker():
        conn, _ = listener.accept()
        with conn:
            _, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            for fd in fds:
                os.close(fd)
            conn.sendall(replies)  # both lines in one write, before the client reads either

    server = threading.Thread(target=fake_worker)
    server.start()
    monkeypatch.setenv(workflow_worker.SOCKET_VARIABLE, str(path))
    monkeypatch.delenv(workflow_worker.INSIDE_VARIABLE, raising=False)
    try:
        assert handoff._send("toy.py", b"job") == status
    finally:
        server.join(timeout=10)
        listener.close()


MUTANT_TOY = textwrap.dedent("""
    import worker_handoff
    import json, os, sys
    import banditrepro, banditrepro.rng
    with open(snakemake.output.out, "w") as out:
        json.dump({"pid": os.getpid(), "worker": os.environ.get("BANDITREPRO_WORKER_JOB"),
                   "package": banditrepro.__file__, "mark": getattr(banditrepro.rng, "MUTANT_MARK", None),
                   "cwd": os.getcwd()}, out)
    sys.exit(snakemake.params.exit)
""")


@pytest.mark.slow
def test_a_mutant_job_runs_in_the_worker_under_its_scratch_copy(worker, tmp_path):
    """`python -m banditrepro.mutation job <tree> <job>` hands its job to the worker, whose fork forgets the
    package it imported and runs the job under the tree's copy (a patched module is the patched one); without a
    worker the same job runs in its own process, with the same result."""
    proc, env, toy, package, sock = worker
    tree = tmp_path / "tree"
    shutil.copytree(REPO_ROOT / "src" / "banditrepro", tree / "src" / "banditrepro",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SCRIPTS, tree / "workflow" / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "workflow" / "scripts" / "mutant_toy.py").write_text(MUTANT_TOY)
    patched = tree / "src" / "banditrepro" / "rng.py"
    patched.write_text(patched.read_text() + "\nMUTANT_MARK = 1\n")

    def run(name, environ, exit=0):
        job = {"script": "mutant_toy.py", "wildcards": {"mutant": name}, "params": {"exit": exit},
               "output": {"out": str(tmp_path / f"{name}.json")}, "input": {}, "log": []}
        # the copy and its src/ relative to the job's directory, as the mutant rules write them
        done = subprocess.run([sys.executable, "-m", "banditrepro.mutation", "job", "tree", json.dumps(job)],
                              cwd=tmp_path, env={**environ, "PYTHONPATH": "tree/src"}, capture_output=True,
                              text=True, timeout=120)
        assert (tmp_path / f"{name}.json").exists(), done.stderr[-4000:]
        return done, json.loads((tmp_path / f"{name}.json").read_text())

    done, seen = run("m1", env, exit=4)
    assert done.returncode == 4, done.stderr
    assert seen["worker"] == "1" and seen["pid"] != proc.pid, "the mutant job did not run in the worker"
    assert seen["package"] == str(tree / "src" / "banditrepro" / "__init__.py") and seen["mark"] == 1
    assert '{"mutant": "m1"}' in (tmp_path / "worker.log").read_text()
    alone = {k: v for k, v in env.items() if k != workflow_worker.SOCKET_VARIABLE}
    done, seen = run("m2", alone)
    assert done.returncode == 0 and seen["worker"] is None and seen["mark"] == 1
