"""Mutation testing of the claims: patches that apply exactly once, scratch copies that leave the package
alone, the rerun rule, the status classification and the report lines (unit tests), and the mutants DAG of
every paper (dry runs in a temporary copy of the project, slow)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from repo_copy import copy_repo, run_snakemake

from banditrepro import numba_cache
from banditrepro.experiments.spec import discover_papers, load_paper
from banditrepro.mutation import (
    PACKAGE_DIR,
    Mutant,
    MutantError,
    apply_patch,
    check_mutants,
    mutant_figures,
    mutants_of,
    mutated_algorithms,
    mutated_experiments,
    run_job,
    write_scratch_copy,
)
from banditrepro.report.mutants import (
    CAUGHT,
    EQUIVALENT,
    ESCAPED,
    MISLEADING,
    at_first_look,
    classify,
    mutants_table,
    mutation_lines,
    mutation_score,
    overall_mutation_lines,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = discover_papers(REPO_ROOT)


# ------------------------------------------------------------------------------------------------ patches


def test_a_patch_applies_to_exactly_one_occurrence():
    assert apply_patch("a = 1\nb = 2\n", "b = 2", "b = 3") == "a = 1\nb = 3\n"


@pytest.mark.parametrize("text, count", [("a = 1\n", 0), ("b = 2\nb = 2\n", 2)])
def test_a_patch_found_zero_or_two_times_is_refused(text, count):
    with pytest.raises(MutantError, match=f"occurs {count} times"):
        apply_patch(text, "b = 2", "b = 3", "toy.py")


def test_a_patch_is_one_line_and_changes_something():
    with pytest.raises(MutantError, match="line break"):
        apply_patch("a\nb\n", "a\nb", "a\nc")
    with pytest.raises(MutantError, match="same"):
        apply_patch("a\n", "a", "a")


@pytest.mark.parametrize("paper", PAPERS)
def test_every_declared_mutant_applies_exactly_once_and_reruns_an_experiment(paper):
    spec = load_paper(paper, "paper", REPO_ROOT)
    mutants = check_mutants(spec)  # raises on a patch found 0 or 2+ times, or an algorithm nothing runs
    assert len(mutants) >= 6, f"{paper} declares {len(mutants)} mutants; at least 6 (docs/mutants.md, 'Declaring mutants')"
    for m in mutants:
        assert m.description and "\n" not in m.description
        text = (PACKAGE_DIR / m.file).read_text(encoding="utf-8")
        assert text.count(m.old) == 1


def test_mutant_ids_are_unique_across_papers():
    ids = [m.id for paper in PAPERS for m in mutants_of(load_paper(paper, "paper", REPO_ROOT))]
    assert len(ids) == len(set(ids))


def _toy_mutant(**kw):
    fields = {"id": "toy", "paper": "toy", "algorithm": "ucb", "description": "d", "file": "rng.py",
              "old": "x", "new": "y"}
    return Mutant(**{**fields, **kw})


def test_check_mutants_refuses_a_patch_that_does_not_apply(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\nx = 1\n")
    spec = SimpleNamespace(paper="toy", claims=[], experiments={}, config={"mutants": [
        {"id": "m", "algorithm": "ucb", "description": "d", "patch": {"file": "a.py", "old": "x = 1", "new": "x = 2"}}]})
    with pytest.raises(MutantError, match="occurs 2 times"):
        check_mutants(spec, pkg)
    spec.config["mutants"][0]["patch"]["file"] = "missing.py"
    with pytest.raises(MutantError, match="no such file"):
        check_mutants(spec, pkg)


def test_the_rerun_rule_follows_algorithm_names_and_parameter_values():
    experiments = {
        "e1": SimpleNamespace(config={"algorithms": {"ucb": {"policy": "ucb"}, "ts": {"policy": "ts"}}}),
        "e2": SimpleNamespace(config={"algorithms": {"sel": {"algorithm": "select", "oracle": "ucb"}}}),
        "e3": SimpleNamespace(config={"algorithms": {"ts": {"policy": "ts"}}}),
    }
    spec = SimpleNamespace(experiments=experiments)
    assert mutated_experiments(spec, _toy_mutant(algorithm="ucb"), ["e1", "e2", "e3"]) == ["e1", "e2"]
    assert mutated_experiments(spec, _toy_mutant(algorithm="select"), ["e1", "e2", "e3"]) == ["e2"]
    assert mutated_experiments(spec, _toy_mutant(algorithm="select", shared_with=("ts",)),
                               ["e1", "e2", "e3"]) == ["e1", "e2", "e3"]
    # within an experiment only the algorithms that run the mutated line rerun; the others are copied
    assert mutated_algorithms(spec, _toy_mutant(algorithm="ucb"), "e1") == ["ucb"]
    assert mutated_algorithms(spec, _toy_mutant(algorithm="ucb"), "e2") == ["sel"]
    assert mutated_algorithms(spec, _toy_mutant(algorithm="ucb"), "e3") == []
    assert mutated_algorithms(spec, _toy_mutant(algorithm="ucb", shared_with=("ts",)), "e1") == ["ucb", "ts"]


def test_mutants_rebuild_the_figures_of_headline_and_sanity_claims():
    spec = SimpleNamespace(claims=[{"figure": "f1", "kind": "variant"}, {"figure": "f2", "kind": "sanity"},
                                   {"figure": "f3", "kind": "headline"}, {"figure": "f2", "kind": "headline"}])
    assert mutant_figures(spec) == ["f2", "f3"]


# ------------------------------------------------------------------------------------------ scratch copies


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def test_a_scratch_copy_carries_the_bug_and_leaves_the_package_untouched(tmp_path):
    mutant = mutants_of(load_paper("satisficing_ucl", "paper", REPO_ROOT))[0]
    before = _tree_digest(PACKAGE_DIR)
    copy = write_scratch_copy(mutant, tmp_path / "package")
    assert _tree_digest(PACKAGE_DIR) == before  # the installed package is untouched
    original = (PACKAGE_DIR / mutant.file).read_text().splitlines()
    mutated = (copy / mutant.file).read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, mutated, strict=True)) if a != b]
    assert len(changed) == 1 and mutant.new in mutated[changed[0]]
    assert not list(copy.rglob("__pycache__"))
    assert json.loads((tmp_path / "package" / "mutant.json").read_text())["id"] == mutant.id


def test_a_job_with_the_copy_on_pythonpath_imports_the_copy_and_its_own_numba_cache(tmp_path):
    mutant = mutants_of(load_paper("satisficing_ucl", "paper", REPO_ROOT))[0]
    package = tmp_path / "package"
    write_scratch_copy(mutant, package)
    code = ("import json, banditrepro, banditrepro.numba_cache as nc; "
            "print(json.dumps([banditrepro.__file__, str(nc.cache_dir())]))")
    env = {**os.environ, "PYTHONPATH": str(package), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    module_file, cache = json.loads(out.stdout)
    assert Path(module_file).resolve().parent == (package / "banditrepro").resolve()
    production = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert Path(cache).parent == production.parent and Path(cache) != production  # keyed by the mutated source


def test_a_job_refuses_to_run_under_the_installed_package(tmp_path):
    with pytest.raises(MutantError, match="must run the scratch copy"):
        run_job(tmp_path, {"script": str(REPO_ROOT / "workflow" / "scripts" / "claims.py")})


# ------------------------------------------------------------------------------------------ classification


def _claims(*rows):
    return pd.DataFrame([{"claim_id": cid, "kind": kind, "measured": measured, "verdict": verdict}
                         for cid, kind, measured, verdict in rows])


MAIN = _claims(("H1", "headline", "1.0", "reproduced"), ("H2", "headline", "2.0", "not_reproduced"),
               ("S1", "sanity", "3.0", "reproduced"), ("V1", "variant", "4.0", "reproduced"))


@pytest.mark.parametrize("rows, status, flipped, moved", [
    # a headline verdict drops: caught
    ([("H1", "headline", "0.5", "inconclusive"), ("H2", "headline", "2.0", "not_reproduced")], CAUGHT,
     ["H1: reproduced -> inconclusive"], ["H1"]),
    # a sanity verdict drops while a headline one rises: caught (a reader is alerted)
    ([("H2", "headline", "9.0", "reproduced"), ("S1", "sanity", "0.1", "not_reproduced")], CAUGHT,
     ["H2: not_reproduced -> reproduced", "S1: reproduced -> not_reproduced"], ["H2", "S1"]),
    # only upwards: misleading
    ([("H1", "headline", "1.0", "reproduced"), ("H2", "headline", "2.5", "inconclusive")], MISLEADING,
     ["H2: not_reproduced -> inconclusive"], ["H2"]),
    # a value moved, no verdict changed: escaped
    ([("H1", "headline", "1.1", "reproduced"), ("H2", "headline", "2.0", "not_reproduced")], ESCAPED, [], ["H1"]),
    # a variant claim's change does not count: equivalent
    ([("H1", "headline", "1.0", "reproduced"), ("V1", "variant", "0.0", "not_reproduced")], EQUIVALENT, [], []),
])
def test_status_classification(rows, status, flipped, moved):
    assert classify(MAIN, _claims(*rows)) == (status, flipped, moved)


def test_a_claim_decided_by_extra_replications_is_compared_at_the_papers_count():
    main = _claims(("C1", "headline", "ratio 2.57 (400 runs)", "not_reproduced"), ("H1", "headline", "1.0", "reproduced"))
    first = at_first_look(main, [{"claim": "C1", "look": 0, "measured": "ratio 1.97 (100 runs)",
                                  "verdict": "inconclusive"}])
    assert list(first.verdict) == ["inconclusive", "reproduced"] and list(main.verdict)[0] == "not_reproduced"
    # a mutant that changes nothing evaluates C1 at 100 runs too: equivalent, not "misleading"
    same = _claims(("C1", "headline", "ratio 1.97 (100 runs)", "inconclusive"), ("H1", "headline", "1.0", "reproduced"))
    assert classify(first, same)[0] == EQUIVALENT and classify(main, same)[0] == MISLEADING
    with pytest.raises(ValueError, match="expected look 0"):
        at_first_look(main, [{"claim": "C1", "look": 2, "measured": "x", "verdict": "reproduced"}])


def _table():
    mutants = [{"id": f"m{i}", "algorithm": "a", "description": f"bug {i}", "explanation": f"why {i}"}
               for i in range(5)]
    rebuilt = {"m0": _claims(("H1", "headline", "0", "not_reproduced")),
               "m1": _claims(("H2", "headline", "2.0", "reproduced")),
               "m2": _claims(("H1", "headline", "1.5", "reproduced")),
               "m3": _claims(("H1", "headline", "1.0", "reproduced")),
               "m4": _claims(("H1", "headline", "1.2", "reproduced"), ("S1", "sanity", "0", "not_reproduced"))}
    return mutants_table(mutants, MAIN, rebuilt)


def test_the_table_and_the_score():
    table = _table()
    assert list(table["status"]) == [CAUGHT, MISLEADING, ESCAPED, EQUIVALENT, CAUGHT]
    assert list(table["caught_by"]) == ["headline", "", "", "", "sanity"]
    assert table.loc[0, "explanation"] == ""  # caught by the paper's own statements: none needed
    assert table.loc[4, "explanation"] == "why 4"  # caught by a guard only: why the paper's statements miss it
    assert mutation_score(table) == (2, 4)  # caught / (planted - equivalent)


def test_the_reports_list_misleading_mutants_before_escaped_ones_with_their_explanation():
    text = "\n".join(mutation_lines(_table(), "toy"))
    assert "Mutation score: 2/4 (50 %) caught of 5 planted, 1 equivalent" in text
    assert text.index("**m1**") < text.index("**m2**") and "why 1" in text and "why 2" in text
    assert text.index("**m2**") < text.index("Caught only by sanity guards") < text.index("**m4**")
    assert "why 4" in text and "**m0**" not in text
    overall = "\n".join(overall_mutation_lines({"toy": _table()}))
    assert "| toy | 2/4 (50 %)" in overall and overall.index("`toy` **m1**") < overall.index("`toy` **m2**")
    assert overall.index("`toy` **m2**") < overall.index("`toy` **m4**")


# ------------------------------------------------------------------------------------------- the DAG (slow)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_repo(tmp_path_factory.mktemp("mutants") / "repo")


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_the_mutants_dag_dry_runs(workdir, paper):
    proc = run_snakemake(workdir, "-n", f"mutants_{paper}", "--config", "scale=smoke")
    assert "mutant_simulate_shard" in proc.stdout and "mutants_csv" in proc.stdout


def test_a_mutant_job_offers_the_named_lists_the_workflow_scripts_read():
    """workflow/scripts/claims.py reads its optional input as ``snakemake.input.get("sequential", [])``;
    the mutant job's stand-in for the snakemake object must answer it as Snakemake's named lists do."""
    from banditrepro.mutation import JobContext

    job = JobContext({"input": {"summary": "s.csv", "sequential": ["look1.json"]}, "log": ["x.log"]}, Path("c.py"))
    assert job.input.summary == "s.csv" and job.input[0] == "s.csv"
    assert job.input.get("sequential", []) == ["look1.json"]
    assert JobContext({"input": {"summary": "s.csv"}}, Path("c.py")).input.get("sequential", []) == []
    assert job.log[0] == "x.log" and job.log.get("anything") is None
