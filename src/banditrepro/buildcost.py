"""What a workflow run cost, read from Snakemake's own log of it.

    python -m banditrepro.buildcost [LOG ...] [--markdown]

Without LOG, reads the newest ``.snakemake/log/*.snakemake.log`` of a run that started a job (a run that
started none, such as ``snakemake --report`` or one with nothing to be done, also writes a log there; it
is passed over); with several, reports each. Prints the
wall time of the run, its jobs, job-seconds per paper (the ``paper`` wildcard; "(other)" for jobs without
one) and per rule, the longest job, and the idle share of the cores: 1 - busy core-seconds / (cores x wall).

Snakemake stamps events to the second, so a job's seconds are whole and a job under a second counts 0 s;
they are wall seconds a job held its threads, not CPU seconds (that would need ``benchmark:`` files).
Jobs started but not finished (a killed or still running build) are listed as unfinished and left out
of the sums; failed jobs, and the jobs a Ctrl-C kills, which Snakemake logs as failed, count to their error.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

LOG_DIR = Path(".snakemake") / "log"
OTHER = "(other)"

TIMESTAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")  # time.asctime(), local time
RUN_DATE = re.compile(r"^\s*Date: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)$")  # the header: when the run started
CORES = re.compile(r"^Provided cores: (\d+)")
JOB_BLOCK = re.compile(r"^(Error in rule|(?:local)?(?:rule|checkpoint)) (\S+):$")  # a job's start or its error
JOB_START_MESSAGE = re.compile(r"^Job (\d+): ")  # a rule with `message:` prints this instead of the block
FIELD = re.compile(r"^\s+(jobid|wildcards|threads): (.*)$")
WILDCARD_SEP = re.compile(r", (?=\w+=)")  # "paper=a, shard=b": split only where a name= follows
# Snakemake 9: "Finished jobid: 3 (Rule: simulate_shard)"; Snakemake 8: "Finished job 3."
JOB_FINISHED = re.compile(r"^Finished job(?:id:)? (\d+)(?:\.| \(Rule: (\S+)\))")
USER_STOP = "Terminating processes on user request"
# the last line of a run that was not killed; a timedelta: "0:10:58.470452", "1 day, 2:03:04.5"
ELAPSED = re.compile(r"^Elapsed time: (?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)$")


@dataclass
class Job:
    jobid: int
    rule: str | None
    start: datetime
    wildcards: dict[str, str] = field(default_factory=dict)
    threads: int = 1
    end: datetime | None = None
    failed: bool = False

    @property
    def seconds(self) -> int:
        return int((self.end - self.start).total_seconds()) if self.end else 0

    def label(self) -> str:
        wildcards = ", ".join(f"{k}={v}" for k, v in self.wildcards.items())
        return f"{self.rule} ({wildcards})" if wildcards else str(self.rule)


@dataclass
class Run:
    """One Snakemake invocation as its log tells it."""

    jobs: list[Job] = field(default_factory=list)
    cores: int | None = None
    started: datetime | None = None
    last_stamp: datetime | None = None
    elapsed: float | None = None  # Snakemake's "Elapsed time", absent when the run was killed
    stopped_by_user: bool = False

    @property
    def wall_seconds(self) -> int:
        """Snakemake's own elapsed time when it got to write it, else from the start to the last timestamp."""
        if self.elapsed is not None:
            return round(self.elapsed)
        start = self.started or min((j.start for j in self.jobs), default=None)
        return int((self.last_stamp - start).total_seconds()) if start and self.last_stamp else 0

    @property
    def ending(self) -> str:
        if self.elapsed is None:
            return "the log stops before Snakemake's last line: still running, or killed"
        if self.stopped_by_user:
            return "stopped on user request (Ctrl-C)"
        return "failed jobs" if any(j.failed for j in self.jobs) else "complete"


def parse_log(lines) -> Run:
    """Read a Snakemake log (an iterable of lines). Each event follows a ``[timestamp]`` line; the indented
    ``jobid:``, ``wildcards:`` and ``threads:`` lines after ``rule NAME:`` (or ``Error in rule NAME:``)
    say which job started (or failed)."""
    run, jobs, stamp = Run(), {}, None
    block, block_rule, job = None, None, None  # the "job" or "error" block being read, and its job
    for line in (raw.rstrip("\n") for raw in lines):
        if m := TIMESTAMP.match(line):
            stamp = run.last_stamp = datetime.strptime(m[1], "%a %b %d %H:%M:%S %Y")
        elif m := RUN_DATE.match(line):
            run.started = datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S")
        elif m := CORES.match(line):
            run.cores = int(m[1])
        elif m := JOB_BLOCK.match(line):
            block, block_rule, job = ("error" if m[1].startswith("Error") else "job"), m[2], None
        elif (m := JOB_START_MESSAGE.match(line)) and stamp:
            jobs[int(m[1])] = Job(int(m[1]), None, stamp)  # the rule comes with its "Finished" line
        elif (m := FIELD.match(line)) and block and stamp:
            key, value = m[1], m[2].strip()
            if key == "jobid" and block == "error":
                if failed := jobs.get(int(value)):
                    failed.end, failed.failed = stamp, True
            elif key == "jobid":  # a retried job starts again under the same id: the last start counts
                job = jobs[int(value)] = Job(int(value), block_rule, stamp)
            elif key == "wildcards" and job:
                job.wildcards = dict(item.split("=", 1) for item in WILDCARD_SEP.split(value))
            elif key == "threads" and job:
                job.threads = int(value)
        elif m := JOB_FINISHED.match(line):
            block = None
            if finished := jobs.get(int(m[1])):
                finished.end, finished.rule = stamp, finished.rule or m[2]
        elif m := ELAPSED.match(line):
            run.elapsed = int(m[1] or 0) * 86400 + int(m[2]) * 3600 + int(m[3]) * 60 + float(m[4])
        elif line and not line[0].isspace():
            run.stopped_by_user |= line.startswith(USER_STOP)
            block = None  # any other unindented line ends a job or error block
    run.jobs = sorted(jobs.values(), key=lambda j: (j.start, j.jobid))
    return run


@dataclass
class CostTable:
    summary: list[tuple[str, str]]  # (what, value)
    breakdown: list[tuple[str, str, int, int, str]]  # (by, name, jobs, job-seconds, share of job-seconds)
    unfinished: list[str]  # one line per job started but not finished


def cost_table(run: Run) -> CostTable:
    """The cost of a parsed run: summary lines, then job-seconds by paper and by rule, largest first."""
    ended = [j for j in run.jobs if j.end]
    job_seconds = sum(j.seconds for j in ended)
    busy_core_seconds = sum(j.seconds * j.threads for j in ended)
    failed = sum(j.failed for j in ended)
    wall = run.wall_seconds
    startup = f" (first job after {int((run.jobs[0].start - run.started).total_seconds())} s)" if run.jobs and run.started else ""
    summary = [
        ("wall time", _duration(wall) + startup),  # startup: reading the workflow and building the DAG
        ("run", run.ending),
        ("jobs", f"{len(ended) - failed} finished, {failed} failed, {len(run.jobs) - len(ended)} unfinished"),
        ("job-seconds", f"{job_seconds} s"),
        ("cores", str(run.cores) if run.cores else "not in the log"),
    ]
    if run.cores and wall:
        idle = 1 - busy_core_seconds / (run.cores * wall)
        summary.append(("idle share of the cores", f"{idle:.1%} (1 - {busy_core_seconds} / ({run.cores} x {wall}))"))
    if ended:
        longest = max(ended, key=lambda j: j.seconds)  # on a tie, the job that started first
        summary.append(("longest job", f"{longest.seconds} s, {longest.label()}"))
    breakdown = []
    for by, key in (("paper", lambda j: j.wildcards.get("paper", OTHER)), ("rule", lambda j: str(j.rule))):
        groups: dict[str, list[Job]] = {}
        for j in ended:
            groups.setdefault(key(j), []).append(j)
        seconds = {name: sum(j.seconds for j in group) for name, group in groups.items()}
        for name in sorted(groups, key=lambda n: (n == OTHER, -seconds[n], n)):
            share = f"{seconds[name] / job_seconds:.1%}" if job_seconds else "-"
            breakdown.append((by, name, len(groups[name]), seconds[name], share))
    unfinished = [f"{j.label()}, started {j.start:%H:%M:%S}" for j in run.jobs if not j.end]
    return CostTable(summary, breakdown, unfinished)


def _duration(seconds: int) -> str:
    """658 -> "658 s = 10 min 58 s"; under a minute just "32 s"."""
    hours, rest = divmod(seconds, 3600)
    readable = (f"{hours} h " if hours else "") + f"{rest // 60} min {rest % 60} s"
    return f"{seconds} s = {readable}" if seconds >= 60 else f"{seconds} s"


BREAKDOWN_HEADER = ("by", "name", "jobs", "job-s", "share")


def render_text(table: CostTable) -> str:
    width = max(len(what) for what, _ in table.summary)
    lines = [f"{what:<{width}}  {value}" for what, value in table.summary] + [""]
    rows = [BREAKDOWN_HEADER] + [tuple(map(str, row)) for row in table.breakdown]
    widths = [max(len(row[i]) for row in rows) for i in range(len(BREAKDOWN_HEADER))]
    for row in rows:  # names left-aligned, numbers right-aligned
        lines.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(lines + [f"unfinished: {job}" for job in table.unfinished])


def render_markdown(table: CostTable) -> str:
    lines = ["| | |", "|---|---|"] + [f"| {what} | {value} |" for what, value in table.summary]
    lines += ["", "| " + " | ".join(BREAKDOWN_HEADER) + " |", "|---|---|--:|--:|--:|"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in table.breakdown]
    return "\n".join(lines + ([""] if table.unfinished else []) + [f"- unfinished: {job}" for job in table.unfinished])


def _started_a_job(path: Path) -> bool:
    with open(path, encoding="utf-8") as fh:
        return bool(parse_log(fh).jobs)


def newest_log(log_dir: Path = LOG_DIR) -> tuple[Path, list[Path]]:
    """The newest log in ``log_dir`` of a run that started a job, and the newer ones passed over because theirs
    started none (``snakemake --report``, a run with nothing to be done). Snakemake names its logs by their
    start time, so the newest sorts last."""
    logs = sorted(Path(log_dir).glob("*.snakemake.log"))
    if not logs:
        raise FileNotFoundError(f"no Snakemake log in {log_dir}/ (run snakemake here first, or name a log)")
    passed_over = []
    for path in reversed(logs):
        if _started_a_job(path):
            return path, passed_over
        passed_over.append(path)
    raise FileNotFoundError(f"none of the {len(logs)} Snakemake logs in {log_dir}/ is of a run that started a job "
                            "(a build, not `snakemake --report` or a run with nothing to be done); name a log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="*", type=Path, metavar="LOG", help=f"Snakemake logs (default: the newest in {LOG_DIR}/)")
    parser.add_argument("--markdown", action="store_true", help="Markdown tables (for docs/costs.md)")
    args = parser.parse_args(argv)
    try:
        if args.logs:
            paths = args.logs
        else:
            newest, passed_over = newest_log()
            paths = [newest]
            if passed_over:
                print(f"buildcost: {len(passed_over)} newer log(s) started no job, passed over: "
                      + ", ".join(p.name for p in passed_over), file=sys.stderr)
        if missing := [str(p) for p in paths if not p.is_file()]:
            raise FileNotFoundError(f"no such log: {', '.join(missing)}")
    except FileNotFoundError as err:
        print(f"buildcost: {err}", file=sys.stderr)
        return 1
    for i, path in enumerate(paths):
        with open(path, encoding="utf-8") as fh:
            table = cost_table(parse_log(fh))
        heading = f"## {path.name}" if args.markdown else f"log: {path}"
        print(("\n" if i else "") + heading + "\n\n" + (render_markdown if args.markdown else render_text)(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
