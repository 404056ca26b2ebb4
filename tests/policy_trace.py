"""Which package functions each policy of each paper really runs: one replication of every distinct (builder,
algorithm entry) of the figures the mutants rebuild, at smoke scale, with numba's compilation off so that the
kernels run as Python and every call is seen (tests/test_policy_ownership.py runs this in a child process, with
NUMBA_DISABLE_JIT=1 set before numba is imported).

    python tests/policy_trace.py OUT.json SCRATCH_DIR PAPER [PAPER ...]

A run stops after RUN_BUDGET_S seconds of traced execution (the kernels' first steps already dispatch to
every unit the policy runs). Data sets are replaced by small synthetic files in SCRATCH_DIR (the dispatch does
not depend on the data), so the check needs neither the mirror nor Kaggle.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
RUN_BUDGET_S = 2.0


class Budget(BaseException):
    """Raised by the tracer when a run has had its time (a BaseException: no `except Exception` eats it)."""


def synthetic_data(exp, root: Path) -> None:
    """Small stand-ins of the processed files and precomputed tables an experiment reads, under ``root``."""
    rng = np.random.default_rng(0)
    params = exp.params
    if "movielens" in params:
        path = root / params["movielens"]["histograms"]
        path.parent.mkdir(parents=True, exist_ok=True)
        counts = rng.integers(100, 700, size=(150, 5))
        lines = ["movie_id,count,n1,n2,n3,n4,n5"] + [f"{i + 1},{c.sum()},{','.join(map(str, c))}" for i, c in
                                                     enumerate(counts)]
        path.write_text("\n".join(lines) + "\n")
    if "dataset" in params and "file" in params:
        path = root / "data" / "processed" / params["dataset"] / params["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, rng.integers(0, 2, size=(int(exp.horizon), 10)).astype(np.int8))
    for required in exp.requires:
        from banditrepro.experiments.censored_resources import forest_model

        if required == forest_model.ACTIVE_TABLE:
            forest_model.install_table(REPO_ROOT / forest_model.SHIPPED_TABLE, root / required, "cached")


def trace_run(run, package: str) -> tuple[list[list], str]:
    """[[module, first line], ...] of the package functions ``run()`` calls, and its error ("" if none)."""
    seen: set[tuple[str, int]] = set()
    deadline = time.perf_counter() + RUN_BUDGET_S

    def tracer(frame, event, arg):
        code = frame.f_code
        if code.co_filename.startswith(package):
            seen.add((code.co_filename[len(package) + 1:], code.co_firstlineno))
            if time.perf_counter() > deadline:  # raised in the package's own frames (never in a callback)
                raise Budget
        return None

    error = ""
    sys.settrace(tracer)
    try:
        run()
    except Budget:
        pass
    except Exception as err:  # noqa: BLE001 - reported to the test, which decides
        error = f"{type(err).__name__}: {err}"
    finally:
        sys.settrace(None)
    return sorted([list(s) for s in seen]), error


def main(out: str, scratch: str, papers: list[str]) -> None:
    import banditrepro
    from banditrepro.experiments.runner import keys_for
    from banditrepro.experiments.spec import load_paper
    from banditrepro.mutation import figures_experiments, mutant_figures
    from banditrepro.registry import SIMULATION_BUILDERS, lookup

    warnings.simplefilter("ignore")  # uint64 wrap-around of the uncompiled Philox rounds
    package = str(Path(banditrepro.__file__).resolve().parent)
    runs = []
    for paper in papers:
        spec = load_paper(paper, "smoke", REPO_ROOT)
        seen = set()
        for experiment in figures_experiments(spec, mutant_figures(spec)):
            exp = spec.experiments[experiment]
            if exp.data or exp.requires:
                root = Path(scratch) / paper / experiment
                synthetic_data(exp, root)
                exp = dataclasses.replace(exp, repo_root=root)
            build = lookup(SIMULATION_BUILDERS, "simulation builder", exp.builder)
            for algorithm, entry in exp.config["algorithms"].items():
                key = (exp.builder, json.dumps({k: v for k, v in entry.items() if k != "label"}, sort_keys=True))
                if key in seen:
                    continue
                seen.add(key)
                noise, policy = keys_for(exp, algorithm, 1, 0, 1)

                def one_replication(build=build, exp=exp, algorithm=algorithm, noise=noise, policy=policy):
                    build(exp, algorithm).run(noise, policy, exp.checkpoints)

                executed, error = trace_run(one_replication, package)
                runs.append({"paper": paper, "experiment": experiment, "algorithm": algorithm, "entry": entry,
                             "executed": executed, "error": error})
    Path(out).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
