# Verdict stability across root seeds (library: banditrepro.report.robustness; user doc: README "Verdict stability").
#   snakemake --cores 2 robustness_satisficing_ucl   one paper      snakemake --cores 2 robustness   every paper
# Every headline claim of a paper is rebuilt under each extra root seed (config `robustness_seeds`) by the
# normal simulation, summary and claim rules, their outputs under results/robustness/seed<S>/<paper>/: the
# main build's files are neither overwritten nor rerun. Only the figures with a headline claim are built
# there (no plots, no tables: no headline claim reads one). results/<paper>/robustness.csv puts each
# seed's verdict beside the main build's; the paper report then shows whether each verdict held.

use rule simulate_shard as robustness_simulate_shard with:
    output:
        "results/robustness/seed{seed}/{paper}/shards/{experiment}/{shard}.npz",
    log:
        "logs/robustness/seed{seed}/{paper}/simulate/{experiment}/{shard}.log",


use rule summarize_figure as robustness_summarize_figure with:
    output:
        summary="results/robustness/seed{seed}/{paper}/{figure}/summary.csv",
        reference="results/robustness/seed{seed}/{paper}/{figure}/reference.csv",
    log:
        "logs/robustness/seed{seed}/{paper}/summarize/{figure}.log",


use rule claims_figure as robustness_claims_figure with:
    output:
        "results/robustness/seed{seed}/{paper}/claims/{figure}.csv",
    log:
        "logs/robustness/seed{seed}/{paper}/claims/{figure}.log",


rule robustness_csv:
    input:
        unpack(robustness_inputs),
    output:
        "results/{paper}/robustness.csv",
    params:
        seed=config["seed"],
        seeds=ROBUSTNESS_SEEDS,
        scale=config["scale"],
    log:
        "logs/{paper}/robustness.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/robustness.py"


for _paper in available_papers():

    rule:
        name:
            f"robustness_{_paper}"
        input:
            robustness_file(_paper),
            f"results/{_paper}/report.md",


rule robustness:
    input:
        [robustness_file(p) for p in available_papers()],
        expand("results/{paper}/report.md", paper=available_papers()),
        "results/report.md",
