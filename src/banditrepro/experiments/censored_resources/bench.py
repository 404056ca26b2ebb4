"""CPU cost of the censored-resources synthetic kernels, per (experiment, algorithm).

    python -m banditrepro.experiments.censored_resources.bench [--reps 2] [--scale paper]
        [--experiments s51_poscorr f2_n80 ...] [--algorithms rcucb ts ...] [--json costs.json]

For every synthetic experiment of config/papers/censored_resources.yaml (builder ``censored_synthetic``)
and each of its algorithms, the simulation runs replication 0 untimed (numba compiles or loads its cache,
the ground truth is computed), then replications 1..reps timed in CPU time of this process
(``time.process_time``: the loop is single-threaded, and CPU time is what other jobs on a shared machine
disturb least). The table gives CPU seconds scaled to the experiment's replication count (100 at paper
scale): the cost of the simulation kernels alone, without job start-up, ground truth or output writing.
docs/papers/censored_resources.md ("Cost") quotes this table for several revisions of the code.

The module only uses APIs that have not changed since the speed issue was filed (``load_paper``, the
simulation builders, ``keys_for``), so the same file run as a script with ``PYTHONPATH`` set to an older
checkout's ``src`` measures that checkout's kernels (``--repo-root`` pointing at it).

The last line has the form
``censored synthetic kernels: <s> CPU-s for <n> experiments x <k> algorithms x <R> repetitions``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import yaml

from banditrepro.experiments.runner import keys_for
from banditrepro.experiments.spec import load_paper
from banditrepro.registry import SIMULATION_BUILDERS, lookup

PAPER = "censored_resources"
BUILDER = "censored_synthetic"


def root_seed(repo_root: Path) -> int:
    """The workflow's root seed (config/config.yaml ``seed``)."""
    with open(Path(repo_root) / "config" / "config.yaml", encoding="utf-8") as fh:
        return int(yaml.safe_load(fh)["seed"])


def kernel_costs(repo_root: Path, scale: str = "paper", reps: int = 2, experiments=None, algorithms=None,
                 seed: int | None = None) -> list[dict]:
    """One row per (experiment, algorithm): timed replications, CPU-s for them, and scaled to all replications."""
    if reps < 1:
        raise ValueError("--reps must be >= 1")
    spec = load_paper(PAPER, scale, repo_root)
    seed = root_seed(repo_root) if seed is None else seed
    synthetic = [e for e, exp in spec.experiments.items() if exp.builder == BUILDER]
    chosen = synthetic if not experiments else list(experiments)
    unknown = sorted(set(chosen) - set(synthetic))
    if unknown:
        raise ValueError(f"not synthetic experiments of {PAPER}: {unknown}; expected some of {synthetic}")
    build = lookup(SIMULATION_BUILDERS, "simulation builder", BUILDER)
    rows = []
    for exp_id in chosen:
        exp = spec.experiments[exp_id]
        if reps + 1 > exp.replications:
            raise ValueError(f"{exp_id} has {exp.replications} replications; --reps must be below that")
        for algorithm in exp.algorithms:
            if algorithms and algorithm not in algorithms:
                continue
            sim = build(exp, algorithm)
            noise, policy = keys_for(exp, algorithm, seed, 0, reps + 1)
            sim.run(noise[:1], policy[:1], exp.checkpoints)  # compile or load the cache, outside the timing
            t0 = time.process_time()
            sim.run(noise[1:], policy[1:], exp.checkpoints)
            cpu = time.process_time() - t0
            rows.append({"experiment": exp_id, "algorithm": algorithm, "horizon": exp.horizon,
                         "timed_replications": reps, "cpu_s": cpu, "replications": exp.replications,
                         "cpu_s_all_replications": cpu / reps * exp.replications})
    return rows


def format_table(rows: list[dict]) -> list[str]:
    """Markdown table: experiments as rows, algorithms as columns, CPU-s for all replications."""
    algos = list(dict.fromkeys(r["algorithm"] for r in rows))
    exps = list(dict.fromkeys(r["experiment"] for r in rows))
    cell = {(r["experiment"], r["algorithm"]): r["cpu_s_all_replications"] for r in rows}
    lines = ["| experiment | " + " | ".join(algos) + " | all |", "|---" * (len(algos) + 2) + "|"]
    for e in exps:
        values = [cell.get((e, a)) for a in algos]
        total = sum(v for v in values if v is not None)
        lines.append(f"| {e} | " + " | ".join("" if v is None else f"{v:.2f}" for v in values) + f" | {total:.2f} |")
    totals = [sum(cell.get((e, a), 0.0) for e in exps) for a in algos]
    lines.append("| all | " + " | ".join(f"{v:.2f}" for v in totals) + f" | {sum(totals):.2f} |")
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2, help="timed replications per cell (default 2)")
    ap.add_argument("--scale", choices=("paper", "smoke"), default="paper")
    ap.add_argument("--experiments", nargs="+", help="synthetic experiment ids (default: all)")
    ap.add_argument("--algorithms", nargs="+", help="algorithm keys (default: all)")
    ap.add_argument("--seed", type=int, help="root seed (default: config/config.yaml)")
    ap.add_argument("--repo-root", type=Path, default=Path("."))
    ap.add_argument("--json", type=Path, help="also write the rows to this file")
    args = ap.parse_args(argv)
    rows = kernel_costs(args.repo_root, args.scale, args.reps, args.experiments, args.algorithms, args.seed)
    if not rows:
        raise SystemExit("no (experiment, algorithm) cell selected")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    n_reps = sorted({r["replications"] for r in rows})
    print(f"{PAPER} synthetic kernels, scale {args.scale}: CPU-s (process_time) of replications 1..{args.reps} "
          f"per cell, scaled to {'/'.join(map(str, n_reps))} replications; replication 0 untimed (compilation)")
    for line in format_table(rows):
        print(line)
    total = sum(r["cpu_s_all_replications"] for r in rows)
    n_exp = len({r["experiment"] for r in rows})
    n_alg = len({r["algorithm"] for r in rows})
    print(f"censored synthetic kernels: {total:.0f} CPU-s for {n_exp} experiments x {n_alg} algorithms x "
          f"{'/'.join(map(str, n_reps))} repetitions")


if __name__ == "__main__":
    main()
