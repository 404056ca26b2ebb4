"""The pinned environment (requirements.lock) against what names versions elsewhere: pyproject's floors,
environment.yml, the results locks' "versions", the install commands of README, .ci/run and CI, and the
generating command in docs/environment.md."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

REPO_ROOT = Path(__file__).resolve().parents[1]
PIN = REPO_ROOT / "requirements.lock"
PINNED_INSTALL = "pip install --require-hashes -r requirements.lock && pip install --no-deps -e ."
# conda-forge names that differ from the PyPI name of the same package
CONDA_TO_PYPI = {"snakemake-minimal": "snakemake"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pin(text: str) -> dict[str, dict]:
    """``{name: {"version": ..., "hashes": [...]}}`` from a hashed requirements file (uv/pip-tools layout)."""
    pins: dict[str, dict] = {}
    for block in re.split(r"\n(?=\S)", text):
        head = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", block)
        if head:
            pins[normalise(head[1])] = {"version": head[2], "hashes": re.findall(r"--hash=sha256:([0-9a-f]{64})", block)}
    return pins


@pytest.fixture(scope="module")
def pins() -> dict[str, dict]:
    return read_pin(PIN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_read_pin_reads_versions_and_hashes():
    text = ("# header\nsix==1.17.0 \\\n    --hash=sha256:" + "a" * 64 + " \\\n    --hash=sha256:" + "b" * 64
            + "\n    # via banditrepro (pyproject.toml)\nPyYAML==6.0.4 \\\n    --hash=sha256:" + "c" * 64 + "\n")
    assert read_pin(text) == {"six": {"version": "1.17.0", "hashes": ["a" * 64, "b" * 64]},
                              "pyyaml": {"version": "6.0.4", "hashes": ["c" * 64]}}


def test_every_pin_is_exact_and_hashed(pins):
    assert len(pins) > 50, "requirements.lock should list every dependency, transitive ones included"
    unhashed = [name for name, pin in pins.items() if not pin["hashes"]]
    assert not unhashed, f"pins without a hash (pip --require-hashes refuses them): {unhashed}"
    lines = [line for line in PIN.read_text(encoding="utf-8").splitlines() if line and not line.startswith((" ", "#"))]
    assert all(re.match(r"[A-Za-z0-9._-]+==\S+ \\$", line) for line in lines), "a requirement that is not name==version"


def test_pyproject_floors_admit_the_pins_and_the_pin_covers_them(pins, pyproject):
    project = pyproject["project"]
    declared = [Requirement(text) for text in project["dependencies"] + project["optional-dependencies"]["test"]]
    missing = [str(req) for req in declared if normalise(req.name) not in pins]
    assert not missing, f"pyproject dependencies not in requirements.lock (regenerate it): {missing}"
    refused = [f"{req} vs {pins[normalise(req.name)]['version']}" for req in declared
               if not req.specifier.contains(Version(pins[normalise(req.name)]["version"]), prereleases=True)]
    assert not refused, f"pyproject's specifiers exclude the pinned versions: {refused}"


def test_the_results_locks_were_made_with_the_pinned_versions(pins, pyproject):
    """config/locks/*.lock.json record the versions they were made with; the pin installs exactly those."""
    conda_python = _environment_yml()["python"]
    checked = 0
    for lock_file in sorted((REPO_ROOT / "config" / "locks").glob("*.lock.json")):
        versions = json.loads(lock_file.read_text(encoding="utf-8"))["versions"]
        for package, version in versions.items():
            if package == "python":
                assert version == conda_python, f"{lock_file.name}: python {version}, environment.yml {conda_python}"
            elif package == "banditrepro":
                assert version == pyproject["project"]["version"], f"{lock_file.name}: banditrepro {version}"
            else:
                pinned = pins.get(normalise(package), {}).get("version")
                assert pinned == version, f"{lock_file.name}: {package} {version}, requirements.lock {pinned}"
            checked += 1
    assert checked >= 7, "no results lock with versions found"


def _environment_yml() -> dict[str, str]:
    """``{pypi name: version}`` of every package environment.yml names (conda and pip), each pinned with ==."""
    spec = yaml.safe_load((REPO_ROOT / "environment.yml").read_text(encoding="utf-8"))
    entries = []
    for item in spec["dependencies"]:
        entries += [e for e in item["pip"] if e != "-e ."] if isinstance(item, dict) else [item]
    named = {}
    for entry in entries:
        if entry == "pip":  # the installer conda brings along; not part of the pinned set
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)", entry)
        assert match, f"environment.yml entry {entry!r} is not pinned as name==version"
        named[normalise(CONDA_TO_PYPI.get(match[1], match[1]))] = match[2]
    return named


def test_environment_yml_pins_what_requirements_lock_pins(pins):
    named = _environment_yml()
    unknown = sorted(set(named) - set(pins) - {"python"})
    assert not unknown, f"environment.yml names packages requirements.lock does not: {unknown}"
    differ = [f"{name} {version} (requirements.lock {pins[name]['version']})" for name, version in sorted(named.items())
              if name in pins and pins[name]["version"] != version]
    assert not differ, f"environment.yml and requirements.lock disagree: {differ}"


def test_every_install_command_uses_the_pin():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert quick_start.count(PINNED_INSTALL) == 2, "README Quick start: both commands install requirements.lock"
    ci_run = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet --require-hashes -r requirements.lock" in ci_run
    assert "pip install --quiet --no-deps -e ." in ci_run
    workflow = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    for job in workflow["jobs"].values():
        setup = next(step for step in job["steps"] if step.get("uses", "").startswith("actions/setup-python"))
        assert setup["with"]["cache-dependency-path"] == "requirements.lock"
        install = next(step["run"] for step in job["steps"] if step.get("name", "").startswith("install"))
        assert "pip install --require-hashes -r requirements.lock" in install and "pip install --no-deps -e ." in install


def test_docs_give_the_command_that_generated_the_pin():
    header = PIN.read_text(encoding="utf-8").splitlines()[:2]
    assert header[0].startswith("# This file was autogenerated by uv"), header
    command = header[1].lstrip("# ").strip()
    assert command in (REPO_ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
