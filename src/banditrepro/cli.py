"""The ``banditrepro`` command: look at what the workflow built, the data and the engine's speed.

    banditrepro verdicts [PAPER]   headline verdicts and findings of the built results
    banditrepro data status        which data sets are fetched, fetchable, stand-in or missing
    banditrepro bench              the engine benchmark (python -m banditrepro.bench)

The workflow (``snakemake``) builds the results; this command only reads them. Every subcommand
has ``--help``; ``--repo-root`` says where the project is (default: the current directory).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

# the report layer's pandas-free parts: the command starts without loading the data stack
from . import layout
from .report.findings import FINDINGS_HEADING, read_findings
from .report.vocabulary import HEADLINE, KINDS, Tally, tally

TABLE_COLUMNS = ("claim_id", "figure", "verdict", "measured", "threshold")
#: the exit status of a command whose output pipe was closed early (128 + SIGPIPE, as the shell reports)
BROKEN_PIPE_STATUS = 141


class CliError(Exception):
    """A one-line message for the user; the command exits with ``status``."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------------------
# verdicts


def known_papers(repo_root: Path) -> list[str]:
    """Papers configured in ``config/papers/*.yaml`` (sorted; empty when the folder is absent)."""
    return sorted(p.stem for p in (Path(repo_root) / "config" / "papers").glob("*.yaml"))


def claims_path(results: Path, paper: str) -> Path:
    """``paper``'s claims.csv under ``results`` (the layout's results/<paper>/claims.csv, another root allowed)."""
    return Path(results) / Path(layout.claims_file(paper)).relative_to(layout.RESULTS)


def built_papers(results: Path, repo_root: Path) -> list[str]:
    """Configured papers with a ``claims.csv`` under ``results`` (sorted)."""
    return [paper for paper in known_papers(repo_root) if claims_path(results, paper).is_file()]


def read_claim_rows(path: Path) -> list[dict[str, str]]:
    """Rows of a claims.csv, every cell as written (a build without the ``kind`` column counts every
    claim as headline: :func:`banditrepro.report.vocabulary.tally`)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def build_scale(results: Path, paper: str) -> str | None:
    """``scale`` recorded in the claims' provenance (paper / smoke), if readable."""
    path = Path(layout.sidecar(claims_path(results, paper)))
    try:
        return json.loads(path.read_text(encoding="utf-8"))["config"]["scale"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if width <= 0 or len(text) <= width else text[: width - 1] + "…"


def format_table(rows: list[dict[str, str]], columns=TABLE_COLUMNS, width: int = 60) -> str:
    """Plain-text table, columns padded to their widest (clipped) cell."""
    cells = [[clip(r.get(c, ""), width) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[j]) for row in cells]) for j, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)


def verdict_counts(counts: Tally, kind: str) -> str:
    """'1 reproduced, 1 not_reproduced, 0 inconclusive' for the claims of one kind."""
    return ", ".join(f"{counts.count(kind, v)} {v}" for v in counts.verdicts(kind))


def paper_verdicts(results: Path, paper: str, width: int = 60) -> str:
    """The text ``banditrepro verdicts PAPER`` prints for one built paper."""
    counts = tally(read_claim_rows(claims_path(results, paper)))
    headline = counts.rows(HEADLINE)
    scale = build_scale(results, paper)
    title = f"{paper}" + (f" (scale {scale})" if scale else "")
    out = [f"== {title}: {len(headline)} headline claims: "
           f"{verdict_counts(counts, HEADLINE) if headline else 'none'}"]
    if scale and scale != "paper":
        out.append(f"   built at scale {scale}: the verdicts test the pipeline, not the paper")
    if headline:
        out += ["", format_table(headline, width=width)]
    out.append("")
    for kind in KINDS:
        if kind != HEADLINE:
            n = counts.count(kind)
            out.append(f"{kind} claims: {n}" + (f" ({verdict_counts(counts, kind)})" if n else ""))
    other = [k for k in counts.kinds() if k not in KINDS]
    if other:
        out.append(f"claims of unknown kind ({', '.join(other)}): {sum(counts.count(k) for k in other)}")
    report = Path(results) / paper / "report.md"
    findings = read_findings(report)
    out.append("")
    if findings:
        out += ["Findings:", findings]
    elif report.is_file():
        out.append(f"Findings: none ({report} has no '{FINDINGS_HEADING}' section)")
    else:
        out.append(f"Findings: none ({report} not built)")
    return "\n".join(out)


def verdicts(results: Path, repo_root: Path, paper: str | None = None, width: int = 60) -> str:
    """Verdicts of one paper, or of every built paper; raises CliError when there is nothing to show."""
    results = Path(results)
    built = built_papers(results, repo_root)
    if paper is not None:
        known = known_papers(repo_root)
        if paper not in built:
            if known and paper not in known:
                raise CliError(f"unknown paper {paper!r}; known: {', '.join(known)}", status=2)
            raise CliError(f"no results for {paper} yet ({claims_path(results, paper)} missing): "
                           f"run `snakemake --cores 2 {paper}`")
        return paper_verdicts(results, paper, width)
    if not built:
        raise CliError(f"nothing built yet: no {results}/<paper>/claims.csv; run `snakemake --cores 2` "
                       "(or `snakemake --cores 2 <paper> --config scale=smoke`)")
    return "\n\n".join(paper_verdicts(results, p, width) for p in built)


# ---------------------------------------------------------------------------------------------
# data status


def data_status(repo_root: Path, config_path: Path | None = None) -> str:
    """One line per dataset from :func:`banditrepro.data.dataset_status`, plus whether its processed
    files are there."""
    import yaml

    from .data import DATASET_NAMES, dataset_status, processed_outputs

    repo_root = Path(repo_root)
    config_path = Path(config_path) if config_path else repo_root / "config" / "config.yaml"
    if not config_path.is_file():
        raise CliError(f"no config at {config_path} (use --repo-root or --config)", status=2)
    config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    lines = []
    for name in DATASET_NAMES:
        status = dataset_status(name, config, repo_root)
        line = status.line()
        if status.available:
            files = processed_outputs(name, config, repo_root)
            present = sum((repo_root / f).is_file() for f in files)
            line += f" · processed {present}/{len(files)} files" + (" (build: snakemake --cores 2 datasets)"
                                                                      if present < len(files) else "")
        lines.append(line)
    return "\n".join(lines)


# the words that open each line (banditrepro.data.STATUS_WORDS; written out here, so that the command starts
# without the data layer's imports; tests/test_cli.py checks that the two agree)
DATA_STATUS_DESCRIPTION = """One line per data set, opening with its state:

  fetched     its files are on this machine, verified
  fetchable   the build fetches its files (from the mirror or a download host that answers)
  stand-in    its figures are built on labelled synthetic files (config data.standin: true)
  missing     it cannot be had here: its figures are skipped; the line says how to provide it

then how many of its processed files exist. No hashing; the download hosts of files not on this machine
are probed (at most 3 s)."""


# ---------------------------------------------------------------------------------------------
# command line


def build_parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(add_help=False)
    root.add_argument("--repo-root", type=Path, default=Path("."),
                      help="project folder holding config/ and results/ (default: current directory)")
    parser = argparse.ArgumentParser(prog="banditrepro", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{verdicts,data,bench,cost}")

    p = sub.add_parser("verdicts", parents=[root], help="headline verdicts and findings of the built results",
                       description="Print, per built paper, its headline claims with verdicts as a table, the "
                                   "counts of variant and sanity claims, and the '## Findings' section of "
                                   "results/<paper>/report.md. Reads results/<paper>/claims.csv.")
    p.add_argument("paper", nargs="?", help="one paper id (default: every built paper)")
    p.add_argument("--results", type=Path, default=None, help="results folder (default: <repo-root>/results)")
    p.add_argument("--width", type=int, default=60, help="clip table cells to this many characters (0: no limit)")

    p = sub.add_parser("data", help="dataset commands", description="Dataset commands.")
    data_sub = p.add_subparsers(dest="data_command", required=True, metavar="{status}")
    s = data_sub.add_parser("status", parents=[root], help="which data sets are fetched, fetchable, stand-in or missing",
                            description=DATA_STATUS_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--config", type=Path, default=None,
                   help="workflow config (default: <repo-root>/config/config.yaml)")

    sub.add_parser("bench", help="the engine benchmark (python -m banditrepro.bench)", add_help=False)
    sub.add_parser("cost", help="job-seconds per paper and rule of a Snakemake run (python -m banditrepro.buildcost)",
                   add_help=False)
    return parser


# commands that own their options and --help: `banditrepro <name> ...` runs their main(argv)
PASS_THROUGH = {"bench": "bench", "cost": "buildcost"}


def run(argv: list[str]) -> int:
    if argv and argv[0] in PASS_THROUGH:
        import importlib

        command = importlib.import_module(f".{PASS_THROUGH[argv[0]]}", __package__)
        prog, sys.argv[0] = sys.argv[0], f"banditrepro {argv[0]}"  # their argparse names itself after argv[0]
        try:
            status = command.main(argv[1:])
        finally:
            sys.argv[0] = prog
        return status or 0
    args = build_parser().parse_args(argv)
    try:
        if args.command == "verdicts":
            results = args.results if args.results is not None else args.repo_root / "results"
            print(verdicts(results, args.repo_root, args.paper, args.width))
        elif args.command == "data":
            print(data_status(args.repo_root, args.config))
    except CliError as exc:
        print(f"banditrepro: {exc}", file=sys.stderr)
        return exc.status
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        status = run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's flush at exit
    except BrokenPipeError:
        # the reader left (`banditrepro verdicts | head`): the usual way out for a command line tool is
        # quiet, with stdout pointed at /dev/null so that the flush at exit cannot fail a second time
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE_STATUS
    return status


if __name__ == "__main__":
    raise SystemExit(main())
