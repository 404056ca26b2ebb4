"""Reference: the satisficing_select experiments end to end, written from the paper (Feng, Ma & Zhu, SELECT).

A second implementation of every experiment of config/papers/satisficing_select.yaml, for the reference guards
REF2-REF4 and REF*.select, REF3.convex, ... (:class:`banditrepro.experiments.reference.ReferenceImplementation`,
docs/mutants.md "Guards"). It is written from the paper (Algorithm 1, Sec. 6, App. E and F) and the digest's
resolutions (shared/specs/satisficing_select.md), not from the build:

* ``SETTINGS``: Sec. 6's instances transcribed -- the four arms (0.6, 0.7, 0.8, 1) of Sec. 6.1, the concave
  r(x) = 1 - 16 (x - 0.25)^2 of Sec. 6.2 with L = 24, the capped bump f(x, y) = min{1, 3 exp(-100 ((x - 0.5)^2 +
  (y - 0.7)^2))} of Sec. 6.3 with the sup-norm L = 20 sqrt(2 ln 3) (resolution lipschitz_constants) -- with each
  experiment's level S, SELECT's oracle (Fig 2: Thompson sampling, Fig 3: Agarwal et al., Figs 4-6: Uniform UCB)
  and the sensitivity runs (Bernoulli rewards with Beta(1, 1) Thompson sampling; sigma = 0.1 run as the unit-noise
  instance r / sigma with level S / sigma and its outputs multiplied by sigma, as resolution sensitivity_sigma
  says). ``ALGORITHMS``: what each algorithm id runs (App. E's ablations, App. F's lambda, the labelled variants
  V1-V3, the last-query reading). Only the checkpoints come from the experiment;
* :func:`reward`: the observation of step t from the raw draws;
* the policies from their definitions (digest §2.2): Gaussian and Beta(1, 1) Thompson sampling, UCB(1/H^2) on a
  uniform grid of cell centres (delta = (L H)^(-1/(d+2)), M = ceil(1/delta)), SAT-UCB and SAT-UCB+, Agarwal et
  al.'s 1-D algorithm as the digest reconstructs it (:func:`agarwal_point`, :func:`agarwal_observe`), and SELECT
  (Algorithm 1, :func:`play_select`) around any of them;
* :func:`regret_curves`: satisficing regret sum max(S - r(X_t), 0), regret sum (r* - r(X_t)) against the
  continuous optimum r* = 1 (resolution continuous_optimum) and reward, from the means of the pulled arms.

Runs (resolution runs_and_horizons): SELECT, Thompson sampling and SAT-UCB(+) on the finite instance run once to
the last checkpoint and are read at every checkpoint; Uniform UCB, Agarwal's algorithm and SAT-UCB(+) on a
continuous instance run once per checkpoint T_g, with horizon T_g (their grid and ln H), and give column g.

Shared with the build, and nothing else (tests/test_reference_independence.py checks the imports): the Philox
draws of :mod:`banditrepro.rng` at the keys ``experiments.runner.keys_for`` gives each replication, read at these
counters -- the one convention the two implementations must agree on:

* the observation of step t (1-based: the t-th pull of the run, whatever the arm) on the noise key's TAG_ENV
  stream: r(X_t) + sigma Z_t with Z_t = ``rng.normal`` at (sub-stream 0, counter t), or with Bernoulli rewards
  1{U_t <= r(X_t)} with U_t = ``rng.uniform`` at (sub-stream 1, counter t). Every algorithm and every per-horizon
  run of a replication sees the same Z_t at step t (common random numbers by step, resolution noise);
* the policy's draws on the policy key's TAG_POLICY stream, sub-stream g for the run of column g of a per-horizon
  algorithm and 0 otherwise; one counter per draw, from 0, in the order the algorithm makes them: Thompson
  sampling one ``rng.normal`` per arm in index order at each step; Beta(1, 1) Thompson sampling one ``rng.beta``
  per arm in index order, on sub-stream g + 2^30; SAT-UCB's uniform exploration one ``rng.uniform`` u, taking the
  floor(u m)-th of the m eligible arms in index order (u m = m folded to m - 1); SELECT, on sub-stream 0, the
  oracle's draws of each Step-1 step followed by one ``rng.uniform`` u (Step 1's uniform sample from the
  trajectory, drawn as a reservoir: after step s the candidate becomes that step's arm when u s <= 1, so it is
  uniform on the trajectory) and, without Step 1, d ``rng.uniform`` per round, the candidate's coordinates;
* the output layout: the build's curve and final names (SELECT's per-round diagnostics for rounds 1..24 and its
  phase codes 1, 2, 3 for Steps 1, 2, 3);
* floating-point order, since every array is compared to the bit: each formula is evaluated in the order the
  paper writes it (theta = s/(k+1) + Z/sqrt(k+1); UCB mean + sqrt(4 ln H / n); SAT-UCB's R_t = sqrt(2 ln(1 + t
  ln t ln t)) and rho = (UCB - max(LCB, S)) / c, the authors' expression (digest §2.2); Agarwal's points l + w/4,
  l + w/2, l + 3w/4; 16 (x - 0.25)^2 as 16 ((x - 0.25)(x - 0.25)), which equals the build's (16 d) d because 16 is a
  power of two), and the regret is the running sum of the per-step gaps r* - r(X_t), not T r* - sum r(X_t).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from ... import rng
from ...simulation_output import SimulationOutput

FINITE, CONCAVE, BUMP = 0, 1, 2  # instance kinds
TS, BETA_TS, UCB, SAT_UCB, SAT_UCB_PLUS, AGARWAL = 0, 1, 2, 3, 4, 5  # learners (standalone or SELECT's oracle)
STEP1, STEP2, STEP3 = 1, 2, 3  # SELECT's phase codes in ``step_at_end`` (the build's output layout)
DIAGNOSTIC_ROUNDS = 24  # SELECT's per-round finals cover rounds 1..24 (the build's output layout)
CEIL_GUARD = 1e-9  # resolution ceilings: ceil(x - 1e-9) against float error in exact powers of two
BETA_SUB = 1 << 30  # Beta draws of a policy stream live on sub-stream sub + 2^30 (rng.stream_beta's layout)


# --- the paper's settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    """A mean function and its noise. ``params``: FINITE the arm means; CONCAVE (top, curvature, centre); BUMP
    (cap, amplitude, rate, x0, y0). ``lipschitz`` sizes the uniform grids of a continuous instance."""

    kind: int
    params: tuple
    dim: int = 1
    lipschitz: float = math.nan
    optimum: float = 1.0  # r*, 1 in every instance of Sec. 6
    sigma: float = 1.0  # Gaussian noise sd
    bernoulli: bool = False


SEC_6_1 = Instance(FINITE, (0.6, 0.7, 0.8, 1.0))
SEC_6_2 = Instance(CONCAVE, (1.0, 16.0, 0.25), lipschitz=24.0)  # L = sup |r'| = 32 x 0.75
SEC_6_3 = Instance(BUMP, (1.0, 3.0, 100.0, 0.5, 0.7), dim=2, lipschitz=20.0 * math.sqrt(2.0 * math.log(3.0)))


@dataclass(frozen=True)
class Setting:
    """An experiment: its instance, level S, SELECT's oracle and Thompson sampling's prior; ``units``: the
    regrets, rewards and candidate means are multiplied by it (the sigma run's unit-noise instance)."""

    instance: Instance
    level: float
    oracle: int
    thompson: int = TS
    units: float = 1.0


def unit_noise(setting: Setting, sigma: float) -> Setting:
    """Resolution sensitivity_sigma: noise sd ``sigma`` with every confidence radius scaled by sigma, run as the
    instance r / sigma (cap and amplitude / sigma) with unit noise and level S / sigma on the original grids."""
    inst = setting.instance
    scaled = replace(inst, params=(inst.params[0] / sigma, inst.params[1] / sigma) + inst.params[2:],
                     optimum=inst.optimum / sigma, sigma=1.0)
    return replace(setting, instance=scaled, level=setting.level / sigma, units=sigma)


BERNOULLI_ARMS = replace(SEC_6_1, sigma=math.nan, bernoulli=True)
SETTINGS = {
    "finite_realizable": Setting(SEC_6_1, 0.93, TS),  # Fig 2(a)
    "finite_nonrealizable": Setting(SEC_6_1, 1.5, TS),  # Fig 2(b)
    "concave_realizable": Setting(SEC_6_2, 0.3, AGARWAL),  # Fig 3(a)
    "concave_nonrealizable": Setting(SEC_6_2, 1.5, AGARWAL),  # Fig 3(b)
    "lipschitz_realizable": Setting(SEC_6_3, 0.5, UCB),  # Figs 4(a), 6(a)
    "lipschitz_nonrealizable": Setting(SEC_6_3, 1.5, UCB),  # Figs 4(b), 6(b)
    "ablation": Setting(SEC_6_3, 0.7, UCB),  # Fig 5 (App. E)
    "lipschitz_nonrealizable_v3": Setting(SEC_6_3, 1.5, UCB),  # Fig 4(b), V3 (issue 38)
    "lipschitz_realizable_sigma": unit_noise(Setting(SEC_6_3, 0.5, UCB), 0.1),
    "finite_realizable_bernoulli": Setting(BERNOULLI_ARMS, 0.93, BETA_TS, thompson=BETA_TS),
    "finite_nonrealizable_bernoulli": Setting(BERNOULLI_ARMS, 1.5, BETA_TS, thompson=BETA_TS),
    "concave_realizable_last_query": Setting(SEC_6_2, 0.3, AGARWAL),
}


@dataclass(frozen=True)
class Select:
    """Algorithm 1 and its changes: ``lam`` multiplies gamma_i (App. F); ``radius`` c of Step 3's LCB radius
    sqrt(c ln n / n) (4 as printed; V1: 1); ``step1``..``step3`` (App. E's ablations); ``reuse_step1`` (V2: the
    round's Step-1 rewards of the candidate enter the test); ``warm`` (V3: the oracle is not restarted -- TS and
    Agarwal's algorithm keep their data; Uniform UCB, whose grid would change with t_i, is one UCB(H) on the grid of
    the run's horizon H (the last checkpoint), with ln H, that only Step 1 advances, so its first sweep of the
    grid runs on across rounds; resolution sensitivity_variants); ``last_query`` (reading agarwal_last_query: the
    candidate is the oracle's last query)."""

    lam: float = 1.0
    radius: float = 4.0
    step1: bool = True
    step2: bool = True
    step3: bool = True
    reuse_step1: bool = False
    warm: bool = False
    last_query: bool = False


# algorithm id -> a Select, or the learner it runs standalone ("thompson": the setting's Thompson sampling)
ALGORITHMS = {
    "select": Select(),
    "select_lambda_0_5": Select(lam=0.5),
    "select_lambda_2": Select(lam=2.0),
    "select_lambda_5": Select(lam=5.0),
    "select_no_step1": Select(step1=False),
    "select_no_step2": Select(step2=False),
    "select_no_step3": Select(step3=False),
    "select_v1": Select(radius=1.0),
    "select_v2": Select(reuse_step1=True),
    "select_v3": Select(warm=True),
    "select_last_query": Select(last_query=True),
    "thompson": "thompson",
    "uniform_ucb": UCB,
    "sat_ucb": SAT_UCB,
    "sat_ucb_plus": SAT_UCB_PLUS,
    "convex": AGARWAL,
}


# --- instances and observations ------------------------------------------------------------------------------


@njit(cache=True)
def mean_at(kind, params, x, y):
    """r at the point (x[, y]) of a continuous instance."""
    if kind == CONCAVE:  # top - curvature (x - centre)^2
        d = x - params[2]
        return params[0] - params[1] * (d * d)
    dx = x - params[3]  # min{cap, amplitude exp(-rate ((x - x0)^2 + (y - y0)^2))}
    dy = y - params[4]
    return min(params[0], params[1] * math.exp(-params[2] * (dx * dx + dy * dy)))


@njit(cache=True)
def grid_cells(lipschitz, horizon, dim):
    """M = ceil(1 / delta) cells per axis, delta = (L H)^(-1/(d+2)) (Sec. 6; resolution discretization)."""
    delta = (lipschitz * horizon) ** (-1.0 / (dim + 2))
    return max(1, math.ceil(1.0 / delta - CEIL_GUARD))


@njit(cache=True)
def grid_means(kind, params, dim, cells):
    """r at the cell centres ((m_1 + 1/2)/M, ..., (m_d + 1/2)/M), row-major (the first coordinate outermost)."""
    means = np.empty(cells ** dim)
    for a in range(means.size):
        if dim == 1:
            means[a] = mean_at(kind, params, (a + 0.5) / cells, 0.0)
        else:
            means[a] = mean_at(kind, params, (a // cells + 0.5) / cells, (a % cells + 0.5) / cells)
    return means


@njit(cache=True)
def reward(mean, t, noise_key, sigma, bernoulli):
    """Y_t at an arm of mean r(X_t): r(X_t) + sigma Z_t, or 1{U_t <= r(X_t)} with Bernoulli rewards."""
    if bernoulli:
        return 1.0 if rng.uniform(noise_key, rng.TAG_ENV, 1, t) <= mean else 0.0
    return mean + sigma * rng.normal(noise_key, rng.TAG_ENV, 0, t)


# --- the learners ----------------------------------------------------------------------------------------------


@njit(cache=True)
def thompson_arm(counts, sums, key, sub, draw):
    """(arm, next draw): Gaussian-prior TS, theta_j ~ N(s_j / (k_j + 1), 1 / (k_j + 1)) (1/(k+1) a variance)."""
    z = np.empty(counts.size)
    for j in range(counts.size):
        z[j] = rng.normal(key, rng.TAG_POLICY, sub, draw + j)
    theta = sums / (counts + 1.0) + z / np.sqrt(counts + 1.0)
    return np.argmax(theta), draw + counts.size


@njit(cache=True)
def beta_thompson_arm(counts, successes, key, sub, draw):
    """(arm, next draw): TS with Beta(1, 1) priors, theta_j ~ Beta(1 + successes_j, 1 + failures_j)."""
    theta = np.empty(counts.size)
    for j in range(counts.size):
        theta[j] = rng.beta(1.0 + successes[j], 1.0 + (counts[j] - successes[j]), key, rng.TAG_POLICY,
                            sub + BETA_SUB, draw + j)
    return np.argmax(theta), draw + counts.size


@njit(cache=True)
def ucb_arm(step, counts, sums, log_h):
    """UCB(1/H^2) at its ``step``-th pull: every arm once in index order, then argmax mean + sqrt(4 ln H / n)."""
    if step <= counts.size:
        return step - 1
    return np.argmax(sums / counts + np.sqrt(4.0 * log_h / counts))


@njit(cache=True)
def sat_ucb_arm(plus, t, counts, sums, level, key, sub, draw):
    """(arm, next draw) of SAT-UCB (SAT-UCB+ if ``plus``) after t pulls: every arm once, then with R_t =
    sqrt(2 ln(1 + t ln^2 t)), c_j = R_t / sqrt(n_j) and rho_j = (UCB_j - max(LCB_j, S)) / c_j:
    SAT-UCB: max mean >= S -> argmax rho; else max UCB >= S -> uniform on {UCB_j >= S}; else argmax UCB.
    SAT-UCB+: max UCB >= S -> argmax rho; else argmax UCB."""
    if t < counts.size:
        return t, draw
    log_t = math.log(t)
    r_t = math.sqrt(2.0 * math.log(1.0 + t * log_t * log_t))
    mu = sums / counts
    c = r_t / np.sqrt(counts)
    upper = mu + c
    rho = (upper - np.maximum(mu - c, level)) / c
    if (upper.max() if plus else mu.max()) >= level:
        return np.argmax(rho), draw
    if upper.max() < level:
        return np.argmax(upper), draw
    eligible = np.flatnonzero(upper >= level)
    u = rng.uniform(key, rng.TAG_POLICY, sub, draw)
    return eligible[min(int(u * eligible.size), eligible.size - 1)], draw + 1


# Agarwal et al.'s 1-D algorithm (digest §2.2, a reconstruction, resolution agarwal_1d), maximising: the interval
# [left, right]; an epoch's points x_l, x_c, x_r at a quarter, half and three quarters of it; round i of an epoch
# samples each n_i = ceil(2 sigma^2 ln H / gamma_i^2) times, gamma_i = 2^-i, cyclically x_l, x_c, x_r, ...
AGARWAL_STATE = np.dtype([("left", "f8"), ("right", "f8"), ("round", "i8"), ("n", "i8"), ("queries", "i8"),
                          ("sums", "f8", (3,)), ("log_h", "f8"), ("sigma", "f8")])


@njit(cache=True)
def agarwal_round(state, i):
    """Start round i of the current epoch: fresh samples, n_i each."""
    gamma = 2.0 ** -i
    state.round = i
    state.n = math.ceil(2.0 * state.sigma ** 2 * state.log_h / gamma ** 2)
    state.queries = 0
    state.sums[:] = 0.0


@njit(cache=True)
def agarwal_start(state, horizon, sigma):
    """A fresh instance on [0, 1] with query budget H = ``horizon`` (ln H with H >= 2, where the paper states it)."""
    state.left = 0.0
    state.right = 1.0
    state.sigma = sigma
    state.log_h = math.log(max(horizon, 2))
    agarwal_round(state, 1)


@njit(cache=True)
def agarwal_point(state):
    """The next query: x_l = l + w/4, x_c = l + w/2, x_r = l + 3w/4 (w = r - l) in turn."""
    w = state.right - state.left
    return state.left + (state.queries % 3 + 1) * w / 4.0


@njit(cache=True)
def agarwal_observe(state, y):
    """Record the reward of :func:`agarwal_point`'s query; at the end of a round, with m_p the round's mean at p,
    U_p = m_p + gamma and Lo_p = m_p - gamma: Case 1 max(Lo_l, Lo_r) >= min(U_l, U_r) + gamma or Case 2
    min(U_l, U_r) <= Lo_c - gamma drops a quarter (the left one if U_l <= U_r, else the right one) and starts a new
    epoch; otherwise round i + 1."""
    state.sums[state.queries % 3] += y
    state.queries += 1
    if state.queries < 3 * state.n:
        return
    gamma = 2.0 ** -state.round
    m = state.sums / state.n
    up_l, up_r = m[0] + gamma, m[2] + gamma
    lo_l, lo_c, lo_r = m[0] - gamma, m[1] - gamma, m[2] - gamma
    if max(lo_l, lo_r) >= min(up_l, up_r) + gamma or min(up_l, up_r) <= lo_c - gamma:
        w = state.right - state.left
        if up_l <= up_r:
            state.left = state.left + w / 4.0  # l = x_l
        else:
            state.right = state.left + 3.0 * w / 4.0  # r = x_r
        agarwal_round(state, 1)
    else:
        agarwal_round(state, state.round + 1)


# --- one run -------------------------------------------------------------------------------------------------------


@njit(cache=True)
def play_learner(learner, arm_means, horizon, log_h, level, sigma, bernoulli, noise_key, policy_key, sub):
    """(r(X_t), Y_t) for t = 1..horizon of Thompson sampling, UCB or SAT-UCB(+) on arms of means ``arm_means``."""
    counts = np.zeros(arm_means.size)
    sums = np.zeros(arm_means.size)
    pulled = np.empty(horizon)
    got = np.empty(horizon)
    draw = 0
    for t in range(1, horizon + 1):
        if learner == TS:
            arm, draw = thompson_arm(counts, sums, policy_key, sub, draw)
        elif learner == BETA_TS:
            arm, draw = beta_thompson_arm(counts, sums, policy_key, sub, draw)
        elif learner == UCB:
            arm = ucb_arm(t, counts, sums, log_h)
        else:
            arm, draw = sat_ucb_arm(learner == SAT_UCB_PLUS, t - 1, counts, sums, level, policy_key, sub, draw)
        pulled[t - 1] = arm_means[arm]
        got[t - 1] = reward(arm_means[arm], t, noise_key, sigma, bernoulli)
        counts[arm] += 1.0
        sums[arm] += got[t - 1]
    return pulled, got


@njit(cache=True)
def play_agarwal(kind, params, horizon, sigma, noise_key):
    """(r(X_t), Y_t) for t = 1..horizon of Agarwal et al.'s algorithm with query budget H = horizon."""
    state = np.zeros(1, dtype=AGARWAL_STATE)[0]
    agarwal_start(state, horizon, sigma)
    pulled = np.empty(horizon)
    got = np.empty(horizon)
    for t in range(1, horizon + 1):
        pulled[t - 1] = mean_at(kind, params, agarwal_point(state), 0.0)
        got[t - 1] = reward(pulled[t - 1], t, noise_key, sigma, False)
        agarwal_observe(state, got[t - 1])
    return pulled, got


@njit(cache=True)
def pull(mean, t, i, noise_key, sigma, bernoulli, pulled, got, round_of):
    """Y_t of SELECT's step t (in round i) on an arm of mean ``mean``, recorded with r(X_t) and i."""
    y = reward(mean, t, noise_key, sigma, bernoulli)
    pulled[t - 1] = mean
    got[t - 1] = y
    round_of[t - 1] = i
    return y


@njit(cache=True)
def play_select(oracle, kind, params, dim, lipschitz, arm_means, horizon, level, sigma, bernoulli,
                lam, radius, step1, step2, step3, reuse_step1, warm, last_query, noise_key, policy_key,
                pulled, got, round_of, candidate_means, checks_passed):
    """One run of Algorithm 1 for ``horizon`` steps; it stops at the horizon in whatever step (every pull counts).
    Fills r(X_t), Y_t and the round of each step, and per round i <= 24 r(X_hat_i) (NaN if Step 1 was cut) and
    the number of LCB checks passed (-1 if the round never reached its first check). Returns (rounds started,
    step at the end, first round whose test passed (0: none), r of the last candidate -- in a Step 1 cut by the
    horizon, the reservoir's pick of the partial trajectory)."""
    alpha = (dim + 1.0) / (dim + 2.0) if oracle == UCB else 0.5  # Condition 1 (resolution alpha)
    n_arms = max(arm_means.size, 1)
    counts = np.zeros(n_arms)
    sums = np.zeros(n_arms)
    means = arm_means
    state = np.zeros(1, dtype=AGARWAL_STATE)[0]
    point = np.zeros(2)
    trajectory = np.empty(0)  # the arms (grid index, or the point) of the round's Step-1 steps
    rewards = np.empty(0)
    t = draw = i = first_passing = ucb_steps = 0
    log_h = 0.0  # ln H of the UCB oracle
    step = STEP1
    candidate = candidate_key = math.nan
    candidate_means[:] = math.nan
    checks_passed[:] = -1.0
    while t < horizon:
        i += 1
        gamma = lam * 2.0 ** (-i * (1.0 - alpha) / alpha)
        t_i = max(1, math.ceil(gamma ** (-1.0 / (1.0 - alpha)) - CEIL_GUARD))
        big_t_i = max(1, math.ceil(gamma ** -2.0 - CEIL_GUARD))
        step = STEP1
        # Step 1: run ALG(t_i), take X_hat_i uniformly from its trajectory
        if not step1:  # App. E: X_hat_i ~ Uniform([0, 1]^d) instead
            for q in range(dim):
                point[q] = rng.uniform(policy_key, rng.TAG_POLICY, 0, draw)
                draw += 1
            candidate = mean_at(kind, params, point[0], point[1])
        else:
            fresh = i == 1 or not warm
            if oracle == UCB:
                if fresh:  # UCB(t_i) on the grid of horizon t_i; V3: one UCB(H), H the run's, paused outside Step 1
                    ucb_horizon = horizon if warm else t_i
                    means = grid_means(kind, params, dim, grid_cells(lipschitz, ucb_horizon, dim))
                    counts = np.zeros(means.size)
                    sums = np.zeros(means.size)
                    ucb_steps, log_h = 0, math.log(ucb_horizon)
            elif oracle == AGARWAL:
                if fresh:
                    agarwal_start(state, t_i, sigma)
                else:  # V3: the same instance, its later rounds sized for budget t_i
                    state.log_h = math.log(max(t_i, 2))
            elif fresh:
                counts[:] = 0.0
                sums[:] = 0.0
            trajectory = np.empty(t_i)
            rewards = np.empty(t_i)
            s = 0
            while s < t_i and t < horizon:
                s += 1
                t += 1
                arm = 0
                if oracle == TS:
                    arm, draw = thompson_arm(counts, sums, policy_key, 0, draw)
                elif oracle == BETA_TS:
                    arm, draw = beta_thompson_arm(counts, sums, policy_key, 0, draw)
                elif oracle == UCB:  # its own pulls count its steps (across rounds in V3)
                    ucb_steps += 1
                    arm = ucb_arm(ucb_steps, counts, sums, log_h)
                if oracle == AGARWAL:
                    trajectory[s - 1] = agarwal_point(state)
                    mean = mean_at(kind, params, trajectory[s - 1], 0.0)
                else:
                    trajectory[s - 1] = arm
                    mean = means[arm]
                y = rewards[s - 1] = pull(mean, t, i, noise_key, sigma, bernoulli, pulled, got, round_of)
                if oracle == AGARWAL:
                    agarwal_observe(state, y)
                else:
                    counts[arm] += 1.0
                    sums[arm] += y
                if rng.uniform(policy_key, rng.TAG_POLICY, 0, draw) * s <= 1.0 or last_query:
                    candidate, candidate_key = mean, trajectory[s - 1]
                draw += 1
            if s < t_i:
                break  # the horizon came inside Step 1
        if i <= DIAGNOSTIC_ROUNDS:
            candidate_means[i - 1] = candidate
        if t == horizon:
            break
        # Step 2: pull X_hat_i T_i times; the test uses this round's Step-2/3 rewards (V2: and Step 1's of X_hat_i)
        total = 0.0
        n = 0
        if reuse_step1:
            for q in range(t_i):
                if trajectory[q] == candidate_key:
                    total += rewards[q]
                    n += 1
        if step2:
            step = STEP2
            forced = 0
            while forced < big_t_i and t < horizon:
                t += 1
                total += pull(candidate, t, i, noise_key, sigma, bernoulli, pulled, got, round_of)
                n += 1
                forced += 1
            if forced < big_t_i:
                break  # the horizon came inside Step 2
        if not step3:
            continue
        # Step 3: while LCB = total/n - sqrt(c ln n / n) >= S, pull X_hat_i again (first check at k = 0)
        step = STEP3
        if n == 0:  # App. E without Step 2: one pull, then the test
            if t == horizon:
                break
            t += 1
            total += pull(candidate, t, i, noise_key, sigma, bernoulli, pulled, got, round_of)
            n = 1
        passed = 0
        while total / n - math.sqrt(radius * math.log(n) / n) >= level:
            passed += 1
            if t == horizon:
                break
            t += 1
            total += pull(candidate, t, i, noise_key, sigma, bernoulli, pulled, got, round_of)
            n += 1
        if i <= DIAGNOSTIC_ROUNDS:
            checks_passed[i - 1] = passed
        if passed > 0 and first_passing == 0:
            first_passing = i
    return i, step, first_passing, candidate


# --- the metrics and the reference ----------------------------------------------------------------------------


def regret_curves(pulled: np.ndarray, got: np.ndarray, level: float, optimum: float) -> np.ndarray:
    """(3, T): cumulative satisficing regret sum max(S - r(X_t), 0), regret sum (r* - r(X_t)) and reward."""
    return np.stack([np.cumsum(np.maximum(level - pulled, 0.0)), np.cumsum(optimum - pulled), np.cumsum(got)])


CURVES = ("satisficing_regret", "regret", "reward")


class SatisficingSelectReference:
    """:class:`banditrepro.experiments.reference.ReferenceImplementation` of every experiment in ``SETTINGS``."""

    tolerances: dict[str, float] = {}  # every array to the bit

    def run(self, experiment, algorithm: str, noise_keys, policy_keys, checkpoints) -> SimulationOutput:
        setting, what = SETTINGS.get(experiment.id), ALGORITHMS.get(algorithm)
        if setting is None or what is None:
            raise ValueError(f"the satisficing_select reference has no {experiment.id}/{algorithm}")
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        keys = [(np.uint64(noise), np.uint64(policy)) for noise, policy in zip(noise_keys, policy_keys)]
        if isinstance(what, Select):
            out = self._select(setting, what, keys, checkpoints)
        else:
            out = self._learner(setting, setting.thompson if what == "thompson" else what, keys, checkpoints)
        if setting.units != 1.0:  # the sigma run: back from the unit-noise instance r / sigma
            out = SimulationOutput(
                checkpoints=out.checkpoints,
                curves={k: v * setting.units if k in CURVES else v for k, v in out.curves.items()},
                finals={k: v * setting.units if "candidate_mean" in k else v for k, v in out.finals.items()})
        return out

    @staticmethod
    def _learner(setting: Setting, learner: int, keys, checkpoints) -> SimulationOutput:
        inst = setting.instance
        params = np.array(inst.params)
        continuous = inst.kind != FINITE
        if (learner in (TS, BETA_TS) and continuous) or (learner == AGARWAL and inst.kind != CONCAVE):
            raise ValueError(f"learner {learner} does not run on instance kind {inst.kind}")
        per_horizon = continuous or learner == UCB  # its grid or its ln H depends on T
        curves = np.empty((len(keys), 3, checkpoints.size))
        for r, (noise, policy) in enumerate(keys):
            for g, horizon in enumerate(checkpoints if per_horizon else checkpoints[-1:]):
                horizon = int(horizon)
                if learner == AGARWAL:
                    pulled, got = play_agarwal(inst.kind, params, horizon, inst.sigma, noise)
                else:
                    means = (grid_means(inst.kind, params, inst.dim, grid_cells(inst.lipschitz, horizon, inst.dim))
                             if continuous else params)
                    pulled, got = play_learner(learner, means, horizon, math.log(horizon), setting.level,
                                               inst.sigma, inst.bernoulli, noise, policy, g)
                run = regret_curves(pulled, got, setting.level, inst.optimum)
                if per_horizon:
                    curves[r, :, g] = run[:, -1]
                else:
                    curves[r] = run[:, checkpoints - 1]
        return SimulationOutput(checkpoints=checkpoints, curves={n: curves[:, k].copy() for k, n in enumerate(CURVES)},
                                finals={})

    @staticmethod
    def _select(setting: Setting, v: Select, keys, checkpoints) -> SimulationOutput:
        inst = setting.instance
        if not v.step1 and inst.kind == FINITE:
            raise ValueError("SELECT without Step 1 draws from a continuous arm set")
        horizon = int(checkpoints[-1])
        params = np.array(inst.params)
        arm_means = params if inst.kind == FINITE else np.zeros(0)
        n = len(keys)
        curves = np.empty((n, 4, checkpoints.size))
        ends = np.empty((n, 4))
        candidates = np.empty((n, DIAGNOSTIC_ROUNDS))
        passed = np.empty((n, DIAGNOSTIC_ROUNDS))
        for r, (noise, policy) in enumerate(keys):
            pulled, got, round_of = np.empty(horizon), np.empty(horizon), np.empty(horizon)
            ends[r] = play_select(setting.oracle, inst.kind, params, inst.dim, inst.lipschitz, arm_means, horizon,
                                  setting.level, inst.sigma, inst.bernoulli, v.lam, v.radius, v.step1, v.step2,
                                  v.step3, v.reuse_step1, v.warm, v.last_query, noise, policy, pulled, got, round_of,
                                  candidates[r], passed[r])
            curves[r, :3] = regret_curves(pulled, got, setting.level, inst.optimum)[:, checkpoints - 1]
            curves[r, 3] = round_of[checkpoints - 1]
        rounds = ends[:, 0]
        finals = {name: ends[:, k].copy() for k, name in
                  enumerate(("rounds_started", "step_at_end", "first_passing_round", "final_candidate_mean"))}
        for i in range(1, DIAGNOSTIC_ROUNDS + 1):
            finals[f"candidate_mean_round_{i}"] = candidates[:, i - 1].copy()
            finals[f"checks_passed_round_{i}"] = passed[:, i - 1].copy()
            finals[f"rounds_started_eq_{i}"] = (rounds == i).astype(np.float64)
        finals[f"rounds_started_gt_{DIAGNOSTIC_ROUNDS}"] = (rounds > DIAGNOSTIC_ROUNDS).astype(np.float64)
        return SimulationOutput(checkpoints=checkpoints,
                                curves={n: curves[:, k].copy() for k, n in enumerate(CURVES + ("round",))},
                                finals=finals)


REFERENCE = SatisficingSelectReference()
