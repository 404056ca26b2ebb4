"""Hand the job of the workflow script that imports this module to the build's worker, if one runs.

Not a rule's script: the first import of the scripts that the main build runs many times (simulations,
summaries, plots, claims, tables, reports). Importing it does the hand-off, before the script imports
numpy, numba, pandas or the package: where the build's worker (``banditrepro.workflow_worker``, started by
the Snakefile's ``onstart`` on a local run) answers on ``$BANDITREPRO_WORKER_SOCKET``, it runs this job in a
fresh fork of itself, with everything already imported, and this process exits with the job's exit status.
Otherwise (no worker: a cluster job, ``--no-hooks``, a worker still starting, one that refuses the job
because the package's sources changed since it started or the environment differs) the import returns and
the script runs here as it always did.

Standard library only, so that a job handed to the worker costs a bare interpreter and Snakemake's preamble.
The protocol is banditrepro.workflow_worker's (one request, file descriptors 0-2 passed along, two replies).
"""

import json
import os
import pickle
import socket
import struct
import sys

SOCKET_VARIABLE = "BANDITREPRO_WORKER_SOCKET"
INSIDE_VARIABLE = "BANDITREPRO_WORKER_JOB"  # set in the worker's fork that runs the job: no second hand-off
PROTOCOL = 1


def _frame(data: bytes) -> bytes:
    return struct.pack("!I", len(data)) + data


def _reply(replies) -> dict | None:
    """The worker's next JSON line from ``replies`` (the connection as a buffered binary file), or None where it
    closed the connection first. Line by line, not a read per reply: a job that ends before this process reads
    "accepted" (a fast job, or a client the scheduler let wait) leaves both lines in one read."""
    line = replies.readline()
    if not line.endswith(b"\n"):
        return None
    return json.loads(line)


def _send(script: str, payload: bytes, **extra) -> int | None:
    """Send one job (the protocol's header for ``script`` plus ``extra``, then ``payload``) to the worker:
    the exit status of the job as the worker ran it, or None where no worker took it (run it here)."""
    path = os.environ.get(SOCKET_VARIABLE)
    if not path or os.environ.get(INSIDE_VARIABLE):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    with conn, conn.makefile("rb") as replies:
        header = {"protocol": PROTOCOL, "script": script, "argv": list(sys.argv), "cwd": os.getcwd(),
                  "environ": dict(os.environ), "path": list(sys.path), "executable": sys.executable,
                  "prefix": sys.prefix, **extra}
        try:
            socket.send_fds(conn, [_frame(json.dumps(header).encode()) + _frame(payload)], [0, 1, 2])
            accepted = _reply(replies)
        except OSError:
            return None
        if not accepted or not accepted.get("accepted"):
            if accepted and accepted.get("say"):
                sys.stderr.write(f"banditrepro worker: {accepted['say']}; running the job in its own process\n")
            return None
        # from here the job runs in the worker: never run it a second time here
        try:
            done = _reply(replies)
        except OSError:
            done = None
    if done is None:
        sys.stderr.write("banditrepro worker: the worker stopped before the job ended (see logs/worker.log)\n")
        return 1
    return int(done["exit"])


def hand_off() -> int | None:
    """The exit status of the job of the script being run as the worker ran it, or None (run it here)."""
    main = sys.modules.get("__main__")
    job = getattr(main, "snakemake", None)
    # only Snakemake's own job object (a mutant job is sent by hand_off_mutant_job)
    if job is None or not type(job).__module__.startswith("snakemake."):
        return None
    return _send(os.path.realpath(main.__file__), pickle.dumps(job, protocol=4))


def hand_off_mutant_job(tree: str, script: str, job: dict) -> int | None:
    """The same for a mutant's job (``python -m banditrepro.mutation job``, banditrepro.mutation.run_job): the
    worker runs it in a fork that forgets the package it imported and imports the scratch copy in ``tree``
    (this process's path puts the copy's src/ first); ``job`` is the job's description, sent as JSON."""
    return _send(script, json.dumps(job).encode(), mutant={"tree": tree})


_status = hand_off()
if _status is not None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_status)
