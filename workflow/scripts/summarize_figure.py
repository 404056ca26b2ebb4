"""Merge a figure's shards into summary.csv and evaluate its reference curves."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from banditrepro import provenance
from banditrepro.experiments.aggregate import summarize_figure, write_csv
from banditrepro.experiments.spec import load_paper
from banditrepro.shards import load_shards
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    outputs = {exp: load_shards(snakemake.params.shards[exp]) for exp in spec.figure_experiments(w.figure)}
    summary, reference = summarize_figure(spec, w.figure, outputs)
    write_csv(summary, snakemake.output.summary)
    write_csv(reference, snakemake.output.reference)
    subset = {"figure": spec.figures[w.figure],
              "experiments": {e: spec.experiments[e].config for e in spec.figure_experiments(w.figure)},
              "scale": snakemake.params.scale}
    # sources: the digest of the package sources this job ran with (params.get: a mutant job, mutants.smk, may lack it)
    prov = provenance.record(subset, snakemake.params.seed, root, snakemake.params.get("sources"),
                             paper=w.paper, figure=w.figure)
    provenance.write_sidecar(snakemake.output.summary, prov)
    provenance.write_sidecar(snakemake.output.reference, prov)
    print(f"{w.paper}/{w.figure}: {len(summary)} summary rows, {len(reference)} reference rows")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
