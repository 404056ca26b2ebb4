"""Differential sanity claims: an experiment's first replications rerun with a reference implementation.

A paper may keep an independent reference implementation of its policies (``experiments/<paper>/reference.py``),
written apart from the production kernel it checks (another state layout, the generic engine loop instead
of a fused batch loop) and drawing the same random numbers (counter-based streams, banditrepro.rng). A
sanity claim reruns the first replications of an experiment with it and requires exactly the numbers the
build's shards hold (:func:`compare_with_reference`): a bug planted in a production kernel (a mutant,
docs/mutants.md) then fails a sanity claim even where the paper's own statements cannot tell the buggy
numbers from the right ones. The tests compare the same pairs on small instances.
"""

from __future__ import annotations

import numpy as np


def _first_difference(ours: np.ndarray, ref: np.ndarray) -> str:
    idx = tuple(int(i) for i in np.argwhere(ours != ref)[0])
    return f"first at index {idx}: {ours[idx]} vs reference {ref[idx]}"


def agreement(build_output, reference_output) -> tuple[int, str | None]:
    """(number of arrays compared, None if every array of ``reference_output`` equals the build's, else where
    the first one differs). Both are SimulationOutput-like, over the same replications."""
    pairs = [("checkpoints", np.asarray(build_output.checkpoints), np.asarray(reference_output.checkpoints))]
    for group in ("curves", "finals"):
        ours, ref = getattr(build_output, group), getattr(reference_output, group)
        for name in sorted(ref):
            if name not in ours:
                return len(pairs), f"{group[:-1]} {name} missing from the build"
            pairs.append((f"{group[:-1]} {name}", np.asarray(ours[name]), np.asarray(ref[name])))
    if reference_output.pulls is not None:
        pairs.append(("pulls", np.asarray(build_output.pulls), np.asarray(reference_output.pulls)))
    for what, ours, ref in pairs:
        if ours.shape != ref.shape:
            return len(pairs), f"{what}: shape {ours.shape} vs reference {ref.shape}"
        if not np.array_equal(ours, ref, equal_nan=True):
            return len(pairs), f"{what} differs, {_first_difference(ours, ref)}"
    return len(pairs), None


def head(out, n: int):
    """The first ``n`` replications of a SimulationOutput."""
    from ..engine import SimulationOutput

    return SimulationOutput(checkpoints=out.checkpoints, curves={k: v[:n] for k, v in out.curves.items()},
                            finals={k: v[:n] for k, v in out.finals.items()},
                            pulls=None if out.pulls is None else out.pulls[:n])


def rerun_with_reference(ctx, experiment: str, algorithm: str, install, replications: int):
    """Replications [0, ``replications``) of ``algorithm`` in ``experiment`` rebuilt by the experiment's own
    builder with ``install(sim, experiment_spec, algorithm)`` swapping the production kernel for the
    reference one, on the keys the build used (the seed from the shards' provenance); returns (the build's
    runs, the reference's)."""
    from ..registry import SIMULATION_BUILDERS, lookup
    from .runner import keys_for

    exp = ctx.spec.experiments[experiment]
    build = ctx.replications(experiment)[algorithm]
    n = min(int(replications), int(next(iter(build.curves.values())).shape[0]) if build.curves else replications)
    sim = lookup(SIMULATION_BUILDERS, "simulation builder", exp.builder)(exp, algorithm)
    install(sim, exp, algorithm)
    noise, policy = keys_for(exp, algorithm, ctx.shard_seed(experiment), 0, n)
    return head(build, n), sim.run(noise, policy, exp.checkpoints)


def compare_with_reference(ctx, experiments, algorithms, install, replications: int = 1) -> tuple[bool, str]:
    """(every pair equal, what was measured) of a differential sanity claim: each (experiment, algorithm)
    pair's first ``replications`` runs, rebuilt with ``install``'s reference kernel, against the build's."""
    parts, compared, n_pairs = [], 0, 0
    for exp_id in experiments:
        for algo in algorithms:
            if algo not in ctx.spec.experiments[exp_id].algorithms:
                continue
            n_pairs += 1
            build, ref = rerun_with_reference(ctx, exp_id, algo, install, replications)
            n_arrays, difference = agreement(build, ref)
            compared += n_arrays
            if difference is not None:
                parts.append(f"{exp_id}/{algo}: {difference}")
    if n_pairs == 0:
        raise ValueError(f"none of {list(algorithms)} runs in {list(experiments)}")
    measured = (f"{n_pairs - len(parts)}/{n_pairs} (experiment, algorithm) pairs equal the reference "
                f"({compared} arrays, first {replications} replication(s))" + (": " + "; ".join(parts) if parts else ""))
    return not parts, measured
