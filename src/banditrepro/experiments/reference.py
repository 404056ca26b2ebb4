"""Reference guards: an experiment's first replications rerun by a paper's end-to-end reference implementation.

A paper may keep a second implementation of its experiments, ``experiments/<paper>/reference.py``, written from
the paper and apart from the build. It is *end to end*: from the experiment's id it builds its own instances out
of the paper's printed parameters (its own table), turns the shared counter-based random draws into rewards,
costs and delays with its own code, runs its own loop written from the paper's pseudo-code and computes its own
metrics (regret, unfairness, ...). It shares with the build only

* the raw random stream: the Philox primitives of :mod:`banditrepro.rng` (and the exact samplers of
  :mod:`banditrepro.algorithms.beta_sampler`) at the keys :func:`banditrepro.experiments.runner.keys_for` gives
  each replication, read at the counters the paper package documents (which draw is pull *k* of arm *i*);
* the data files (a data set, a precomputed table), read with its own code;
* the output layout: a :class:`banditrepro.simulation_output.SimulationOutput` with the build's curve names.

``tests/test_reference_independence.py`` holds every ``experiments/*/reference.py`` to that: it may import the
standard library, numpy, numba, scipy, ``rng``, ``seeding``, ``simulation_output``,
``algorithms.beta_sampler`` and this module, and nothing else of the package (no builder, environment,
algorithm kernel, loop or metric).

The protocol is :class:`ReferenceImplementation`: one method, ``run(experiment, algorithm, noise_keys,
policy_keys, checkpoints)``, with the arguments of a production ``Simulation.run`` plus the experiment (an
:class:`~banditrepro.experiments.spec.ExperimentSpec`, read as data: its id, horizon, checkpoints and
scale-dependent params; the paper's own parameters come from the reference's table) and the algorithm id.

:func:`check_against_reference` is the one check every paper's reference guard calls (a ``sanity`` claim, e.g.
penalized_fairness C1.8): it reruns replications [0, n) of each (experiment, algorithm) pair with the keys the
build used (the seed its shards record) and requires the build's arrays exactly -- every curve, final and pull
count the reference returns -- except the arrays a reference names in ``tolerances`` (computed by another
numerical route, e.g. a ground truth by quadrature), compared to that relative tolerance. A correct build passes
by construction; a bug in a builder, an environment, a policy kernel, a loop or a metric changes some number and
fails it (docs/mutants.md, "Guards"). A paper's claim check is then::

    @claim_check("fair_matches_reference")
    def matches_reference(ctx, experiments, algorithms, replications=10):
        from . import reference
        res = check_against_reference(ctx, reference.REFERENCE, experiments, algorithms, replications)
        return ClaimResult(res.measured, res.threshold, verdict_from(res.passed))

Porting a paper's reference to this protocol (penalized_fairness and censored_resources are worked examples):

1. a table of the paper's settings keyed by experiment id (what the paper prints; the resolutions where it is
   silent), and from the experiment only what a scale changes (horizon, checkpoints, a sweep's grid);
2. the instance and every reward / cost / delay from the raw draws, at the counters the build reads (state them
   in the module docstring: they are the one convention the two implementations must share);
3. one plain loop per run, written from the paper's pseudo-code, and the metrics from their definitions, under
   the build's curve names; where a number is compared to the bit, evaluate each formula in the order the paper
   writes it and sum over arms with numpy on a contiguous axis (the build's rounding), and say so;
4. ``REFERENCE = <class>()`` with ``tolerances`` (empty unless an array is computed by another numerical route,
   with the reason) and ``run``; the claim check above; remove the paper's ``xfail`` in
   tests/test_reference_independence.py; compare 10 replications where that costs under a minute of the claim
   job, and plant in tests/<paper>/test_reference_claim.py a bug outside the policies that the guard must catch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from .. import numba_cache
from ..simulation_output import SimulationOutput

if TYPE_CHECKING:  # annotations only
    from .spec import ExperimentSpec


@runtime_checkable
class ReferenceImplementation(Protocol):
    """A paper's end-to-end second implementation of its experiments (module docstring).

    ``tolerances`` maps a curve or final name to the relative tolerance it is compared with (empty: every array
    exactly; say in the reference why an array cannot agree to the bit). ``run`` returns what the build's
    simulation of ``algorithm`` in ``experiment`` returns for these keys: the same checkpoints, and every curve,
    final and pull array the reference computes under the build's name (arrays the build has and the reference
    does not compute are not compared; an array the reference has and the build lacks fails the check). It
    raises ``ValueError`` for an experiment or algorithm its table does not hold."""

    tolerances: Mapping[str, float]

    def run(self, experiment: ExperimentSpec, algorithm: str, noise_keys: np.ndarray, policy_keys: np.ndarray,
            checkpoints: np.ndarray) -> SimulationOutput: ...


@dataclass(frozen=True)
class ReferenceCheck:
    """The outcome of :func:`check_against_reference`, for a claim: passed, what was measured, the threshold."""

    passed: bool
    measured: str
    threshold: str


def _first_difference(ours: np.ndarray, ref: np.ndarray, differs: np.ndarray) -> str:
    idx = tuple(int(i) for i in np.argwhere(differs)[0])
    return f"first at index {idx}: {ours[idx]} vs reference {ref[idx]}"


def _differs(ours: np.ndarray, ref: np.ndarray, rtol: float | None) -> np.ndarray:
    """Where two arrays of one shape disagree: anywhere their values differ (NaN equals NaN), or beyond ``rtol``."""
    if rtol is not None:
        return ~np.isclose(ours, ref, rtol=rtol, atol=0.0, equal_nan=True)
    same = ours == ref
    if ours.dtype.kind == "f" and ref.dtype.kind == "f":
        same |= np.isnan(ours) & np.isnan(ref)
    return ~same


def agreement(build_output, reference_output, tolerances: Mapping[str, float] | None = None) -> tuple[int, str | None]:
    """(number of arrays compared, None if every array of ``reference_output`` equals the build's, else where the
    first one differs). Both are SimulationOutput-like, over the same replications; an array named in
    ``tolerances`` may differ by that relative tolerance."""
    tolerances = dict(tolerances or {})
    pairs = [("checkpoints", None, np.asarray(build_output.checkpoints), np.asarray(reference_output.checkpoints))]
    for group in ("curves", "finals"):
        ours, ref = getattr(build_output, group), getattr(reference_output, group)
        for name in sorted(ref):
            if name not in ours:
                return len(pairs), f"{group[:-1]} {name} missing from the build"
            pairs.append((f"{group[:-1]} {name}", tolerances.get(name), np.asarray(ours[name]), np.asarray(ref[name])))
    if reference_output.pulls is not None:
        if build_output.pulls is None:
            return len(pairs), "pulls missing from the build"
        pairs.append(("pulls", None, np.asarray(build_output.pulls), np.asarray(reference_output.pulls)))
    for what, rtol, ours, ref in pairs:
        if ours.shape != ref.shape:
            return len(pairs), f"{what}: shape {ours.shape} vs reference {ref.shape}"
        differs = _differs(ours, ref, rtol)
        if differs.any():
            within = "" if rtol is None else f" beyond {rtol:g} relative"
            return len(pairs), f"{what} differs{within}, {_first_difference(ours, ref, differs)}"
    return len(pairs), None


def head(out, n: int) -> SimulationOutput:
    """The first ``n`` replications of a SimulationOutput."""
    return SimulationOutput(checkpoints=out.checkpoints, curves={k: v[:n] for k, v in out.curves.items()},
                            finals={k: v[:n] for k, v in out.finals.items()},
                            pulls=None if out.pulls is None else out.pulls[:n])


def _build_head(ctx, experiment: str, algorithm: str, replications: int):
    """(the experiment's spec, the build's replications [0, n), n): n = ``replications`` or as many as its shards
    hold."""
    exp = ctx.spec.experiments[experiment]
    build = ctx.replications(experiment)[algorithm]
    built = next(iter(build.curves.values())).shape[0] if build.curves else int(replications)
    n = min(int(replications), int(built))
    return exp, head(build, n), n


def rerun(ctx, reference: ReferenceImplementation, experiment: str, algorithm: str, replications: int
          ) -> tuple[SimulationOutput, SimulationOutput]:
    """(the build's replications [0, n), the reference's) of ``algorithm`` in ``experiment``, n = ``replications``
    or as many as the build's shards hold; the reference runs on the keys the build used (the seed its shards'
    provenance records)."""
    from .runner import concatenate_outputs, keys_for

    exp, build, n = _build_head(ctx, experiment, algorithm, replications)
    noise, policy = keys_for(exp, algorithm, ctx.shard_seed(experiment), 0, n)
    checkpoints = np.asarray(exp.checkpoints, dtype=np.int64)
    # the first replication compiles the reference's loops on an empty cache: one claims job at a time, as the
    # simulation jobs do (runner); every replication has its own keys, so the split changes no number
    with numba_cache.compiling(f"{exp.paper}-reference"):
        parts = [reference.run(exp, algorithm, noise[:1], policy[:1], checkpoints)]
    if n > 1:
        parts.append(reference.run(exp, algorithm, noise[1:], policy[1:], checkpoints))
    return build, concatenate_outputs(parts)


def _compare_pairs(ctx, experiments, algorithms, rerun_pair, tolerances) -> tuple[int, int, int, list[str]]:
    """(pairs compared, arrays compared, replications compared, where pairs differ) over every (experiment,
    algorithm) pair the experiment runs; ``rerun_pair(experiment, algorithm)`` gives (build, reference)."""
    parts, compared, n_pairs, n_reps = [], 0, 0, 0
    for exp_id in experiments:
        for algo in algorithms:
            if algo not in ctx.spec.experiments[exp_id].algorithms:
                continue
            n_pairs += 1
            build, ref = rerun_pair(exp_id, algo)
            n_reps = max(n_reps, next(iter(ref.curves.values())).shape[0] if ref.curves else 0)
            n_arrays, difference = agreement(build, ref, tolerances)
            compared += n_arrays
            if difference is not None:
                parts.append(f"{exp_id}/{algo}: {difference}")
    if n_pairs == 0:
        raise ValueError(f"none of {list(algorithms)} runs in {list(experiments)}")
    return n_pairs, compared, n_reps, parts


def _measured(n_pairs: int, compared: int, replications: int, parts: list[str], tolerated: str = "") -> str:
    return (f"{n_pairs - len(parts)}/{n_pairs} (experiment, algorithm) pairs equal the reference "
            f"({compared} arrays, first {replications} replication(s){tolerated})" + (": " + "; ".join(parts) if parts else ""))


def check_against_reference(ctx, reference: ReferenceImplementation, experiments, algorithms,
                            replications: int = 10) -> ReferenceCheck:
    """Every (experiment, algorithm) pair of ``experiments`` x ``algorithms`` (pairs the experiment does not run
    are skipped) rerun by ``reference`` for its first ``replications`` replications, against the build's."""
    if not isinstance(reference, ReferenceImplementation):
        raise TypeError(f"{reference!r} does not implement ReferenceImplementation (tolerances, run)")
    n_pairs, compared, n_reps, parts = _compare_pairs(
        ctx, experiments, algorithms, lambda e, a: rerun(ctx, reference, e, a, replications), reference.tolerances)
    tolerated = "".join(f"; {name} within {rtol:g} relative" for name, rtol in sorted(reference.tolerances.items()))
    return ReferenceCheck(passed=not parts, measured=_measured(n_pairs, compared, n_reps, parts, tolerated),
                          threshold="every array equal")
