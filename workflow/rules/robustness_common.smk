# Helper functions of the robustness rules (workflow/rules/robustness.smk); no rules here.
from banditrepro.report.robustness import headline_figures, robustness_seeds

try:
    ROBUSTNESS_SEEDS = robustness_seeds(config["seed"], config.get("robustness_seeds"))
except ValueError as err:
    raise WorkflowError(f"config robustness_seeds: {err}") from None


def robustness_inputs(wildcards):
    """The main build's claims (the reference) and, per extra seed, the claims of every headline figure."""
    figures = headline_figures(paper_spec(wildcards.paper))
    inputs = {"main": layout.claims_file(wildcards.paper)}
    for seed in ROBUSTNESS_SEEDS:
        inputs[f"seed{seed}"] = [layout.figure_claims_file(wildcards.paper, fig, seed) for fig in figures]
    return inputs


def robustness_requested(paper):
    """Whether this run's targets include the paper's robustness (target rule or file)."""
    targets = set(workflow.dag_settings.targets)
    return bool(targets & {"robustness", f"robustness_{paper}", layout.robustness_file(paper)})


def robustness_in_report(paper):
    """The paper report shows verdict stability once robustness.csv exists or is being built: from then on
    it is an input of the report, so the column is never stale (a change that reruns the paper's claims
    reruns its robustness seeds too; delete results/<paper>/robustness.csv to drop the column)."""
    return robustness_requested(paper) or Path(layout.robustness_file(paper)).exists()
