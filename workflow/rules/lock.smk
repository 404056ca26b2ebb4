# The committed results lock (config/locks/; library: banditrepro.lock; user doc: docs/reproducibility.md, docs/locks.md).
#   snakemake --cores 2 lock --config scale=smoke      rewrite the smoke locks after an intended change
#   snakemake --cores 2 verify --config scale=smoke    build what is missing, compare with the locks
#   snakemake --cores 1 results_at_a_glance            README table from config/locks/verdicts.paper.csv
# At paper scale `lock` also rewrites the configured papers' rows of config/locks/verdicts.paper.csv, and
# `verify` also compares claims with them.


rule lock:
    input:
        lambda w: [f for p in available_papers() for f in locked_outputs(p)],
    params:
        files={p: locked_outputs(p) for p in available_papers()},
        not_built={p: figure_availability(p).not_built for p in available_papers()},
        measured_time={p: measured_time(p) for p in available_papers()},
        papers=select_papers(REPO_ROOT, None),  # every paper, in order: the verdicts file keeps this order
        # the tree's sources per paper and the shards each paper's results were made from: results built
        # from other sources (copied in, or kept by --rerun-triggers mtime) are refused, never locked
        **job_params(sources=lambda w: {p: paper_sources(p) for p in available_papers()}),
        shards=lambda w: {p: paper_shards(p) for p in available_papers()},
        # ... and so are results made from another config or by other workflow scripts than the tree's
        configs=lambda w: {p: paper_result_configs(p) for p in available_papers()},
        scripts=lambda w: rule_scripts(),
        config_args=lambda w: user_config(),
        repo_root=str(REPO_ROOT),
    log:
        layout.lock_log("lock", config["scale"]),
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../scripts/lock.py"


rule verify:
    input:
        lambda w: [f for p in locked_papers() for f in locked_outputs(p)]
        + [layout.claims_file(p) for p in verdict_papers()],
    params:
        files={p: locked_outputs(p) for p in locked_papers()},
        not_built={p: figure_availability(p).not_built for p in locked_papers()},
        measured_time={p: measured_time(p) for p in locked_papers()},
        verdict_papers=verdict_papers(),
        papers=available_papers(),
        # as for lock: results built from other sources than the tree's are refused, not compared
        **job_params(sources=lambda w: {p: paper_sources(p) for p in available_papers()}),
        shards=lambda w: {p: paper_shards(p) for p in available_papers()},
        configs=lambda w: {p: paper_result_configs(p) for p in available_papers()},
        scripts=lambda w: rule_scripts(),
        config_args=lambda w: user_config(),  # the suggested commands keep the user's --config (papers=)
        repo_root=str(REPO_ROOT),
    log:
        layout.lock_log("verify", config["scale"]),
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../scripts/verify.py"


rule results_at_a_glance:
    input:
        verdicts=str(layout.VERDICTS_FILE),
    params:
        readme=str(REPO_ROOT / "README.md"),
    log:
        layout.GLANCE_LOG,
    localrule: True
    conda:
        "../../environment.yml"
    script:
        "../scripts/results_at_a_glance.py"
