"""The results lock (banditrepro.lock): hashing, row diffs, verdict tolerance."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from banditrepro import lock as L
from banditrepro import provenance
from banditrepro.layout import result_csvs

REPO_ROOT = Path(__file__).resolve().parents[1]

SUMMARY = """panel,algorithm,metric,t,mean,se,n
regret,A1_P1,regret,1,3.0,0.0,24
regret,A1_P1,regret,2,5.0,0.0,24
regret,A2_P2,regret,1,1.5,0.1,24
regret,A2_P2,regret,2,2.5,0.2,24
"""


def _write(root: Path, rel: str, text: str) -> str:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    return rel


def test_normalise_leaves_out_comments_provenance_and_wall_clock_columns():
    text = ("# git commit abc123\nconfigurations,total training time (s),git_commit,reward\n"
            "4,0.51,abc123,0.95\n")
    other = "configurations,total training time (s),git_commit,reward\n4,0.73,def456,0.95\n"
    assert L.normalise(text) == L.normalise(other)
    assert L.normalise(text) == f"configurations,total training time (s),git_commit,reward\n4,{L.MASK},{L.MASK},0.95\n"
    assert L.masked_columns(text) == ["total training time (s)", "git_commit"]
    # a result column is never masked: a changed reward changes the hash
    assert L.sha256(L.normalise(other)) != L.sha256(L.normalise(other.replace("0.95", "0.96")))


def test_diff_names_paper_figure_algorithm_t_and_both_values():
    new = SUMMARY.replace("regret,A2_P2,regret,2,2.5,0.2,24", "regret,A2_P2,regret,2,2.75,0.2,24")
    lines = L.diff_rows("satisficing_ucl, fig1", SUMMARY, new)
    assert lines == [("satisficing_ucl, fig1, panel=regret, algorithm=A2_P2, metric=regret, t=2: "
                      "mean locked 2.5 new 2.75")]


def test_diff_names_first_rows_only_and_rows_added_or_removed():
    new = SUMMARY.replace(",3.0,", ",3.5,").replace(",5.0,", ",5.5,").replace(",1.5,", ",1.25,")
    assert len(L.diff_rows("p, f", SUMMARY, new, limit=2)) == 2
    dropped = "\n".join(SUMMARY.splitlines()[:-1]) + "\nregret,A2_P2,regret,3,3.5,0.2,24\n"
    lines = L.diff_rows("p, f", SUMMARY, dropped)
    assert lines == ["p, f, panel=regret, algorithm=A2_P2, metric=regret, t=2: row missing from the new file",
                     "p, f, panel=regret, algorithm=A2_P2, metric=regret, t=3: row not in the lock"]
    table = "problem,k,value\nP1,1,0.5\nP2,2,0.7\n"
    assert L.diff_rows("p, table table1", table, table.replace("0.7", "0.8")) == [
        "p, table table1, problem=P2: value locked 0.7 new 0.8"]
    assert L.diff_rows("p, f", SUMMARY, SUMMARY.replace("mean,se", "mean,sd"))[0].startswith(
        "columns differ")


def test_lock_round_trip_detects_a_changed_value_and_is_byte_stable(tmp_path):
    files = {_write(tmp_path, "results/p/fig1/summary.csv", SUMMARY): "fig1",
             _write(tmp_path, "results/p/claims.csv", "claim_id,measured,verdict,kind\nC1,0.5,reproduced,headline\n"): "claims"}
    lock, content = L.make_lock(tmp_path, "p", "smoke", files, {"fig9": "needs x (unavailable)"}, seed=1)
    written = L.write_lock(tmp_path, lock, content)
    first = [p.read_bytes() for p in written]
    L.write_lock(tmp_path, *L.make_lock(tmp_path, "p", "smoke", files, {"fig9": "needs x (unavailable)"}, seed=1))
    assert [p.read_bytes() for p in written] == first, "rewriting an unchanged lock changed its bytes"
    stored = L.read_lock(tmp_path, "p", "smoke")
    assert set(stored["versions"]) == {"python", *L.VERSIONED_PACKAGES}
    assert stored["not_built"] == {"fig9": "needs x (unavailable)"}
    assert json.loads(gzip.decompress(written[1].read_bytes()))["results/p/fig1/summary.csv"] == SUMMARY
    assert L.verify_paper(tmp_path, stored, files) == []

    _write(tmp_path, "results/p/fig1/summary.csv", SUMMARY.replace(",5.0,", ",5.25,"))
    diffs = L.verify_paper(tmp_path, stored, files)
    assert [(d.path, d.problem) for d in diffs] == [("results/p/fig1/summary.csv", "differs")]
    assert diffs[0].rows == ["p, fig1, panel=regret, algorithm=A1_P1, metric=regret, t=2: mean locked 5.0 new 5.25"]
    extra = _write(tmp_path, "results/p/fig2/summary.csv", SUMMARY)
    assert ("results/p/fig2/summary.csv", "not in lock") in [(d.path, d.problem)
                                                            for d in L.verify_paper(tmp_path, stored, {**files, extra: "fig2"})]


def test_version_differences_name_package_installed_and_locked():
    installed = L.installed_versions()
    assert L.version_differences(installed) == []
    locked = dict(installed, numpy="1.0.0")
    assert L.version_differences(locked) == [f"numpy {installed['numpy']} (lock: 1.0.0)"]


@pytest.mark.parametrize("old, new, agrees", [
    ("a = 1.845, R^2 = 0.9727", "a = 1.845, R^2 = 0.9727", True),
    ("a = 1.845, R^2 = 0.9727", "a = 1.846, R^2 = 0.9727", True),  # one unit of the last printed digit
    ("a = 1.845, R^2 = 0.9727", "a = 1.848, R^2 = 0.9727", False),
    ("gap = 12345.6", "gap = 12350.0", True),  # 1e-3 relative
    ("gap = 12345.6", "gap = 12400.0", False),
    ("a = 1.845", "b = 1.845", False),  # the text around the numbers compares exactly
    ("ratio = nan", "ratio = nan", True),
    ("ratio = nan", "ratio = 0.5", False),
    ("3 vs 18", "3 vs 18", True),
    ("3 vs 18", "4 vs 18", False),
])
def test_measured_values_compare_within_the_stated_tolerance(old, new, agrees):
    assert L.measured_agrees(old, new) is agrees


def test_verdicts_rewrite_keeps_other_papers_and_verify_names_changes(tmp_path):
    claims = tmp_path / "claims.csv"
    claims.write_text("claim_id,figure,statement,measured,threshold,verdict,kind\n"
                      "C1,f,s,x = 0.5,t,reproduced,headline\nC2,f,s,y = 2,t,not_reproduced,variant\n")
    verdicts = tmp_path / "verdicts.csv"
    verdicts.write_text("paper,claim_id,kind,measured,verdict\nq,D1,headline,1,reproduced\n")
    L.write_verdicts(verdicts, {"p": claims}, order=["p", "q"])
    rows = L.read_verdicts(verdicts)
    assert [(r["paper"], r["claim_id"]) for r in rows] == [("p", "C1"), ("p", "C2"), ("q", "D1")]
    assert L.verify_verdicts(rows, "p", claims) == []
    claims.write_text(claims.read_text().replace("x = 0.5,t,reproduced", "x = 0.7,t,inconclusive"))
    lines = L.verify_verdicts(rows, "p", claims)
    assert lines[0] == "p, claim C1: verdict locked reproduced new inconclusive"
    assert "measured locked 'x = 0.5' new 'x = 0.7'" in lines[1]


def test_rows_of_figures_not_built_here_are_left_out_of_the_claims_comparison(tmp_path):
    claims = ("claim_id,figure,measured,verdict\nC1,fig1,0.5,reproduced\n"
              "C2,fig5,0.9,reproduced\n")
    files = {_write(tmp_path, "results/p/claims.csv", claims): "claims"}
    lock, content = L.make_lock(tmp_path, "p", "smoke", files, {}, seed=1)
    L.write_lock(tmp_path, lock, content)
    stored = L.read_lock(tmp_path, "p", "smoke")
    no_data = claims.replace("C2,fig5,0.9,reproduced", "C2,fig5,figure not built,inconclusive")
    _write(tmp_path, "results/p/claims.csv", no_data)
    assert L.verify_paper(tmp_path, stored, files, not_built_here={"fig5"}) == []
    assert L.verify_paper(tmp_path, stored, files)[0].rows == [
        "p, claims, claim_id=C2: measured locked 0.9 new figure not built (and verdict)"]
    _write(tmp_path, "results/p/claims.csv", no_data.replace("C1,fig1,0.5", "C1,fig1,0.6"))
    assert L.verify_paper(tmp_path, stored, files, not_built_here={"fig5"})[0].rows == [
        "p, claims, claim_id=C1: measured locked 0.5 new 0.6"]


def test_measured_time_figures_are_those_replaying_the_forest_timings():
    from banditrepro.experiments.options import declared_options, measured_time_experiments, resolve_options
    from banditrepro.experiments.spec import load_paper

    spec = load_paper("censored_resources", "smoke", REPO_ROOT)
    options = declared_options(REPO_ROOT)
    cached = measured_time_experiments(options, "censored_resources", resolve_options({}, options))
    assert cached == {}  # the shipped table: the same times everywhere
    recompute = measured_time_experiments(options, "censored_resources",
                                          resolve_options({"ames_forest": "recompute"}, options))
    found = L.measured_time_figures(spec, list(spec.figures), recompute)
    assert set(found) == {"fig5", "reading_ames"}  # the Ames figure and its alternative readings
    files = result_csvs("censored_resources", ["fig5", "fig4"], ["table_ames", "table_s51"])
    assert L.measured_time_files(spec, found, files) == [
        "results/censored_resources/fig5/summary.csv", "results/censored_resources/fig5/reference.csv",
        "results/censored_resources/tables/table_ames.csv"]
    ucl = load_paper("satisficing_ucl", "smoke", REPO_ROOT)
    assert L.measured_time_figures(ucl, list(ucl.figures), recompute) == {}


def test_claims_rows_of_measured_time_figures_are_not_locked(tmp_path):
    claims = "claim_id,figure,measured,verdict\nC1,fig1,0.5,reproduced\nC5,fig5,0.061,reproduced\n"
    files = {_write(tmp_path, "results/p/claims.csv", claims): "claims"}
    lock, content = L.make_lock(tmp_path, "p", "smoke", files, {}, seed=1, measured_time={"fig5": "timings"})
    L.write_lock(tmp_path, lock, content)
    stored = L.read_lock(tmp_path, "p", "smoke")
    assert "C5" not in content["results/p/claims.csv"]
    _write(tmp_path, "results/p/claims.csv", claims.replace("0.061,reproduced", "0.072,inconclusive"))
    assert L.verify_paper(tmp_path, stored, files) == []
    _write(tmp_path, "results/p/claims.csv", claims.replace("C1,fig1,0.5", "C1,fig1,0.4"))
    assert L.verify_paper(tmp_path, stored, files)[0].rows == ["p, claims, claim_id=C1: measured locked 0.5 new 0.4"]


# --- platform rounding: last-bit differences are named, never a failure or a reason to re-lock


def _locked_paper(root: Path, files: dict[str, tuple[str, str]]) -> tuple[dict, dict[str, str]]:
    """Lock ``{path: (what it holds, text)}``; returns the lock and ``{path: what it holds}``."""
    held = {_write(root, rel, text): what for rel, (what, text) in files.items()}
    lock, content = L.make_lock(root, "p", "smoke", held, {}, seed=1)
    L.write_lock(root, lock, content)
    return L.read_lock(root, "p", "smoke"), held


CLAIMS = "claim_id,figure,measured,verdict\nC1,fig1,a = 0.3 (R^2 = 0.99),reproduced\n"


def test_last_bit_differences_are_platform_rounding_with_their_largest_relative_difference(tmp_path):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY),
                                           "results/p/claims.csv": ("claims", CLAIMS)})
    summary_path, claims_path = files
    _write(tmp_path, summary_path, SUMMARY.replace(",2.5,0.2,", ",2.5000000000000004,0.2,")
           .replace(",0.1,24", ",0.10000000000000002,24"))
    _write(tmp_path, claims_path, CLAIMS.replace("0.3 ", "0.30000000000000004 "))
    diffs = L.verify_paper(tmp_path, lock, files)
    assert [d.problem for d in diffs] == [L.PLATFORM_ROUNDING, L.PLATFORM_ROUNDING]
    assert diffs[1].path == "results/p/fig1/summary.csv"
    assert diffs[1].max_relative == pytest.approx(abs(0.1 - 0.10000000000000002) / 0.10000000000000002)
    assert diffs[1].rows == ["p, fig1, panel=regret, algorithm=A2_P2, metric=regret, t=1: se locked 0.1 "
                             "new 0.10000000000000002",
                             "p, fig1, panel=regret, algorithm=A2_P2, metric=regret, t=2: mean locked 2.5 "
                             "new 2.5000000000000004"]
    text = "\n".join(L.rounding_lines(diffs))
    worst = max(d.max_relative for d in diffs)
    assert text.startswith(f"platform rounding (max relative difference {worst:.2g}), not a change of results")
    assert "results/p/claims.csv: platform rounding" in text
    assert "Do not re-lock" in text and "snakemake --cores 2 lock" not in text


S_ROUNDED = SUMMARY.replace(",2.5,0.2,", ",2.5000000000000004,0.2,")


@pytest.mark.parametrize("new_summary, new_claims, expected", [
    # 4e-8 relative: a change of results
    (SUMMARY.replace(",2.5,0.2,", ",2.5000001,0.2,"), CLAIMS, {"summary": "differs"}),
    # a verdict changed beside a rounded number
    (S_ROUNDED, CLAIMS.replace("reproduced", "not_reproduced"),
     {"summary": L.PLATFORM_ROUNDING, "claims": "differs"}),
    # the text around the numbers changed
    (SUMMARY, CLAIMS.replace("0.3 (R^2", "0.30000000000000004 [R^2"), {"claims": "differs"}),
    # a row fewer
    (SUMMARY.replace("regret,A2_P2,regret,2,2.5,0.2,24\n", ""), CLAIMS, {"summary": "differs"}),
])
def test_any_other_difference_is_a_change_of_results(tmp_path, new_summary, new_claims, expected):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY),
                                           "results/p/claims.csv": ("claims", CLAIMS)})
    summary_path, claims_path = files
    _write(tmp_path, summary_path, new_summary)
    _write(tmp_path, claims_path, new_claims)
    diffs = L.verify_paper(tmp_path, lock, files)
    assert {Path(d.path).stem: d.problem for d in diffs} == expected
    assert bool(L.rounding_lines(diffs)) == (L.PLATFORM_ROUNDING in expected.values())


def test_cell_relative_difference_compares_numbers_inside_text():
    assert L.cell_relative_difference("a = 1.5, b = inf", "a = 1.5000000000000002, b = inf") == pytest.approx(
        2.220446049250313e-16 / 1.5000000000000002)
    assert L.cell_relative_difference("b = inf", "b = nan") is None
    assert L.cell_relative_difference("1.0", "1.0 s") is None
    assert L.cell_relative_difference("0.0", "1e-300") == 1.0


TREE_SOURCES = {"sha256": "a" * 64, "files": 3}  # the sources digest of "the tree" in the verify-script tests


#: the workflow scripts of "the tree" in the verify-script tests ({rule: banditrepro.sources.scripts_record})
TREE_SCRIPTS = {"summarize_figure": {"sha256": "d" * 64, "files": {"workflow/scripts/summarize_figure.py": "e" * 64,
                                                                   "workflow/scripts/worker_handoff.py": "f" * 64}}}
#: what a result made by those scripts records (banditrepro.workflow_io.job_scripts)
RECORDED_SCRIPTS = {"rule": "summarize_figure", **TREE_SCRIPTS["summarize_figure"]}
TREE_CONFIG = {"scale": "smoke"}  # the config subset the tree gives every result of these tests


def _record_sources(root: Path, files, sources: dict | None, config: dict = TREE_CONFIG,
                    scripts: dict | None = RECORDED_SCRIPTS) -> None:
    """Sidecars for ``files`` as a workflow job writes them, recording ``sources`` (None: recording none), the
    config subset ``config`` and the workflow ``scripts``."""
    for rel in files:
        with provenance.recording(scripts=scripts):
            prov = provenance.record(config, 1, root, sources)
        provenance.write_sidecar(root / rel, prov)


def _verify_params(root: Path, files: dict[str, str], shards=(), configs: dict | None = None, **more):
    """The verify rule's params for one paper ``p`` at smoke scale; every result's config is TREE_CONFIG unless
    ``configs`` says otherwise."""
    from types import SimpleNamespace

    configs = {rel: TREE_CONFIG for rel in [*files, "results/p/claims.csv", *shards]} | (configs or {})
    return SimpleNamespace(**{"repo_root": str(root), "scale": "smoke", "files": {"p": files}, "not_built": {"p": {}},
                              "measured_time": {"p": {}}, "verdict_papers": [], "papers": ["p"],
                              "sources": {"p": TREE_SOURCES}, "shards": {"p": list(shards)}, "configs": {"p": configs},
                              "scripts": TREE_SCRIPTS, "config_args": {}, **more})


def _run_verify_script(root: Path, files: dict[str, str], shards=(), recorded: dict | None = TREE_SOURCES,
                       config: dict = TREE_CONFIG, scripts: dict | None = RECORDED_SCRIPTS, **params
                       ) -> tuple[int, str]:
    """workflow/scripts/verify.py as the verify rule runs it (one paper, smoke scale), on results whose
    provenance records the sources ``recorded`` (the tree's, TREE_SOURCES, unless told), the config ``config``
    and the ``scripts``; ``params``: the rule's params that differ from _verify_params'."""
    import runpy
    from types import SimpleNamespace

    _record_sources(root, files, recorded, config, scripts)
    params = _verify_params(root, files, shards, **params)
    log = root / "verify.log"
    try:  # workflow_io.run returns on success and exits 1 on failure
        runpy.run_path(str(REPO_ROOT / "workflow" / "scripts" / "verify.py"),
                       init_globals={"snakemake": SimpleNamespace(params=params, log=[str(log)])})
        code = 0
    except SystemExit as stop:
        code = stop.code
    return code, log.read_text()


def test_verify_passes_platform_rounding_without_inviting_a_relock_and_fails_real_changes(tmp_path):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY)})
    (summary_path,) = files
    _write(tmp_path, summary_path, SUMMARY.replace(",2.5,0.2,", ",2.5000000000000004,0.2,"))
    code, text = _run_verify_script(tmp_path, files)
    assert code == 0, text
    assert text.startswith("verify OK at scale smoke")
    assert "platform rounding (max relative difference 1.8e-16), not a change of results" in text
    assert "mean locked 2.5 new 2.5000000000000004" in text
    assert "lock --config" not in text
    _write(tmp_path, summary_path, SUMMARY.replace(",2.5,0.2,", ",2.75,0.2,"))
    code, text = _run_verify_script(tmp_path, files)
    assert code == 1
    assert text.startswith("verify FAILED at scale smoke")
    assert "results/p/fig1/summary.csv: differs" in text and "mean locked 2.5 new 2.75" in text
    assert "platform rounding" not in text
    assert "snakemake --cores 2 lock --config scale=smoke" in text


def test_verify_without_a_lock_names_the_missing_file_and_the_paper_scoped_lock_command(tmp_path):
    """Nothing differs when there is nothing to compare: the message names the lock file and the command that
    makes it for that paper alone, not "results differ" and a re-lock of every paper."""
    import runpy
    from types import SimpleNamespace

    params = SimpleNamespace(repo_root=str(tmp_path), scale="smoke", files={}, not_built={}, measured_time={},
                             verdict_papers=[], papers=["toy"], config_args={})
    log = tmp_path / "verify.log"
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(REPO_ROOT / "workflow" / "scripts" / "verify.py"),
                       init_globals={"snakemake": SimpleNamespace(params=params, log=[str(log)])})
    text = log.read_text()
    assert stop.value.code == 1
    assert text.startswith("verify FAILED at scale smoke: no lock to compare with"), text
    assert "config/locks/toy.smoke.lock.json" in text
    assert "`snakemake --cores 2 lock --config scale=smoke 'papers=[toy]'`" in text
    assert "differ" not in text


def test_verify_offers_to_relock_only_the_papers_that_differ(tmp_path):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY)})
    (summary_path,) = files
    _write(tmp_path, summary_path, SUMMARY.replace(",2.5,0.2,", ",2.75,0.2,"))
    code, text = _run_verify_script(tmp_path, files)
    assert code == 1 and "`snakemake --cores 2 lock --config scale=smoke 'papers=[p]'`" in text, text


# ------------------------------------------------------------------------- results of other sources


def _shard(root: Path, rel: str, sources: dict | None) -> str:
    """A one-replication shard whose provenance records ``sources``."""
    import numpy as np

    from banditrepro.shards import save_shard
    from banditrepro.simulation_output import SimulationOutput

    out = SimulationOutput(checkpoints=np.array([1]), curves={"regret": np.zeros((1, 1))}, finals={}, pulls=None)
    with provenance.recording(scripts=RECORDED_SCRIPTS):
        save_shard(root / rel, {"ucb": out}, 0, 1, provenance.record(TREE_CONFIG, 1, root, sources))
    return rel


def test_verify_refuses_results_of_other_sources_even_when_their_numbers_match_the_lock(tmp_path):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY),
                                           "results/p/claims.csv": ("claims", CLAIMS)})
    code, text = _run_verify_script(tmp_path, files)
    assert code == 0 and text.startswith("verify OK at scale smoke"), text
    other = {"sha256": "b" * 64, "files": 3}
    for recorded, shown in ((other, "sources bbbbbbbbbbbb"), (None, "sources not recorded")):
        code, text = _run_verify_script(tmp_path, files, recorded=recorded)
        assert code == 1, text
        assert text.startswith("verify FAILED at scale smoke: results built from other package sources than this "
                               "tree's\n"), text
        assert "OK" not in text and "differ from the committed lock" not in text
        assert f"results/p/claims.csv ({shown})" in text and f"results/p/fig1/summary.csv ({shown})" in text
        assert "the tree's sources for it are aaaaaaaaaaaa (3 files)" in text
        assert "`snakemake --cores 2 p --config scale=smoke --forcerun simulate_shard`, then " \
               "`snakemake --cores 2 verify --config scale=smoke`" in text
        assert "lock --config" not in text  # a stale result is rebuilt, never locked


def test_verify_refuses_current_results_made_from_shards_of_other_sources(tmp_path):
    """A summary rebuilt by the current code from shards the old code simulated is stale too."""
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY)})
    fresh = _shard(tmp_path, "results/p/shards/e1/r000000-000001.npz", TREE_SOURCES)
    code, text = _run_verify_script(tmp_path, files, shards=[fresh])
    assert code == 0, text
    old = _shard(tmp_path, "results/p/shards/e1/r000001-000002.npz", {"sha256": "c" * 64, "files": 2})
    code, text = _run_verify_script(tmp_path, files, shards=[fresh, old])
    assert code == 1 and "1 result file(s) of p were built from other package sources" in text, text
    assert "results/p/shards/e1/r000001-000002.npz (sources cccccccccccc)" in text
    assert "r000000-000001" not in text


def test_stale_results_are_named_up_to_a_few_per_paper_then_counted(tmp_path):
    files = [_write(tmp_path, f"results/p/fig{i}/summary.csv", SUMMARY) for i in range(L.STALE_SHOWN + 3)]
    _record_sources(tmp_path, files[:-1], {"sha256": "b" * 64, "files": 3})
    _record_sources(tmp_path, files[-1:], TREE_SOURCES)
    missing = "results/p/fig99/summary.csv"  # not built: verify names it missing, it is not stale
    stale = L.stale_by_paper(tmp_path, {"p": files + [missing], "q": files[-1:]}, {"p": TREE_SOURCES, "q": TREE_SOURCES})
    assert list(stale) == ["p"] and [s.path for s in stale["p"]] == sorted(files[:-1])
    lines = L.stale_lines(stale, {"p": TREE_SOURCES}, "paper", "run it again")
    assert lines[0].startswith(f"{L.STALE_SHOWN + 2} result file(s) of p were built from other package sources")
    assert sum(line.startswith("    results/") for line in lines) == L.STALE_SHOWN
    assert "    ... and 2 more" in lines
    assert lines[-1].startswith("Rebuild them with the current tree: "
                                "`snakemake --cores 2 p --config scale=paper --forcerun simulate_shard`, then run it again.")


@pytest.mark.parametrize(("recorded", "config", "scripts", "what", "shown"), [
    ({"sha256": "b" * 64, "files": 3}, TREE_CONFIG, RECORDED_SCRIPTS, "other package sources", "sources bbbbbbbbbbbb"),
    (TREE_SOURCES, {"scale": "paper"}, RECORDED_SCRIPTS, "another config",
     'config differs at scale: recorded "paper", this tree\'s "smoke"; config/papers/p.yaml'),
    (TREE_SOURCES, TREE_CONFIG, {**RECORDED_SCRIPTS, "files": {**RECORDED_SCRIPTS["files"],
                                                               "workflow/scripts/summarize_figure.py": "0" * 64}},
     "other workflow scripts", "workflow script workflow/scripts/summarize_figure.py of rule summarize_figure differs"),
])
def test_lock_script_refuses_results_of_other_sources_config_or_scripts(tmp_path, recorded, config, scripts, what,
                                                                        shown):
    import runpy
    from types import SimpleNamespace

    files = {_write(tmp_path, "results/p/fig1/summary.csv", SUMMARY): "fig1"}
    _record_sources(tmp_path, files, recorded, config, scripts)
    params = SimpleNamespace(repo_root=str(tmp_path), scale="smoke", seed=1, files={"p": files}, not_built={"p": {}},
                             measured_time={"p": {}}, papers=["p"], sources={"p": TREE_SOURCES}, shards={"p": []},
                             configs={"p": {rel: TREE_CONFIG for rel in files}}, scripts=TREE_SCRIPTS,
                             config_args={"papers": ["p"]})
    log = tmp_path / "lock.log"
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(REPO_ROOT / "workflow" / "scripts" / "lock.py"),
                       init_globals={"snakemake": SimpleNamespace(params=params, log=[str(log)])})
    assert stop.value.code == 1
    text = log.read_text()
    assert text.startswith(f"lock REFUSED at scale smoke: results built from {what} than this tree's"), text
    assert f"results/p/fig1/summary.csv ({shown})" in text, text
    assert "then `snakemake --cores 2 lock --config scale=smoke 'papers=[p]'`" in text, text
    assert not L.lock_path(tmp_path, "p", "smoke").exists()


# ---------------------------------------------------------------- results of another config or other scripts


def test_verify_refuses_results_of_another_config_naming_the_file_and_the_key(tmp_path):
    """A claim threshold edited after the build (kept by --rerun-triggers mtime): the numbers may match the lock,
    but the result was not made from this config."""
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY),
                                           "results/p/claims.csv": ("claims", CLAIMS)})
    built = {"claims": [{"id": "C1", "check": {"fn": "below", "max_relative": 0.005}}], "scale": "smoke"}
    tree = {"claims": [{"id": "C1", "check": {"fn": "below", "max_relative": 0.004}}], "scale": "smoke"}
    code, text = _run_verify_script(tmp_path, files, config=built,
                                    configs={"results/p/claims.csv": built, "results/p/fig1/summary.csv": built})
    assert code == 0 and text.startswith("verify OK at scale smoke"), text
    code, text = _run_verify_script(tmp_path, files, config=built,
                                    configs={"results/p/claims.csv": tree, "results/p/fig1/summary.csv": built})
    assert code == 1, text
    assert text.startswith("verify FAILED at scale smoke: results built from another config than this tree's\n"), text
    assert "results/p/claims.csv (config differs at claims[0].check.max_relative: recorded 0.005, this tree's " \
           "0.004; config/papers/p.yaml)" in text
    assert "fig1/summary.csv" not in text and "OK" not in text and "lock --config" not in text
    # a result that records no config hash (made before results recorded one) is refused the same way
    _record_sources(tmp_path, ["results/p/claims.csv"], TREE_SOURCES)
    sidecar = tmp_path / "results/p/claims.csv.provenance.json"
    prov = json.loads(sidecar.read_text())
    del prov["config_sha256"], prov["config"]
    sidecar.write_text(json.dumps(prov))
    assert L.stale_results(tmp_path, ["results/p/claims.csv"], TREE_SOURCES["sha256"],
                           {"results/p/claims.csv": TREE_CONFIG}, TREE_SCRIPTS)[0].reasons == \
        ["config not recorded; the paper's config"]


def test_verify_refuses_results_of_other_workflow_scripts_naming_the_script(tmp_path):
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY)})
    edited = {**RECORDED_SCRIPTS, "sha256": "0" * 64,
              "files": {**RECORDED_SCRIPTS["files"], "workflow/scripts/worker_handoff.py": "1" * 64}}
    for recorded, shown in ((edited, "workflow script workflow/scripts/worker_handoff.py of rule summarize_figure "
                                     "differs"),
                            (None, "workflow scripts not recorded"),
                            ({**RECORDED_SCRIPTS, "rule": "gone"}, "made by rule gone, which runs no script in this tree")):
        code, text = _run_verify_script(tmp_path, files, scripts=recorded)
        assert code == 1, text
        assert text.startswith("verify FAILED at scale smoke: results built from other workflow scripts than this "
                               "tree's\n"), text
        assert f"results/p/fig1/summary.csv ({shown})" in text, text


def test_suggested_commands_keep_the_users_config(tmp_path):
    """`papers=` (and a paper's options) given to verify are in every command it suggests: without them the
    rebuild and the next verify would run every paper."""
    lock, files = _locked_paper(tmp_path, {"results/p/fig1/summary.csv": ("fig1", SUMMARY)})
    user = {"scale": "smoke", "papers": ["p"], "ames_forest": "cached"}
    code, text = _run_verify_script(tmp_path, files, recorded={"sha256": "b" * 64, "files": 3}, config_args=user)
    assert code == 1
    assert "`snakemake --cores 2 p --config scale=smoke 'papers=[p]' ames_forest=cached --forcerun simulate_shard`, " \
           "then `snakemake --cores 2 verify --config scale=smoke 'papers=[p]' ames_forest=cached`" in text, text
    _write(tmp_path, "results/p/fig1/summary.csv", SUMMARY.replace(",2.5,0.2,", ",2.75,0.2,"))
    code, text = _run_verify_script(tmp_path, files, config_args={"papers": ["p", "q"], "ames_forest": "cached"})
    assert code == 1 and "`snakemake --cores 2 lock --config scale=smoke 'papers=[p]' ames_forest=cached`" in text, text
    assert L.config_words("paper", {}) == "--config scale=paper"


def test_config_difference_names_the_first_differing_key():
    assert L.config_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) is None
    assert L.config_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a[1].b: recorded 2, this tree's 3"
    assert L.config_difference({"a": [1]}, {"a": [1, 2]}) == "a: 1 entries recorded, 2 in this tree's"
    assert L.config_difference({"a": 1}, {"a": 1, "c": "x"}) == 'c: not recorded, this tree\'s "x"'
    assert L.config_difference({"a": 1}, {"a": 1.0}) == "a: recorded 1, this tree's 1.0"
