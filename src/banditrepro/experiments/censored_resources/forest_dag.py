"""What workflow/rules/papers/censored_resources.smk needs while Snakemake builds the DAG: the forest grid
of the paper spec the rule file loaded, whether the shipped table serves it, and the paths of a recompute.
Cheap: no table is read here (the jobs check sha256s, forest_model.read_verified)."""

from __future__ import annotations

import json
from pathlib import Path

from ... import layout
from .forest_model import GRID_KEYS, PAPER, SHIPPED_TABLE, sidecar_path


def forest_grid(spec) -> dict:
    """The forest grid of the ``ames`` experiment of a loaded paper spec (the rule file's, at its scale)."""
    return spec.experiments["ames"].params["forest"]


def same_grid(a: dict, b: dict) -> bool:
    """Do two grids (config entries or a table's provenance ``grid``) list the same runs and values?"""
    def norm(grid):
        return (int(grid["runs"]),) + tuple(tuple(sorted(float(v) for v in grid[k])) for k in GRID_KEYS)
    return norm(a) == norm(b)


def shipped_table_problem(grid: dict, scale: str, repo_root) -> str | None:
    """Why the shipped table cannot serve ``grid``, the forest grid of ``scale`` (absent, no provenance,
    another grid), or None.

    Cheap (reads the provenance sidecar only): it runs while Snakemake builds the DAG. The sha256 itself is
    checked by the job that installs the table and again by every reader (``read_verified``).
    """
    path = Path(repo_root) / SHIPPED_TABLE
    side = sidecar_path(path)
    if not path.exists() or not side.exists():
        return f"no shipped forest table {SHIPPED_TABLE} (with its provenance); ames_forest=recompute builds one"
    shipped = json.loads(side.read_text()).get("grid")
    if not shipped or not same_grid(shipped, grid):
        return (f"the shipped forest table {SHIPPED_TABLE} is not the {scale}-scale grid of config/papers/"
                "censored_resources.yaml; ames_forest=recompute builds that grid's table")
    return None


def chunk_paths(grid: dict, scale: str) -> list[str]:
    """Chunk files of a recomputed surrogate table of ``grid`` at ``scale``: one per (run, mtry)."""
    return [chunk_path(scale, f"{k:02d}", m) for k in range(int(grid["runs"])) for m in grid["mtry"]]


def scale_table(scale: str) -> str:
    """The recomputed table of ``scale`` (tables of different scales live apart: none overwrites another)."""
    return layout.paper_file(PAPER, "forest", scale, "surrogate_table.csv")


def chunk_path(scale: str, run, mtry) -> str:
    """One (run, mtry) chunk of ``scale``'s recomputed table (with ``"{run}", "{mtry}"``: the rule's pattern)."""
    return layout.paper_file(PAPER, "forest", scale, "chunks", f"run{run}_mtry{mtry}.csv")


def forest_log(*parts) -> str:
    return layout.paper_log(PAPER, "forest", *parts)


def grid_argument(grid: dict, key: str) -> str:
    """Space-separated values of one grid entry, for the chunk command line."""
    return " ".join(str(v) for v in grid[key])
