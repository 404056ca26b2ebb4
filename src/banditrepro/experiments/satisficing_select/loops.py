"""Compiled simulation loops and ``Simulation`` objects for satisficing_select.

The loops (``run_index_policy``, ``run_convex_1d``, SELECT's ``run_select``) live here because only this
paper needs them; :mod:`banditrepro.algorithms` keeps the decision kernels they call (see the rule in
:mod:`banditrepro.engine`).

Two kinds of runs (spec §3 "Runs and horizons"):

* horizon-free algorithms (SELECT and its variants, Thompson sampling, SAT-UCB(+) on a finite
  instance) run once per replication to the largest horizon and are read at the checkpoints;
* horizon-dependent algorithms (Uniform UCB(T), Agarwal 1-D (T), SAT-UCB(+) on the grid of T) run
  once per (replication, T); column c of every curve is then the value at T_c of the run of
  horizon T_c.

Every loop records the cumulative satisficing regret sum max(S - r(X_t), 0), the standard regret
sum r* - r(X_t) (pseudo-regret from true means, r* = continuous optimum) and the realised reward.
The noise of step t is shared by all algorithms (common random numbers, see
:mod:`banditrepro.environments.continuous`); the policy stream of run g (horizon index) of a
replication is (policy key, TAG_POLICY, g). On a finite instance with Bernoulli rewards (sensitivity
run) the shared draw of step t is a uniform, and Thompson sampling, standalone or as SELECT's oracle,
is the Beta(1, 1) kernel (``beta_thompson``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ... import rng
from ...algorithms import select as select_alg
from ...algorithms.arm_trees import new_tournament
from ...algorithms.convex_1d import STATE_SIZE as CONVEX_STATE_SIZE
from ...algorithms.convex_1d import convex_choose, convex_reset, convex_set_horizon, convex_update
from ...algorithms.lipschitz_ucb import cell_centres, cells_per_axis, ucb_choose, ucb_reset, ucb_update
from ...algorithms.satisficing_ucb import new_index, sat_ucb_choose, sat_ucb_reset, sat_ucb_update
from ...algorithms.select import ORACLE_BETA_TS, ORACLE_TS, ORACLE_UNIFORM_UCB
from ...algorithms.thompson import beta_ts_choose, beta_ts_update, gaussian_ts_choose, gaussian_ts_update
from ...engine import SimulationOutput
from ...environments.continuous import (
    GAUSSIAN_REWARDS,
    MeanFunctionEnvironment,
    env_mean,
    fill_step_draws,
    observe,
    observe_draw,
)

POLICY_TS = 0
POLICY_UNIFORM_UCB = 1
POLICY_SAT_UCB = 2
POLICY_SAT_UCB_PLUS = 3
POLICY_BETA_TS = 4
INDEX_POLICIES = {"thompson": POLICY_TS, "uniform_ucb": POLICY_UNIFORM_UCB, "sat_ucb": POLICY_SAT_UCB,
                  "sat_ucb_plus": POLICY_SAT_UCB_PLUS, "beta_thompson": POLICY_BETA_TS}
# Thompson sampling with Beta(1, 1) priors needs rewards in {0, 1}
BERNOULLI_ONLY_POLICIES = ("beta_thompson",)
BASE_CURVES = ("satisficing_regret", "regret", "reward")

# SELECT: curves[r, metric, checkpoint]
CURVE_NAMES = ("satisficing_regret", "regret", "reward", "round")
# finals[r, column]
FINAL_NAMES = ("rounds_started", "step_at_end", "first_passing_round", "final_candidate_mean")
# phase codes recorded in ``step_at_end``
PHASE_ORACLE, PHASE_FORCED, PHASE_TEST = 1, 2, 3


@njit(cache=True)
def same_run(policy, arm_means, arm_counts, run_horizons, g, h):
    """Whether runs g and h of :func:`run_index_policy` take the same arms as long as neither has drawn from
    its policy stream: the same arm set and, for Uniform UCB (whose index has ln H), the same horizon."""
    n_arms = arm_counts[g]
    if arm_counts[h] != n_arms or (policy == POLICY_UNIFORM_UCB and run_horizons[g] != run_horizons[h]):
        return False
    for j in range(n_arms):  # noqa: SIM110 (a plain loop in a numba kernel)
        if arm_means[g, j] != arm_means[h, j]:
            return False
    return True


@njit(cache=True)
def run_index_policy(policy, arm_means, arm_counts, run_horizons, per_horizon, level, r_star, sigma,
                     reward_code, noise_keys, policy_keys, checkpoints, curves):
    """Finite-armed index policies (rewards drawn by :func:`observe_draw` with ``reward_code``).

    ``arm_means`` (G, K_max) / ``arm_counts`` (G,): the arm set of run g. ``per_horizon`` False:
    G = 1, one run of length checkpoints[-1] read at every checkpoint. True: G = C, run g has
    horizon checkpoints[g] and fills column g only. ``run_horizons[g]`` is the H of Uniform UCB's
    ln H. ``curves``: (R, 3, C).

    Per horizon, runs g < h with the same arm set (:func:`same_run`: SAT-UCB(+) on grids of equal size)
    see the same draw at every step and differ only in their policy streams (sub-stream g against h), so
    run g is the first checkpoints[g] steps of run h if run h has not drawn from its stream by then: run h
    also fills column g in that case, and run g is played on its own only otherwise. The steps' draws are
    made once per replication (:func:`fill_step_draws`), not once per run.
    """
    n_reps = noise_keys.shape[0]
    n_runs = arm_counts.shape[0]
    n_chk = checkpoints.shape[0]
    k_max = arm_means.shape[1]
    counts = np.zeros(k_max)
    sums = np.zeros(k_max)
    index, winner = new_tournament(1, k_max)  # Uniform UCB's indices
    means = np.zeros(k_max)
    root_counts = np.zeros(k_max)
    sat_values, sat_winner, reach_tree, sat_state = new_index(k_max)  # SAT-UCB(+)'s index
    stream = np.empty(4, dtype=np.uint64)
    draws = np.zeros(checkpoints[n_chk - 1] + 1)
    filled = np.zeros(n_chk, dtype=np.bool_)
    plus = policy == POLICY_SAT_UCB_PLUS
    sat_ucb = policy == POLICY_SAT_UCB or plus
    for r in range(n_reps):
        fill_step_draws(reward_code, noise_keys[r], draws)
        filled[:] = False
        first = 0
        while first < n_runs:
            if filled[first]:
                first += 1
                continue
            # play the last run of the unfilled runs from ``first`` on that take the same arms; it fills its own
            # column and those from ``first`` on that it reaches before its first policy draw (the others are
            # played next, each as the last of the runs still unfilled)
            g = first
            while per_horizon and g + 1 < n_runs and not filled[g + 1] and same_run(policy, arm_means, arm_counts,
                                                                                   run_horizons, first, g + 1):
                g += 1
            stream[0] = policy_keys[r]
            stream[1] = rng.TAG_POLICY
            stream[2] = g
            stream[3] = 0
            n_arms = arm_counts[g]
            if sat_ucb:
                sat_ucb_reset(counts, sums, means, root_counts, sat_values, sat_winner, reach_tree, sat_state,
                              n_arms)
            elif policy == POLICY_UNIFORM_UCB:
                ucb_reset(counts, sums, index, winner, n_arms)
            else:
                counts[:n_arms] = 0.0
                sums[:n_arms] = 0.0
            horizon = checkpoints[g] if per_horizon else checkpoints[n_chk - 1]
            log_h = math.log(run_horizons[g])
            sat = 0.0
            reg = 0.0
            rew = 0.0
            c = first if per_horizon else 0
            for t in range(1, horizon + 1):
                if policy == POLICY_TS:
                    arm = gaussian_ts_choose(counts, sums, n_arms, stream)
                elif policy == POLICY_BETA_TS:
                    arm = beta_ts_choose(counts, sums, n_arms, stream)
                elif policy == POLICY_UNIFORM_UCB:
                    arm = ucb_choose(t, winner, n_arms)
                else:
                    arm = sat_ucb_choose(t - 1, means, root_counts, n_arms, level, plus, stream, sat_values, sat_winner,
                                         reach_tree, sat_state)
                mean = arm_means[g, arm]
                y = observe_draw(reward_code, mean, sigma, draws[t])
                if policy == POLICY_UNIFORM_UCB:
                    ucb_update(counts, sums, index, winner, arm, y, log_h)
                elif policy == POLICY_TS:
                    gaussian_ts_update(counts, sums, arm, y)
                elif policy == POLICY_BETA_TS:
                    beta_ts_update(counts, sums, arm, y)
                else:
                    sat_ucb_update(counts, sums, means, root_counts, sat_values, sat_winner, reach_tree, sat_state, arm, y,
                                   level)
                sat += max(level - mean, 0.0)
                reg += r_star - mean
                rew += y
                if t == checkpoints[c]:
                    # per horizon: column c < g is run c's only while run g has not drawn from its stream
                    if not per_horizon or c == g or stream[3] == 0:
                        curves[r, 0, c] = sat
                        curves[r, 1, c] = reg
                        curves[r, 2, c] = rew
                        filled[c] = True
                    c += 1


@njit(cache=True)
def run_convex_1d(env_code, env_params, level, r_star, sigma, noise_keys, checkpoints, curves):
    """Agarwal et al.'s 1-D algorithm, one run of horizon checkpoints[g] per column g (Gaussian noise, its
    draws made once per replication for all runs)."""
    n_reps = noise_keys.shape[0]
    state = np.zeros(CONVEX_STATE_SIZE)
    point = np.zeros(1)
    noise = np.zeros(checkpoints[checkpoints.shape[0] - 1] + 1)
    for r in range(n_reps):
        fill_step_draws(GAUSSIAN_REWARDS, noise_keys[r], noise)
        for g in range(checkpoints.shape[0]):
            horizon = checkpoints[g]
            convex_reset(state, horizon, sigma)
            sat = 0.0
            reg = 0.0
            rew = 0.0
            for t in range(1, horizon + 1):
                point[0] = convex_choose(state)
                mean = env_mean(env_code, env_params, point)
                y = mean + sigma * noise[t]
                convex_update(state, y)
                sat += max(level - mean, 0.0)
                reg += r_star - mean
                rew += y
            curves[r, 0, g] = sat
            curves[r, 1, g] = reg
            curves[r, 2, g] = rew


@njit(cache=True, _nrt=False)  # no reference counts on the arrays of every pull (algorithms.arm_trees)
def _pull(mean, pos, noise_key, sigma, reward_code, level, r_star, acc, checkpoints, curves, r, round_index):
    """One step on an arm of true mean ``mean``: observation, regret bookkeeping, checkpoint."""
    t = pos[0] + 1
    pos[0] = t
    y = observe(reward_code, mean, sigma, noise_key, t)
    acc[0] += max(level - mean, 0.0)
    acc[1] += r_star - mean
    acc[2] += y
    c = pos[1]
    if c < checkpoints.shape[0] and t == checkpoints[c]:
        curves[r, 0, c] = acc[0]
        curves[r, 1, c] = acc[1]
        curves[r, 2, c] = acc[2]
        curves[r, 3, c] = round_index
        pos[1] = c + 1
    return y


@njit(cache=True)
def run_select(oracle, env_code, env_params, dim, grid_means, grid_sizes, round_t, round_big_t,
               level, r_star, sigma, reward_code, radius_coef, skip_step1, skip_step2, skip_step3, reuse_step1,
               warm_start, last_query, noise_keys, policy_keys, checkpoints, curves, finals, round_candidate_mean,
               round_checks_passed):
    """Run SELECT for each replication up to ``checkpoints[-1]`` steps.

    Outputs (pre-allocated): ``curves`` (R, 4, C) -- see CURVE_NAMES; ``finals`` (R, 4) -- see
    FINAL_NAMES; ``round_candidate_mean`` (R, D) r(X_hat_i) of rounds 1..D (nan if the round chose no
    candidate before the horizon); ``round_checks_passed`` (R, D): number of LCB checks the round
    passed (= Step-3 pulls made; -1 if the round never reached its first check).
    """
    n_reps = noise_keys.shape[0]
    horizon = checkpoints[-1]
    n_rounds_table = round_t.shape[0]
    n_diag = round_candidate_mean.shape[1]
    k_max = max(grid_sizes.max(), env_params.shape[0])
    # Step 1's trajectory (without Step 1 the schedule's t_i reach millions: 100 MB of zeros per call)
    max_t1 = 1 if skip_step1 else round_t.max()
    counts = np.zeros(k_max)
    sums = np.zeros(k_max)
    index, winner = new_tournament(1, k_max)  # the Uniform UCB oracle's indices
    convex_state = np.zeros(CONVEX_STATE_SIZE)
    step1_key = np.zeros(max_t1)
    step1_reward = np.zeros(max_t1)
    point = np.zeros(max(dim, 1))
    acc = np.zeros(3)
    pos = np.zeros(2, dtype=np.int64)
    stream = np.empty(4, dtype=np.uint64)
    for r in range(n_reps):
        stream[0] = policy_keys[r]
        stream[1] = rng.TAG_POLICY
        stream[2] = 0
        stream[3] = 0
        noise_key = noise_keys[r]
        acc[:] = 0.0
        pos[:] = 0
        round_candidate_mean[r, :] = math.nan
        round_checks_passed[r, :] = -1.0
        first_passing = 0
        oracle_steps = 0
        cand_mean = math.nan
        phase = PHASE_ORACLE
        i = 0
        while pos[0] < horizon and i < n_rounds_table:
            i += 1
            t_i = round_t[i - 1]
            big_t = round_big_t[i - 1]
            phase = PHASE_ORACLE
            # ---- Step 1: candidate from a fresh oracle's trajectory (or uniform, ablation)
            cand_key = math.nan
            if skip_step1:
                for q in range(dim):
                    point[q] = rng.stream_uniform(stream)
                cand_mean = env_mean(env_code, env_params, point)
            else:
                n_arms = 0
                # a warm Uniform UCB oracle is one UCB(H) on the grid of the horizon H (its ln H fixed); any
                # other oracle of round i has horizon t_i
                log_h = math.log(horizon) if warm_start and oracle == ORACLE_UNIFORM_UCB else math.log(t_i)
                fresh = i == 1 or not warm_start
                if oracle in (ORACLE_TS, ORACLE_BETA_TS):
                    n_arms = env_params.shape[0]
                elif oracle == ORACLE_UNIFORM_UCB:
                    n_arms = grid_sizes[i - 1]
                elif fresh:
                    convex_reset(convex_state, t_i, sigma)
                else:
                    convex_set_horizon(convex_state, t_i)
                if fresh:
                    if oracle == ORACLE_UNIFORM_UCB:
                        ucb_reset(counts, sums, index, winner, n_arms)
                    else:
                        counts[:n_arms] = 0.0
                        sums[:n_arms] = 0.0
                    oracle_steps = 0  # the oracle's own step count (its initial round-robin), over rounds when warm
                s = 0
                while s < t_i and pos[0] < horizon:
                    s += 1
                    oracle_steps += 1
                    if oracle == ORACLE_TS:
                        arm = gaussian_ts_choose(counts, sums, n_arms, stream)
                        key = float(arm)
                        mean = env_params[arm]
                    elif oracle == ORACLE_BETA_TS:
                        arm = beta_ts_choose(counts, sums, n_arms, stream)
                        key = float(arm)
                        mean = env_params[arm]
                    elif oracle == ORACLE_UNIFORM_UCB:
                        arm = ucb_choose(oracle_steps, winner, n_arms)
                        key = float(arm)
                        mean = grid_means[i - 1, arm]
                    else:
                        point[0] = convex_choose(convex_state)
                        key = point[0]
                        mean = env_mean(env_code, env_params, point)
                    y = _pull(mean, pos, noise_key, sigma, reward_code, level, r_star, acc, checkpoints, curves, r, i)
                    if oracle == ORACLE_TS:
                        gaussian_ts_update(counts, sums, arm, y)
                    elif oracle == ORACLE_BETA_TS:
                        beta_ts_update(counts, sums, arm, y)
                    elif oracle == ORACLE_UNIFORM_UCB:
                        ucb_update(counts, sums, index, winner, arm, y, log_h)
                    else:
                        convex_update(convex_state, y)
                    step1_key[s - 1] = key
                    step1_reward[s - 1] = y
                    # reservoir sampling: after s steps the candidate is uniform on the trajectory (the coin is
                    # drawn under last_query too, so that variant changes only which point is kept)
                    if rng.stream_uniform(stream) * s <= 1.0 or last_query:
                        cand_key = key
                        cand_mean = mean
                if s < t_i:
                    break  # horizon reached inside Step 1: no candidate this round
            if i <= n_diag:
                round_candidate_mean[r, i - 1] = cand_mean
            # ---- Step 2: forced sampling
            tot = 0.0
            n = 0
            if reuse_step1:
                for q in range(t_i):
                    if step1_key[q] == cand_key:
                        tot += step1_reward[q]
                        n += 1
            if pos[0] >= horizon:
                break
            if not skip_step2:
                phase = PHASE_FORCED
                m = 0
                while m < big_t and pos[0] < horizon:
                    tot += _pull(cand_mean, pos, noise_key, sigma, reward_code, level, r_star, acc, checkpoints, curves,
                                 r, i)
                    n += 1
                    m += 1
                if m < big_t:
                    break
            if skip_step3:
                continue
            # ---- Step 3: LCB test before every further pull
            phase = PHASE_TEST
            passed = 0
            checked = False
            while True:
                if n > 0:
                    checked = True
                    lcb = tot / n - math.sqrt(radius_coef * math.log(n) / n)
                    if lcb < level:
                        break
                    passed += 1
                if pos[0] >= horizon:
                    break
                tot += _pull(cand_mean, pos, noise_key, sigma, reward_code, level, r_star, acc, checkpoints, curves, r, i)
                n += 1
            if checked:
                # ``passed`` counts checks with LCB >= S; each was followed by a pull unless T was hit
                if i <= n_diag:
                    round_checks_passed[r, i - 1] = passed
                if passed > 0 and first_passing == 0:
                    first_passing = i
        if pos[0] < horizon:
            raise ValueError("SELECT schedule table ended before the horizon")
        finals[r, 0] = i
        finals[r, 1] = phase
        finals[r, 2] = first_passing
        finals[r, 3] = cand_mean


def _check_checkpoints(checkpoints) -> np.ndarray:
    checkpoints = np.asarray(checkpoints, dtype=np.int64)
    if checkpoints.ndim != 1 or checkpoints.size == 0 or checkpoints[0] < 1 or np.any(np.diff(checkpoints) <= 0):
        raise ValueError("checkpoints must be a non-empty strictly increasing sequence of steps >= 1")
    return checkpoints


def _output(checkpoints, curves, names, finals=None) -> SimulationOutput:
    return SimulationOutput(checkpoints=checkpoints, curves={n: curves[:, j, :].copy() for j, n in enumerate(names)},
                            finals=finals or {}, pulls=None)


def grid_means_table(env: MeanFunctionEnvironment, horizons, exponent: float | None = None,
                     lipschitz: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Padded (G, K_max) means of the uniform grid of each horizon and the grid sizes (G,)."""
    lipschitz = env.lipschitz if lipschitz is None else lipschitz
    grids = [env.mean(cell_centres(cells_per_axis(lipschitz, h, env.dim, exponent), env.dim)) for h in horizons]
    sizes = np.array([g.size for g in grids], dtype=np.int64)
    table = np.full((len(grids), sizes.max()), np.nan)
    for g, means in enumerate(grids):
        table[g, :means.size] = means
    return table, sizes


@dataclass
class IndexPolicySimulation:
    """TS / Uniform UCB / SAT-UCB / SAT-UCB+ on a finite instance (prefix run) or per-horizon grids.

    ``grid_exponent`` None with a continuous environment means delta = (L T)^(-1/(d+2)).
    """

    policy: str
    env: MeanFunctionEnvironment
    level: float
    per_horizon: bool = False
    grid_exponent: float | None = None
    # the loop that plays the policy (None: run_index_policy); the sanity claims swap in reference.py's
    runner: object = None

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        checkpoints = _check_checkpoints(checkpoints)
        code = INDEX_POLICIES[self.policy]
        if self.policy in BERNOULLI_ONLY_POLICIES and self.env.rewards != "bernoulli":
            raise ValueError(f"{self.policy} needs Bernoulli rewards")
        if self.env.n_arms:  # finite instance: one arm set for every run
            if self.per_horizon:
                n_runs = checkpoints.size
                means = np.tile(self.env.params, (n_runs, 1))
                sizes = np.full(n_runs, self.env.n_arms, dtype=np.int64)
            else:
                means = self.env.params[None, :].copy()
                sizes = np.array([self.env.n_arms], dtype=np.int64)
        else:
            if not self.per_horizon:
                raise ValueError("a continuous instance needs per-horizon grids")
            means, sizes = grid_means_table(self.env, checkpoints, self.grid_exponent)
        run_horizons = checkpoints if self.per_horizon else checkpoints[-1:]
        curves = np.zeros((len(noise_keys), len(BASE_CURVES), checkpoints.size))
        play = run_index_policy if self.runner is None else self.runner
        play(code, np.ascontiguousarray(means), sizes, np.asarray(run_horizons, dtype=np.int64),
                         self.per_horizon, float(self.level), float(self.env.optimum), float(self.env.sigma),
                         self.env.reward_code, np.asarray(noise_keys, dtype=np.uint64), np.asarray(policy_keys, dtype=np.uint64),
                         checkpoints, curves)
        return _output(checkpoints, curves, BASE_CURVES)


@dataclass
class Convex1DSimulation:
    """Agarwal et al.'s 1-D algorithm with query budget H = T, one run per horizon."""

    env: MeanFunctionEnvironment
    level: float

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        checkpoints = _check_checkpoints(checkpoints)
        if self.env.dim != 1 or self.env.n_arms:
            raise ValueError("the 1-D convex algorithm needs a continuous 1-D environment")
        curves = np.zeros((len(noise_keys), len(BASE_CURVES), checkpoints.size))
        run_convex_1d(self.env.code, self.env.params, float(self.level), float(self.env.optimum),
                      float(self.env.sigma), np.asarray(noise_keys, dtype=np.uint64), checkpoints, curves)
        return _output(checkpoints, curves, BASE_CURVES)


@dataclass
class SelectSimulation:
    """SELECT with a given oracle and variant, one run per replication to the last checkpoint.

    Finals (per replication): the FINAL_NAMES above, plus
    ``candidate_mean_round_<i>`` and ``checks_passed_round_<i>`` for rounds 1..``diagnostic_rounds``
    and the indicators ``rounds_started_eq_<i>`` (and ``rounds_started_gt_<D>``).
    """

    oracle: str
    env: MeanFunctionEnvironment
    level: float
    variant: select_alg.SelectVariant = field(default_factory=select_alg.SelectVariant)
    grid_exponent: float | None = None
    diagnostic_rounds: int = 24

    def alpha(self) -> float:
        if self.oracle == "uniform_ucb":
            return (self.env.dim + 1.0) / (self.env.dim + 2.0)
        return select_alg.ORACLE_ALPHA[self.oracle]

    def schedule(self, horizon: int) -> tuple[np.ndarray, np.ndarray]:
        v = self.variant
        return select_alg.schedule_table(horizon, self.alpha(), v.gamma_scale, include_step1=not v.skip_step1,
                                         include_step2=not v.skip_step2)

    def run(self, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        checkpoints = _check_checkpoints(checkpoints)
        v = self.variant
        code = select_alg.ORACLES[self.oracle]
        if code in (select_alg.ORACLE_TS, select_alg.ORACLE_BETA_TS) and not self.env.n_arms:
            raise ValueError("the Thompson-sampling oracle needs a finite instance")
        if code == select_alg.ORACLE_BETA_TS and self.env.rewards != "bernoulli":
            raise ValueError("the Beta Thompson-sampling oracle needs Bernoulli rewards")
        if code == select_alg.ORACLE_CONVEX_1D and (self.env.n_arms or self.env.dim != 1):
            raise ValueError("the convex oracle needs a continuous 1-D instance")
        if v.skip_step1 and self.env.n_arms:
            raise ValueError("SELECT without Step 1 draws from a continuous arm set")
        round_t, round_big_t = self.schedule(int(checkpoints[-1]))
        if code == select_alg.ORACLE_UNIFORM_UCB and not v.skip_step1:
            # the grid of each round's horizon t_i; a warm (not restarted) oracle keeps one grid, the horizon's
            horizons = np.full(round_t.size, int(checkpoints[-1])) if v.warm_start else round_t
            grid_means, grid_sizes = grid_means_table(self.env, horizons, self.grid_exponent)
        else:
            grid_means, grid_sizes = np.zeros((1, 1)), np.ones(1, dtype=np.int64)
        n = len(noise_keys)
        curves = np.zeros((n, len(CURVE_NAMES), checkpoints.size))
        finals = np.zeros((n, len(FINAL_NAMES)))
        cand = np.zeros((n, self.diagnostic_rounds))
        passed = np.zeros((n, self.diagnostic_rounds))
        run_select(code, self.env.code, self.env.params, self.env.dim, np.ascontiguousarray(grid_means),
                              grid_sizes, round_t, round_big_t, float(self.level), float(self.env.optimum),
                              float(self.env.sigma), self.env.reward_code, float(v.radius_coef), v.skip_step1, v.skip_step2,
                              v.skip_step3, v.reuse_step1, v.warm_start, v.last_query,
                              np.asarray(noise_keys, dtype=np.uint64),
                              np.asarray(policy_keys, dtype=np.uint64), checkpoints, curves, finals, cand, passed)
        out = {name: finals[:, j].copy() for j, name in enumerate(FINAL_NAMES)}
        for i in range(self.diagnostic_rounds):
            out[f"candidate_mean_round_{i + 1}"] = cand[:, i].copy()
            out[f"checks_passed_round_{i + 1}"] = passed[:, i].copy()
            # indicators: their means over replications are the distribution of rounds reached
            out[f"rounds_started_eq_{i + 1}"] = (finals[:, 0] == i + 1).astype(np.float64)
        out[f"rounds_started_gt_{self.diagnostic_rounds}"] = (finals[:, 0] > self.diagnostic_rounds).astype(np.float64)
        return _output(checkpoints, curves, CURVE_NAMES, out)
