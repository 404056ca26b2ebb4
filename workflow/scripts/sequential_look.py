"""One look of a claim's sequential replications: the claim's check on [0, n) replications of each
experiment it reads (report/sequential.py), written to results/<paper>/sequential/<claim>/look<k>.json."""

import worker_handoff  # noqa: F401, I001 - first: runs this job in the build's worker where one runs (then exits)

import json

from banditrepro import provenance
from banditrepro.experiments.aggregate import summarize_figure
from banditrepro.experiments.spec import load_paper
from banditrepro.report.claims import result_dependencies
from banditrepro.report.context import ResultsContext
from banditrepro.report.sequential import evaluate_look, look_record, paper_rule
from banditrepro.workflow_io import repo_root, run


def main(snakemake) -> None:
    w = snakemake.wildcards
    root = repo_root(snakemake)
    spec = load_paper(w.paper, snakemake.params.scale, root)
    claim, results, look = snakemake.params.claim, snakemake.params.results, int(w.look)
    ctx = ResultsContext(spec, shards=results["shards"])
    figures, _ = result_dependencies(spec, [claim["figure"]], {k: v for k, v in claim["check"].items() if k != "fn"})
    for fig in figures:  # the checks' means and s.e.s from the replications of this look, not summary.csv
        outputs = {e: ctx.replications(e) for e in spec.figure_experiments(fig)}
        summary, reference = summarize_figure(spec, fig, outputs)
        ctx.use_summary(fig, summary, reference)
    result = evaluate_look(ctx, claim, look, paper_rule(spec))
    record = look_record(spec, claim, look, {e: int(n) for e, n in results["replications"].items()}, result)
    record["provenance"] = provenance.record({"claim": claim, "scale": snakemake.params.scale},
                                             snakemake.params.seed, root, snakemake.params.sources,
                                             paper=w.paper)
    with open(snakemake.output[0], "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"{w.paper}/{w.claim} look {look}: {record['verdict']} with {record['replications']}; "
          f"next: {record['next_replications']}")


run(main, snakemake)  # noqa: F821 - injected by Snakemake
