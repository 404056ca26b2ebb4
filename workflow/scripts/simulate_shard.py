"""Run one shard of an experiment (all algorithms, replications [start, stop))."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from banditrepro.experiments.runner import run_experiment_block, shard_provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.layout import parse_shard_name
from banditrepro.shards import save_shard
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root(snakemake))
    exp = spec.experiments[w.experiment]
    start, stop = parse_shard_name(w.shard)
    results = run_experiment_block(exp, snakemake.params.seed, start, stop)
    save_shard(snakemake.output[0], results, start, stop,
               shard_provenance(exp, snakemake.params.seed, start, stop, snakemake.params.scale,
                                snakemake.params.sources))


run(main, snakemake)  # noqa: F821 - injected by Snakemake
