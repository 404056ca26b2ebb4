"""The build-cost report read from Snakemake logs (python -m banditrepro.buildcost).

The fixtures are real Snakemake 9.27.1 logs, captured in a worktree of this project on 2 shared cores,
with the long ``input:`` and ``reason:`` lines dropped (tests/fixtures/snakemake_logs/README.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from banditrepro import buildcost
from banditrepro.buildcost import cost_table, parse_log, render_markdown, render_text

LOGS = Path(__file__).parent / "fixtures" / "snakemake_logs"
COMPLETE = LOGS / "2026-11-25T155928.194505.snakemake.log"  # `snakemake --cores 2 satisficing_ucl --config scale=smoke`
CTRL_C = LOGS / "2026-11-25T161531.344844.snakemake.log"  # penalized_fairness, SIGINT to the process group
KILLED = LOGS / "2026-11-25T161648.143290.snakemake.log"  # penalized_fairness, SIGKILL: the log just stops
# two runs that started no job (Snakemake 9.27.1 on a one-rule workflow): nothing to be done; `snakemake --report`
NOTHING_TO_DO = LOGS / "2026-11-27T040306.598852.snakemake.log"
REPORT = LOGS / "2026-11-27T040335.633230.snakemake.log"


def parse(path: Path):
    with open(path, encoding="utf-8") as fh:
        return parse_log(fh)


def summary(table) -> dict[str, str]:
    return dict(table.summary)


def breakdown(table, by: str) -> dict[str, tuple[int, int, str]]:
    return {name: (jobs, seconds, share) for b, name, jobs, seconds, share in table.breakdown if b == by}


def test_complete_run_hand_checked():
    run = parse(COMPLETE)
    assert run.cores == 2
    assert run.wall_seconds == 658  # "Elapsed time: 0:10:58.470452"; also Date 15:59:28 -> last stamp 16:10:26
    assert len(run.jobs) == 33 and all(j.end and not j.failed for j in run.jobs)
    # the five simulate_shard jobs: 3 and 23 15:59:47-16:00:43 (56 s each), 10 16:00:43-16:01:29 (46 s),
    # 20 16:01:06-16:01:54 (48 s), 15 16:01:54-16:02:41 (47 s)
    shards = {j.jobid: j.seconds for j in run.jobs if j.rule == "simulate_shard"}
    assert shards == {3: 56, 23: 56, 10: 46, 20: 48, 15: 47}
    job23 = next(j for j in run.jobs if j.jobid == 23)
    assert job23.wildcards == {"paper": "satisficing_ucl", "experiment": "mean_reward_T5000", "shard": "r000000-000016"}

    table = cost_table(run)
    facts = summary(table)
    assert facts["wall time"] == "658 s = 10 min 58 s (first job after 19 s)"  # first job at 15:59:47
    assert facts["run"] == "complete"
    assert facts["jobs"] == "33 finished, 0 failed, 0 unfinished"
    assert facts["job-seconds"] == "1248 s"
    assert facts["idle share of the cores"] == "5.2% (1 - 1248 / (2 x 658))"
    # plot_figure fig5 (job 11, 16:04:28-16:05:35) and fig2 (job 4, 16:07:36-16:08:43) both took 67 s: the first counts
    assert facts["longest job"] == "67 s, plot_figure (paper=satisficing_ucl, figure=fig5)"
    # per rule, summed with an awk script independent of the parser; largest first
    rules = breakdown(table, "rule")
    assert list(rules) == [
        "plot_figure", "simulate_shard", "summarize_figure", "claims_figure", "table", "claims", "paper_report", "satisficing_ucl",
    ]  # fmt: skip
    assert {name: seconds for name, (_, seconds, _) in rules.items()} == {
        "plot_figure": 542, "simulate_shard": 253, "summarize_figure": 233, "claims_figure": 135,
        "table": 50, "claims": 24, "paper_report": 11, "satisficing_ucl": 0,
    }  # fmt: skip
    assert rules["plot_figure"] == (9, 542, "43.4%")
    # the target rule `satisficing_ucl` has no paper wildcard: "(other)", listed last
    assert breakdown(table, "paper") == {"satisficing_ucl": (32, 1248, "100.0%"), "(other)": (1, 0, "0.0%")}
    assert table.unfinished == []


def test_ctrl_c_counts_the_killed_jobs_as_failed():
    table = cost_table(parse(CTRL_C))
    facts = summary(table)
    assert facts["run"] == "stopped on user request (Ctrl-C)"
    assert facts["jobs"] == "2 finished, 2 failed, 0 unfinished"
    # simulate_shard 21: 15:48-16:18 (30 s), 3: 15:48-16:20 (32 s); summarize_figure 25: 16:18-16:22 (4 s),
    # 2: 16:20-16:22 (2 s), both "Error in rule" at 16:16:22
    assert facts["job-seconds"] == "68 s"
    assert facts["wall time"] == "51 s (first job after 17 s)"  # Elapsed time: 0:00:51.383925
    assert breakdown(table, "rule") == {"simulate_shard": (2, 62, "91.2%"), "summarize_figure": (2, 6, "8.8%")}


def test_killed_run_lists_unfinished_jobs_and_does_not_count_them():
    run = parse(KILLED)
    assert run.elapsed is None and run.wall_seconds == 32  # Date 16:16:48 -> last stamp 16:17:20
    table = cost_table(run)
    facts = summary(table)
    assert facts["run"].startswith("the log stops before Snakemake's last line")
    assert facts["jobs"] == "1 finished, 0 failed, 2 unfinished"
    assert facts["job-seconds"] == "16 s"  # data_fetch 16:17:04-16:17:20
    assert facts["idle share of the cores"] == "75.0% (1 - 16 / (2 x 32))"
    assert breakdown(table, "paper") == {"(other)": (1, 16, "100.0%")}  # data_fetch has a dataset wildcard only
    assert table.unfinished == [
        "simulate_shard (paper=penalized_fairness, experiment=s4_cr3, shard=r000000-000006), started 16:17:04",
        "summarize_figure (paper=penalized_fairness, figure=fig5), started 16:17:20",
    ]
    assert "unfinished: summarize_figure (paper=penalized_fairness, figure=fig5)" in render_text(table)


# Four cores, 25 s: job 1 (1 thread) 0-10 s, job 2 (2 threads) 0-20 s, job 3 (1 thread) 10-20 s, logged by
# Snakemake 8 ("Finished job N."). Busy core-seconds 10 + 2 x 20 + 10 = 60 of 4 x 25 = 100: 40% idle.
OVERLAP_LOG = """\
Provided cores: 4
[Mon Nov  2 09:00:00 2026]
rule simulate_shard:
    jobid: 1
    wildcards: paper=p1, note=a, b
[Mon Nov  2 09:00:00 2026]
localrule summarize_figure:
    jobid: 2
    wildcards: paper=p2
    threads: 2
[Mon Nov  2 09:00:10 2026]
Finished job 1.
1 of 3 steps (33%) done
[Mon Nov  2 09:00:10 2026]
rule all:
    jobid: 3
[Mon Nov  2 09:00:20 2026]
Finished job 2.
[Mon Nov  2 09:00:20 2026]
Finished job 3.
Elapsed time: 0:00:25.2
"""


def test_overlapping_jobs_on_several_cores():
    run = parse_log(OVERLAP_LOG.splitlines(keepends=True))
    assert run.wall_seconds == 25 and run.cores == 4
    assert run.jobs[0].wildcards == {"paper": "p1", "note": "a, b"}  # a comma inside a value stays in it
    table = cost_table(run)
    facts = summary(table)
    assert facts["job-seconds"] == "40 s"
    assert facts["idle share of the cores"] == "40.0% (1 - 60 / (4 x 25))"
    assert facts["longest job"] == "20 s, summarize_figure (paper=p2)"
    assert breakdown(table, "paper") == {"p2": (1, 20, "50.0%"), "p1": (1, 10, "25.0%"), "(other)": (1, 10, "25.0%")}
    assert "wall time" in facts and "first job after" not in facts["wall time"]  # no Date header to count from


def test_text_table_is_aligned():
    lines = render_text(cost_table(parse(COMPLETE))).splitlines()
    rows = lines[lines.index("") + 1 :]
    assert rows[0].split() == ["by", "name", "jobs", "job-s", "share"]
    assert len(rows) == 11 and len({len(row) for row in rows}) == 1  # numbers right-aligned to one edge
    assert rows[3].split() == ["rule", "plot_figure", "9", "542", "43.4%"]


def test_markdown_tables():
    text = render_markdown(cost_table(parse(KILLED)))
    summary_table, breakdown_table, unfinished = text.split("\n\n")
    assert summary_table.splitlines()[:3] == ["| | |", "|---|---|", "| wall time | 32 s (first job after 16 s) |"]
    assert breakdown_table.splitlines() == [
        "| by | name | jobs | job-s | share |",
        "|---|---|--:|--:|--:|",
        "| paper | (other) | 1 | 16 | 100.0% |",
        "| rule | data_fetch | 1 | 16 | 100.0% |",
    ]
    assert unfinished.splitlines()[0].startswith("- unfinished: simulate_shard (paper=penalized_fairness")


def test_newest_log_by_default_and_every_named_log(tmp_path, monkeypatch, capsys):
    log_dir = tmp_path / ".snakemake" / "log"
    log_dir.mkdir(parents=True)
    for log in (COMPLETE, KILLED, CTRL_C):
        shutil.copy(log, log_dir)
    monkeypatch.chdir(tmp_path)
    assert buildcost.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"log: {Path('.snakemake/log') / KILLED.name}\n") and out.count("log: ") == 1

    assert buildcost.main(["--markdown", str(COMPLETE), str(CTRL_C)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n## ") == 1 and f"## {COMPLETE.name}" in out and f"## {CTRL_C.name}" in out
    assert "| rule | simulate_shard | 5 | 253 | 20.3% |" in out


def test_runs_that_started_no_job_are_passed_over(tmp_path, monkeypatch, capsys):
    """After a build, `snakemake --report` (or a run with nothing to be done) writes the newest log; the cost
    is that of the build before it, not "still running, or killed"."""
    assert parse(REPORT).jobs == [] and parse(NOTHING_TO_DO).jobs == []
    log_dir = tmp_path / ".snakemake" / "log"
    log_dir.mkdir(parents=True)
    for log in (COMPLETE, NOTHING_TO_DO, REPORT):
        shutil.copy(log, log_dir)
    monkeypatch.chdir(tmp_path)
    assert buildcost.newest_log(Path(".snakemake/log")) == (Path(".snakemake/log") / COMPLETE.name,
                                                           [Path(".snakemake/log") / REPORT.name,
                                                            Path(".snakemake/log") / NOTHING_TO_DO.name])
    assert buildcost.main([]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"log: {Path('.snakemake/log') / COMPLETE.name}\n")
    assert "run                      complete" in out and "still running" not in out
    assert err == f"buildcost: 2 newer log(s) started no job, passed over: {REPORT.name}, {NOTHING_TO_DO.name}\n"
    # only logs that started no job: a clear error, not an empty table
    (log_dir / COMPLETE.name).unlink()
    assert buildcost.main([]) == 1
    assert "none of the 2 Snakemake logs in .snakemake/log/ is of a run that started a job" in capsys.readouterr().err


def test_clear_error_without_a_log(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert buildcost.main([]) == 1
    assert "no Snakemake log in .snakemake/log/" in capsys.readouterr().err
    assert buildcost.main([str(COMPLETE), "missing.log"]) == 1
    err = capsys.readouterr()
    assert err.err.strip() == "buildcost: no such log: missing.log" and err.out == ""


def test_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "banditrepro.buildcost", str(COMPLETE)], capture_output=True, text=True, check=True)
    assert "idle share of the cores  5.2%" in result.stdout
