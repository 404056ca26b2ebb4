"""Band cases (issue 53): for each claim check that decides a headline claim, synthetic results that put the
check's decisive statistic ``k`` standard errors from the claim's own threshold, so that
``tests/test_band_behaviour.py`` can show by behaviour (not by reading a signature) that the check goes through
the 2-s.e. band: at ``k = ±1`` the claim is ``inconclusive``, at ``k = +3`` ``reproduced``, at ``k = -3``
``not_reproduced``.

A case is registered per check name with :func:`band_case` in a module of this package (``generic.py`` for the
checks of ``report/checks.py``, ``<paper>.py`` for a paper's own checks); the test imports every module here, so
a new paper adds ``tests/band_cases/<paper>.py`` and nothing else.

A case is ``case(spec, claim, check, k, tmp) -> BandContext``: ``spec`` the paper's spec at paper scale,
``claim`` the claim (with ``id`` and ``figure``), ``check`` the check (the claim's ``check``, or one part of an
``all_of``: every part is tested on its own), ``k`` the signed distance in standard errors (positive: on the side
that reproduces the claim), ``tmp`` a fresh directory. It writes synthetic ``summary.csv`` files and shards with
:func:`write_summary` and :func:`write_shards` and returns the :class:`BandContext` the check is run on. A case
computes the values it writes from the claim's threshold itself, from the paper's definition of the statistic
(it never calls the check or the helpers the check calls), so a check whose band is missing or misplaced fails.
A check that decides through comparisons of different kinds may have its case return ``{scenario: BandContext}``,
one comparison at ``k`` and the others safely passing in each (``tests/test_band_behaviour.py``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from banditrepro.report.context import ResultsContext
from banditrepro.shards import save_shard
from banditrepro.simulation_output import SimulationOutput

#: check name -> case(spec, claim, check, k, tmp) -> BandContext
BAND_CASES: dict[str, Callable] = {}

SUMMARY_COLUMNS = ["panel", "algorithm", "metric", "t", "mean", "se", "n"]


def band_case(*checks: str):
    """Register the band case of the claim checks ``checks`` (one case may serve several checks)."""
    def deco(fn):
        for name in checks:
            if name in BAND_CASES:
                raise ValueError(f"a band case for {name!r} is already registered")
            BAND_CASES[name] = fn
        return fn
    return deco


def load_all_cases() -> dict[str, Callable]:
    """Import every module of this package (each registers its cases) and return the registry."""
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        importlib.import_module(f"{__name__}.{info.name}")
    return BAND_CASES


@dataclass
class BandContext:
    """What a case hands the test: the results context to run the check on, and the keyword arguments to add to
    the check's own (e.g. a check that needs a figure other than the claim's)."""

    ctx: ResultsContext
    extra_args: dict = field(default_factory=dict)


def write_summary(tmp: Path, figure: str, rows: Iterable[tuple]) -> Path:
    """A figure's ``summary.csv`` from rows ``(panel, algorithm, metric, t, mean, se, n)``."""
    path = Path(tmp) / figure / "summary.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(list(rows), columns=SUMMARY_COLUMNS).to_csv(path, index=False)
    return path


def write_shards(tmp: Path, experiment: str, outputs: Mapping[str, SimulationOutput], seed: int = 1) -> list[Path]:
    """One shard holding every replication of ``outputs`` (algorithm -> per-replication output)."""
    n = {out.curves[next(iter(out.curves))].shape[0] if out.curves else len(next(iter(out.finals.values())))
         for out in outputs.values()}
    if len(n) != 1:
        raise ValueError(f"{experiment}: the algorithms' outputs hold different replication counts {sorted(n)}")
    reps = n.pop()
    path = Path(tmp) / "shards" / experiment / f"r000000-{reps:06d}.npz"
    save_shard(path, dict(outputs), 0, reps, {"seed": seed, "experiment": experiment})
    return [path]


def curve_rows(panel: str, algorithm: str, metric: str, ts, means, ses, n: int) -> list[tuple]:
    """Summary rows of one curve."""
    ts, means, ses = np.atleast_1d(ts), np.broadcast_to(means, np.shape(ts)), np.broadcast_to(ses, np.shape(ts))
    return [(panel, algorithm, metric, int(t), float(m), float(s), int(n)) for t, m, s in zip(ts, means, ses)]


def centred_noise(n: int, seed: int = 0) -> np.ndarray:
    """``n`` numbers with sample mean exactly 0 and sample s.d. (ddof=1) exactly 1: added to a constant ``m`` and
    scaled by ``s * sqrt(n)`` they give per-replication values whose mean is ``m`` and whose s.e. is ``s``."""
    x = np.random.default_rng(seed).standard_normal(n)
    x -= x.mean()
    return x / x.std(ddof=1)


def panel_of(spec, figure: str, panel: str) -> dict:
    """The config of ``figure``'s panel ``panel`` (its experiment, metric, ...)."""
    for p in spec.figures[figure]["panels"]:
        if p["id"] == panel:
            return p
    raise KeyError(f"figure {figure!r} has no panel {panel!r}")


def context(spec, summaries: Mapping[str, Path] | None = None, shards: Mapping[str, list[Path]] | None = None,
            references: Mapping[str, Path] | None = None, **extra_args) -> BandContext:
    """The :class:`BandContext` of synthetic files."""
    return BandContext(ResultsContext(spec, dict(summaries or {}), dict(references or {}), dict(shards or {})),
                       dict(extra_args))
