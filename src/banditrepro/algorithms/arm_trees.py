"""Trees over a policy's arms: the first-index argmax of K values, and the k-th of the arms that carry a flag,
each kept up to date in O(log K) per changed arm.

Tournament trees. A policy that changes one arm's index per step (UCB-type rules with a fixed radius,
SAT-UCB's keys) need not scan all K arms to find the largest: a complete binary tree over P = 2^k >= K
leaves keeps at every node the winner of its subtree, and a changed leaf replays only the matches on its
path to the root. ``values[tree]`` holds the leaves of tree ``tree`` (several trees over the same arms
share two arrays, so a kernel passes two arrays, not one per tree), ``winner[tree, v]`` the winner of
node v: the root is node 1, node v has children 2v and 2v + 1, leaf i is node P + i. Leaves K..P-1 hold
-inf and never win against a real value.

Ties: a match goes to the left child when the values are equal, so the root is the *smallest* index
among the maxima, exactly what a left-to-right scan ``if value > best`` returns (values are never NaN
here). :func:`tournament_next` walks, in index order, the leaves whose value reaches a threshold,
visiting only subtrees whose winner reaches it.

Fenwick tree over 0/1 flags of the arms (P + 1 counts, entry 0 unused): the number of flagged arms
before an arm, and the k-th flagged arm in index order.

Reference counts. A kernel that only reads and writes the arrays it is handed (no allocation, no array it
keeps) is compiled without numba's reference counting (``_nrt=False``) and called, not inlined: an inlined
kernel's array arguments become the caller's variables, and numba brackets each of them with an atomic
increment and decrement of its reference count that its pruning does not remove around loops and branches.
In a SAT-UCB step those atomic operations took about 40 % of the loop's time (issue 41). The caller holds
every array for the duration of the call, so none can be freed under the kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def tournament_leaves(n):
    """P: the smallest power of two >= n (>= 1)."""
    p = 1
    while p < n:
        p *= 2
    return p


@njit(cache=True)
def new_tournament(n_trees, n):
    """(values (n_trees, P), winner (n_trees, 2P)) of ``n_trees`` trees over up to ``n`` arms, every leaf -inf."""
    p = tournament_leaves(n)
    values = np.empty((n_trees, p))
    winner = np.zeros((n_trees, 2 * p), dtype=np.int64)  # node 0 is unused
    for tree in range(n_trees):
        tournament_reset(values, winner, tree)
    return values, winner


@njit(cache=True, _nrt=False)
def tournament_reset(values, winner, tree):
    """Every leaf of tree ``tree`` to -inf (the left leaf wins every match)."""
    p = values.shape[1]
    for i in range(p):
        values[tree, i] = -math.inf
        winner[tree, p + i] = i
    for v in range(p - 1, 0, -1):
        winner[tree, v] = winner[tree, 2 * v]


@njit(cache=True, _nrt=False)
def tournament_set(values, winner, tree, leaf, value):
    """Set leaf ``leaf`` of tree ``tree`` to ``value`` and replay the matches on its path to the root."""
    p = values.shape[1]
    values[tree, leaf] = value
    v = (p + leaf) >> 1
    while v >= 1:
        left = winner[tree, 2 * v]
        right = winner[tree, 2 * v + 1]
        w = left if values[tree, left] >= values[tree, right] else right
        if w == winner[tree, v] and w != leaf:
            break  # the same winner with the same value: the matches above are unchanged
        winner[tree, v] = w
        v >>= 1


@njit(cache=True, _nrt=False)
def tournament_top(winner, tree):
    """The first index among the largest values of tree ``tree``."""
    return winner[tree, 1]


@njit(cache=True, _nrt=False)
def tournament_next(values, winner, tree, threshold, leaf):
    """The first leaf after ``leaf`` (-1: from the start) whose value is >= ``threshold``, or -1 if none.

    Up from ``leaf`` to the first right sibling whose winner reaches the threshold, then down to its
    leftmost leaf that reaches it; the leaves' values may change between calls (a caller may set the
    leaf it was given)."""
    p = values.shape[1]
    if leaf < 0:
        v = 1
        if values[tree, winner[tree, 1]] < threshold:
            return -1
    else:
        v = p + leaf
        while True:
            if v == 1:
                return -1
            if v & 1 == 0 and values[tree, winner[tree, v + 1]] >= threshold:
                v += 1
                break
            v >>= 1
    while v < p:
        v = 2 * v if values[tree, winner[tree, 2 * v]] >= threshold else 2 * v + 1
    return v - p


@njit(cache=True, _nrt=False)
def fenwick_add(tree, arm, delta):
    """Add ``delta`` to the flag of ``arm``."""
    i = arm + 1
    n = tree.shape[0] - 1
    while i <= n:
        tree[i] += delta
        i += i & -i


@njit(cache=True, _nrt=False)
def fenwick_find(tree, k):
    """The arm holding the ``k``-th flag (0-based k, arms in increasing index order); ``tree`` has P + 1
    entries, P a power of two."""
    n = tree.shape[0] - 1
    pos = 0
    step = n
    k += 1
    while step > 0:
        nxt = pos + step
        if nxt <= n and tree[nxt] < k:
            pos = nxt
            k -= tree[nxt]
        step >>= 1
    return pos
