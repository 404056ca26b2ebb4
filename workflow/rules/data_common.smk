# Helper functions of the data rules (no rules): data.smk builds one preprocessing rule per dataset from them,
# mutants.smk its mutant twins.


def preprocess_params(dataset, out_dir):
    """The params of a preprocessing job (data.smk's rules, and a mutant's in mutants.smk); ``out_dir`` is a
    function, as a config key (data.processed_dir) is not a path Snakemake should read back."""
    return {"dataset": dataset, "options": {}, "out_dir": lambda w: out_dir}


def preprocess_variants():
    """(dataset, stand-in, raw folder, processed folder) of every preprocessing rule (data.smk's globals, read when data.smk calls it)."""
    return [
        (name, standin, DATA_STANDIN_RAW if standin else DATA_RAW,
         f"{DATA_STANDIN_PROCESSED if standin else DATA_PROCESSED}/{name}")
        for name in DATASET_NAMES
        for standin in ((False, True) if name in KAGGLE_DATASETS else (False,))
    ]
