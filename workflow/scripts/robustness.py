"""Assemble results/<paper>/robustness.csv: each headline claim's verdict under the main seed and every extra seed."""

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import read_claims
from banditrepro.report.robustness import assemble_robustness
from banditrepro.report.vocabulary import HEADLINE
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    seeds = [int(s) for s in snakemake.params.seeds]
    per_seed = {s: [read_claims(p) for p in getattr(snakemake.input, f"seed{s}")] for s in seeds}
    table = assemble_robustness(spec, snakemake.params.seed, read_claims(snakemake.input.main), per_seed)
    table.to_csv(snakemake.output[0], index=False, lineterminator="\n")
    headline = [c for c in spec.claims if c["kind"] == HEADLINE]
    prov = provenance.record({"claims": headline, "robustness_seeds": seeds, "scale": snakemake.params.scale},
                             snakemake.params.seed, root, snakemake.params.sources, paper=w.paper,
                             reference_seed=snakemake.params.seed)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(table[["claim_id", "agreement", "stable"]].to_string(index=False))


run(main, snakemake)  # noqa: F821 - injected by Snakemake
