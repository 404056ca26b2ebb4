"""Sequential replications (report/sequential.py): the stated rule on hand-computed cases, the blocks of
extra replications, and the seeding that makes an extra replication the same whatever look asks for it."""

from __future__ import annotations

from statistics import NormalDist
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from banditrepro.report.checks import ClaimResult
from banditrepro.report.sequential import (
    SequentialRule,
    annotate_row,
    apply_looks,
    extra_blocks,
    look_record,
    next_replications,
)
from banditrepro.seeding import replication_keys


def test_rule_looks_and_bands_by_hand():
    rule = SequentialRule(max_factor=8)
    assert rule.looks == 4  # n, 2n, 4n, 8n
    # look 0 keeps the checks' own 2 s.e.; alpha_0 = 2 (1 - Phi(2)) = 0.0455
    assert rule.z(0) == 2.0
    assert rule.alpha_first == pytest.approx(0.045500, abs=1e-6)
    # 3 extra looks share alpha_0 (Bonferroni): z = Phi^-1(1 - 0.0455 / 6) = 2.4286..., printed rounded up
    raw = NormalDist().inv_cdf(1 - 0.0455002638963584 / 6)
    assert 2.428 < raw < 2.429
    assert rule.z(1) == rule.z(3) == 2.429
    # a wider cap spends the same alpha over more looks: a wider band
    assert SequentialRule(max_factor=16).z(1) > rule.z(1)
    # one look: nothing to widen
    assert SequentialRule(max_factor=1).looks == 1 and SequentialRule(max_factor=1).z_extra == 2.0
    with pytest.raises(ValueError, match="power of two"):
        SequentialRule(max_factor=6)


def test_extra_blocks_cut_at_doublings_and_shard_size():
    assert extra_blocks(100, 100, 250) == []
    assert extra_blocks(100, 200, 250) == [(100, 200)]
    assert extra_blocks(100, 800, 250) == [(100, 200), (200, 400), (400, 650), (650, 800)]
    # a later look reuses the earlier looks' blocks: the blocks up to 4n are a prefix of those up to 8n
    assert extra_blocks(50, 200, 50) == extra_blocks(50, 400, 50)[:3]


def _spec(max_factor=8, reps=None):
    reps = reps or {"a": 100, "b": 100}
    return SimpleNamespace(config={"sequential": {"max_factor": max_factor}},
                           experiments={e: SimpleNamespace(replications=n) for e, n in reps.items()})


def test_next_replications_doubles_the_undecided_experiments():
    spec, claim = _spec(), {"id": "C1"}
    counts = {"a": 100, "b": 100}
    # inconclusive, the check names 'a': only 'a' doubles
    assert next_replications(spec, claim, counts, "inconclusive", ("a",), 0) == {"a": 200, "b": 100}
    # names none: everything the claim reads doubles
    assert next_replications(spec, claim, counts, "inconclusive", (), 0) == {"a": 200, "b": 200}
    # decided: stop
    assert next_replications(spec, claim, counts, "reproduced", ("a",), 0) is None
    assert next_replications(spec, claim, counts, "not_reproduced", (), 1) is None
    # the last look (8n at look 3): stop, even if still inconclusive
    assert next_replications(spec, claim, {"a": 800, "b": 100}, "inconclusive", ("a",), 3) is None
    # no extra look at all where the rule allows one look (smoke scale)
    assert next_replications(_spec(max_factor=1), claim, counts, "inconclusive", ("a",), 0) is None


def test_look_record_and_apply_looks():
    spec, claim = _spec(), {"id": "C1"}
    res = ClaimResult("ratio 1.9", "<= 1.5 (by > 2.429 s.e.)", "not_reproduced")
    rec = look_record(spec, claim, 2, {"a": 400, "b": 100}, res)
    assert rec["next_replications"] is None and rec["verdict"] == "not_reproduced" and rec["z"] == 2.429
    assert rec["measured"] == "replications a 400; other experiments 100 (look 2 of 3): ratio 1.9"
    assert "sequential: z = 2.429 at look 2" in rec["threshold"]
    claims = pd.DataFrame({"claim_id": ["C1", "C2"], "measured": ["old", "keep"], "threshold": ["t", "t"],
                           "verdict": ["inconclusive", "reproduced"]})
    look0 = dict(rec, claim="C2", look=0, measured="look 0 text")
    apply_looks(claims, [rec, look0])
    assert claims.verdict.tolist() == ["not_reproduced", "reproduced"]
    assert claims.measured.tolist() == [rec["measured"], "keep"]  # a claim decided at look 0 keeps its own row
    m, t = annotate_row("x", "y", 1, SequentialRule(8), {"a": 200}, {"a": 100})
    assert m == "replications a 200 (look 1 of 3): x"


def test_extra_replications_have_the_keys_of_their_index():
    """Replication r gets SeedSequence child r whatever the total: the block [100, 200) asked for by a look
    has the keys those replications would have in a build of 200 or of 800."""
    path = ("paper", "exp", "noise")
    k200 = replication_keys(7, path, 200, 100, 200)
    k800 = replication_keys(7, path, 800, 100, 200)
    assert np.array_equal(k200, k800)
    assert np.array_equal(replication_keys(7, path, 100), replication_keys(7, path, 800, 0, 100))


def test_runner_keys_beyond_the_paper_count():
    from banditrepro.experiments.runner import keys_for

    exp = SimpleNamespace(paper="p", id="e", replications=100, common_random_numbers=True)
    big = SimpleNamespace(paper="p", id="e", replications=400, common_random_numbers=True)
    for a, b in zip(keys_for(exp, "algo", 3, 100, 200), keys_for(big, "algo", 3, 100, 200)):
        assert np.array_equal(a, b)


def test_papers_opt_in_at_paper_scale_only():
    from pathlib import Path

    import yaml

    from banditrepro.experiments.spec import discover_papers, load_paper, paper_config_path
    from banditrepro.report.sequential import paper_rule, sequential_claims

    root = Path(__file__).resolve().parents[1]
    declared = [p for p in discover_papers(root)
                if "sequential" in yaml.safe_load(paper_config_path(root, p).read_text(encoding="utf-8"))]
    assert "composite_anonymous" in declared
    for paper in declared:  # every paper that declares `sequential:` (config/papers/), a new one too
        smoke, full = load_paper(paper, "smoke", root), load_paper(paper, "paper", root)
        assert paper_rule(smoke).looks == 1 and sequential_claims(smoke) == []  # smoke: nothing moves
        assert paper_rule(full).max_factor > 1  # paper scale: more looks
        ids = [c["id"] for c in sequential_claims(full)]
        assert ids and all(c["kind"] == "headline" for c in full.claims if c["id"] in ids)
    assert "C1" in [c["id"] for c in sequential_claims(load_paper("composite_anonymous", "paper", root))]
