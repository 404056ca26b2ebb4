# Helper functions of the lock rules (workflow/rules/lock.smk); no rules here.
from pathlib import Path

from banditrepro.layout import VERDICTS_FILE, claims_file, lock_path, result_csvs
from banditrepro.experiments.options import measured_time_experiments
from banditrepro.lock import measured_time_figures, measured_time_files, read_verdicts, result_configs
from banditrepro.sources import scripts_record


def measured_time(paper):
    """{figure: why} of built figures that replay wall-clock measurements made on this machine (not locked):
    those of the experiments the paper's option values in force declare (`measured_time`, experiments/options.py)."""
    experiments = measured_time_experiments(PAPER_OPTIONS, paper, config)
    return measured_time_figures(paper_spec(paper), built_figures(paper), experiments) if experiments else {}


def locked_outputs(paper):
    """{result CSV: what it holds} a lock covers: built figures' curves, table CSVs and claims, but for those
    of measured-time figures."""
    files = result_csvs(paper, built_figures(paper), table_ids(paper))
    unpinned = set(measured_time_files(paper_spec(paper), measured_time(paper), files))
    return {f: what for f, what in files.items() if f not in unpinned}


def paper_shards(paper):
    """The shards the paper's locked results are made from (their provenance records their sources too)."""
    return [f for f in paper_result_files(paper) if f.endswith(".npz")]


def paper_result_configs(paper):
    """{result: the config subset its job records} of the paper's checked results (locked CSVs, claims.csv and
    their shards), from the current config (banditrepro.lock.result_configs): `verify` and `lock` refuse a result
    that records another config, as after an edit of config/papers/<paper>.yaml kept by --rerun-triggers mtime."""
    shards = set(paper_shards(paper))
    experiments = {f: exp for exp in paper_spec(paper).experiments for f in experiment_shards(paper, exp) if f in shards}
    files = {**locked_outputs(paper), claims_file(paper): "claims"}
    return result_configs(paper_spec(paper), config["scale"], files, experiments)


def rule_scripts():
    """{name: banditrepro.sources.scripts_record of its script} of each of the workflow's rules that runs a script,
    what each result's recorded scripts (the rule that made it and the digest of its files) are compared with.
    Rule files are left out: what they decide for a job -- its inputs and params -- reaches its results as the
    config, seed and sources they record, which are checked; an edit to a rule file that changes none of those
    would otherwise refuse every result although no build reruns any (docs/reproducibility.md)."""
    found = {}
    for each in workflow.rules:
        if each.script:
            script = Path(each.basedir.get_path_or_uri(secret_free=True)) / each.script
            found[each.name] = scripts_record(script, REPO_ROOT)
    return found


def user_config():
    """The `--config` settings of this call (not the config file's): the commands verify and lock suggest keep
    them, so that `papers=` (and a paper's options) select the same results."""
    return dict(workflow.config_settings.config)


def locked_papers():
    """Configured papers with a lock at the current scale."""
    return [p for p in available_papers() if lock_path(REPO_ROOT, p, config["scale"]).exists()]


def verdict_papers():
    """Configured papers with rows in the paper-scale verdicts file (compared at paper scale only)."""
    if config["scale"] != "paper":
        return []
    listed = {r["paper"] for r in read_verdicts(REPO_ROOT / VERDICTS_FILE)}
    return [p for p in available_papers() if p in listed]
