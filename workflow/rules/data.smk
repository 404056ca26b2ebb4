# Data sets: fetch (mirror -> public URL -> Kaggle), verify against the manifest, preprocess.
#   snakemake --cores 2 datasets     builds every dataset it can get and prints one line per dataset
# Library: src/banditrepro/data (manifest: src/banditrepro/data/manifest.yaml); user doc: docs/data.md.
from pathlib import Path

from banditrepro import layout
from banditrepro.data import (
    DATASET_NAMES,
    PROCESSED_FILES,
    available_processed_outputs,
)
from banditrepro.data.manifest import KAGGLE_DATASETS
from banditrepro.data.paths import (
    processed_dir as _data_processed_dir,
    raw_dir as _data_raw_dir,
    resolve_mirror,
    standin_processed_dir,
    standin_raw_dir,
)

DATA_RAW = str(_data_raw_dir(config))
DATA_PROCESSED = str(_data_processed_dir(config))
DATA_STANDIN_RAW = str(standin_raw_dir())
DATA_STANDIN_PROCESSED = str(standin_processed_dir())
DATA_MIRROR = resolve_mirror(config, REPO_ROOT)


rule data_fetch:
    output:
        record=str(Path(DATA_RAW, "{dataset}", "fetch_record.json")),
    params:
        mirror=str(DATA_MIRROR) if DATA_MIRROR else "",
        raw_dir=lambda w: DATA_RAW,  # a config key (data.raw_dir), not read back from the output path
    log:
        layout.data_log("fetch", "{dataset}"),
    wildcard_constraints:
        dataset="|".join(DATASET_NAMES),
    conda:
        "../../environment.yml"
    script:
        "../scripts/data_fetch.py"


rule data_standin:
    output:
        record=str(Path(DATA_STANDIN_RAW, "{dataset}", "fetch_record.json")),
    params:
        seed=config["seed"],
        size="full",
        raw_dir=lambda w: DATA_STANDIN_RAW,
    log:
        layout.data_log("standin", "{dataset}"),
    wildcard_constraints:
        dataset="|".join(KAGGLE_DATASETS),
    conda:
        "../../environment.yml"
    script:
        "../scripts/data_standin.py"


# One preprocessing rule per dataset (and per stand-in variant of the Kaggle ones), so that each lists its
# exact output files; processed_outputs() in banditrepro.data names the same files for consumer rules.
for _dataset, _standin, _raw, _out in preprocess_variants():

    rule:
        name:
            f"data_preprocess_{_dataset}{'_standin' if _standin else ''}"
        input:
            record=f"{_raw}/{_dataset}/fetch_record.json",
        output:
            *[f"{_out}/{_file}" for _file in PROCESSED_FILES[_dataset]],
            provenance=f"{_out}/{_dataset}.provenance.json",
        params:
            **preprocess_params(_dataset, _out),
        log:
            layout.data_log("preprocess", f"{_dataset}{'_standin' if _standin else ''}"),
        conda:
            "../../environment.yml"
        script:
            "../scripts/data_preprocess.py"


rule datasets:
    input:
        lambda wildcards: available_processed_outputs(config, REPO_ROOT),
    log:
        layout.data_log("datasets"),
    params:
        config=config,
        repo_root=str(REPO_ROOT),
    localrule: True
    conda:
        "../../environment.yml"
    script:
        # Re-evaluates dataset_status after the jobs ran, so built datasets read "fetched and verified".
        "../scripts/data_report.py"
