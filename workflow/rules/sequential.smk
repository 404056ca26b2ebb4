# Sequential replications (src/banditrepro/report/sequential.py, docs/sequential.md): at a scale where a
# paper's `sequential:` rule allows more than one look, every headline claim whose check takes a band `z`
# is evaluated by one checkpoint job per look. Look 0 reads the paper's replications; while the claim is
# inconclusive the next look doubles the replications of the experiments its check names as undecided, as
# new shards r >= n of the same experiment (replication r keeps SeedSequence child r, so no number depends
# on --cores or the sharding). The claims job of the claim's figure waits for the last look and takes its
# row. The DAG is static up to the looks: only the extra shard blocks a look asks for are added.
import json

from banditrepro.report.sequential import claim_experiments, extra_blocks, sequential_claims


def sequential_claim(paper, claim_id):
    """The claim ``claim_id`` of ``paper`` if it takes sequential looks at this scale."""
    for claim in sequential_claims(paper_spec(paper)):
        if claim["id"] == claim_id:
            return claim
    raise WorkflowError(f"{paper}: claim {claim_id!r} takes no sequential looks at scale {config['scale']}")


def sequential_claims_measured(paper, figure):
    """The sequential claims of a built figure whose experiments' data are real (stand-in: inconclusive anyway)."""
    avail = figure_availability(paper)
    if figure not in avail.built or figure in avail.standin:
        return []
    spec = paper_spec(paper)
    return [c for c in sequential_claims(spec) if c["figure"] == figure
            and all(dataset_state(d).available for e in claim_experiments(spec, c) for d in spec.experiments[e].data)]


def look_replications(wildcards):
    """{experiment: replications} a look reads: the paper's counts at look 0, else what the previous look asked for."""
    spec, look = paper_spec(wildcards.paper), int(wildcards.look)
    if look == 0:
        claim = sequential_claim(wildcards.paper, wildcards.claim)
        return {e: spec.experiments[e].replications for e in claim_experiments(spec, claim)}
    previous = checkpoints.sequential_look.get(paper=wildcards.paper, claim=wildcards.claim, look=look - 1).output[0]
    counts = json.loads(Path(previous).read_text(encoding="utf-8"))["next_replications"]
    if counts is None:
        raise WorkflowError(f"{previous}: the claim is decided or out of looks; there is no look {look}")
    return counts


def look_shards(paper, experiment, n):
    """The shards of replications [0, n): the build's own blocks, then the extra blocks (sequential.extra_blocks)."""
    exp = paper_spec(paper).experiments[experiment]
    blocks = exp.job_shards(config["shard_size"]) + extra_blocks(exp.replications, n, exp.shard_size or config["shard_size"])
    return [layout.shard_file(paper, experiment, shard_name(a, b)) for a, b in blocks]


def sequential_look_results(wildcards):
    counts = look_replications(wildcards)
    return {"replications": counts, "shards": {e: look_shards(wildcards.paper, e, n) for e, n in counts.items()}}


def sequential_look_inputs(wildcards):
    inputs = {"shards": [f for files in sequential_look_results(wildcards)["shards"].values() for f in files]}
    if int(wildcards.look) > 0:
        inputs["previous"] = layout.sequential_look_file(wildcards.paper, wildcards.claim, int(wildcards.look) - 1)
    return inputs


def sequential_final_looks(wildcards):
    """The last look of every sequential claim of a figure of the main build (robustness and other result
    roots evaluate the claims at the paper's count): look files, walked through the checkpoint."""
    if set(wildcards.keys()) != {"paper", "figure"}:
        return []
    files = []
    for claim in sequential_claims_measured(wildcards.paper, wildcards.figure):
        look = 0
        while True:
            path = checkpoints.sequential_look.get(paper=wildcards.paper, claim=claim["id"], look=look).output[0]
            if json.loads(Path(path).read_text(encoding="utf-8"))["next_replications"] is None:
                break
            look += 1
        files.append(path)
    return files


def sequential_look_params(results=None):
    """The params of a look ({name: value or fn(wildcards)}), shared with a mutant's look 0 (mutants.smk);
    ``results``: fn(wildcards) -> {"replications", "shards"} (sequential_look_results)."""
    return job_params(
        claim=lambda w: sequential_claim(w.paper, w.claim),
        results=results or sequential_look_results,
    )


checkpoint sequential_look:
    input:
        unpack(sequential_look_inputs),
    output:
        layout.SEQUENTIAL_LOOK_PATTERN,
    params:
        **sequential_look_params(),
    log:
        layout.SEQUENTIAL_LOOK_LOG_PATTERN,
    conda:
        "../../environment.yml"
    script:
        "../scripts/sequential_look.py"
