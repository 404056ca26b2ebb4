"""Tournament and Fenwick trees (algorithms/arm_trees.py) against the scans they replace, on random histories
with many exact ties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro.algorithms.arm_trees import (
    fenwick_add,
    fenwick_find,
    new_tournament,
    tournament_leaves,
    tournament_next,
    tournament_reset,
    tournament_set,
    tournament_top,
)


def _first_argmax(values):
    best, arm = -np.inf, 0
    for j, v in enumerate(values):
        if v > best:
            best, arm = v, j
    return arm


def test_leaves_are_the_next_power_of_two():
    assert [tournament_leaves(n) for n in (1, 2, 3, 4, 5, 400, 512, 513)] == [1, 2, 4, 4, 8, 512, 512, 1024]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1), levels=st.integers(1, 6))
def test_tournament_is_the_first_index_argmax_and_walks_every_leaf_above_a_threshold(n, seed, levels):
    """Values from a few levels only, so that most matches are ties; two trees share the arrays."""
    gen = np.random.default_rng(seed)
    values, winner = new_tournament(2, n)
    shadow = np.full((2, n), -np.inf)
    for _ in range(4 * n):
        tree, arm = int(gen.integers(2)), int(gen.integers(n))
        value = float(gen.integers(levels)) if gen.random() < 0.9 else -np.inf
        tournament_set(values, winner, tree, arm, value)
        shadow[tree, arm] = value
        for k in range(2):
            assert tournament_top(winner, k) == _first_argmax(shadow[k])
        threshold = float(gen.integers(-1, levels + 1))
        walked, leaf = [], tournament_next(values, winner, tree, threshold, -1)
        while leaf >= 0:
            walked.append(leaf)
            leaf = tournament_next(values, winner, tree, threshold, leaf)
        assert walked == list(np.flatnonzero(shadow[tree] >= threshold))
    tournament_reset(values, winner, 1)
    assert np.all(values[1] == -np.inf) and tournament_next(values, winner, 1, -1e300, -1) == -1


def test_walk_survives_setting_the_leaf_it_stands_on():
    values, winner = new_tournament(1, 8)
    for arm, v in enumerate([3.0, 1.0, 5.0, 5.0, 0.0, 4.0, 2.0, 5.0]):
        tournament_set(values, winner, 0, arm, v)
    seen, leaf = [], tournament_next(values, winner, 0, 4.0, -1)
    while leaf >= 0:
        seen.append(leaf)
        tournament_set(values, winner, 0, leaf, -np.inf)  # consumed, as SAT-UCB's wait tree does
        leaf = tournament_next(values, winner, 0, 4.0, leaf)
    assert seen == [2, 3, 5, 7] and tournament_top(winner, 0) == 0


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1))
def test_fenwick_finds_the_kth_flagged_arm(n, seed):
    gen = np.random.default_rng(seed)
    tree = np.zeros(tournament_leaves(n) + 1, dtype=np.int64)
    flags = np.zeros(n, dtype=bool)
    for _ in range(3 * n):
        arm = int(gen.integers(n))
        fenwick_add(tree, arm, -1 if flags[arm] else 1)
        flags[arm] = not flags[arm]
        flagged = np.flatnonzero(flags)
        assert [fenwick_find(tree, k) for k in range(flagged.size)] == list(flagged)
