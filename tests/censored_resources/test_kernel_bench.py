"""The censored kernels' CPU benchmark (experiments/censored_resources/bench.py): its table, its errors, its last line."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from banditrepro.experiments.censored_resources import bench

LAST_LINE = re.compile(r"^censored synthetic kernels: \d+ CPU-s for (\d+) experiments x (\d+) algorithms x (\d+) repetitions$")


# slow: times the paper's simulation loop, about 60 CPU-s to compile on an empty numba cache
@pytest.mark.slow
def test_rows_scale_the_timed_replications(repo_root):
    rows = bench.kernel_costs(repo_root, "smoke", reps=2, experiments=["f1m1_indep"], algorithms=["rcucb", "ts"])
    assert [(r["experiment"], r["algorithm"]) for r in rows] == [("f1m1_indep", "rcucb"), ("f1m1_indep", "ts")]
    for r in rows:
        assert r["timed_replications"] == 2 and r["replications"] == 6 and r["horizon"] == 3000
        assert r["cpu_s"] > 0.0
        assert r["cpu_s_all_replications"] == pytest.approx(r["cpu_s"] / 2 * 6)


def test_rejects_what_it_cannot_time(repo_root):
    with pytest.raises(ValueError, match="not synthetic experiments.*ames"):
        bench.kernel_costs(repo_root, "smoke", experiments=["ames"])
    with pytest.raises(ValueError, match="--reps must be below"):
        bench.kernel_costs(repo_root, "smoke", reps=6, experiments=["f3"])
    with pytest.raises(ValueError, match="--reps must be >= 1"):
        bench.kernel_costs(repo_root, "smoke", reps=0)


def test_table_sums_rows_and_columns():
    rows = [{"experiment": e, "algorithm": a, "cpu_s_all_replications": v}
            for e, a, v in (("x", "rcucb", 1.0), ("x", "ts", 2.0), ("y", "rcucb", 4.0), ("y", "ts", 8.0))]
    assert bench.format_table(rows) == [
        "| experiment | rcucb | ts | all |", "|---|---|---|---|",
        "| x | 1.00 | 2.00 | 3.00 |", "| y | 4.00 | 8.00 | 12.00 |", "| all | 5.00 | 10.00 | 15.00 |"]


@pytest.mark.slow
def test_main_ends_with_the_documented_line(repo_root, capsys, tmp_path):
    out_json = tmp_path / "rows.json"
    bench.main(["--scale", "smoke", "--reps", "1", "--experiments", "f3", "s51_indep", "--algorithms", "ucb",
                "--repo-root", str(repo_root), "--json", str(out_json)])
    lines = capsys.readouterr().out.strip().splitlines()
    assert LAST_LINE.match(lines[-1]).groups() == ("2", "1", "6")
    assert [line.split(" | ")[0] for line in lines[3:5]] == ["| f3", "| s51_indep"]
    assert out_json.read_text().count('"experiment"') == 2


def test_runs_as_a_script_for_older_checkouts(repo_root):
    """Run by path (how it times an older checkout through PYTHONPATH): absolute imports only."""
    done = subprocess.run([sys.executable, bench.__file__, "--help"], capture_output=True, text=True, cwd=repo_root)
    assert done.returncode == 0, done.stderr
    assert "--repo-root" in done.stdout
