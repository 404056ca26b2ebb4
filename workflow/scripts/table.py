"""Build one table of a paper (CSV and Markdown)."""

import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged, repo_root  # noqa: E402
from _context import context_from_inputs  # noqa: E402

from banditrepro import provenance  # noqa: E402
from banditrepro.experiments.spec import load_paper  # noqa: E402
from banditrepro.report.tables import build_table, write_table  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root())
    ctx = context_from_inputs(spec, snakemake.input.summaries, snakemake.input.shards)
    df = build_table(ctx, w.table)
    write_table(df, snakemake.output.csv, snakemake.output.md, spec.tables[w.table]["title"])
    prov = provenance.record({"table": spec.tables[w.table], "scale": snakemake.params.scale},
                             snakemake.params.seed, repo_root(), paper=w.paper, table=w.table)
    provenance.write_sidecar(snakemake.output.csv, prov)
