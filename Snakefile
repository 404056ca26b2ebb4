# banditrepro: rebuild every figure, table and claim verdict of five multi-armed-bandit papers.
#   snakemake --cores all                       everything (scale from config/config.yaml, default "paper")
#   snakemake --cores 2 satisficing_ucl         one paper
#   snakemake --cores 2 --config scale=smoke    quick run with few replications
#   snakemake --cores 2 datasets                fetch, verify and preprocess the data sets
#   snakemake --cores 2 verify --config scale=smoke   compare results with the committed lock (config/locks/)
#   snakemake --cores 2 robustness_satisficing_ucl    headline verdicts under extra root seeds (robustness.csv)
#   snakemake --cores 2 mutants_satisficing_ucl       planted bugs the claims must catch (mutants.csv)
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

from banditrepro import workflow_worker
from banditrepro.experiments.options import declared_options, resolve_options
from banditrepro.experiments.spec import ConfigError

min_version("8.20")


configfile: "config/config.yaml"


REPO_ROOT = Path(workflow.basedir).resolve()

# A paper's own switches (config/papers/<paper>.yaml `options:`, e.g. `--config <name>=<value>`) are checked
# against the values the paper declares; every other key against the workflow schema.
try:
    PAPER_OPTIONS = declared_options(REPO_ROOT)
    _workflow_config = {k: v for k, v in config.items() if k not in PAPER_OPTIONS}
    validate(_workflow_config, "workflow/schemas/config.schema.yaml")
    config.update(_workflow_config)  # with the schema's defaults
    config.update(resolve_options(config, PAPER_OPTIONS))
except ConfigError as err:
    raise WorkflowError(str(err)) from None


# A local run hands its jobs to one worker process that has imported everything once (banditrepro.workflow_worker,
# docs/costs.md): started by the `onstart` hook (workflow/rules/common.smk, after the results-scale check),
# stopped here; a cluster run, or BANDITREPRO_WORKER=off, runs every job in its own process.
onsuccess:
    workflow_worker.stop(Path.cwd())


onerror:
    workflow_worker.stop(Path.cwd())


# `snakemake --report results/report.html`: every built figure, table and claims table, by paper
report: "report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/robustness_common.smk"
include: "workflow/rules/mutants_common.smk"
include: "workflow/rules/data_common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/plot.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/sequential.smk"
include: "workflow/rules/robustness.smk"
include: "workflow/rules/mutants.smk"


for _extra in paper_rule_files():

    include: _extra


include: "workflow/rules/targets.smk"
include: "workflow/rules/lock_common.smk"
include: "workflow/rules/lock.smk"


rule all:
    default_target: True
    input:
        [paper_targets(p) for p in available_papers()],
        layout.REPORT_FILE,
