"""Compare each mutant's rebuilt claims with the main build's: results/<paper>/mutants.csv."""

import json
from pathlib import Path

import pandas as pd

from banditrepro import provenance
from banditrepro.report.claims import read_claims
from banditrepro.report.mutants import at_first_look, mutants_table, score_text
from banditrepro.workflow_io import repo_root, run


def _files(value) -> list[str]:
    """A named input as a list (Snakemake gives a lone file as a string)."""
    return [value] if isinstance(value, str) else list(value)


def main(snakemake) -> None:
    mutants = snakemake.params.mutants
    # a claim decided by extra replications is compared at the paper's count, as the mutants evaluate it
    first_looks = [json.loads(Path(p).read_text(encoding="utf-8")) for p in _files(snakemake.input.first_looks)]
    main_claims = at_first_look(read_claims(snakemake.input.main), first_looks)
    rebuilt = {m["id"]: pd.concat([read_claims(p) for p in _files(getattr(snakemake.input, m["id"]))], ignore_index=True)
               for m in mutants}
    table = mutants_table(mutants, main_claims, rebuilt)
    table.to_csv(snakemake.output[0], index=False, lineterminator="\n")
    prov = provenance.record({"mutants": mutants, "scale": snakemake.params.scale}, snakemake.params.seed,
                             repo_root(snakemake), paper=snakemake.wildcards.paper)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(f"{snakemake.wildcards.paper}: mutation score {score_text(table)}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
