"""The censored_resources config: table-cell claims expanded from the cells CSV."""

import csv
from pathlib import Path

import pytest
import yaml

from banditrepro.experiments.spec import ConfigError, expand_claim_cells, load_paper
from banditrepro.report.vocabulary import KINDS

ROOT = Path(__file__).resolve().parents[2]
CELLS = ROOT / "config" / "papers" / "censored_resources_cells.csv"


@pytest.mark.parametrize("scale", ["paper", "smoke"])
def test_every_cell_row_becomes_one_claim(scale):
    spec = load_paper("censored_resources", scale, ROOT)
    rows = list(csv.DictReader(CELLS.open()))
    by_id = {c["id"]: c for c in spec.claims}
    # 232 + the two reference guards of issue 30 + issue 38's M1 sign claims F6_best_* with their unit-bonus
    # and single-TS readings (9) + the statistics guard STATS_reference of issue 39
    assert len(spec.claims) == 244 and len(by_id) == 244
    for row in rows:
        claim = by_id[row["id"]]
        assert claim["figure"] == row["figure"] and claim["kind"] == row["kind"]
        assert claim["check"]["fn"] == row["fn"]
        assert claim["check"]["paper"] == float(row["paper"])
        assert claim["check"]["tolerance"] == float(row["tolerance"])
        assert row["paper"] in claim["statement"]  # the number exactly as the CSV writes it
    assert all(c.get("kind") in KINDS for c in spec.claims)


def test_statement_and_check_of_one_cell():
    spec = load_paper("censored_resources", "paper", ROOT)
    claim = next(c for c in spec.claims if c["id"] == "TF1_M1_negcorr_ts")
    assert claim["check"] == {"fn": "censored_cell", "experiment": "f1m1_negcorr", "algorithm": "ts",
                              "paper": 0.7081, "tolerance": 0.05, "paper_sd": 0.003}
    assert claim["statement"].startswith("F.1 table, M1, NegCorr, TS: censored proportion 0.7081 [sd 0.003] (±0.05: one TS "
                                         "band in both tables")
    assert "Known environment mismatch" in claim["statement"] and claim["kind"] == "variant"


def _write(tmp_path, claims, rows="b1,c1,fig,headline,t,,x,0.5\n"):
    (tmp_path / "cells.csv").write_text("block,id,figure,kind,template,note,fn,paper\n" + rows)
    raw = {"claim_cells": {"file": "cells.csv", "check_columns": ["paper"], "templates": {"t": "value {paper}"}},
           "claims": claims}
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(raw))
    return raw, path


def test_expansion_in_place_and_errors(tmp_path):
    raw, path = _write(tmp_path, [{"id": "a"}, {"cells": "b1"}, {"id": "z"}])
    out = expand_claim_cells(raw, path)
    assert [c["id"] for c in out["claims"]] == ["a", "c1", "z"]
    assert out["claims"][1] == {"id": "c1", "figure": "fig", "kind": "headline", "statement": "value 0.5",
                                "check": {"fn": "x", "paper": 0.5}}
    assert "claim_cells" not in out
    with pytest.raises(ConfigError, match="unknown cells block 'nope'"):
        expand_claim_cells(*_write(tmp_path, [{"cells": "b1"}, {"cells": "nope"}]))
    with pytest.raises(ConfigError, match="never used"):
        expand_claim_cells(*_write(tmp_path, [{"id": "a"}]))
    with pytest.raises(ConfigError, match="unknown template"):
        expand_claim_cells(*_write(tmp_path, [{"cells": "b1"}], rows="b1,c1,fig,headline,u,,x,0.5\n"))


def test_f1_spread_claims_compare_ts_with_the_other_two_algorithms():
    """App. F.1: TS "reveals a much higher variation than the other two algorithms. This high variation is also
    visible for M2" (issue 53): every claim measuring that sentence on an F.1 grid, M1 or M2, headline or a reading's
    variant, compares its TS with every other algorithm of the three its experiment runs, not with RCUCB alone. The
    three are the experiment's entries that modify none other (report.claims.algorithm_bases: rcucb_unit and
    ts_single are readings of RCUCB and TS, standing in for them in a reading's claim)."""
    from banditrepro.report.claims import algorithm_bases

    spec = load_paper("censored_resources", "paper", ROOT)
    bases = algorithm_bases(spec)
    spread = [c for c in spec.claims if c["check"]["fn"] == "spread_larger" and "F.1" in c["statement"]]
    assert {c["check"]["experiment"].split("_")[0] for c in spread} == {"f1m1", "f1m2"}
    for claim in spread:
        exp, check = claim["check"]["experiment"], claim["check"]
        compared = {bases.get((exp, a), a) for a in [check["larger"], *check["smaller"]]}
        three = {a for a in spec.experiments[exp].algorithms if (exp, a) not in bases}
        assert compared == three and len(check["smaller"]) == len(three) - 1, claim["id"]
