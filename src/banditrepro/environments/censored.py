"""Arms with a joint (reward R, resource consumption C) law, and their exact ground truth.

Used by the censored-resources paper (Bengs & Hüllermeier): the learner picks an arm i and a
limit tau; it sees (R, C) when C <= tau and only "censored" otherwise.

Three arm families, selected by an integer code so that one compiled simulation loop serves all
of them (numba cannot hold a list of heterogeneous samplers):

* ``GAUSSIAN`` (code 0): bivariate Gaussian, mean (mu_R, mu_C), covariance sigma*[[1, rho], [rho, 1]]
  (sigma multiplies a correlation matrix, digest A2), truncated to a box by rejection.
  ``params[i] = (mu_R, mu_C, sigma, rho, r_lo, r_hi, c_lo, c_hi)``.
* ``BETA_EXP`` (code 1): independent R ~ Beta(a, b) and C ~ Exp(rate).
  ``params[i] = (a, b, rate, 0, ...)``.
* ``TABLE`` (code 2): a surrogate table of K recorded runs per arm (the AmesHousing forest
  study); pull k of arm i replays run U{0..K-1}. ``table[i, k] = (R, C)``.

Common random numbers: the k-th pull of arm i in a replication reads Philox counters derived
only from (noise key, arm, k), so every algorithm sees the same (R, C) sequence per arm.

Ground truth: ``nu[i, j] = E[(R - c(C)) 1{C <= tau_j}] - lambda(tau_j) P(C > tau_j)`` (eq. 2) with
the linear cost c(x) = cost_slope * x, computed by 1-D quadrature (Gaussian), in closed form
(Beta/Exp) or exactly from the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import rng

GAUSSIAN = 0
BETA_EXP = 1
TABLE = 2

N_PARAMS = 8
# Rejection attempts per pull: attempt a of pull k uses counter k * _MAX_ATTEMPTS + a. The
# lowest acceptance rate in the paper's instances is about 0.4, so failing 64 times in a row
# has probability < 1e-14; after that the last candidate is clipped into the box.
_MAX_ATTEMPTS = 64
# Exponential consumption draws use sub-streams above those used by the Beta rewards
# (rng.beta uses sub-streams 2*arm and 2*arm+1).
_EXP_SUB_OFFSET = 1 << 30

TRUNCATIONS = ("lower0", "unit_square", "none")


def truncation_box(truncation: str) -> tuple[float, float, float, float]:
    """(r_lo, r_hi, c_lo, c_hi) of the support box (digest A1)."""
    if truncation == "lower0":
        return 0.0, math.inf, 0.0, math.inf
    if truncation == "unit_square":
        return 0.0, 1.0, 0.0, 1.0
    if truncation == "none":
        return -math.inf, math.inf, -math.inf, math.inf
    raise ValueError(f"unknown truncation {truncation!r}; expected one of {TRUNCATIONS}")


def correlation_from_x(x) -> np.ndarray:
    """rho = 2 x sqrt(1 - x^2), the off-diagonal of eq. (35)."""
    x = np.asarray(x, dtype=np.float64)
    return 2.0 * x * np.sqrt(1.0 - x * x)


@dataclass(frozen=True)
class CensoredArms:
    """A set of arms: ``code`` picks the family, ``params`` (n, 8) and ``table`` (n, K, 2)."""

    code: int
    params: np.ndarray
    table: np.ndarray

    @property
    def n_arms(self) -> int:
        return self.params.shape[0]


def gaussian_arms(mu_r, mu_c, x, sigma, truncation: str = "lower0") -> CensoredArms:
    mu_r = np.asarray(mu_r, dtype=np.float64)
    n = mu_r.size
    mu_c = np.broadcast_to(np.asarray(mu_c, dtype=np.float64), (n,))
    rho = correlation_from_x(np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)))
    if sigma <= 0:
        raise ValueError("sigma must be > 0")
    if np.any(np.abs(rho) >= 1):
        raise ValueError("|rho| must be < 1 (|x| < 1/sqrt(2) or x such that 2x sqrt(1-x^2) < 1)")
    box = truncation_box(truncation)
    params = np.zeros((n, N_PARAMS))
    params[:, 0] = mu_r
    params[:, 1] = mu_c
    params[:, 2] = sigma
    params[:, 3] = rho
    params[:, 4:8] = box
    return CensoredArms(GAUSSIAN, params, np.zeros((n, 1, 2)))


def beta_exp_arms(a, b, rate) -> CensoredArms:
    a = np.asarray(a, dtype=np.float64)
    n = a.size
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), (n,))
    rate = np.broadcast_to(np.asarray(rate, dtype=np.float64), (n,))
    if np.any(a <= 0) or np.any(b <= 0) or np.any(rate <= 0):
        raise ValueError("Beta parameters and exponential rates must be > 0")
    params = np.zeros((n, N_PARAMS))
    params[:, 0] = a
    params[:, 1] = b
    params[:, 2] = rate
    return CensoredArms(BETA_EXP, params, np.zeros((n, 1, 2)))


def table_arms(rewards, consumptions) -> CensoredArms:
    """rewards, consumptions: (n_arms, K) recorded runs."""
    rewards = np.asarray(rewards, dtype=np.float64)
    consumptions = np.asarray(consumptions, dtype=np.float64)
    if rewards.shape != consumptions.shape or rewards.ndim != 2:
        raise ValueError("rewards and consumptions must be (n_arms, K) arrays of the same shape")
    table = np.ascontiguousarray(np.stack([rewards, consumptions], axis=2))
    return CensoredArms(TABLE, np.zeros((rewards.shape[0], N_PARAMS)), table)


# --- sampling (numba) -----------------------------------------------------------------


@njit(cache=True, inline="always")
def _gaussian_candidate(p, z1, z2, sd, ortho):
    """(R, C) from a standard normal pair, and whether it lies in the arm's box."""
    r = p[0] + sd * z1
    c = p[1] + sd * (p[3] * z1 + ortho * z2)
    return r, c, p[4] <= r <= p[5] and p[6] <= c <= p[7]


@njit(cache=True)
def _gaussian_draw(p, key, arm, pull, first_attempt):
    """Pull ``pull`` of a Gaussian arm, from rejection attempt ``first_attempt`` on (the earlier ones rejected)."""
    sd = math.sqrt(p[2])
    ortho = math.sqrt(1.0 - p[3] * p[3])
    base = np.uint64(pull) * np.uint64(_MAX_ATTEMPTS)
    r = p[0]
    c = p[1]
    for a in range(first_attempt, _MAX_ATTEMPTS):
        z1, z2 = rng.normal_pair(key, rng.TAG_ARM, arm, base + np.uint64(a))
        r, c, inside = _gaussian_candidate(p, z1, z2, sd, ortho)
        if inside:
            return r, c
    return min(max(r, p[4]), p[5]), min(max(c, p[6]), p[7])


@njit(cache=True)
def draw(code, params, table, key, arm, pull):
    """(R, C) of the ``pull``-th (0-based) pull of ``arm`` under noise ``key``."""
    if code == GAUSSIAN:
        return _gaussian_draw(params[arm], key, arm, pull, 0)
    if code == BETA_EXP:
        r = rng.beta(params[arm, 0], params[arm, 1], key, rng.TAG_ARM, arm, pull)
        c = rng.exponential(key, rng.TAG_ARM, np.uint64(_EXP_SUB_OFFSET) + np.uint64(arm), pull) / params[arm, 2]
        return r, c
    k_runs = table.shape[1]
    k = int(rng.uniform(key, rng.TAG_ARM, arm, pull) * k_runs)
    if k >= k_runs:
        k = k_runs - 1
    return table[arm, k, 0], table[arm, k, 1]


# Block draws. Pull k of arm i depends only on (key, i, k), never on the policy, so a simulation may draw an
# arm's next BLOCK_PULLS pulls at once (draw_block) and hand them out one by one: the same values as draw.
# Profiling: one at a time, a Gaussian draw cost about 56 ns and a Beta/Exp draw 160 ns, much of it in
# Philox blocks and the branches of nested rejection loops. draw_block first reads, for every pull of the
# block, the Philox blocks of the first attempts in one loop without branches or transcendental functions
# (it vectorises), then settles each pull from them, going on exactly as draw where an attempt is rejected.
# Gaussian: the first polar try of each of the first BLOCK_ATTEMPTS rejection attempts; Beta/Exp: each
# gamma's first attempt (rng.gamma_first_try) and the exponential's uniform.
BLOCK_PULLS = 32
BLOCK_ATTEMPTS = 2
_GAUSSIAN_ROWS = 2  # rows 2 + 3a .. 4 + 3a: (v1, v2, s) of attempt a's first polar try
_GAMMA_ROWS = (2, 6)  # rows g .. g + 3: rng.gamma_first_try of the reward's gammas X, Y
_EXP_ROW = 10  # the exponential consumption's uniform
BLOCK_ROWS = 11  # rows 0, 1: R, C; the rest scratch. One column per pull.


@njit(cache=True, error_model="numpy", boundscheck=False)
def _gaussian_first_tries(key, arm, first_pull, block):
    for a in range(BLOCK_ATTEMPTS):
        row = _GAUSSIAN_ROWS + 3 * a
        for q in range(block.shape[1]):
            idx = (np.uint64(first_pull) + np.uint64(q)) * np.uint64(_MAX_ATTEMPTS) + np.uint64(a)
            block[row, q], block[row + 1, q], block[row + 2, q] = rng.polar_first_try(key, rng.TAG_ARM, arm, idx)


@njit(cache=True, error_model="numpy")
def _gaussian_block(p, key, arm, first_pull, block):
    _gaussian_first_tries(key, arm, first_pull, block)
    sd = math.sqrt(p[2])
    ortho = math.sqrt(1.0 - p[3] * p[3])
    for q in range(block.shape[1]):
        pull = first_pull + q
        settled = False
        for a in range(BLOCK_ATTEMPTS):
            row = _GAUSSIAN_ROWS + 3 * a
            s = block[row + 2, q]
            if 0.0 < s < 1.0:
                f = math.sqrt(-2.0 * math.log(s) / s)  # rng.normal_pair's first try, from its block
                z1 = block[row, q] * f
                z2 = block[row + 1, q] * f
            else:
                idx = np.uint64(pull) * np.uint64(_MAX_ATTEMPTS) + np.uint64(a)
                z1, z2 = rng.normal_pair_from(key, rng.TAG_ARM, arm, idx, 1)
            r, c, inside = _gaussian_candidate(p, z1, z2, sd, ortho)
            if inside:
                block[0, q] = r
                block[1, q] = c
                settled = True
                break
        if not settled:
            block[0, q], block[1, q] = _gaussian_draw(p, key, arm, pull, BLOCK_ATTEMPTS)


@njit(cache=True, error_model="numpy", boundscheck=False)
def _beta_exp_first_tries(key, arm, first_pull, block):
    for lane in range(2):
        row = _GAMMA_ROWS[lane]
        sub = np.uint64(2) * np.uint64(arm) + np.uint64(lane)  # rng.beta's sub-streams
        for q in range(block.shape[1]):
            idx = np.uint64(first_pull) + np.uint64(q)
            block[row, q], block[row + 1, q], block[row + 2, q], block[row + 3, q] = rng.gamma_first_try(
                key, rng.TAG_ARM, sub, idx)
    exp_sub = np.uint64(_EXP_SUB_OFFSET) + np.uint64(arm)
    for q in range(block.shape[1]):
        block[_EXP_ROW, q] = rng.uniform2(key, rng.TAG_ARM, exp_sub, np.uint64(first_pull) + np.uint64(q))[0]


@njit(cache=True, error_model="numpy")
def _beta_exp_block(a, b, rate, key, arm, first_pull, block):
    _beta_exp_first_tries(key, arm, first_pull, block)
    gx, gy = _GAMMA_ROWS
    for q in range(block.shape[1]):
        idx = np.uint64(first_pull) + np.uint64(q)
        x = rng.gamma_from_first_try(a, block[gx, q], block[gx + 1, q], block[gx + 2, q], block[gx + 3, q],
                                     key, rng.TAG_ARM, np.uint64(2) * np.uint64(arm), idx)
        y = rng.gamma_from_first_try(b, block[gy, q], block[gy + 1, q], block[gy + 2, q], block[gy + 3, q],
                                     key, rng.TAG_ARM, np.uint64(2) * np.uint64(arm) + np.uint64(1), idx)
        block[0, q] = 0.5 if x + y == 0.0 else x / (x + y)  # rng.beta
        block[1, q] = -math.log(block[_EXP_ROW, q]) / rate  # rng.exponential / rate


@njit(cache=True)
def draw_block(code, params, table, key, arm, first_pull, block):
    """(block[0, q], block[1, q]) = draw(code, params, table, key, arm, first_pull + q) for every column q of
    ``block`` (BLOCK_ROWS rows; the others are scratch)."""
    if code == GAUSSIAN:
        _gaussian_block(params[arm], key, arm, first_pull, block)
    elif code == BETA_EXP:
        _beta_exp_block(params[arm, 0], params[arm, 1], params[arm, 2], key, arm, first_pull, block)
    else:
        for q in range(block.shape[1]):
            block[0, q], block[1, q] = draw(code, params, table, key, arm, first_pull + q)


# --- cost, penalty and grids ----------------------------------------------------------------


def penalty_values(taus, kind: str, slope: float = 0.1, high_slope: float = 10.0, switch: float = 0.5) -> np.ndarray:
    """lambda(tau) on the grid.

    ``piecewise``: x/10 for x <= 0.5 (inclusive, digest A4), 10 x above (Sec. 5.1);
    ``linear``: high_slope * x (AmesHousing: 10 x).
    """
    taus = np.asarray(taus, dtype=np.float64)
    if kind == "piecewise":
        return np.where(taus <= switch + 1e-12, slope * taus, high_slope * taus)
    if kind == "linear":
        return high_slope * taus
    raise ValueError(f"unknown penalty kind {kind!r}")


def resource_grid(tau_max: float, size: int, reading: str = "linspace", tau_min: float = 0.0) -> np.ndarray:
    """The "equidistant grid of size m of (tau_min, tau_max]" (digest A3).

    ``linspace`` (default): linspace(tau_min, tau_max, m), tau_min included;
    ``k_over_m``: tau_min + k (tau_max - tau_min)/m, k = 1..m; ``interior``: k/(m+1) spacing, k = 1..m.
    """
    if size < 1:
        raise ValueError("grid size must be >= 1")
    span = tau_max - tau_min
    if reading == "linspace":
        return np.linspace(tau_min, tau_max, size)
    if reading == "k_over_m":
        return tau_min + span * np.arange(1, size + 1) / size
    if reading == "interior":
        return tau_min + span * np.arange(1, size + 1) / (size + 1)
    raise ValueError(f"unknown grid reading {reading!r}")


# --- ground truth ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GroundTruth:
    """nu (n, m), P(C > tau) (n, m), the optimum and its censoring probability."""

    nu: np.ndarray
    censor_prob: np.ndarray
    best_arm: int
    best_grid_index: int

    @property
    def nu_star(self) -> float:
        return float(self.nu[self.best_arm, self.best_grid_index])

    @property
    def censor_prob_star(self) -> float:
        return float(self.censor_prob[self.best_arm, self.best_grid_index])

    @property
    def gaps(self) -> np.ndarray:
        return self.nu_star - self.nu

    @property
    def second_gap(self) -> float:
        flat = np.sort(self.nu.ravel())[::-1]
        return float(flat[0] - flat[1]) if flat.size > 1 else math.nan


_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _phi(x: float) -> float:
    return _INV_SQRT_2PI * math.exp(-0.5 * x * x) if math.isfinite(x) else 0.0


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / _SQRT2)


def _gaussian_moments(p, tau) -> tuple[float, float, float]:
    """(E[R 1{box, C<=tau}], E[C 1{box, C<=tau}], P(box, C<=tau)), unnormalised, by quadrature over C.

    Given C = c, R ~ N(mu_R + rho (c - mu_C), sigma (1 - rho^2)) (equal variances, so the
    regression slope is rho); its truncated first moment on [r_lo, r_hi] is closed form.
    """
    mu_r, mu_c, sigma, rho, r_lo, r_hi, c_lo, c_hi = (float(v) for v in p)
    sd = math.sqrt(sigma)
    cond_sd = sd * math.sqrt(1.0 - rho * rho)
    upper = min(tau, c_hi)
    if upper <= c_lo:
        return 0.0, 0.0, 0.0

    def parts(c, k):
        m = mu_r + rho * (c - mu_c)
        a = (r_lo - m) / cond_sd
        b = (r_hi - m) / cond_sd
        prob = _cdf(b) - _cdf(a)
        dens = _phi((c - mu_c) / sd) / sd
        if k == 0:
            return dens * (m * prob + cond_sd * (_phi(a) - _phi(b)))
        if k == 1:
            return dens * c * prob
        return dens * prob

    from scipy import integrate  # here, not at the top: importing it costs every job that loads the paper ~0.2 s

    points = [mu_c] if (math.isfinite(c_lo) and math.isfinite(upper) and c_lo < mu_c < upper) else None
    out = []
    for k in range(3):
        val, _ = integrate.quad(parts, c_lo, upper, args=(k,), limit=200, epsabs=1e-13, epsrel=1e-11, points=points)
        out.append(val)
    return out[0], out[1], out[2]


def ground_truth(arms: CensoredArms, taus, lam, cost_slope: float) -> GroundTruth:
    """Exact nu_{i,tau} and P_i(C > tau) on the grid ``taus`` with penalties ``lam``."""
    taus = np.asarray(taus, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    n, m = arms.n_arms, taus.size
    nu = np.zeros((n, m))
    cens = np.zeros((n, m))
    cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    for i in range(n):
        p = arms.params[i]
        if arms.code == GAUSSIAN and tuple(p) in cache:  # identical arms share one quadrature
            nu[i], cens[i] = cache[tuple(p)]
        elif arms.code == GAUSSIAN:
            _, _, z = _gaussian_moments(p, math.inf)
            for j, tau in enumerate(taus):
                er, ec, pc = _gaussian_moments(p, tau)
                cens[i, j] = 1.0 - pc / z
                nu[i, j] = (er - cost_slope * ec) / z - lam[j] * cens[i, j]
            cache[tuple(p)] = (nu[i].copy(), cens[i].copy())
        elif arms.code == BETA_EXP:
            a, b, rate = p[0], p[1], p[2]
            for j, tau in enumerate(taus):
                surv = math.exp(-rate * tau)
                mean_c_below = (1.0 - surv * (1.0 + rate * tau)) / rate  # E[C 1{C<=tau}]
                cens[i, j] = surv
                nu[i, j] = a / (a + b) * (1.0 - surv) - cost_slope * mean_c_below - lam[j] * surv
        else:
            r = arms.table[i, :, 0]
            c = arms.table[i, :, 1]
            for j, tau in enumerate(taus):
                below = c <= tau
                cens[i, j] = 1.0 - below.mean()
                nu[i, j] = np.mean((r - cost_slope * c) * below) - lam[j] * cens[i, j]
    flat = int(np.argmax(nu))
    return GroundTruth(nu, cens, flat // m, flat % m)
