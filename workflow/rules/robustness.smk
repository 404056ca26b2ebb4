# Verdict stability across root seeds (library: banditrepro.report.robustness; user doc: README "Verdict stability").
#   snakemake --cores 2 robustness_satisficing_ucl   one paper      snakemake --cores 2 robustness   every paper
# Every headline claim of a paper is rebuilt under each extra root seed (config `robustness_seeds`) by the
# normal simulation, summary and claim rules, their outputs under results/robustness/seed<S>/<paper>/: the
# main build's files are neither overwritten nor rerun. Only the figures with a headline claim are built
# there (no plots, no tables: no headline claim reads one). results/<paper>/robustness.csv puts each
# seed's verdict beside the main build's; the paper report then shows whether each verdict held.

use rule simulate_shard as robustness_simulate_shard with:
    output:
        layout.SEED_SHARD_PATTERN,
    log:
        layout.SEED_SIMULATE_LOG_PATTERN,


use rule summarize_figure as robustness_summarize_figure with:
    output:
        summary=layout.SEED_SUMMARY_PATTERN,
        reference=layout.SEED_REFERENCE_PATTERN,
    log:
        layout.SEED_SUMMARIZE_LOG_PATTERN,


use rule claims_figure as robustness_claims_figure with:
    output:
        layout.SEED_FIGURE_CLAIMS_PATTERN,
    log:
        layout.SEED_FIGURE_CLAIMS_LOG_PATTERN,


rule robustness_csv:
    input:
        unpack(robustness_inputs),
    output:
        layout.ROBUSTNESS_PATTERN,
    params:
        **job_params(),
        seeds=ROBUSTNESS_SEEDS,
    log:
        layout.ROBUSTNESS_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/robustness.py"


for _paper in available_papers():

    rule:
        name:
            f"robustness_{_paper}"
        input:
            layout.robustness_file(_paper),
            layout.paper_report_file(_paper),


rule robustness:
    input:
        [layout.robustness_file(p) for p in available_papers()],
        [layout.paper_report_file(p) for p in available_papers()],
        layout.REPORT_FILE,
