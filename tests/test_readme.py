"""README.md is the newcomer's door: short, its commands work as written, its links and the docs' links resolve.
(The generated results-at-a-glance table is checked against the verdicts file in test_report.py.)"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import shlex
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from repo_copy import copy_repo, run_snakemake

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
MAX_LINES = 150
SCRIPT = Path(sys.executable).with_name("banditrepro")  # installed by `pip install -e .` beside python
CHECK_PYTHON = "python3 tools/check_python.py"  # README's set-up and .ci/run start with it
SET_UP_START = CHECK_PYTHON + " && python3 -m venv"
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


def quick_start() -> tuple[str, str, str]:
    """README's Quick start: its text, the main job's command line and the tests' command line."""
    readme = README.read_text(encoding="utf-8")
    commands = [c for c in fenced_lines(readme, "Quick start") if c.startswith(SET_UP_START)]
    assert len(commands) == 2, commands
    return readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0], *commands


def test_readme_sets_up_the_main_job_and_the_tests_the_same_way():
    _, main_job, tests = quick_start()
    assert main_job.split(" && ")[-1].startswith("snakemake --cores ") and tests.endswith("&& pytest")
    assert main_job.rsplit("&&", 1)[0] == tests.rsplit("&&", 1)[0], "the two commands must set up the same environment"


def test_the_main_commands_cores_fit_any_machine_and_its_timing_names_its_machine():
    """`--cores all`, or a number no larger than the cores of the machine the timing beside it was measured on;
    that timing is docs/costs.md's (the commit and the seconds, as costs.md gives them) and names its machine."""
    text, main_job, _ = quick_start()
    text = " ".join(text.split())
    cores = shlex.split(main_job.split(" && ")[-1])[2]
    timing = re.search(r"took ([\d.,]+) s \(about (\d+) minutes\) on an? (\d+)-core ([^,]+), commit ([0-9a-f]{7})", text)
    assert timing, "the timing must name its machine: 'took <s> s (about <m> minutes) on a <N>-core <machine>, commit <sha>'"
    seconds, minutes, machine_cores, machine, commit = timing.groups()
    assert cores == "all" or int(cores) <= int(machine_cores), f"--cores {cores} after a {machine_cores}-core timing"
    assert int(minutes) == round(float(seconds.replace(",", "")) / 60), (seconds, minutes)
    costs = " ".join((REPO_ROOT / "docs" / "costs.md").read_text(encoding="utf-8").split())
    assert f"{commit} **{seconds} s**" in costs, f"docs/costs.md has no build of {commit} taking {seconds} s"
    # the section of costs.md that gives that build was measured on the same kind of CPU
    section = costs[: costs.index(f"{commit} **{seconds} s**")].rsplit("###", 1)[1]
    assert all(isa in section for isa in ("AVX-512", "AVX2") if isa in machine), (machine, section[:200])


def ci_run_commands() -> list[str]:
    """The commands .ci/run runs, as a user would type them: no quiet or yes flags, no sudo or env prefix,
    python3 for the interpreter and pip for `python -m pip` (control lines, echo, cd and variables left out)."""
    commands = []
    for line in (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "echo ", "set ", "cd ", "export ", "if ", "fi", "then", "else")) \
                or re.match(r"[A-Z_]+=", line):
            continue
        words = shlex.split(line)
        while words and (words[0].startswith("$") or "=" in words[0] or words[0] == "env"):
            words = words[1:]  # $SUDO, env, DEBIAN_FRONTEND=...
        if line.startswith('"$PYTHON"'):
            words = ["python3", *words]
        if words[:3] == ["python", "-m", "pip"]:
            words = ["pip", *words[3:]]
        commands.append(" ".join(w for w in words if w not in {"--quiet", "-q", "-y", "--no-install-recommends"}))
    return commands


def test_what_ci_runs_is_named_in_the_readme():
    """Every command of .ci/run is README's set-up or named where README says what CI runs."""
    text, _, tests = quick_start()
    ci_sentence = " ".join(text.split("CI runs", 1)[1].split("\n\n", 1)[0].split())
    named = set(re.findall(r"`([^`]+)`", ci_sentence))
    commands = ci_run_commands()
    assert {"snakemake --lint", "pytest"} <= set(commands) and any(c.startswith("ruff check") for c in commands), commands
    set_up = [step.strip() for step in tests.split("&&")]
    missing = [c for c in commands if c not in named and c not in set_up]
    assert not missing, f".ci/run runs {missing}: name them in README's 'CI runs' sentence"


def test_the_data_status_words_of_the_readme_are_the_clis():
    """README's `banditrepro data status` line names the states the command prints, all of them, in its order."""
    from banditrepro.data import STATUS_WORDS

    line = next(line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("banditrepro data status"))
    words = re.split(r", | or ", line.split("# which data sets are ", 1)[1].strip())
    assert words == list(STATUS_WORDS), words


def test_the_set_up_stops_first_on_another_python(tmp_path):
    """README's two commands and .ci/run run tools/check_python.py before anything else; it passes silently on the
    lock's Python and stops with one line on another, as the lock's header, environment.yml and pyproject agree."""
    from packaging.specifiers import SpecifierSet

    _, main_job, tests = quick_start()
    assert main_job.startswith(CHECK_PYTHON + " && ") and tests.startswith(CHECK_PYTHON + " && ")
    ci_run = ci_run_commands()
    assert ci_run[0] == CHECK_PYTHON, ci_run
    ok = subprocess.run([sys.executable, "tools/check_python.py"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == ok.stderr == "", ok.stderr
    other = subprocess.run([sys.executable, "tools/check_python.py", "--python", "3.12"], cwd=REPO_ROOT,
                           capture_output=True, text=True)
    assert other.returncode == 1 and other.stdout == "" and len(other.stderr.splitlines()) == 1, other.stderr
    assert other.stderr.startswith("banditrepro's requirements.lock is pinned for Python 3.11 (CPython); this is "
                                   "Python 3.12: install Python 3.11 "), other.stderr
    checker = load_check_python()
    lock = (REPO_ROOT / "requirements.lock").read_text(encoding="utf-8")
    pinned = checker.pinned_python(lock)
    assert checker.problem(pinned, "CPython", lock) is None
    assert "this is PyPy 3.11" in checker.problem("3.11", "PyPy", lock) and checker.problem("3.10", "CPython", lock)
    assert re.search(rf"python=={re.escape(pinned)}\.\d+", (REPO_ROOT / "environment.yml").read_text(encoding="utf-8"))
    requires = re.search(r'^requires-python = "([^"]+)"', (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert SpecifierSet(requires.group(1)).contains(f"{pinned}.0"), requires.group(1)


def test_check_python_runs_on_any_python_3():
    """It has to parse on the Python it rejects: no f-strings (3.6), no walrus (3.8), no annotations import."""
    source = (REPO_ROOT / "tools" / "check_python.py").read_text(encoding="utf-8")
    prefixes = [tok.string.split(tok.string[-1])[0].lower() for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.STRING]
    assert prefixes and not any("f" in p for p in prefixes), "f-string in tools/check_python.py"
    assert ":=" not in source and "from __future__" not in source
    ast.parse(source, feature_version=(3, 4))


def load_check_python():
    spec = importlib.util.spec_from_file_location("check_python", REPO_ROOT / "tools" / "check_python.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
