"""Shards and summaries do not depend on the memory layout a builder's arithmetic happened to leave."""

from __future__ import annotations

import numpy as np

from banditrepro.shards import load_shards, save_shard
from banditrepro.simulation_output import SimulationOutput, summarize


def _values_whose_sum_depends_on_the_order(reps=50, points=7):
    # large and small terms: pairwise and row-by-row summation round differently
    rng = np.random.default_rng(3)
    return 8757.0 + rng.standard_normal((reps, points)) * 1e-3 + rng.integers(0, 2, (reps, points)) * 1e12


def test_the_values_above_do_tell_the_orders_apart():
    v = _values_whose_sum_depends_on_the_order()
    assert not np.array_equal(v.mean(axis=0), np.asfortranarray(v).mean(axis=0))


def test_summarize_is_the_same_for_either_layout():
    v = _values_whose_sum_depends_on_the_order()
    for a, b in zip(summarize(np.ascontiguousarray(v)), summarize(np.asfortranarray(v))):
        assert np.array_equal(a, b)


def test_shards_written_column_major_load_row_major_and_summarize_alike(tmp_path):
    v = _values_whose_sum_depends_on_the_order()
    checkpoints = np.arange(1, v.shape[1] + 1, dtype=np.int64)
    paths = []
    for start, stop in ((0, 25), (25, 50)):  # as penalized_fairness' W came out of one job of fig5
        out = SimulationOutput(checkpoints=checkpoints, curves={"W": np.asfortranarray(v[start:stop])},
                               finals={"W": v[start:stop, -1].copy()}, pulls=None)
        paths.append(tmp_path / f"r{start:06d}-{stop:06d}.npz")
        save_shard(paths[-1], {"A": out}, start, stop, {"seed": 1})
    merged = load_shards(paths)["A"]
    assert merged.curves["W"].flags["C_CONTIGUOUS"]
    assert np.array_equal(merged.curves["W"], v)
    for a, b in zip(summarize(merged.curves["W"]), summarize(np.ascontiguousarray(v))):
        assert np.array_equal(a, b)
