"""Build one table of a paper (CSV and Markdown)."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.tables import build_table, write_table
from banditrepro.workflow_io import context_from_results, repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    ctx = context_from_results(spec, snakemake.params.results)
    df = build_table(ctx, w.table)
    write_table(df, snakemake.output.csv, snakemake.output.md, spec.tables[w.table]["title"])
    prov = provenance.record({"table": spec.tables[w.table], "scale": snakemake.params.scale},
                             snakemake.params.seed, root, snakemake.params.sources, paper=w.paper,
                             table=w.table)
    provenance.write_sidecar(snakemake.output.csv, prov)


run(main, snakemake)  # noqa: F821 - injected by Snakemake
