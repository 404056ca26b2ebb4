"""Evaluate every claim of a paper into claims.csv."""

import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import logged, repo_root  # noqa: E402
from _context import context_from_inputs  # noqa: E402

from banditrepro import provenance  # noqa: E402
from banditrepro.experiments.spec import load_paper  # noqa: E402
from banditrepro.report.claims import evaluate_claims  # noqa: E402

snakemake = globals()["snakemake"]
with logged(snakemake):
    w = snakemake.wildcards
    spec = load_paper(w.paper, snakemake.params.scale, repo_root())
    ctx = context_from_inputs(spec, snakemake.input.summaries, snakemake.input.shards, snakemake.params.standin)
    claims = evaluate_claims(ctx, dict(snakemake.params.unavailable))
    claims.to_csv(snakemake.output[0], index=False, lineterminator="\n")
    prov = provenance.record({"claims": spec.claims, "scale": snakemake.params.scale}, snakemake.params.seed,
                             repo_root(), paper=w.paper)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(claims.verdict.value_counts().to_string())
