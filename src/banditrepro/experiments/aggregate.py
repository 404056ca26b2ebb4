"""Aggregate shards into a figure's tidy summary (``panel, algorithm, metric, t, mean, se, n``)
and evaluate its analytic reference curves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..registry import REFERENCE_CURVES, lookup
from ..simulation_output import SimulationOutput, summarize
from .spec import PaperSpec, panel_experiments

SUMMARY_COLUMNS = ["panel", "algorithm", "metric", "t", "mean", "se", "n"]
REFERENCE_COLUMNS = ["panel", "curve", "label", "metric", "t", "value"]


def panel_metrics(panel: dict) -> list[str]:
    metrics = [panel["metric"]] if "metric" in panel else []
    return metrics + [m for m in panel.get("extra_metrics", []) if m not in metrics]


def summarize_figure(spec: PaperSpec, figure: str, outputs: dict[str, dict[str, SimulationOutput]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``outputs[experiment][algorithm]`` holds all replications of that cell."""
    rows = []
    ref_rows = []
    for panel in spec.figures[figure]["panels"]:
        for exp_id in panel_experiments(panel):
            exp = spec.experiments[exp_id]
            algorithms = panel.get("algorithms") or list(exp.algorithms)
            for algo in algorithms:
                out = outputs[exp_id][algo]
                for metric in panel_metrics(panel):
                    if metric in out.curves:
                        mean, se, n = summarize(out.curves[metric])
                        ts = out.checkpoints
                    elif metric in out.finals:
                        mean, se, n = (np.atleast_1d(x) for x in summarize(out.finals[metric][:, None]))
                        ts = np.array([exp.horizon])
                        n = int(n[0])
                    elif metric.startswith("pulls:") and out.pulls is not None:
                        arm = int(metric.split(":", 1)[1])
                        mean, se, n = summarize(out.pulls[:, :, arm].astype(np.float64))
                        ts = out.checkpoints
                    else:
                        known = sorted(out.curves) + sorted(out.finals)
                        raise KeyError(f"{spec.paper}/{figure}/{panel['id']}: {exp_id}/{algo} has no metric "
                                       f"{metric!r} (has {known})")
                    for t, m, s in zip(ts, mean, se):
                        rows.append((panel["id"], algo, metric, int(t), float(m), float(s), int(n)))
            for ref in panel.get("references", []):
                fn = lookup(REFERENCE_CURVES, "reference curve", ref["fn"])
                t = exp.checkpoints
                values = np.asarray(fn(t.astype(np.float64), exp, **ref.get("args", {})), dtype=np.float64)
                values = np.broadcast_to(values, t.shape)
                for tt, v in zip(t, values):
                    ref_rows.append((panel["id"], ref["id"], ref.get("label", ref["id"]), panel.get("metric", ""),
                                     int(tt), float(v)))
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS), pd.DataFrame(ref_rows, columns=REFERENCE_COLUMNS)


def write_csv(df: pd.DataFrame, path) -> None:
    """Byte-stable CSV: fixed column order, shortest round-trip float repr, LF line endings."""
    df.to_csv(path, index=False, float_format=None, lineterminator="\n")
