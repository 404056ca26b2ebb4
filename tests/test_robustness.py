"""Verdict stability across root seeds: the extra seeds, robustness.csv assembly and the report column
(unit tests), and the `robustness_satisficing_ucl` target in a temporary copy of the project (slow)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from repo_copy import CHEAP_PAPER, copy_build, copy_repo, result_bytes, run_snakemake

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import CLAIM_COLUMNS
from banditrepro.report.robustness import (
    STABILITY_COLUMN,
    assemble_robustness,
    headline_figures,
    robustness_seeds,
    robustness_seeds_of,
    seed_sensitive,
    stability_labels,
    stability_sentence,
    stability_summary,
)
from banditrepro.report.vocabulary import NOT_MEASURED

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_default_seeds_are_three_derived_from_the_root_seed_as_documented():
    seeds = robustness_seeds(20171128)
    assert seeds == [4170558448, 2447142455, 2067636722]  # the values config/config.yaml quotes
    assert seeds == [int(s) for s in np.random.SeedSequence(20171128).generate_state(3)]
    assert robustness_seeds(20171128) == seeds  # deterministic
    assert robustness_seeds(7) != seeds
    assert 20171128 not in seeds


def test_an_explicit_seed_list_overrides_and_is_checked():
    assert robustness_seeds(5, [1, 2]) == [1, 2]
    with pytest.raises(ValueError, match="root seed"):
        robustness_seeds(5, [1, 5])
    with pytest.raises(ValueError, match="repeated"):
        robustness_seeds(5, [1, 1])
    with pytest.raises(ValueError, match="empty"):
        robustness_seeds(5, [])


def _spec():
    claims = [{"id": "A", "figure": "f1", "kind": "headline"}, {"id": "B", "figure": "f1", "kind": "sanity"},
              {"id": "C", "figure": "f2", "kind": "headline"}, {"id": "D", "figure": "f3", "kind": "variant"},
              {"id": "E", "figure": "f4", "kind": "headline"}]
    return SimpleNamespace(paper="toy", claims=claims)


def _claims(rows):
    """A claims table (every cell a string, as read_claims gives it) from (id, figure, kind, verdict, measured)."""
    return pd.DataFrame([(cid, fig, "s", measured, "t", verdict, kind) for cid, fig, kind, verdict, measured in rows],
                        columns=CLAIM_COLUMNS)


def _toy_table():
    main = _claims([("A", "f1", "headline", "reproduced", "1.0"), ("B", "f1", "sanity", "reproduced", "x"),
                    ("C", "f2", "headline", "not_reproduced", "2.0"), ("D", "f3", "variant", "reproduced", "y"),
                    ("E", "f4", "headline", "inconclusive", NOT_MEASURED)])
    # seed 11 agrees everywhere; seed 12 flips C; per-figure files, as the robustness seeds write them
    seed11 = [_claims([("A", "f1", "headline", "reproduced", "1.1"), ("B", "f1", "sanity", "reproduced", "x")]),
              _claims([("C", "f2", "headline", "not_reproduced", "2.1")]),
              _claims([("E", "f4", "headline", "inconclusive", NOT_MEASURED)])]
    seed12 = [_claims([("A", "f1", "headline", "reproduced", "0.9"), ("B", "f1", "sanity", "reproduced", "x")]),
              _claims([("C", "f2", "headline", "inconclusive", "1.2")]),
              _claims([("E", "f4", "headline", "inconclusive", NOT_MEASURED)])]
    return assemble_robustness(_spec(), 7, main, {11: seed11, 12: seed12})


def test_headline_figures_are_those_with_a_headline_claim_in_claim_order():
    assert headline_figures(_spec()) == ["f1", "f2", "f4"]


def test_assembly_hand_computed_agreement():
    table = _toy_table()
    assert list(table.columns) == ["claim_id", "kind", "verdict_seed7", "measured_seed7", "verdict_seed11",
                                   "measured_seed11", "verdict_seed12", "measured_seed12", "agreement", "stable"]
    assert table.claim_id.tolist() == ["A", "C", "E"]  # headline claims only, in config order
    assert set(table.kind) == {"headline"}
    assert table.agreement.tolist() == ["2/2", "1/2", "2/2"]
    assert table.stable.tolist() == ["yes", "no", NOT_MEASURED]
    assert table.measured_seed12.tolist() == ["0.9", "1.2", NOT_MEASURED]
    assert robustness_seeds_of(table) == [7, 11, 12]
    assert seed_sensitive(table) == ["C"]


def test_stability_sentence_names_the_seed_sensitive_claims_and_their_verdicts():
    text = stability_sentence(_toy_table())
    assert text.startswith("Seed-sensitive: 1 of 2 measured headline claims")
    assert "(C;" in text and "C: not reproduced / not reproduced / inconclusive" in text
    assert "11, 12" in text and "main seed 7" in text
    stable = _toy_table()
    stable.loc[stable.claim_id == "C", "stable"] = "yes"
    assert stability_sentence(stable) == ("All 2 measured headline claims keep their verdict under the 2 extra "
                                          "root seeds (11, 12) beside the main seed 7.")


def test_report_labels_headline_claims_only():
    main = _claims([("A", "f1", "headline", "reproduced", "1"), ("B", "f1", "sanity", "reproduced", "x"),
                    ("C", "f2", "headline", "not_reproduced", "2"), ("E", "f4", "headline", "inconclusive", "")])
    assert stability_labels(main, _toy_table()) == ["yes (2/2)", "", "no (1/2)", NOT_MEASURED]
    assert stability_summary(_toy_table()) == "1/2 stable"


def test_a_missing_headline_claim_is_an_error_not_a_silent_gap():
    main = _claims([("A", "f1", "headline", "reproduced", "1"), ("C", "f2", "headline", "reproduced", "2"),
                    ("E", "f4", "headline", "reproduced", "3")])
    with pytest.raises(ValueError, match="C is missing from seed 11"):
        assemble_robustness(_spec(), 7, main, {11: [main[main.claim_id != "C"]]})
    with pytest.raises(ValueError, match="main seed is the reference"):
        assemble_robustness(_spec(), 7, main, {7: [main]})


@pytest.mark.slow
def test_root_seed_as_robustness_seed_stops_planning_naming_the_key(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    seed = yaml.safe_load((repo / "config" / "config.yaml").read_text())["seed"]
    proc = run_snakemake(repo, "-n", f"robustness_{CHEAP_PAPER}", "--config", f"robustness_seeds=[1,{seed}]",
                         check=False)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "robustness_seeds" in out and f"contains the root seed {seed}" in out
    # a seed list on the command line (Snakemake passes its numbers as strings) is accepted
    proc = run_snakemake(repo, "-n", f"robustness_{CHEAP_PAPER}", "--config", "robustness_seeds=[1,2]")
    assert "seed1/" in proc.stdout and "seed2/" in proc.stdout


@pytest.mark.slow
def test_robustness_target_rebuilds_every_headline_claim_under_each_seed_without_touching_the_main_build(
        tmp_path, cheap_paper_reference):
    repo = copy_build(cheap_paper_reference, tmp_path / "repo")  # the main build: the paper's smoke build
    main_dir = repo / "results" / CHEAP_PAPER
    # everything but the report (and its sidecar), which gains the stability column
    before = {p: b for p, b in result_bytes(repo, CHEAP_PAPER).items() if not Path(p).name.startswith("report.md")}
    mtimes = {p: (repo / p).stat().st_mtime_ns for p in before}
    assert "stable across seeds" not in (main_dir / "report.md").read_text()

    run_snakemake(repo, "--cores", "2", f"robustness_{CHEAP_PAPER}", "--config", "scale=smoke",
                  "robustness_seeds=[11,12]")

    # the main build's outputs are neither rewritten nor rerun
    after = result_bytes(repo, CHEAP_PAPER)
    assert {p: after[p] for p in before} == before
    assert {p: (repo / p).stat().st_mtime_ns for p in before} == mtimes
    assert not (repo / "figures" / "robustness").exists()  # no plots for the extra seeds

    spec = load_paper(CHEAP_PAPER, "smoke", repo)
    root_seed = yaml.safe_load((repo / "config" / "config.yaml").read_text())["seed"]
    table = pd.read_csv(main_dir / "robustness.csv", dtype=str, keep_default_na=False)
    headline = [c["id"] for c in spec.claims if c["kind"] == "headline"]
    assert table.claim_id.tolist() == headline
    assert robustness_seeds_of(table) == [root_seed, 11, 12]
    main_claims = pd.read_csv(main_dir / "claims.csv", dtype=str, keep_default_na=False).set_index("claim_id")
    assert table[f"verdict_seed{root_seed}"].tolist() == main_claims.loc[headline, "verdict"].tolist()
    for seed in (11, 12):
        seed_dir = repo / "results" / "robustness" / f"seed{seed}" / CHEAP_PAPER
        per_figure = pd.concat([pd.read_csv(seed_dir / "claims" / f"{fig}.csv", dtype=str, keep_default_na=False)
                                for fig in headline_figures(spec)]).set_index("claim_id")
        assert table[f"verdict_seed{seed}"].tolist() == per_figure.loc[headline, "verdict"].tolist()
        assert table[f"measured_seed{seed}"].tolist() == per_figure.loc[headline, "measured"].tolist()
        # the seed is really used: its streams, hence its curves, differ from the main build's
        prov = json.loads((seed_dir / "claims" / f"{headline_figures(spec)[0]}.csv.provenance.json").read_text())
        assert prov["seed"] == seed
        fig = headline_figures(spec)[0]
        assert (seed_dir / fig / "summary.csv").read_bytes() != (main_dir / fig / "summary.csv").read_bytes()
    for _, row in table.iterrows():
        agree = sum(row[f"verdict_seed{s}"] == row[f"verdict_seed{root_seed}"] for s in (11, 12))
        assert row.agreement == f"{agree}/2"
        assert row.stable == ("yes" if agree == 2 else "no")
    assert json.loads((main_dir / "robustness.csv.provenance.json").read_text())["config"]["robustness_seeds"] == [11, 12]

    report = (main_dir / "report.md").read_text()
    assert f"| {STABILITY_COLUMN} |" in report
    sensitive = seed_sensitive(table)
    findings = report.split("## Findings", 1)[1].split("## Verdicts", 1)[0]
    if sensitive:
        assert "Seed-sensitive" in findings and all(cid in findings for cid in sensitive)
    else:
        assert "keep their verdict" in findings


def test_overall_report_counts_stable_headline_claims_per_paper(tmp_path):
    from banditrepro.report.report import overall_report

    claims = _claims([("A", "f1", "headline", "reproduced", "1"), ("C", "f2", "headline", "not_reproduced", "2")])
    for paper in ("toy", "other"):
        (tmp_path / paper).mkdir()
        claims.to_csv(tmp_path / paper / "claims.csv", index=False)
        (tmp_path / paper / "report.md").write_text("# r\n")
    _toy_table().to_csv(tmp_path / "toy" / "robustness.csv", index=False)
    papers = ("toy", "other")
    prov = provenance.record({"scale": "smoke"}, 7, tmp_path)
    text = overall_report({p: tmp_path / p / "claims.csv" for p in papers},
                          {p: tmp_path / p / "report.md" for p in papers}, tmp_path / "report.md", prov, {},
                          {"toy": tmp_path / "toy" / "robustness.csv"})
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert rows[0].endswith("| 1/2 stable |") and rows[1].endswith("| not built |")
    without = overall_report({p: tmp_path / p / "claims.csv" for p in papers},
                             {p: tmp_path / p / "report.md" for p in papers}, tmp_path / "report2.md", prov)
    assert STABILITY_COLUMN not in without
