"""The simulation loop's fast kernels make exactly the reference kernels' choices with the same draws.

The reference kernels are the paper's printed forms (tests/censored_printed_forms.py, written from the paper:
rcucb_select, ucb_select, ts_select, ts_update, every index recomputed from the counts each round), with the
production count updates rcucb_update and ucb_update; test_policies.py checks them by hand. The fast ones keep
derived terms in extra state rows and skip work that cannot change the argmax. Both are driven here through the same random histories; every
round's choice and the stream position (tie-breaking and Thompson draws) must agree, and so must
every evaluated score.
"""

import censored_printed_forms as printed
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banditrepro import rng
from banditrepro.algorithms import beta_sampler, rcucb
from banditrepro.algorithms import censored_baselines as cb
from banditrepro.environments import censored as ce

KAPPA = 0.1

KERNELS = {
    "rcucb": (printed.rcucb_select, rcucb.rcucb_update, rcucb.rcucb_select_fast, rcucb.rcucb_update_fast,
              rcucb.FAST_STATE_ROWS, 4),
    "ucb": (printed.ucb_select, cb.ucb_update, cb.ucb_select_fast, cb.ucb_update_fast, cb.UCB_FAST_STATE_ROWS, 2),
    "ts": (printed.ts_select, printed.ts_update, cb.ts_select_fast, cb.ts_update_fast, cb.TS_FAST_STATE_ROWS, 2),
}  # select, update (reference); select, update (fast); state rows of the fast form; rows both keep

PARAMS = {
    "rcucb": [rcucb.rcucb_params(), rcucb.rcucb_params(unit_bonus=True), rcucb.rcucb_params(observable=True),
              rcucb.rcucb_params(alpha=0.3, unit_bonus=True, observable=True)],
    "ucb": [cb.ucb_params(scale=10.0), cb.ucb_params(2.0, scale=10.0)],
    "ts": [cb.ts_params(scale=10.0), cb.ts_params(single_pair_update=True, scale=10.0)],
}


def _run_both(policy, params, n_arms, taus, lam, rounds, key, ties=False):
    """Drive the reference and the fast kernel side by side; returns the choices of both."""
    ref_select, ref_update, fast_select, fast_update, rows, shared = KERNELS[policy]
    m = taus.size
    ref_state = np.zeros((4, n_arms, m))
    fast_state = np.zeros((rows, n_arms, m))
    ref_stream, fast_stream = rng.new_stream(key), rng.new_stream(key)
    ref_scores, fast_scores = np.empty(n_arms * m), np.full(n_arms * m, np.nan)
    arms = ce.gaussian_arms(np.linspace(0.4, 0.6, n_arms), np.linspace(0.3, 0.6, n_arms), 0.3, 0.2)
    pulls = np.zeros(n_arms, dtype=np.int64)
    ref_choices, fast_choices = [], []
    for t in range(1, rounds + 1):
        p_ref = ref_select(t, ref_state, taus, lam, params, ref_scores, ref_stream)
        fast_scores[:] = np.nan
        p_fast = fast_select(t, fast_state, taus, lam, params, fast_scores, fast_stream)
        ref_choices.append(p_ref)
        fast_choices.append(p_fast)
        assert p_ref == p_fast, f"round {t}: reference chose {p_ref}, fast {p_fast}"
        assert np.array_equal(ref_stream, fast_stream), f"round {t}: streams diverged"
        evaluated = ~np.isnan(fast_scores)
        if t > n_arms * m:
            assert np.array_equal(fast_scores[evaluated], ref_scores[evaluated])
        i, j = divmod(p_ref, m)
        if ties:  # identical observations for every arm: many exact ties in the indices
            reward, consumption = 0.5, 0.3
        else:
            reward, consumption = ce.draw(arms.code, arms.params, arms.table, np.uint64(key), i, pulls[i])
        pulls[i] += 1
        ref_update(t, ref_state, taus, lam, params, i, j, reward, consumption, KAPPA, ref_stream)
        fast_update(t, fast_state, taus, lam, params, i, j, reward, consumption, KAPPA, fast_stream)
        assert np.array_equal(ref_state[:shared], fast_state[:shared])
    return ref_choices, fast_choices


@pytest.mark.parametrize("policy", sorted(KERNELS))
def test_fast_kernel_matches_reference_on_a_long_run(policy):
    taus = ce.resource_grid(1.0, 5)
    lam = ce.penalty_values(taus, "piecewise")
    for params in PARAMS[policy]:
        ref, _ = _run_both(policy, params, 6, taus, lam, 1500, key=11)
        assert len(set(ref)) > 3  # the run explores, so the skipped evaluations are exercised


@pytest.mark.parametrize("policy", ["rcucb", "ucb"])
def test_fast_kernel_matches_reference_under_exact_ties(policy):
    """Equal observations on every arm make whole groups of indices tie exactly: the fast
    kernels must draw the same tie-breaking uniforms, also for ties below the final maximum."""
    taus = np.array([0.2, 0.5, 1.0])
    lam = np.array([0.0, 0.0, 0.0])
    for params in PARAMS[policy]:
        ref, _ = _run_both(policy, params, 4, taus, lam, 300, key=5, ties=True)
        assert len(set(ref)) > 1


@settings(max_examples=25, deadline=None)
@given(policy=st.sampled_from(sorted(KERNELS)), variant=st.integers(0, 3), n_arms=st.integers(1, 5),
       m=st.integers(1, 4), key=st.integers(1, 2**40), grid=st.sampled_from(["linspace", "k_over_m"]))
def test_fast_kernel_matches_reference_on_random_settings(policy, variant, n_arms, m, key, grid):
    params = PARAMS[policy][variant % len(PARAMS[policy])]
    taus = ce.resource_grid(1.0, m, grid)
    lam = ce.penalty_values(taus, "piecewise")
    _run_both(policy, params, n_arms, taus, lam, 200, key=key)


def test_ts_fast_finishes_the_draws_its_first_attempt_leaves_open():
    """Over a long run some draws leave the vectorised first attempt (ziggurat wedges, squeeze misses):
    ts_select_fast finishes them with beta_sampler.beta_ge1_finish (only the
    gammas left open), and every score equals ts_select's."""
    taus = ce.resource_grid(1.0, 8)
    lam = ce.penalty_values(taus, "piecewise")
    n_arms, m = 5, taus.size
    state = np.zeros((cb.TS_FAST_STATE_ROWS, n_arms, m))
    stream = rng.new_stream(31)
    params = cb.ts_params(scale=10.0)
    arms = ce.gaussian_arms(np.linspace(0.4, 0.6, n_arms), 0.4, 0.3, 0.2)
    pulls = np.zeros(n_arms, dtype=np.int64)
    scores = np.empty(n_arms * m)
    opened = 0
    for t in range(1, 600):
        if t > n_arms * m:  # the first attempts alone, on the current state and counters
            first = np.empty(n_arms * m)
            sub = stream[2] * np.uint64(2) + np.uint64(1)
            table = state.reshape(state.shape[0], n_arms * m).copy()  # the kernel's own rows stay untouched
            beta_sampler.beta_ge1_first_attempts(table, 2, stream[0], stream[1], sub, stream[3] * np.uint64(n_arms * m), first)
            opened += int(np.sum(first < 0))
        ref_state = state[:4].copy()
        ref_scores = np.empty(n_arms * m)
        ref_stream = stream.copy()
        p_ref = printed.ts_select(t, ref_state, taus, lam, params, ref_scores, ref_stream)
        p = cb.ts_select_fast(t, state, taus, lam, params, scores, stream)
        assert p == p_ref and np.array_equal(stream, ref_stream)
        if t > n_arms * m:
            assert np.array_equal(scores, ref_scores)
        i, j = divmod(p, m)
        reward, consumption = ce.draw(arms.code, arms.params, arms.table, np.uint64(31), i, pulls[i])
        pulls[i] += 1
        cb.ts_update_fast(t, state, taus, lam, params, i, j, reward, consumption, KAPPA, stream)
    assert opened > 20  # the continuation was exercised
