"""A ResultsContext over one freshly simulated shard: what the reference-claim tests evaluate their checks on."""

import io
from pathlib import Path

from banditrepro.experiments.runner import run_experiment_block, shard_provenance
from banditrepro.report.context import ResultsContext
from banditrepro.shards import save_shard

SEED = 20171128


def shard_context(spec, experiment: str, folder: Path, n: int = 2, seed: int = SEED, recorded_seed: int | None = None,
                  algorithms=None, edit=None) -> ResultsContext:
    """Replications 0..n-1 of ``experiment`` (of ``algorithms``, default all) simulated with ``seed`` into one
    shard under ``folder``, whose provenance records ``recorded_seed`` (default: the same); ``edit(results)``
    may alter the runs before they are saved (a build that differs from the reference)."""
    exp = spec.experiments[experiment]
    results = run_experiment_block(exp, seed, 0, n, log=io.StringIO(), algorithms=algorithms)
    if edit is not None:
        edit(results)
    path = Path(folder) / f"{experiment}.npz"
    save_shard(path, results, 0, n,
               shard_provenance(exp, seed if recorded_seed is None else recorded_seed, 0, n, spec.scale))
    return ResultsContext(spec, shards={experiment: [path]})
