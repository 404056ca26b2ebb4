"""Benchmark of the compiled engine against a straightforward per-step pure-Python loop.

    python -m banditrepro.bench [--reps 1000] [--horizon 5000] [--naive-reps 20]

Times UCB1 and UCL (A1) on 4 Gaussian arms (m = [1, 2, 3, 4], sigma = 1). The naive reference runs
fewer replications (it is slow) and is scaled per replication-step. Both are timed in CPU time of
this process (``time.process_time``: the engine is single-threaded, and CPU time is what other jobs
on a shared machine disturb least); the engine's figure is the best of three full runs, after a
warm-up call that compiles it. The last line has the form
``ucb1 K=4 T=5000 R=1000: <ns> ns/rep-step, <x>x faster than naive Python``.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np
from scipy.special import ndtri

from .algorithms import ucb1, ucl
from .engine import StepSimulation
from .environments import gaussian_arms, threshold_gaps
from .seeding import replication_keys

MEANS = [1.0, 2.0, 3.0, 4.0]
SIGMAS = [1.0, 1.0, 1.0, 1.0]


def _naive_gaussian_loop(means, sigmas, horizon: int, seed: int, index) -> float:
    """Straightforward per-step pure-Python bandit loop: round-robin start, then the arm of largest
    ``index(t, mean, n, sigma)``; Gaussian rewards from ``random``. Returns the final pseudo-regret so
    the work cannot be skipped."""
    rand = random.Random(seed)
    n_arms = len(means)
    counts = [0] * n_arms
    sums = [0.0] * n_arms
    best = max(means)
    regret = 0.0
    for t in range(1, horizon + 1):
        if t <= n_arms:
            arm = t - 1
        else:
            arm = max(range(n_arms), key=lambda i: index(t, sums[i] / counts[i], counts[i], sigmas[i]))
        reward = rand.gauss(means[arm], sigmas[arm])
        counts[arm] += 1
        sums[arm] += reward
        regret += best - means[arm]
    return regret


def naive_ucb1_gaussian(means, sigmas, horizon: int, seed: int, exploration: float = 2.0) -> float:
    """UCB1: mean + sqrt(exploration log t / n)."""
    return _naive_gaussian_loop(means, sigmas, horizon, seed,
                                lambda t, mean, n, sd: mean + math.sqrt(exploration * math.log(t) / n))


def naive_ucl_gaussian(means, sigmas, horizon: int, seed: int, K: float = 1.0) -> float:
    """UCL (A1), uninformative prior: mean + sigma/sqrt(n) Phi^-1(1 - 1/(K t))."""
    from statistics import NormalDist

    ppf = NormalDist().inv_cdf
    return _naive_gaussian_loop(means, sigmas, horizon, seed,
                                lambda t, mean, n, sd: mean + sd / math.sqrt(n) * ppf(1.0 - 1.0 / (K * t)))


def _time_engine(policy, reps: int, horizon: int) -> float:
    env, env_params = gaussian_arms(MEANS, SIGMAS)
    gaps = threshold_gaps(MEANS, max(MEANS))
    kernel, params = policy
    sim = StepSimulation(env, env_params, gaps[None, :], ("regret",), kernel, params, record_pulls=False)
    noise = replication_keys(0, ("bench", "noise"), reps)
    pol = replication_keys(0, ("bench", "policy"), reps)
    checkpoints = np.array([horizon // 2, horizon], dtype=np.int64)
    sim.run(noise[:2], pol[:2], checkpoints)  # compile outside the timing
    best = math.inf
    for _ in range(3):
        t0 = time.process_time()
        sim.run(noise, pol, checkpoints)
        best = min(best, time.process_time() - t0)
    return best / (reps * horizon) * 1e9


def _time_naive(fn, reps: int, horizon: int) -> float:
    t0 = time.process_time()
    for r in range(reps):
        fn(MEANS, SIGMAS, horizon, seed=r)
    return (time.process_time() - t0) / (reps * horizon) * 1e9


def _at_least(minimum: int):
    """An argparse type: an integer >= ``minimum`` (a smaller one is an argparse error, exit 2, not a trace)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # the timings divide by reps * horizon, and the engine checkpoints at horizon // 2 and horizon (>= 1)
    ap.add_argument("--reps", type=_at_least(1), default=1000)
    ap.add_argument("--horizon", type=_at_least(2), default=5000)
    ap.add_argument("--naive-reps", type=_at_least(1), default=20)
    args = ap.parse_args(argv)
    T, R = args.horizon, args.reps
    sigma = np.asarray(SIGMAS)
    ucl_policy = ucl(sigma, threshold_gaps(MEANS, max(MEANS)), K=1.0, regret_threshold=max(MEANS))
    results = {}
    for name, policy, naive in (("ucl", ucl_policy, naive_ucl_gaussian), ("ucb1", ucb1(), naive_ucb1_gaussian)):
        fast = _time_engine(policy, R, T)
        slow = _time_naive(naive, args.naive_reps, T)
        results[name] = (fast, slow)
    print(f"4 Gaussian arms m = {MEANS}, sigma = 1 (K below = number of arms; UCL uses alpha_t = 1/t, "
          f"z_T = {float(ndtri(1 - 1 / T)):.3f}); naive Python timed on {args.naive_reps} replications; "
          "engine: best of 3 runs, compilation excluded; CPU time (process_time)")
    for name in ("ucl", "ucb1"):
        fast, slow = results[name]
        print(f"{name} K=4 T={T} R={R}: {fast:.1f} ns/rep-step, {slow / fast:.0f}x faster than naive Python")


if __name__ == "__main__":
    main()
