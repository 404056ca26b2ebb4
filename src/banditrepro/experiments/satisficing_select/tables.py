"""Tables of satisficing_select: SELECT's per-replication diagnostics (issue item 4) and the final
values of every plotted curve (the paper prints no numbers)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...registry import table_builder


def _select_algorithms(ctx, experiment):
    algos = ctx.spec.experiments[experiment].algorithms
    return [a for a, cfg in algos.items() if cfg.get("algorithm") == "select"]


@table_builder("select_diagnostics")
def select_diagnostics(ctx, experiments):
    """One row per (experiment, SELECT variant): rounds started at T, the step reached at T, how
    often a round's LCB test passed at least once, and the candidate of the round running at T."""
    rows = []
    for exp in experiments:
        level = float(ctx.spec.experiments[exp].params["level"])
        outs = ctx.replications(exp)
        for algo in _select_algorithms(ctx, exp):
            f = outs[algo].finals
            rounds = f["rounds_started"]
            first = f["first_passing_round"]
            step = f["step_at_end"]
            cand = f["final_candidate_mean"]
            rows.append({
                "experiment": exp, "algorithm": algo, "S": level, "replications": rounds.size,
                "T": int(outs[algo].checkpoints[-1]),
                "mean_rounds_started": rounds.mean(), "min_rounds": int(rounds.min()), "max_rounds": int(rounds.max()),
                "share_step1_at_T": np.mean(step == 1), "share_step2_at_T": np.mean(step == 2),
                "share_step3_at_T": np.mean(step == 3),
                "share_with_a_passing_LCB_check": np.mean(first > 0),
                "mean_first_passing_round": float(first[first > 0].mean()) if np.any(first > 0) else np.nan,
                "share_last_candidate_satisficing": float(np.nanmean(cand >= level)),
                "mean_last_candidate_r": float(np.nanmean(cand)),
            })
    return pd.DataFrame(rows)


@table_builder("select_rounds")
def select_rounds(ctx, experiments, max_round=12):
    """Per round i: share of replications that chose a candidate in round i, mean r(X_hat_i), share of
    candidates that are satisficing (r >= S), and share of tested rounds whose first LCB check passed."""
    rows = []
    for exp in experiments:
        level = float(ctx.spec.experiments[exp].params["level"])
        outs = ctx.replications(exp)
        for algo in _select_algorithms(ctx, exp):
            f = outs[algo].finals
            for i in range(1, max_round + 1):
                key = f"candidate_mean_round_{i}"
                if key not in f:
                    break
                cand = f[key]
                passed = f[f"checks_passed_round_{i}"]
                reached = ~np.isnan(cand)
                tested = passed >= 0
                if not reached.any():
                    continue
                rows.append({
                    "experiment": exp, "algorithm": algo, "round": i, "share_reached": reached.mean(),
                    "mean_candidate_r": float(cand[reached].mean()),
                    "share_candidate_satisficing": float(np.mean(cand[reached] >= level)),
                    "share_tested": tested.mean(),
                    "share_first_check_passed": float(np.mean(passed[tested] > 0)) if tested.any() else np.nan,
                    "mean_checks_passed": float(passed[tested].mean()) if tested.any() else np.nan,
                })
    return pd.DataFrame(rows)


@table_builder("select_final_values")
def final_values(ctx, figures, at=(500, 2500, 5000)):
    """Mean ± s.e. of every plotted curve at a few horizons."""
    rows = []
    for figure in figures:
        summary = ctx.summary(figure)
        for panel in ctx.spec.figures[figure]["panels"]:
            if panel.get("kind", "curve") != "curve":
                continue
            d = summary[(summary.panel == panel["id"]) & (summary.metric == panel["metric"])]
            for algo, g in d.groupby("algorithm", sort=False):
                row = {"figure": figure, "panel": panel["id"], "metric": panel["metric"], "algorithm": algo}
                for t in at:
                    sel = g[g.t == t]
                    if not sel.empty:
                        row[f"mean_T{t}"] = float(sel["mean"].iloc[0])
                        row[f"se_T{t}"] = float(sel["se"].iloc[0])
                sel = g.sort_values("t")
                half = sel[sel.t == sel.t.max() // 2]
                if not half.empty and half["mean"].iloc[0] != 0:
                    row["ratio_T_over_T/2"] = float(sel["mean"].iloc[-1] / half["mean"].iloc[0])
                rows.append(row)
    return pd.DataFrame(rows)
