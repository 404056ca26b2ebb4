"""Tables registered by papers, written as CSV and Markdown."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..registry import TABLE_BUILDERS, lookup
from .context import ResultsContext


def build_table(ctx: ResultsContext, table_id: str) -> pd.DataFrame:
    spec = ctx.spec.tables[table_id]
    fn = lookup(TABLE_BUILDERS, "table builder", spec["fn"])
    return fn(ctx, **spec.get("args", {}))


def to_markdown(df: pd.DataFrame, title: str = "") -> str:
    """Plain pipe table (no tabulate dependency)."""
    def cell(v) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = [f"**{title}**", ""] if title else []
    lines.append("| " + " | ".join(cell(c) for c in df.columns) + " |")
    lines.append("|" + "---|" * len(df.columns))
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, csv_path: Path, md_path: Path, title: str) -> None:
    df.to_csv(csv_path, index=False, lineterminator="\n")
    Path(md_path).write_text(to_markdown(df, title))
