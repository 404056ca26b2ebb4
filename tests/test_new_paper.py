"""A sixth paper added from its own files, following only docs/ADDING_A_PAPER.md (issue #13.3).

The test copies the project (what a fresh clone holds, by ``repo_copy.copy_repo`` as the workflow tests do;
with no data mirror there it turns downloads off) into a temporary directory, writes the files of
the guide's "smallest complete paper" section there, exactly as the guide prints them (every fenced
block with a ``title="<path>"``), edits nothing else, and builds the new paper's target at smoke scale
with Snakemake in a subprocess whose PYTHONPATH puts the copy's ``src`` first.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from repo_copy import REPO_ROOT, copy_repo

from banditrepro.report.vocabulary import VERDICTS

GUIDE = REPO_ROOT / "docs" / "ADDING_A_PAPER.md"
FILE_BLOCK = re.compile(r'^```\w+ title="(?P<path>[^"]+)"\n(?P<body>.*?)^```$', re.MULTILINE | re.DOTALL)


def guide_files() -> dict[str, str]:
    """{path: text} of every file the guide prints with a title."""
    return {m["path"]: m["body"] for m in FILE_BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))}


def test_the_guide_prints_a_package_and_a_config_of_one_new_paper():
    files = guide_files()
    configs = [p for p in files if p.startswith("config/papers/")]
    packages = [p for p in files if p.startswith("src/banditrepro/experiments/")]
    assert len(configs) == 1 and packages, sorted(files)
    paper = Path(configs[0]).stem
    assert all(p.startswith(f"src/banditrepro/experiments/{paper}/") for p in packages)
    assert not (REPO_ROOT / configs[0]).exists(), "the guide's example must be a new paper"
    # nothing in the guide asks for a paper list to be edited
    assert set(files) == {configs[0], *packages}


@pytest.mark.slow
def test_a_new_paper_builds_from_the_guide_alone(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    files = guide_files()
    for rel, text in files.items():
        assert not (repo / rel).exists(), rel
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    paper = next(Path(p).stem for p in files if p.startswith("config/papers/"))

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba_cache")
    env["BANDITREPRO_DATA_MIRROR"] = str(tmp_path / "no-mirror")  # the toy paper needs no data
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", paper, "--config", "scale=smoke",
                           "--directory", str(repo), "--snakefile", str(repo / "Snakefile")],
                          capture_output=True, text=True, env=env, timeout=600)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"

    for ext in ("png", "pdf"):
        assert (repo / "figures" / paper / f"fig1.{ext}").stat().st_size > 1000
    summary = pd.read_csv(repo / "results" / paper / "fig1" / "summary.csv")
    assert list(summary.columns) == ["panel", "algorithm", "metric", "t", "mean", "se", "n"]
    assert set(summary.algorithm) == {"ucb1", "ucb1_c05"} and set(summary.metric) == {"regret"}
    assert summary.t.max() == 300 and summary.n.min() == 12
    claims = pd.read_csv(repo / "results" / paper / "claims.csv")
    assert list(claims.claim_id) == ["C1"]
    assert claims.verdict.iloc[0] in VERDICTS
    assert claims.kind.iloc[0] == "headline"
    assert (repo / "results" / paper / "report.md").read_text().strip()
    # only the new paper was built
    assert sorted(p.name for p in (repo / "results").iterdir()) == [paper]
    print(f"new paper built in {elapsed:.1f} s wall")
