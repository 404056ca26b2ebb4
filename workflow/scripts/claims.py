"""Evaluate the claims of one figure of a paper into results/<paper>/claims/<figure>.csv."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

import json
from pathlib import Path

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import evaluate_claims, write_claims
from banditrepro.report.findings import verdict_line
from banditrepro.report.sequential import apply_looks
from banditrepro.workflow_io import context_from_results, repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    ctx = context_from_results(spec, snakemake.params.results, snakemake.params.standin)
    claims = evaluate_claims(ctx, dict(snakemake.params.not_built), figure=w.figure)
    # a claim that took sequential looks (workflow/rules/sequential.smk) is decided by its last look
    looks = snakemake.input.get("sequential", [])
    looks = [looks] if isinstance(looks, str) else list(looks)
    apply_looks(claims, [json.loads(Path(p).read_text(encoding="utf-8")) for p in looks])
    write_claims(claims, snakemake.output[0])
    # sources: the digest of the package sources this job ran with (params.get: a mutant job, mutants.smk, may lack it)
    prov = provenance.record({"claims": snakemake.params.claims, "scale": snakemake.params.scale},
                             snakemake.params.seed, root, snakemake.params.get("sources"), paper=w.paper,
                             figure=w.figure)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(verdict_line(claims))


run(main, snakemake)  # noqa: F821 - injected by Snakemake
