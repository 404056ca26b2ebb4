"""The one form of every workflow script: ``main(snakemake) -> None`` run by workflow_io.run (log, terminal,
exit code), and no script outside it."""

from __future__ import annotations

import ast
import logging
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from banditrepro.workflow_io import ScriptError, run, tell

# every rule's script; worker_handoff.py is the module those scripts import first (banditrepro.workflow_worker)
SCRIPTS = sorted(p for p in (Path(__file__).resolve().parents[1] / "workflow" / "scripts").glob("*.py")
                 if p.name != "worker_handoff.py")


def _job(tmp_path):
    return SimpleNamespace(log=[str(tmp_path / "logs" / "job.log")])


def test_output_and_logging_go_to_the_log_and_tell_also_to_the_terminal(tmp_path, capsys):
    def main(snakemake):
        print("printed")
        logging.getLogger("banditrepro.test").info("logged")
        tell("verdict\n", heading="banditrepro ")

    run(main, _job(tmp_path))
    log = (tmp_path / "logs" / "job.log").read_text()
    assert "printed" in log and "INFO banditrepro.test: logged" in log and "verdict" in log
    assert capsys.readouterr().err == "banditrepro verdict\n"


def test_a_script_error_exits_1_with_its_message_on_the_terminal(tmp_path, capsys):
    def main(snakemake):
        raise ScriptError("results differ\n", heading="banditrepro ")

    with pytest.raises(SystemExit) as stop:
        run(main, _job(tmp_path))
    assert stop.value.code == 1
    assert capsys.readouterr().err == "banditrepro results differ\n"
    assert (tmp_path / "logs" / "job.log").read_text() == "results differ\n"


def test_an_unexpected_error_exits_1_with_its_traceback_in_the_log(tmp_path, capsys):
    def main(snakemake):
        raise ValueError("shard x is truncated")

    with pytest.raises(SystemExit) as stop:
        run(main, _job(tmp_path))
    assert stop.value.code == 1
    assert "ValueError: shard x is truncated (traceback in" in capsys.readouterr().err
    assert "Traceback" in (tmp_path / "logs" / "job.log").read_text()
    assert not sys.stderr.closed  # the script's streams are restored


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_is_a_main_run_by_workflow_io(script):
    tree = ast.parse(script.read_text())
    mains = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    assert len(mains) == 1 and ast.unparse(mains[0].returns) == "None", f"{script.name}: def main(snakemake) -> None"
    last = tree.body[-1]
    assert ast.unparse(last) == "run(main, snakemake)", f"{script.name} must end with run(main, snakemake)"
    assert "sys.exit" not in script.read_text() and "logged(" not in script.read_text()
