"""Run one shard of an experiment (all algorithms, replications [start, stop))."""

import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged, repo_root  # noqa: E402

from banditrepro.experiments.runner import run_experiment_block, shard_provenance  # noqa: E402
from banditrepro.shards import save_shard  # noqa: E402
from banditrepro.experiments.spec import load_paper, parse_shard_name  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root())
    exp = spec.experiments[w.experiment]
    start, stop = parse_shard_name(w.shard)
    results = run_experiment_block(exp, snakemake.params.seed, start, stop)
    save_shard(snakemake.output[0], results, start, stop,
               shard_provenance(exp, snakemake.params.seed, start, stop, snakemake.params.scale))
