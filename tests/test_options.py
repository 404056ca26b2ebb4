"""A paper's own switches (config/papers/<paper>.yaml `options:`): declared, checked and resolved by
experiments/options.py, named by no generic file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from banditrepro.experiments.options import declared_options, measured_time_experiments, resolve_options
from banditrepro.experiments.spec import ConfigError, discover_papers

REPO_ROOT = Path(__file__).resolve().parents[1]

OPTION = {"description": "which table", "default": "cached",
          "values": {"cached": {"description": "shipped"}, "off": {"description": "none"},
                     "recompute": {"description": "here", "measured_time": {"exp1": "times of this machine"}}}}


def _project(tmp_path, **papers) -> Path:
    (tmp_path / "config" / "papers").mkdir(parents=True)
    for paper, options in papers.items():
        (tmp_path / "config" / "papers" / f"{paper}.yaml").write_text(yaml.safe_dump({"paper": paper, "options": options}))
    return tmp_path


def test_values_are_checked_and_the_default_fills_in(tmp_path):
    declared = declared_options(_project(tmp_path, p={"table": OPTION}, q={}))
    assert list(declared) == ["table"] and declared["table"].paper == "p"
    assert resolve_options({}, declared) == {"table": "cached"}
    assert resolve_options({"table": "recompute"}, declared) == {"table": "recompute"}
    assert resolve_options({"table": False}, declared) == {"table": "off"}  # YAML's unquoted off
    with pytest.raises(ConfigError, match=r"config table: 'sometimes' is not one of cached, off, recompute .*paper p"):
        resolve_options({"table": "sometimes"}, declared)


def test_measured_time_follows_the_value_in_force(tmp_path):
    declared = declared_options(_project(tmp_path, p={"table": OPTION}))
    assert measured_time_experiments(declared, "p", {"table": "cached"}) == {}
    assert measured_time_experiments(declared, "p", {"table": "recompute"}) == {"exp1": "times of this machine"}
    assert measured_time_experiments(declared, "other", {"table": "recompute"}) == {}


def test_a_bad_declaration_or_a_key_two_papers_declare_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="default 'sometimes' is not one of its values"):
        declared_options(_project(tmp_path / "a", p={"table": {**OPTION, "default": "sometimes"}}))
    with pytest.raises(ConfigError, match="invalid value at 'options/table'"):
        declared_options(_project(tmp_path / "b", p={"table": {"default": "cached"}}))
    with pytest.raises(ConfigError, match="declared by both p and q"):
        declared_options(_project(tmp_path / "c", p={"table": OPTION}, q={"table": OPTION}))


def test_the_committed_options_resolve_to_their_defaults():
    declared = declared_options(REPO_ROOT)
    assert resolve_options({}, declared) == {name: option.default for name, option in declared.items()}


@pytest.mark.parametrize("paper", discover_papers(REPO_ROOT))
def test_no_generic_file_names_a_paper(paper):
    """A paper's name appears in its own files only (config/papers/<paper>*, experiments/<paper>/, its rule
    file), never in the generic rules, schemas, workflow config or the lock."""
    generic = [":(glob)workflow/rules/*.smk", "workflow/schemas", "workflow/scripts", "workflow/profiles", "Snakefile",
               "config/config.yaml", "src/banditrepro/lock.py", "src/banditrepro/layout.py",
               "src/banditrepro/workflow_io.py", "src/banditrepro/experiments/options.py",
               "src/banditrepro/experiments/paper.schema.yaml"]
    if shutil.which("git") is None:
        pytest.skip("git not available")
    found = subprocess.run(["git", "grep", "-n", paper, "--", *generic], cwd=REPO_ROOT, capture_output=True,
                           text=True).stdout
    # the usage lines of the Snakefile and targets name an example paper
    found = [line for line in found.splitlines() if "snakemake --cores" not in line and "`snakemake" not in line]
    assert not found, f"{paper} named in generic files:\n" + "\n".join(found)
