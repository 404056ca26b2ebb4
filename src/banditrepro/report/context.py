"""Read access to a paper's aggregated results for claim checks, tables and special panels."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from .. import portable
from ..shards import load_shards, read_shard_provenance
from ..simulation_output import SimulationOutput

if TYPE_CHECKING:  # the report side reads a spec it is handed; it never loads one
    from ..experiments.spec import PaperSpec


class CurvePoint(NamedTuple):
    """One point of a mean curve: its mean, standard error, replication count and time step."""

    mean: float
    se: float
    n: int
    t: int


class ResultsContext:
    """Summaries and reference curves per figure, and (lazily) per-replication shard data."""

    def __init__(self, spec: PaperSpec, summaries: dict[str, Path] | None = None,
                 references: dict[str, Path] | None = None, shards: dict[str, list[Path]] | None = None,
                 standin_figures: set[str] | None = None, claims: dict[str, Path] | None = None):
        self.spec = spec
        self._claims = {k: Path(v) for k, v in (claims or {}).items()}
        self._summaries = {k: Path(v) for k, v in (summaries or {}).items()}
        self._references = {k: Path(v) for k, v in (references or {}).items()}
        self._shards = {k: [Path(p) for p in v] for k, v in (shards or {}).items()}
        self.standin_figures = set(standin_figures or ())
        self._cache: dict = {}

    def figure_claims(self, figure: str) -> pd.DataFrame:
        """The claims of ``figure`` as its claims job wrote them (results/<paper>/claims/<figure>.csv), every
        cell a string: a table that shows verdicts reads them (a table never evaluates claims)."""
        if figure not in self._claims:
            raise KeyError(f"no claims of figure {figure!r} given (a table lists them under `claims:`)")
        return pd.read_csv(self._claims[figure], dtype=str, keep_default_na=False)

    def use_summary(self, figure: str, summary: pd.DataFrame, reference: pd.DataFrame | None = None) -> None:
        """Read ``figure``'s summary (and reference curves) from frames instead of files: a sequential look
        (report/sequential.py) summarizes the figure from more replications than its summary.csv holds."""
        self._summaries.setdefault(figure, Path(f"<{figure} summary in memory>"))
        self._cache[("summary", figure)] = summary
        if reference is not None:
            self._cache[("reference", figure)] = reference

    def has_figure(self, figure: str) -> bool:
        return figure in self._summaries

    def summary(self, figure: str) -> pd.DataFrame:
        key = ("summary", figure)
        if key not in self._cache:
            if figure not in self._summaries:
                raise KeyError(f"no summary for figure {figure!r} (not built: data unavailable or not requested)")
            self._cache[key] = pd.read_csv(self._summaries[figure], **portable.csv_float_options(pd.__version__))
        return self._cache[key]

    def references(self, figure: str) -> pd.DataFrame:
        key = ("reference", figure)
        if key not in self._cache:
            path = self._references.get(figure)
            if path is not None and path.exists():
                self._cache[key] = pd.read_csv(path, **portable.csv_float_options(pd.__version__))
            else:
                self._cache[key] = pd.DataFrame(columns=["panel", "curve", "label", "metric", "t", "value"])
        return self._cache[key]

    def panel(self, figure: str, panel: str) -> dict:
        for p in self.spec.figures[figure]["panels"]:
            if p["id"] == panel:
                return p
        raise KeyError(f"figure {figure!r} has no panel {panel!r}")

    def curve(self, figure: str, panel: str, algorithm: str, metric: str | None = None) -> pd.DataFrame:
        """Rows (t, mean, se, n) of one algorithm's curve, sorted by t."""
        metric = metric or self.panel(figure, panel)["metric"]
        df = self.summary(figure)
        sel = df[(df.panel == panel) & (df.algorithm == algorithm) & (df.metric == metric)]
        if sel.empty:
            raise KeyError(f"{figure}/{panel}: no curve for algorithm {algorithm!r}, metric {metric!r}")
        return sel.sort_values("t")[["t", "mean", "se", "n"]].reset_index(drop=True)

    def point(self, figure: str, panel: str, algorithm: str, t: int | None = None,
              metric: str | None = None) -> CurvePoint:
        """Mean and standard error of a curve at the first recorded step >= ``t`` (the last step if None)."""
        c = self.curve(figure, panel, algorithm, metric)
        if t is None:
            i = len(c) - 1
        else:
            i = int(np.searchsorted(c.t.values, t))
            if i == len(c):
                raise KeyError(f"{figure}/{panel}/{algorithm}: no recorded step at or after t={t} "
                               f"(last is {int(c.t.iloc[-1])})")
        row = c.iloc[i]
        return CurvePoint(float(row["mean"]), float(row["se"]), int(row["n"]), int(row["t"]))

    def reference(self, figure: str, panel: str, curve: str) -> pd.DataFrame:
        df = self.references(figure)
        sel = df[(df.panel == panel) & (df.curve == curve)]
        if sel.empty:
            raise KeyError(f"{figure}/{panel}: no reference curve {curve!r}")
        return sel.sort_values("t")[["t", "value"]].reset_index(drop=True)

    def shard_seed(self, experiment: str) -> int:
        """The root seed the experiment's shards were simulated with (their provenance)."""
        if experiment not in self._shards or not self._shards[experiment]:
            raise KeyError(f"shards of experiment {experiment!r} were not given to this rule")
        return int(read_shard_provenance(self._shards[experiment][0])["seed"])

    def replications(self, experiment: str) -> dict[str, SimulationOutput]:
        """Per-replication outputs of every algorithm of an experiment."""
        key = ("shards", experiment)
        if key not in self._cache:
            if experiment not in self._shards:
                raise KeyError(f"shards of experiment {experiment!r} were not given to this rule")
            self._cache[key] = load_shards(self._shards[experiment])
        return self._cache[key]


