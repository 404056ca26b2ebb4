"""Tables: censored proportions next to the paper's values, ground truth, forest-table cost."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ...environments import censored as ce
from ...registry import table_builder
from .builders import grid_from, synthetic_arms
from .checks import censored_proportions, truth_of

ALGORITHMS = (("rcucb", "RCUCB"), ("ts", "TS"), ("ucb", "UCB"), ("rcucb_unit", "RCUCB-unit (sensitivity)"))


def _cell(values: np.ndarray) -> str:
    return f"{np.mean(values):.4f} [{np.std(values, ddof=1):.4f}]" if len(values) > 1 else f"{np.mean(values):.4f}"


@table_builder("censored_table")
def censored_table(ctx, rows):
    """One row per instance: measured mean [sd] of the censored proportion per algorithm, the paper's
    value, 1 - P* of the simulated environment and the paper's 1 - P*."""
    out = []
    for row in rows:
        reps = ctx.replications(row["experiment"])
        paper = row.get("paper", {})
        paper_sd = row.get("paper_sd", {})
        rec = {"instance": row["label"]}
        for algo, name in ALGORITHMS:
            if algo not in reps:
                continue
            rec[name] = _cell(censored_proportions(ctx, row["experiment"], algo))
            if algo == "rcucb_unit":
                continue  # a sensitivity variant: the paper has no column for it (compare with RCUCB paper)
            if algo in paper:
                sd = f" [{paper_sd[algo]:.4f}]" if algo in paper_sd else ""
                rec[f"{name} paper"] = f"{paper[algo]:.4f}{sd}"
            else:
                rec[f"{name} paper"] = "-"
        truth, taus = truth_of(ctx, row["experiment"])
        rec["1-P* (computed)"] = f"{truth.censor_prob_star:.4f}"
        rec["1-P* paper"] = f"{paper['truth']:.4f}" if "truth" in paper else "-"
        rec["optimum (arm, tau*)"] = f"({truth.best_arm + 1}, {taus[truth.best_grid_index]:.4g})"
        out.append(rec)
    return pd.DataFrame(out)


@table_builder("censored_ground_truth")
def censored_ground_truth(ctx, experiments, truncations):
    """nu*, the optimal pair, 1 - P* and the gap to the second-best pair per environment and truncation."""
    out = []
    for exp_id in experiments:
        exp = ctx.spec.experiments[exp_id]
        taus, _ = grid_from(exp.params)
        lam = ce.penalty_values(taus, exp.params["penalty"])
        for trunc in truncations:
            if exp.params["instance"] == "indep" and trunc != truncations[0]:
                continue  # Beta/Exp arms are not truncated
            params = dict(exp.params, truncation=trunc)
            truth = ce.ground_truth(synthetic_arms(params), taus, lam, float(exp.params["cost_slope"]))
            out.append({"experiment": exp_id, "truncation": trunc if exp.params["instance"] != "indep" else "(independent)",
                        "grid size": len(taus), "i*": truth.best_arm + 1,
                        "tau*": f"{taus[truth.best_grid_index]:.4f}", "nu*": f"{truth.nu_star:.4f}",
                        "1-P*": f"{truth.censor_prob_star:.4f}", "gap to 2nd": f"{truth.second_gap:.4f}"})
    return pd.DataFrame(out)


@table_builder("forest_cost")
def forest_cost(ctx, experiment):
    """Size of the AmesHousing surrogate table, the training time it contains and whose times they are."""
    from .builders import ames_setting, ames_table
    from .forest_model import describe_source

    exp = ctx.spec.experiments[experiment]
    table, prov = ames_table(exp)
    keys = ["run", "mtry", "min_node_size", "sample_fraction"]
    # one warm-started forest per (run, mtry, node size, fraction): its time is the largest prefix's
    fits = table.groupby(keys)["train_seconds"].max()
    arms, taus, _, arm_list = ames_setting(exp)
    rew = arms.table[:, :, 0]
    q1, q3 = np.percentile(table["train_seconds"], [25, 75])
    return pd.DataFrame([{
        "configurations (arms)": len(arm_list),
        "runs K": int(table["run"].nunique()),
        "forest fits (largest num.trees)": int(len(fits)),
        "total training time (s)": f"{fits.sum():.1f}",
        "median time per arm-run (s)": f"{table['train_seconds'].median():.3f}",
        "time per arm-run Q1..Q3 (s)": f"{q1:.3f} .. {q3:.3f}",
        "time grid Q1..Q3 (s)": f"{taus[0]:.3f} .. {taus[-1]:.3f}",
        "reward 1-NRMSE range": f"{rew.min():.4f} .. {rew.max():.4f}",
        "training times": describe_source(prov),
    }])


def _quartiles(q: dict) -> str:
    return f"{q['q1']:.3f} / {q['median']:.3f} / {q['q3']:.3f}"


@table_builder("ames_table_sources")
def ames_table_sources(ctx, experiment, figure, record):
    """The active forest table beside a recorded recompute on another machine.

    The bandits' "consumption" is measured training time, so the table is machine-dependent data: this
    shows how much its quartiles (the limit grid comes from run 1's Q1..Q3) and the verdicts of
    ``figure``'s claims move when the forests are fitted again elsewhere. ``record`` is the committed
    file written by ``forest_cli record`` after a build with ``ames_forest: recompute``. The verdicts of this
    build are read from ``figure``'s claims (the table's ``claims:``), not evaluated again here.
    """
    from .builders import ames_table
    from .forest_model import describe_source, training_time_summary

    exp = ctx.spec.experiments[experiment]
    table, prov = ames_table(exp)
    this = training_time_summary(table)
    path = Path(exp.repo_root) / record
    rec = json.loads(path.read_text()) if path.exists() else None
    none = f"no recompute recorded ({record})"

    def recorded(fn):
        return fn(rec) if rec is not None else none

    m = (rec or {}).get("measured_on", {})
    rows = [
        ("training times", describe_source(prov),
         recorded(lambda r: f"recomputed on {m.get('cpu_model', 'unknown CPU')}, {m.get('threads_per_fit', 1)} thread "
                            f"per fit, {r['date']} (commit {str(r.get('git_commit', '?'))[:10]})")),
        ("total training time (CPU-s)", f"{this['total_training_seconds']:.1f}",
         recorded(lambda r: f"{r['total_training_seconds']:.1f}")),
        ("wall time of the recompute build (s)", "-",
         recorded(lambda r: f"{r['wall_seconds']:.0f}" if r.get("wall_seconds") else "not recorded")),
        ("arm-run time Q1 / median / Q3 (s)", _quartiles(this["train_seconds_quartiles"]["all_runs"]),
         recorded(lambda r: _quartiles(r["train_seconds_quartiles"]["all_runs"]))),
        ("run 1 (limit grid) Q1 / median / Q3 (s)", _quartiles(this["train_seconds_quartiles"]["first_run"]),
         recorded(lambda r: _quartiles(r["train_seconds_quartiles"]["first_run"]))),
    ]
    recorded_claims = {c["claim_id"]: c for c in (rec or {}).get("claims", [])}
    for c in ctx.figure_claims(figure).itertuples():
        old = recorded_claims.get(c.claim_id)
        other = f"{old['verdict']}: {old['measured']}" if old else (none if rec is None else "not recorded")
        rows.append((f"{c.claim_id} ({c.kind})", f"{c.verdict}: {c.measured}", other))
    return pd.DataFrame(rows, columns=["quantity", "this build", "recorded recompute"])

