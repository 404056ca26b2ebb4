"""What the workflow scripts (workflow/scripts/*.py) share: the one way a script runs (:func:`run`: its
log, its messages to the terminal, its exit code, and what every provenance record of the job holds of the
workflow side: :func:`job_scripts`), the repository root, and a results context built from a rule's params.
Only the scripts use this module; environments, policies and the report code never know about Snakemake.

Every script has the same form::

    def main(snakemake) -> None:
        ...

    run(main, snakemake)  # noqa: F821 - injected by Snakemake
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

from . import provenance
from .report.context import ResultsContext
from .sources import scripts_record

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# the terminal (Snakemake's stderr) while a script runs under run(); None outside it
_terminal = None


class ScriptError(Exception):
    """An expected failure of a workflow script (bad data, results that differ from the lock): its message
    goes to the terminal (after ``heading``) and the log, and the job fails (exit code 1) without a traceback."""

    def __init__(self, message: str, heading: str = ""):
        super().__init__(message)
        self.heading = heading


def tell(text: str, heading: str = "") -> None:
    """Write ``text`` to the rule's log and show it on the terminal (after ``heading``): the lines a user
    runs the rule for (verify's verdict, the lock summary, one line per dataset)."""
    sys.stderr.write(text)
    sys.stderr.flush()
    if _terminal is not None and _terminal is not sys.stderr:
        _terminal.write(heading + text)
        _terminal.flush()


def run(main: Callable[[object], None], snakemake) -> None:
    """Run a workflow script's ``main(snakemake) -> None`` with the single logging route of every script.

    Its stdout, stderr and ``logging`` records go to the rule's log file (the terminal when the rule has
    none); :func:`tell` also shows a message on the terminal. A :class:`ScriptError` ends the job with its
    message, any other exception with its last line on the terminal and its traceback in the log; either
    way with exit code 1.
    """
    terminal = sys.stderr
    log_path = Path(snakemake.log[0]) if snakemake.log else None
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w", encoding="utf-8") if log_path is not None else nullcontext(terminal) as stream:
        failed = _run_logged(main, snakemake, stream, terminal)
    if failed is not None:
        if log_path is not None and not isinstance(failed, ScriptError):
            terminal.write(f"{type(failed).__name__}: {failed} (traceback in {log_path})\n")
        sys.exit(1)


def _run_logged(main, snakemake, stream, terminal) -> Exception | None:
    """``main(snakemake)`` with stdout, stderr and ``logging`` sent to ``stream``; the exception it raised, if any."""
    global _terminal
    scripts = job_scripts(main, snakemake)
    old_out, old_err = sys.stdout, sys.stderr
    root = logging.getLogger()
    old_handlers, old_level = list(root.handlers), root.level
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    sys.stdout = sys.stderr = stream
    _terminal = terminal
    try:
        with provenance.recording(scripts=scripts):
            main(snakemake)
    except ScriptError as err:
        tell(str(err) if str(err).endswith("\n") else f"{err}\n", err.heading)
        return err
    except Exception as err:  # noqa: BLE001 - every failure of a script ends its job the same way
        traceback.print_exc(file=stream)
        return err
    finally:
        stream.flush()
        sys.stdout, sys.stderr = old_out, old_err
        root.handlers[:] = old_handlers
        root.setLevel(old_level)
        _terminal = None
    return None


def running_script(main: Callable[[object], None], snakemake) -> Path | None:
    """The workflow script whose ``main`` runs: Snakemake runs a copy of it with its preamble in front
    (``.snakemake/scripts/tmp<...>.<name>.py``), so it is the file of the rule's script folder
    (``snakemake.scriptdir``) that the running file ends with; a script run from its own folder is itself."""
    running = Path(main.__code__.co_filename)
    scriptdir = getattr(snakemake, "scriptdir", None)
    folder = Path(scriptdir) if scriptdir else running.parent
    try:
        if running.resolve().parent == folder.resolve():
            return running
        ran = running.read_bytes()
        found = [p for p in folder.glob("*.py") if ran.endswith(p.read_bytes())]
    except OSError:
        return None
    return max(found, key=lambda p: p.stat().st_size) if found else None


def job_scripts(main: Callable[[object], None], snakemake) -> dict | None:
    """What every result of this job records of the workflow side (banditrepro.provenance.recording): the rule
    and the digest of its script and the modules of workflow/scripts/ it imports (banditrepro.sources
    .scripts_record), which `verify` and `lock` compare with the tree's; None where the script is not found."""
    script = running_script(main, snakemake)
    if script is None:
        return None
    try:
        record = scripts_record(script, script.resolve().parents[2])
    except (OSError, ValueError):
        return None
    return {"rule": getattr(snakemake, "rule", None), **record}


def repo_root(snakemake) -> Path:
    """The project root: the scripts live in <root>/workflow/scripts (Snakemake passes their directory)."""
    return Path(snakemake.scriptdir).resolve().parents[1]


def context_from_results(spec, results: dict, standin: Iterable[str] = ()) -> ResultsContext:
    """A ResultsContext over the result files a claim or table job was given, keyed by what they are (the
    rule's ``results`` param, common.smk ``ResultFiles``): ``summaries``, ``references`` and ``claims``
    {figure: path}, ``shards`` {experiment: [paths]}."""
    return ResultsContext(spec, results["summaries"], results["references"], results["shards"], set(standin),
                          results["claims"])
