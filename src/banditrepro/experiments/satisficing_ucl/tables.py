"""Tables I and II: the eight problems with the instance columns of the figures (spec §1)."""

from __future__ import annotations

import pandas as pd

from ...registry import table_builder
from .builders import GaussianInstance

TABLE_I = [
    ("P1", "standard bandit", "M > m_sigma(2)", "delta = 0", "A1 UCL"),
    ("P2", "satisfaction in mean reward", "M <= m_sigma(2)", "delta = 0", "A2 satisfaction-in-mean-reward UCL"),
    ("P3", "delta-sufficing", "M > m_sigma(2)", "delta in (0, 1]", "A3 delta-sufficing UCL"),
    ("P4", "(M, delta)-satisficing", "M <= m_sigma(2)", "delta in (0, 1]", "A4 (M, delta)-satisficing UCL"),
]
TABLE_II = [
    ("P5", "robust bandit", "Pi > p_varsigma(2)", "delta = 0", "A5 robust UCL"),
    ("P6", "robust satisfaction", "Pi <= p_varsigma(2)", "delta = 0", "A6 robust satisfaction UCL"),
    ("P7", "delta-robust sufficing", "Pi > p_varsigma(2)", "delta in (0, 1]", "A7 delta-robust sufficing UCL"),
    ("P8", "(Pi, delta)-robust satisficing", "Pi <= p_varsigma(2)", "delta in (0, 1]", "A8 (Pi, delta)-robust satisficing UCL"),
]


def _fmt_list(values, digits=4):
    return "[" + ", ".join(f"{v:.{digits}g}" for v in values) + "]"


@table_builder("ucl_problem_table")
def problem_table(ctx, table: str, experiment: str, thresholds: dict, delta: float):
    """Table I (mean reward) or II (robust): problem definitions plus this instance's k, satisfying
    set (1-based arms), gaps, and for Table II the standardised means x and probabilities p."""
    exp = ctx.spec.experiments[experiment]
    inst = GaussianInstance.from_params(exp.params)
    robust = table == "II"
    rows = []
    for pid, name, level_cond, delta_cond, algo in (TABLE_II if robust else TABLE_I):
        thr = thresholds.get(pid)
        sat = inst.satisfying_set(robust, thr)
        gaps = inst.gaps(robust, thr)
        row = {"problem": pid, "name": name, "threshold condition": level_cond, "delta": delta_cond,
               "algorithm": algo,
               ("Pi" if robust else "M") + " used": "best arm" if thr is None else f"{thr:g}",
               "delta used": f"{delta:g}" if "(0, 1]" in delta_cond else "0",
               "k": len(sat), "satisfying arms": "{" + ", ".join(str(i + 1) for i in sat) + "}",
               ("Delta^Pi" if robust else "Delta^M"): _fmt_list(gaps)}
        if robust:
            row["x"] = _fmt_list(inst.x)
            row["p"] = _fmt_list(inst.p)
        rows.append(row)
    return pd.DataFrame(rows)
