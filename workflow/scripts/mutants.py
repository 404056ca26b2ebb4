"""Compare each mutant's rebuilt claims, readings and tables with the main build's: results/<paper>/mutants.csv."""

import json
from pathlib import Path

import pandas as pd

from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.mutation import guard_kinds
from banditrepro.report.claims import read_claims
from banditrepro.report.diagnosis import READING_COLUMNS, readings_table
from banditrepro.report.mutants import at_first_look, moved_rows, mutants_table, score_text
from banditrepro.workflow_io import repo_root, run

#: what identifies a row of readings.csv
READING_KEY = ("reading", "headline_claim")


def _files(value) -> list[str]:
    """A named input as a list (Snakemake gives a lone file as a string)."""
    return [value] if isinstance(value, str) else list(value)


def _text_table(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def main(snakemake) -> None:
    root = repo_root(snakemake)
    spec = load_paper(snakemake.wildcards.paper, snakemake.params.scale, root)
    mutants, outputs = snakemake.params.mutants, snakemake.params.outputs
    # a claim decided by extra replications is compared at the paper's count, as the mutants evaluate it
    first_looks = [json.loads(Path(p).read_text(encoding="utf-8")) for p in _files(snakemake.input.first_looks)]
    main_claims = at_first_look(read_claims(snakemake.input.main), first_looks)
    # the main build's readings from the same claims (at look 0), as the mutants' readings are made
    main_readings = pd.DataFrame(readings_table(spec.config, main_claims), columns=READING_COLUMNS).astype(str)
    main_tables = {t: _text_table(path) for t, path in snakemake.params.tables.items()}
    rebuilt, moved = {}, {}
    for m in mutants:
        files = outputs[m["id"]]
        rebuilt[m["id"]] = pd.concat([read_claims(p) for p in files["claims"]], ignore_index=True)
        moved[m["id"]] = moved_rows("readings", main_readings, _text_table(files["readings"]), READING_KEY)
        for table, path in zip(main_tables, files["tables"], strict=True):
            moved[m["id"]] += moved_rows(f"table:{table}", main_tables[table], _text_table(path))
    table = mutants_table(mutants, main_claims, rebuilt, guard_kinds(spec), moved)
    table.to_csv(snakemake.output[0], index=False, lineterminator="\n")
    prov = provenance.record({"mutants": mutants, "scale": snakemake.params.scale}, snakemake.params.seed, root,
                             paper=snakemake.wildcards.paper)
    provenance.write_sidecar(snakemake.output[0], prov)
    print(f"{snakemake.wildcards.paper}: mutation score {score_text(table)}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
