"""README.md is the newcomer's door: short, its commands work as written, its links and the docs' links resolve.
(The generated results-at-a-glance table is checked against the verdicts file in test_report.py.)"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from repo_copy import copy_repo, run_snakemake

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
MAX_LINES = 150
SCRIPT = Path(sys.executable).with_name("banditrepro")  # installed by `pip install -e .` beside python
# snakemake options in the README that take a value (the value is not a target); --config takes the rest
VALUE_OPTIONS = {"--cores", "-c", "--jobs", "-j", "--report", "--workflow-profile", "--executor"}


def fenced_lines(markdown: str, heading: str) -> list[str]:
    """Command lines of the ```bash blocks under a `## heading`, without comments."""
    section = markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


def snakemake_targets(line: str) -> list[str]:
    words = shlex.split(line)[1:]
    targets, i = [], 0
    while i < len(words):
        if words[i] == "--config":
            break
        if words[i] in VALUE_OPTIONS:
            i += 2
            continue
        if not words[i].startswith("-"):
            targets.append(words[i])
        i += 1
    return targets


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines: move detail to docs/ (at most {MAX_LINES})"


def test_readme_sets_up_the_main_job_and_the_tests_the_same_way():
    commands = [c for c in fenced_lines(README.read_text(encoding="utf-8"), "Quick start") if c.startswith("python3 -m venv")]
    assert len(commands) == 2, commands
    main_job, tests = commands
    assert main_job.endswith("&& snakemake --cores 8") and tests.endswith("&& pytest")
    assert main_job.rsplit("&&", 1)[0] == tests.rsplit("&&", 1)[0], "the two commands must set up the same environment"


def test_every_relative_link_of_the_readme_and_the_docs_resolves():
    pages = [README, *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # web links and anchors
            if not (page.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{page.relative_to(REPO_ROOT)}: {target}")
    assert len(pages) > 10 and not broken, broken


@pytest.mark.slow
def test_the_common_tasks_name_real_targets_profiles_and_subcommands(tmp_path):
    lines = fenced_lines(README.read_text(encoding="utf-8"), "Common tasks")
    snakemake_lines = [line for line in lines if line.startswith("snakemake ")]
    targets = sorted({t for line in snakemake_lines for t in snakemake_targets(line)})
    assert len(snakemake_lines) >= 8 and {"satisficing_ucl", "verify", "robustness_satisficing_ucl"} <= set(targets)
    for line in snakemake_lines:
        words = shlex.split(line)
        if "--workflow-profile" in words:
            assert (REPO_ROOT / words[words.index("--workflow-profile") + 1] / "config.yaml").is_file(), line
    # one dry run plans every target the README names (a renamed rule or path fails it)
    repo = copy_repo(tmp_path / "repo")
    run_snakemake(repo, "-n", *targets, "--config", "scale=smoke", timeout=600)
    commands = [shlex.split(line)[1:] for line in lines if line.startswith("banditrepro ")]
    assert {c[0] for c in commands} >= {"verdicts", "data"}
    for words in commands:
        subcommand = [w for w in words if w.isidentifier() and w in {"verdicts", "data", "status", "bench"}]
        proc = subprocess.run([str(SCRIPT), *subcommand, "--help"], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "usage: banditrepro" in proc.stdout, (words, proc.stderr)
