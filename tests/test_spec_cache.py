"""The cache of paper specs (experiments.spec.load_paper_cached): the Snakefile plans from it, and load_paper (every
job, test and tool) reads from it before importing the paper's registered functions.

A cached spec must be read_paper's (the validating load), must follow every edit of what it is made of (a config,
a cells CSV), must never hide an invalid config, and must spare a later plan the paper packages' imports (numba,
the kernels)."""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml

from banditrepro.experiments import spec as spec_module
from banditrepro.experiments.spec import ConfigError, discover_papers, load_paper, load_paper_cached, read_paper
from banditrepro.numba_cache import cache_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPER = "satisficing_ucl"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty cache directory of the current sources, for this test alone (as banditrepro sets it on import)."""
    folder = cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")})
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    return folder


def copy_configs(dest: Path) -> Path:
    shutil.copytree(REPO_ROOT / "config" / "papers", dest / "config" / "papers")
    return dest


def plain(value):
    """A spec as nested dicts, lists and strings (its arrays as lists), for ==."""
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [value.dtype.str, value.tolist()]
    if isinstance(value, Path):
        return str(value)
    return value


def same_spec(a, b) -> bool:
    return plain(a) == plain(b)


def entries(cache: Path) -> list[Path]:
    return sorted((cache / spec_module.PLANNED_SPECS).glob("*.pickle"))


@pytest.mark.parametrize("paper", discover_papers(REPO_ROOT))
def test_a_cached_spec_is_load_papers_at_each_scale(cache, paper):
    for scale in ("paper", "smoke"):
        first = load_paper_cached(paper, scale, REPO_ROOT)  # a miss: loaded and written
        again = load_paper_cached(paper, scale, REPO_ROOT)  # a hit: read back
        assert same_spec(first, read_paper(paper, scale, REPO_ROOT))
        assert same_spec(load_paper(paper, scale, REPO_ROOT), first)
        assert same_spec(again, first)
    assert len(entries(cache)) == 2


def test_the_checks_parameters_come_with_the_spec():
    spec = read_paper("composite_anonymous", "paper", REPO_ROOT)
    used = {c["check"]["fn"] for c in spec.claims}
    assert used <= set(spec.check_parameters)
    assert any("z" in params for params in spec.check_parameters.values())


def test_another_tree_reads_the_entry_with_its_own_root(cache, tmp_path):
    load_paper_cached(PAPER, "smoke", REPO_ROOT)
    other = copy_configs(tmp_path / "other")
    spec = load_paper_cached(PAPER, "smoke", other)
    assert len(entries(cache)) == 1  # the same configs: the same entry
    assert {e.repo_root for e in spec.experiments.values()} == {other.resolve()}


def edit(repo: Path, change, paper: str = PAPER) -> None:
    path = repo / "config" / "papers" / f"{paper}.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


def test_an_edited_config_is_loaded_afresh_and_an_invalid_one_is_reported(cache, tmp_path):
    repo = copy_configs(tmp_path / "repo")
    before = load_paper_cached(PAPER, "smoke", repo)
    edit(repo, lambda c: c["claims"][0].update(statement="edited"))
    after = load_paper_cached(PAPER, "smoke", repo)
    assert after.claims[0]["statement"] == "edited" != before.claims[0]["statement"]
    edit(repo, lambda c: c["experiments"]["mean_reward"].update(horizn=5))
    with pytest.raises(ConfigError, match="horizn"):
        load_paper_cached(PAPER, "smoke", repo)
    edit(repo, lambda c: c["experiments"]["mean_reward"].pop("horizn"))
    assert load_paper_cached(PAPER, "smoke", repo).claims[0]["statement"] == "edited"


def test_an_edited_cells_csv_is_loaded_afresh(cache, tmp_path):
    repo = copy_configs(tmp_path / "repo")
    cells = repo / "config" / "papers" / "censored_resources_cells.csv"
    before = load_paper_cached("censored_resources", "smoke", repo)
    with cells.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0]["tolerance"] = "0.0123"  # the first cell's band
    with cells.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    after = load_paper_cached("censored_resources", "smoke", repo)
    tolerance = {c["id"]: c["check"].get("tolerance") for c in after.claims}
    assert tolerance[rows[0]["id"]] == 0.0123
    assert {c["id"]: c["check"].get("tolerance") for c in before.claims}[rows[0]["id"]] != 0.0123


def test_a_damaged_entry_is_loaded_afresh(cache):
    load_paper_cached(PAPER, "smoke", REPO_ROOT)
    (entry,) = entries(cache)
    entry.write_bytes(b"not a pickle")
    assert same_spec(load_paper_cached(PAPER, "smoke", REPO_ROOT), read_paper(PAPER, "smoke", REPO_ROOT))
    assert entry.read_bytes() != b"not a pickle"


# a fresh interpreter that loads the spec from the cache and says what it imported
PROBE = textwrap.dedent("""
    import json, sys
    from banditrepro.experiments.spec import load_paper_cached
    spec = load_paper_cached(sys.argv[1], "smoke", sys.argv[2])
    modules = sorted(sys.modules)
    from banditrepro.experiments.spec import load_paper
    from banditrepro.registry import SIMULATION_BUILDERS
    load_paper(sys.argv[1], "smoke", sys.argv[2])  # a job's load: the same entry, then the paper's functions
    builders = sorted({e.builder for e in spec.experiments.values()} - set(SIMULATION_BUILDERS))
    print(json.dumps({"experiments": sorted(spec.experiments), "modules": modules, "unregistered": builders}))
""")


def test_a_hit_imports_neither_numba_nor_the_paper_package_and_load_paper_then_registers_it(cache):
    load_paper_cached(PAPER, "smoke", REPO_ROOT)
    proc = subprocess.run([sys.executable, "-c", PROBE, PAPER, str(REPO_ROOT)], capture_output=True, text=True,
                          check=True, timeout=120)
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["experiments"] == sorted(read_paper(PAPER, "smoke", REPO_ROOT).experiments)
    modules = set(found["modules"])
    assert "numba" not in modules and "pandas" not in modules
    assert not [m for m in modules if m.startswith(f"banditrepro.experiments.{PAPER}")]
    assert found["unregistered"] == []


REGISTERING = textwrap.dedent("""
    import json, sys
    import banditrepro.experiments.censored_resources.forest_dag  # what its rule file imports while planning
    from banditrepro.registry import SIMULATION_BUILDERS
    planning = {"numba": "numba" in sys.modules, "builders": "censored_ames" in SIMULATION_BUILDERS}
    from banditrepro.experiments.spec import import_paper_package
    import_paper_package("censored_resources")
    print(json.dumps({"planning": planning, "builders": "censored_ames" in SIMULATION_BUILDERS}))
""")


def test_a_packages_registering_modules_are_imported_by_load_paper_not_with_its_helpers():
    proc = subprocess.run([sys.executable, "-c", REGISTERING], capture_output=True, text=True, check=True, timeout=120)
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {"planning": {"numba": False, "builders": False}, "builders": True}


# --- the other two things planning keeps there: the papers' declared options and each paper's source files


def test_the_declared_options_follow_an_edit_and_an_invalid_one_is_reported(cache, tmp_path):
    from banditrepro.experiments.options import _declared_options, declared_options

    repo = copy_configs(tmp_path / "repo")
    first = declared_options(repo)  # a miss: read and written
    assert first == _declared_options(repo) == declared_options(repo)  # and a hit gives the same
    assert first["ames_forest"].default == "cached"
    edit(repo, lambda c: c["options"]["ames_forest"].update(default="off"), paper="censored_resources")
    assert declared_options(repo)["ames_forest"].default == "off"
    edit(repo, lambda c: c["options"]["ames_forest"].update(default="sometimes"), paper="censored_resources")
    with pytest.raises(ConfigError, match="sometimes"):
        declared_options(repo)


def test_a_papers_planned_source_files_are_its_import_closure_and_follow_a_new_data_file(cache, tmp_path,
                                                                                       monkeypatch):
    from banditrepro import sources

    for paper in sources.papers_in():
        assert sources.planned_paper_modules(paper) == sources.paper_modules(paper)
        assert sources.planned_paper_modules(paper) == sources.paper_modules(paper)  # from the entry
    # a data file added beside a package's modules is a source of the papers that import the package; the
    # entry's key holds the package's data files (the directory holds every .py file)
    package = tmp_path / "banditrepro"
    shutil.copytree(sources.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(sources, "PACKAGE_DIR", package)
    monkeypatch.setattr(sources.paper_modules, "__defaults__", (package,))
    before = sources.planned_paper_modules(PAPER)
    (package / "algorithms" / "extra_table.csv").write_text("a,b\n1,2\n")
    after = sources.planned_paper_modules(PAPER)
    assert "algorithms/extra_table.csv" in after and "algorithms/extra_table.csv" not in before
