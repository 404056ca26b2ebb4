"""Mutation testing of the claims: patches that apply where they say, what each patch reaches (policy or shared
code) and so reruns, scratch copies that leave the project alone, the status classification, what catches a
mutant and the report lines (unit tests), and the mutants DAG of every paper (dry runs in a temporary copy of
the project, slow)."""

from __future__ import annotations

import hashlib
import json
import os
import re
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
    POLICY,
    REFERENCE,
    SHARED,
    THEORY,
    Mutant,
    MutantError,
    Reach,
    apply_patch,
    check_mutants,
    guard_kinds,
    mutant_figures,
    mutants_of,
    mutated_algorithms,
    mutated_experiments,
    names_run,
    paper_code,
    patch_line,
    run_job,
    write_scratch_tree,
)
from banditrepro.report.mutants import (
    CAUGHT,
    EQUIVALENT,
    ESCAPED,
    MISLEADING,
    MUTANT_COLUMNS,
    at_first_look,
    caught_by,
    classify,
    moved_rows,
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


def test_a_patch_that_says_which_occurrence_substitutes_that_one():
    text = "x = 1\ny = 0\nx = 1\n"
    assert apply_patch(text, "x = 1", "x = 2", occurrence=2) == "x = 1\ny = 0\nx = 2\n"
    assert apply_patch(text, "x = 1", "x = 2", occurrence=1) == "x = 2\ny = 0\nx = 1\n"
    with pytest.raises(MutantError, match="occurrence 3"):
        apply_patch(text, "x = 1", "x = 2", occurrence=3)


def test_a_patch_is_one_line_and_changes_something():
    with pytest.raises(MutantError, match="line break"):
        apply_patch("a\nb\n", "a\nb", "a\nc")
    with pytest.raises(MutantError, match="same"):
        apply_patch("a\n", "a", "a")


@pytest.mark.parametrize("paper", PAPERS)
def test_every_declared_mutant_applies_and_reruns_something(paper):
    spec = load_paper(paper, "paper", REPO_ROOT)
    checked = check_mutants(spec)  # raises on a patch that does not apply, or one no rebuilt job runs
    assert len(checked) >= 6, (f"{paper} declares {len(checked)} mutants; every paper declares at least 6 "
                               "(docs/mutants.md, Declaring mutants)")
    for m, reach in checked:
        assert m.description and "\n" not in m.description
        assert reach.where in (POLICY, SHARED) and (reach.where == SHARED) == (not reach.policies)
    # issue 39: bugs where every run shares the code, not only in policies; a paper whose algorithms run no
    # policy-owned code (docs/ADDING_A_PAPER.md's toy: the generic engine's UCB1, whose module declares no
    # POLICY_ENTRIES) has only shared code to plant bugs in
    code = paper_code(paper)
    named = set().union(*(names_run(a, entry) for exp in spec.experiments.values()
                          for a, entry in exp.config["algorithms"].items()))
    kinds = (POLICY, SHARED) if any(owners & named for owners in code.owners.values()) else (SHARED,)
    for where in kinds:
        ids = [m.id for m, reach in checked if reach.where == where]
        assert len(ids) >= 4, (f"{paper} declares {len(ids)} {where} mutants ({', '.join(ids)}); every paper "
                               f"declares at least 4 in policy and 4 in shared code (docs/mutants.md)")


def test_mutant_ids_are_unique_across_papers():
    ids = [m.id for paper in PAPERS for m in mutants_of(load_paper(paper, "paper", REPO_ROOT))]
    assert len(ids) == len(set(ids))


def _toy_mutant(**kw):
    fields = {"id": "toy", "paper": "toy", "algorithm": "ucb", "description": "d", "file": "rng.py",
              "old": "x", "new": "y"}
    return Mutant(**{**fields, **kw})


def test_check_mutants_refuses_a_patch_that_does_not_apply(tmp_path):
    pkg = tmp_path / "src" / "banditrepro"
    (pkg / "experiments" / "toy").mkdir(parents=True)
    for init in ("__init__.py", "experiments/__init__.py", "experiments/toy/__init__.py"):
        (pkg / init).write_text("")
    (pkg / "a.py").write_text("x = 1\nx = 1\n")
    spec = SimpleNamespace(paper="toy", claims=[], experiments={}, config={"mutants": [
        {"id": "m", "algorithm": "ucb", "description": "d", "patch": {"file": "a.py", "old": "x = 1", "new": "x = 2"}}]})
    with pytest.raises(MutantError, match="occurs 2 times"):
        check_mutants(spec, pkg)
    spec.config["mutants"][0]["patch"]["file"] = "missing.py"
    with pytest.raises(MutantError, match="no such file"):
        check_mutants(spec, pkg)


# ------------------------------------------------------------------------------- what a patch reaches


def _reach(paper, mutant_id):
    m = next(m for m in mutants_of(load_paper(paper, "paper", REPO_ROOT)) if m.id == mutant_id)
    return paper_code(paper).reach(m)


@pytest.mark.parametrize("paper, mutant, where, policies, unit", [
    # a policy's own kernel: its runs only
    ("penalized_fairness", "lfg_queues_never_grow", POLICY, {"lfg"}, "algorithms/fairness.py:update_queues"),
    # the pull bookkeeping every fairness policy runs (declared an entry of each): all three policies
    ("penalized_fairness", "mean_off_by_one", POLICY, {"ht_ucb", "lfg", "flearn"}, "algorithms/fairness.py:record_pull"),
    # reached only through SAT-UCB's entry, which SAT-UCB+ shares
    ("satisficing_select", "sat_ucb_radius_without_two", POLICY, {"sat_ucb", "sat_ucb_plus"},
     "algorithms/satisficing_ucb.py:confidence_scale"),
    # SELECT's own loop lives in the paper's loops, which no entry map declares: the whole paper
    ("satisficing_select", "select_lcb_without_log", SHARED, set(), "experiments/satisficing_select/loops.py:run_select"),
    # the variant table of a builder: shared, whatever the label says
    ("satisficing_ucl", "satisficing_delta_divisor_two", SHARED, set(), "experiments/satisficing_ucl/builders.py:VARIANTS"),
    ("composite_anonymous", "odaaf_first_gap_quarter", SHARED, set(), "experiments/composite_anonymous/loops.py:odaaf_run"),
])
def test_what_a_declared_patch_reaches(paper, mutant, where, policies, unit):
    assert _reach(paper, mutant) == Reach(where, frozenset(policies), unit)


def test_a_policy_patch_reruns_the_algorithms_running_that_policy_and_a_shared_one_all():
    spec = load_paper("satisficing_select", "paper", REPO_ROOT)
    thompson = _reach("satisficing_select", "thompson_posterior_sd_over_n")
    assert thompson.policies == {"thompson"}
    # SELECT with the Thompson oracle runs the patched kernel too (its `oracle` names it); SAT-UCB does not
    assert mutated_algorithms(spec, thompson, "finite_nonrealizable") == ["select", "thompson", "select_v3"]
    shared = _reach("satisficing_select", "select_lcb_without_log")
    assert mutated_algorithms(spec, shared, "finite_nonrealizable") == list(spec.experiments["finite_nonrealizable"].algorithms)


def test_the_rerun_rule_follows_algorithm_names_and_parameter_values():
    experiments = {
        "e1": SimpleNamespace(config={"algorithms": {"ucb": {"policy": "ucb"}, "ts": {"policy": "ts"}}}),
        "e2": SimpleNamespace(config={"algorithms": {"sel": {"algorithm": "select", "oracle": "ucb"}}}),
        "e3": SimpleNamespace(config={"algorithms": {"ts": {"policy": "ts"}}}),
    }
    spec = SimpleNamespace(experiments=experiments)
    ucb, select = Reach(POLICY, frozenset({"ucb"}), "u"), Reach(POLICY, frozenset({"select"}), "u")
    assert mutated_experiments(spec, ucb, ["e1", "e2", "e3"]) == ["e1", "e2"]
    assert mutated_experiments(spec, select, ["e1", "e2", "e3"]) == ["e2"]
    assert mutated_experiments(spec, Reach(SHARED, frozenset(), "u"), ["e1", "e2", "e3"]) == ["e1", "e2", "e3"]
    assert mutated_algorithms(spec, ucb, "e1") == ["ucb"] and mutated_algorithms(spec, ucb, "e2") == ["sel"]
    assert mutated_algorithms(spec, ucb, "e3") == []
    assert mutated_algorithms(spec, Reach(SHARED, frozenset(), "u"), "e1") == ["ucb", "ts"]


def test_a_patch_no_job_of_the_paper_imports_is_refused():
    code = paper_code("satisficing_ucl")
    other = _toy_mutant(paper="satisficing_ucl", file="experiments/penalized_fairness/loops.py", old="GAUSSIAN = 0",
                        new="GAUSSIAN = 1")
    with pytest.raises(MutantError, match="no job of satisficing_ucl imports"):
        code.reach(other)


def test_workflow_scripts_are_shared_code_when_a_mutant_job_runs_them():
    code = paper_code("satisficing_ucl")
    claims = _toy_mutant(paper="satisficing_ucl", file="workflow/scripts/claims.py", old="print(verdict_line(claims))",
                         new="print(claims)")
    assert code.reach(claims) == Reach(SHARED, frozenset(), "workflow/scripts/claims.py")
    report = _toy_mutant(paper="satisficing_ucl", file="workflow/scripts/paper_report.py", old="import", new="import ",
                         occurrence=1)
    with pytest.raises(MutantError, match="no mutant job runs this script"):
        code.reach(report)


def test_preprocessing_is_rerun_when_its_job_imports_the_patched_module():
    code = paper_code("penalized_fairness")

    def reached(file, old):
        m = _toy_mutant(paper="penalized_fairness", file=file, old=old, new=old + " ", occurrence=1)
        return code.preprocessing_reached(m, code.reach(m), "movielens_1m")

    assert reached("data/movielens.py", "import")  # the preprocessor itself
    assert reached("portable.py", "import")  # a module it imports
    assert not reached("environments/finite.py", "import")  # the simulation's, not the preprocessing's
    lfg = mutants_of(load_paper("penalized_fairness", "paper", REPO_ROOT))[2]
    assert not code.preprocessing_reached(lfg, code.reach(lfg), "movielens_1m")  # policy code never is


def test_the_patched_line_is_found_where_the_occurrence_says(tmp_path):
    pkg = tmp_path / "src" / "banditrepro"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    assert patch_line(_toy_mutant(file="a.py", old="x = 1", occurrence=2), pkg) == 3
    assert patch_line(_toy_mutant(file="a.py", old="y = 2"), pkg) == 2


@pytest.mark.parametrize("paper", PAPERS)
def test_reference_guards_are_the_checks_that_run_a_reference_implementation(paper):
    """The kind of each sanity claim is read from its check's code: the checks that reach a reference.py
    (differential comparisons) are ``reference``, every other sanity check ``theory``. Every paper's
    reference guards use a ``*_matches_reference`` check."""
    spec = load_paper(paper, "paper", REPO_ROOT)
    kinds = guard_kinds(spec)
    fns = {c["id"]: c["check"]["fn"] for c in spec.claims if c["kind"] == "sanity"}
    assert set(kinds) == set(fns)
    assert {cid for cid, k in kinds.items() if k == REFERENCE} == {cid for cid, fn in fns.items()
                                                                   if fn.endswith("_matches_reference")}
    assert THEORY in kinds.values() and REFERENCE in kinds.values()


def test_mutants_rebuild_the_figures_of_headline_and_sanity_claims():
    spec = SimpleNamespace(claims=[{"figure": "f1", "kind": "variant"}, {"figure": "f2", "kind": "sanity"},
                                   {"figure": "f3", "kind": "headline"}, {"figure": "f2", "kind": "headline"}])
    assert mutant_figures(spec) == ["f2", "f3"]


# ------------------------------------------------------------------------------------------ scratch trees


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def test_a_scratch_copy_carries_the_bug_and_leaves_the_project_untouched(tmp_path):
    mutant = mutants_of(load_paper("satisficing_ucl", "paper", REPO_ROOT))[0]
    before = _tree_digest(PACKAGE_DIR), _tree_digest(REPO_ROOT / "workflow" / "scripts")
    processed = tmp_path / "mutant_data" / "movielens_1m"
    processed.mkdir(parents=True)
    copy = write_scratch_tree(mutant, tmp_path / "tree", REPO_ROOT, {"data/processed/movielens_1m": str(processed)})
    assert (_tree_digest(PACKAGE_DIR), _tree_digest(REPO_ROOT / "workflow" / "scripts")) == before
    original = (PACKAGE_DIR / mutant.file).read_text().splitlines()
    mutated = (copy / mutant.file).read_text().splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, mutated, strict=True)) if a != b]
    assert len(changed) == 1 and mutant.new in mutated[changed[0]]
    assert not list(copy.rglob("__pycache__"))
    tree = tmp_path / "tree"
    assert (tree / "workflow" / "scripts" / "claims.py").read_bytes() == (REPO_ROOT / "workflow/scripts/claims.py").read_bytes()
    assert (tree / "config").resolve() == (REPO_ROOT / "config").resolve()
    # only the replaced data set differs from the project's data
    assert (tree / "data" / "processed" / "movielens_1m").resolve() == processed.resolve()
    if (REPO_ROOT / "data" / "raw").exists():
        assert (tree / "data" / "raw").resolve() == (REPO_ROOT / "data" / "raw").resolve()
    assert json.loads((tree / "mutant.json").read_text())["id"] == mutant.id


def test_a_workflow_script_mutant_is_planted_in_the_copy_of_the_script(tmp_path):
    mutant = _toy_mutant(file="workflow/scripts/claims.py", old="print(verdict_line(claims))", new="print(claims)")
    write_scratch_tree(mutant, tmp_path / "tree", REPO_ROOT)
    assert "print(claims)" in (tmp_path / "tree" / "workflow" / "scripts" / "claims.py").read_text()
    assert _tree_digest(tmp_path / "tree" / "src" / "banditrepro") == _tree_digest(PACKAGE_DIR)


def test_a_job_with_the_copy_on_pythonpath_imports_the_copy_and_its_own_numba_cache(tmp_path):
    mutant = mutants_of(load_paper("satisficing_ucl", "paper", REPO_ROOT))[0]
    write_scratch_tree(mutant, tmp_path / "tree", REPO_ROOT)
    code = ("import json, banditrepro, banditrepro.numba_cache as nc; "
            "print(json.dumps([banditrepro.__file__, str(nc.cache_dir())]))")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "tree" / "src"), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    module_file, cache = json.loads(out.stdout)
    assert Path(module_file).resolve().parent == (tmp_path / "tree" / "src" / "banditrepro").resolve()
    production = numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert Path(cache).parent == production.parent and Path(cache) != production  # keyed by the mutated source


def test_a_job_refuses_to_run_under_the_installed_package(tmp_path):
    with pytest.raises(MutantError, match="must run the scratch copy"):
        run_job(tmp_path, {"script": "claims.py"})


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


MAIN_GUARDED = _claims(("H1", "headline", "1.0", "reproduced"), ("S1", "sanity", "3.0", "reproduced"),
                       ("R1", "sanity", "4.0", "reproduced"))
GUARDS = {"S1": THEORY, "R1": REFERENCE}


@pytest.mark.parametrize("rows, by", [
    ([("H1", "headline", "0", "not_reproduced"), ("R1", "sanity", "0", "not_reproduced")], "headline"),
    ([("S1", "sanity", "0", "not_reproduced"), ("R1", "sanity", "0", "not_reproduced")], "theory"),
    ([("H1", "headline", "1.5", "reproduced"), ("R1", "sanity", "0", "not_reproduced")], "reference"),
])
def test_what_catches_a_mutant_is_credited_headline_then_theory_then_reference(rows, by):
    status, flipped, _ = classify(MAIN_GUARDED, _claims(*rows))
    assert status == CAUGHT and caught_by(MAIN_GUARDED, flipped, GUARDS) == by


def test_readings_and_tables_that_move_make_a_mutant_escaped_not_equivalent():
    same = _claims(("H1", "headline", "1.0", "reproduced"))
    assert classify(MAIN, same, ["table:t1"]) == (ESCAPED, [], ["table:t1"])
    readings = pd.DataFrame({"reading": ["r", "r"], "headline_claim": ["H1", "H2"], "flips": ["no", "yes"]})
    changed = readings.assign(flips=["no", "no"])
    assert moved_rows("readings", readings, changed, ("reading", "headline_claim")) == ["readings:r/H2"]
    assert moved_rows("readings", readings, readings.copy(), ("reading", "headline_claim")) == []
    assert moved_rows("table:t", readings, changed) == ["table:t"]


def _table():
    mutants = [{"id": f"m{i}", "algorithm": "a", "description": f"bug {i}", "explanation": f"why {i}",
                "where": "policy" if i % 2 else "shared", "reruns": "a"} for i in range(6)]
    rebuilt = {"m0": _claims(("H1", "headline", "0", "not_reproduced")),
               "m1": _claims(("H2", "headline", "2.0", "reproduced")),
               "m2": _claims(("H1", "headline", "1.5", "reproduced")),
               "m3": _claims(("H1", "headline", "1.0", "reproduced")),
               "m4": _claims(("H1", "headline", "1.2", "reproduced"), ("S1", "sanity", "0", "not_reproduced")),
               "m5": _claims(("H1", "headline", "1.0", "reproduced"), ("S1", "sanity", "0", "inconclusive"))}
    return mutants_table(mutants, MAIN, rebuilt, {"S1": REFERENCE}, {"m2": ["table:t1"]})


def test_the_table_and_the_score():
    table = _table()
    assert tuple(table.columns[:7]) == ("mutant", "algorithm", "description", "status", "flipped_claims",
                                        "moved_claims", "where")  # the contract columns, first and in order
    assert tuple(table.columns) == MUTANT_COLUMNS
    assert list(table["status"]) == [CAUGHT, MISLEADING, ESCAPED, EQUIVALENT, CAUGHT, CAUGHT]
    assert list(table["caught_by"]) == ["headline", "", "", "", "reference", "reference"]
    assert table.loc[2, "moved_claims"] == "H1 table:t1"
    assert table.loc[0, "explanation"] == ""  # caught by the paper's own statements: none needed
    assert table.loc[4, "explanation"] == "why 4"  # caught by a guard only: why the paper's statements miss it
    assert mutation_score(table) == (3, 5)  # caught / (planted - equivalent)


def test_the_reports_give_the_score_by_where_and_by_what_catches():
    text = "\n".join(mutation_lines(_table(), "toy"))
    assert "Mutation score: 3/5 (60 %) caught of 6 planted, 1 equivalent" in text
    # shared: m0 (headline), m2 (escaped), m4 (reference); policy: m1 (misleading), m3 (equivalent), m5 (reference)
    assert "| shared | 3 | 1 (33 %) | 1 (33 %) | **2/3 (67 %)** | 0 | 1 | 0 |" in text
    assert "| policy | 3 | 0 (0 %) | 0 (0 %) | **1/2 (50 %)** | 1 | 0 | 1 |" in text
    assert "| all | 6 | 1 (20 %) | 1 (20 %) | **3/5 (60 %)** | 1 | 1 | 1 |" in text
    assert text.index("**m1**") < text.index("**m2**") and "why 1" in text and "why 2" in text
    assert text.index("**m2**") < text.index("Caught only by sanity guards") < text.index("**m4**")
    assert "caught by reference" in text and "why 4" in text and "**m0**" not in text
    overall = "\n".join(overall_mutation_lines({"toy": _table()}))
    assert "| toy | 3/5 (60 %)" in overall and "| `toy` shared | 3 |" in overall and "| every paper, all | 6 |" in overall
    assert overall.index("`toy` **m1**") < overall.index("`toy` **m2**") < overall.index("`toy` **m4**")


# ------------------------------------------------------------------------------------------- the DAG (slow)


@pytest.fixture(scope="module")
def mutants_dry_run(tmp_path_factory) -> str:
    """One dry run of every paper's `mutants_<paper>` target in a fresh copy (one Snakemake start, not five)."""
    workdir = copy_repo(tmp_path_factory.mktemp("mutants") / "repo")
    return run_snakemake(workdir, "-n", *(f"mutants_{p}" for p in PAPERS), "--config", "scale=smoke").stdout


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_the_mutants_dag_dry_runs(mutants_dry_run, paper):
    """The paper's mutants DAG plans a mutant's simulation shard and the paper's mutants table."""
    assert re.search(rf"results/mutants/[^/\s]+/{paper}/shards/\S+\.npz", mutants_dry_run), \
        f"no mutant simulation shard of {paper} planned"
    assert f"output: results/{paper}/mutants.csv" in mutants_dry_run, f"no mutants table of {paper} planned"


@pytest.mark.slow
def test_a_preprocessing_patch_preprocesses_the_data_set_under_the_copy(tmp_path):
    """A patch in MovieLens' preprocessing (shared code the preprocessing job imports) makes the mutant
    preprocess MovieLens itself and rerun every experiment; the main build's data are not rebuilt."""
    import yaml

    repo = copy_repo(tmp_path / "repo")
    config = repo / "config" / "papers" / "penalized_fairness.yaml"
    text = config.read_text()
    mutant = {"id": "movielens_count_off", "algorithm": "MovieLens preprocessing", "description": "test",
              "patch": {"file": "data/movielens.py", "old": "import", "new": "import ", "occurrence": 1}}
    config.write_text(text[: text.index("\nmutants:")] + "\n" + yaml.safe_dump({"mutants": [mutant]}))
    proc = run_snakemake(repo, "-n", "results/penalized_fairness/mutants.csv", "--config", "scale=smoke")
    if "movielens_1m unavailable" in proc.stderr:
        pytest.skip("MovieLens cannot be had here (no mirror, no download)")
    assert "mutant_data_preprocess_movielens_1m" in proc.stdout
    assert "results/mutants/movielens_count_off/data/processed/movielens_1m/" in proc.stdout


def test_a_mutant_job_offers_the_named_lists_the_workflow_scripts_read():
    """workflow/scripts/claims.py reads its optional input as ``snakemake.input.get("sequential", [])``;
    the mutant job's stand-in for the snakemake object must answer it as Snakemake's named lists do."""
    from banditrepro.mutation import JobContext

    job = JobContext({"input": {"summary": "s.csv", "sequential": ["look1.json"]}, "log": ["x.log"]}, Path("c.py"))
    assert job.input.summary == "s.csv" and job.input[0] == "s.csv"
    assert job.input.get("sequential", []) == ["look1.json"]
    assert JobContext({"input": {"summary": "s.csv"}}, Path("c.py")).input.get("sequential", []) == []
    assert job.log[0] == "x.log" and job.log.get("anything") is None
