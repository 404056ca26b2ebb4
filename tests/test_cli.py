"""The ``banditrepro`` console script: verdicts of built results, data status, bench; --help on each."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from banditrepro import cli
from banditrepro.data import DATASET_NAMES, dataset_status
from banditrepro.report import vocabulary
from banditrepro.report.findings import read_findings

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCRIPT = Path(sys.executable).with_name("banditrepro")  # installed by `pip install -e .` beside python
COLUMNS = ["claim_id", "figure", "statement", "measured", "threshold", "verdict", "kind"]
CLAIMS = [
    ("C1", "fig1", "P1 regret is logarithmic", "a = 1.8", "a > 0", "reproduced", "headline"),
    ("C2", "fig2", "P3 plateaus", "R(T) - R(T/2) = 4", "< 3", "not_reproduced", "headline"),
    ("C3", "fig2", "P4 below P2", "11 ± 2 vs 20 ± 2", "2 s.e.", "inconclusive", "headline"),
    ("V1", "fig5", "lowest-index tie-break variant", "x", "y", "reproduced", "variant"),
    ("V2", "fig5", "K = sqrt(2 pi e) variant", "x", "y", "not_reproduced", "variant"),
    ("S1", "fig1", "regret is non-negative", "min 0", ">= 0", "reproduced", "sanity"),
]
FINDINGS = "- UCL's regret stays below Theorem 7's bound.\n- The plateau of P3 is not reproduced."
REPORT = f"# Replication report: x\n\nPaper id `toy`\n\n## Findings\n\n{FINDINGS}\n\n## Verdicts\n\n2 reproduced\n"


def write_claims(folder: Path, rows=CLAIMS, columns=COLUMNS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "claims.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        writer.writerows(row[: len(columns)] for row in rows)


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder with two configured papers, neither built."""
    (tmp_path / "config" / "papers").mkdir(parents=True)
    for paper in ("toy", "other"):
        (tmp_path / "config" / "papers" / f"{paper}.yaml").write_text(f"paper: {paper}\n")
    return tmp_path


def run_main(capsys, argv):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_verdicts_table_counts_and_findings(project, capsys):
    write_claims(project / "results" / "toy")
    (project / "results" / "toy" / "report.md").write_text(REPORT)
    status, out, err = run_main(capsys, ["verdicts", "toy", "--repo-root", str(project)])
    assert status == 0 and err == ""
    assert "toy: 3 headline claims: 1 reproduced, 1 not_reproduced, 1 inconclusive" in out
    table = out[out.index("claim_id"):out.index("variant claims")]
    header = table.splitlines()[0].split()
    assert header == ["claim_id", "figure", "verdict", "measured", "threshold"]
    rows = {line.split()[0]: line.split()[2] for line in table.splitlines()[2:] if line.strip()}
    assert rows == {"C1": "reproduced", "C2": "not_reproduced", "C3": "inconclusive"}  # headlines only
    assert "variant claims: 2 (1 reproduced, 1 not_reproduced, 0 inconclusive)" in out
    assert "sanity claims: 1 (1 reproduced, 0 not_reproduced, 0 inconclusive)" in out
    assert out.rstrip().endswith("Findings:\n" + FINDINGS)


def test_verdicts_without_kind_column_or_findings(project, capsys):
    """Builds from before the kind column count every claim as headline; a report without findings says so."""
    write_claims(project / "results" / "toy", columns=COLUMNS[:-1])
    (project / "results" / "toy" / "report.md").write_text("# Replication report\n\n## Verdicts\n\nx\n")
    status, out, _ = run_main(capsys, ["verdicts", "--repo-root", str(project)])
    assert status == 0
    assert "toy: 6 headline claims: 3 reproduced, 2 not_reproduced, 1 inconclusive" in out
    assert "variant claims: 0\nsanity claims: 0" in out
    findings = [line for line in out.splitlines() if line.startswith("Findings")]
    assert findings == [f"Findings: none ({project / 'results' / 'toy' / 'report.md'} has no '## Findings' section)"]


def test_verdicts_of_every_built_paper_and_results_option(project, tmp_path, capsys):
    results = tmp_path / "elsewhere"
    write_claims(results / "toy")
    write_claims(results / "other", rows=CLAIMS[:1])
    status, out, _ = run_main(capsys, ["verdicts", "--repo-root", str(project), "--results", str(results)])
    assert status == 0
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("== ")] == ["== other", "== toy"]
    assert "report.md not built" in out


def test_verdicts_clips_long_cells(project, capsys):
    long = ("x" * 200,)
    write_claims(project / "results" / "toy", rows=[CLAIMS[0][:3] + long + CLAIMS[0][4:]])
    _, out, _ = run_main(capsys, ["verdicts", "--repo-root", str(project), "--width", "30"])
    assert "x" * 29 + "…" in out and "x" * 30 not in out
    _, out, _ = run_main(capsys, ["verdicts", "--repo-root", str(project), "--width", "0"])
    assert "x" * 200 in out


def test_verdicts_nothing_built_unknown_and_unbuilt_paper(project, capsys):
    status, out, err = run_main(capsys, ["verdicts", "--repo-root", str(project)])
    assert status == 1 and out == "" and len(err.strip().splitlines()) == 1 and "nothing built yet" in err
    status, out, err = run_main(capsys, ["verdicts", "toy", "--repo-root", str(project)])
    assert status == 1 and "no results for toy yet" in err and "snakemake --cores 2 toy" in err
    status, out, err = run_main(capsys, ["verdicts", "nope", "--repo-root", str(project)])
    assert status == 2 and "unknown paper 'nope'; known: other, toy" in err


def test_findings_are_read_by_the_report_layer_up_to_the_next_heading(tmp_path):
    report = tmp_path / "report.md"
    report.write_text("# T\n\n## Findings\n\n- a\n- b\n### still findings\n\n## Verdicts\n\n- not a finding\n")
    assert read_findings(report) == "- a\n- b\n### still findings"
    assert read_findings(tmp_path / "absent.md") is None


def test_the_command_counts_with_the_report_layer():
    """No vocabulary or tally of its own: the same objects as the report layer's."""
    assert cli.KINDS is vocabulary.KINDS and cli.tally is vocabulary.tally
    assert not hasattr(cli, "VERDICTS") or cli.VERDICTS is vocabulary.VERDICTS


def test_verdicts_starts_without_loading_the_data_stack():
    """The command imports only the report layer's pure-Python parts: `banditrepro verdicts` answers at once."""
    code = "import sys; from banditrepro import cli; print(sorted({'pandas', 'numpy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def offline_project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.delenv("BANDITREPRO_DATA_MIRROR", raising=False)
    mirror = tmp_path / "empty_mirror"
    mirror.mkdir()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(
        {"data": {"mirror": str(mirror), "allow_download": False, "standin": False}}))
    return tmp_path


def test_data_status_reuses_dataset_status(tmp_path, monkeypatch, capsys):
    root = offline_project(tmp_path, monkeypatch)
    record = root / "data" / "raw" / "movielens_1m" / "fetch_record.json"  # as the fetch job leaves it
    record.parent.mkdir(parents=True)
    record.write_text("{}")
    status, out, _ = run_main(capsys, ["data", "status", "--repo-root", str(root)])
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == len(DATASET_NAMES)
    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    for name, line in zip(DATASET_NAMES, lines, strict=True):
        assert line.startswith(dataset_status(name, config, root).line())
    movielens = lines[DATASET_NAMES.index("movielens_1m")]
    assert movielens.startswith("movielens_1m: fetched - verified (") and "processed 0/2 files" in movielens
    others = [line for name, line in zip(DATASET_NAMES, lines, strict=True) if name != "movielens_1m"]
    assert others and all(line.startswith(f"{name}: missing - ") for name, line in zip(DATASET_NAMES, lines, strict=True)
                          if name != "movielens_1m")


def test_data_status_help_explains_each_word_the_lines_open_with(capsys):
    """The states `data status` prints (banditrepro.data.STATUS_WORDS) are the ones its --help explains, with
    the same meaning, and no other (the help is written out in cli.py so the command starts light)."""
    from banditrepro.data import STATUS_WORDS

    with pytest.raises(SystemExit):
        cli.main(["data", "status", "--help"])
    help_text = capsys.readouterr().out
    explained = dict(re.findall(r"^  (\S+) +(.+)$", cli.DATA_STATUS_DESCRIPTION, flags=re.M))
    assert explained == STATUS_WORDS
    assert all(f"  {word} " in help_text for word in STATUS_WORDS)


def test_each_state_opens_its_line():
    from banditrepro.data import STATUS_WORDS, DatasetStatus

    statuses = [DatasetStatus("a", True, False, "fetched and verified (data/raw/a/fetch_record.json)", fetched=True),
                DatasetStatus("a", True, False, "will fetch x.csv from mirror"),
                DatasetStatus("a", True, True, "synthetic files of the real schema"),
                DatasetStatus("a", False, False, "missing x.csv: no mirror (put ...)")]
    assert [st.state for st in statuses] == list(STATUS_WORDS)
    assert [st.line() for st in statuses] == ["a: fetched - verified (data/raw/a/fetch_record.json)",
                                              "a: fetchable - will fetch x.csv from mirror",
                                              "a: stand-in - synthetic files of the real schema",
                                              "a: missing - x.csv: no mirror (put ...)"]


def test_data_status_without_config(tmp_path, capsys):
    status, _, err = run_main(capsys, ["data", "status", "--repo-root", str(tmp_path)])
    assert status == 2 and "no config at" in err


def test_bench_reuses_the_benchmark(capsys):
    status, out, _ = run_main(capsys, ["bench", "--reps", "4", "--horizon", "100", "--naive-reps", "1"])
    assert status == 0
    assert re.search(r"^ucb1 K=4 T=100 R=4: [0-9.]+ ns/rep-step, [0-9]+x faster than naive Python$", out, re.M)


def test_cost_reads_a_snakemake_log(capsys):
    log = FIXTURES / "snakemake_logs" / "2026-11-25T155928.194505.snakemake.log"
    status, out, _ = run_main(capsys, ["cost", str(log)])
    assert status == 0
    assert re.search(r"^idle share of the cores\s+\d", out, re.M) and re.search(r"^rule\s+simulate_shard\s", out, re.M)
    status, _, err = run_main(capsys, ["cost", str(log.with_name("absent.log"))])
    assert status == 1 and "no such log" in err


def run_script(*args, cwd=None):
    assert SCRIPT.is_file(), f"console script {SCRIPT} missing: pip install -e ."
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, env=os.environ.copy())


@pytest.mark.parametrize("args, expect", [
    ((), "verdicts"),
    (("verdicts",), "--results"),
    (("data",), "status"),
    (("data", "status"), "--config"),
    (("bench",), "--naive-reps"),
    (("cost",), "--markdown"),
])
def test_console_script_help(args, expect):
    proc = run_script(*args, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: banditrepro") and expect in proc.stdout


def test_console_script_verdicts_runs_from_the_project_folder(project):
    write_claims(project / "results" / "toy")
    proc = run_script("verdicts", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "toy: 3 headline claims" in proc.stdout
    proc = run_script("verdicts", "other", cwd=project)
    assert proc.returncode == 1 and proc.stdout == "" and "no results for other yet" in proc.stderr


def test_console_script_verdicts_into_a_pipe_closed_early_ends_quietly(project):
    """`banditrepro verdicts | head -1`: the reader leaves after one line; no traceback, the SIGPIPE status."""
    many = [(f"C{i}", "fig1", "statement", "m" * 80, "t", "reproduced", "headline") for i in range(3000)]
    write_claims(project / "results" / "toy", rows=many)  # far more output than a pipe buffer holds
    assert SCRIPT.is_file(), f"console script {SCRIPT} missing: pip install -e ."
    proc = subprocess.Popen([str(SCRIPT), "verdicts", "--width", "0"], cwd=project, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=os.environ.copy())
    first = proc.stdout.readline()
    proc.stdout.close()
    status = proc.wait(timeout=120)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert first.startswith(b"== toy: 3000 headline claims")
    assert err == "" and status == cli.BROKEN_PIPE_STATUS
