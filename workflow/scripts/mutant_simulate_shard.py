"""One shard of an experiment under a policy mutant: rerun the algorithms that run the patched policy, copy the
others from the main build (a shared mutant's shards are the copy's simulate_shard.py, every algorithm).

An algorithm's runs depend only on its own keys (experiments/runner.py), so the main build's shard holds
exactly what a full rerun would give every algorithm that never runs the patched code; rerunning only the others
(params.algorithms) gives the same shard as rerunning all of them, at a fraction of the cost.
"""

from banditrepro.experiments.runner import run_experiment_block, shard_provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.layout import parse_shard_name
from banditrepro.shards import load_shards, save_shard
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root(snakemake))
    exp = spec.experiments[w.experiment]
    start, stop = parse_shard_name(w.shard)
    rerun = list(snakemake.params.algorithms)
    fresh = run_experiment_block(exp, snakemake.params.seed, start, stop, algorithms=rerun)
    main_runs = load_shards([snakemake.input.main], first=start)
    missing = [a for a in exp.algorithms if a not in fresh and a not in main_runs]
    if missing:
        raise ValueError(f"main shard {snakemake.input.main} lacks algorithms {missing}; rebuild it")
    results = {a: fresh[a] if a in fresh else main_runs[a] for a in exp.algorithms}
    prov = shard_provenance(exp, snakemake.params.seed, start, stop, snakemake.params.scale)
    prov["mutant"] = {"id": w.mutant, "rerun": rerun, "copied_from_main_build": snakemake.input.main,
                      "copied": [a for a in exp.algorithms if a not in fresh]}
    save_shard(snakemake.output[0], results, start, stop, prov)


run(main, snakemake)  # noqa: F821 - injected by the mutant job (banditrepro.mutation)
