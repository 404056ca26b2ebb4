"""Named Python functions that paper configs refer to.

Paper YAML files are data; where they need code (how to build a simulation, an analytic bound,
a claim check, a table, a special panel) they name a function registered here by the paper's
package ``banditrepro.experiments.<paper>``. Registries are global so checks and plotters can be
shared between papers (the generic ones live in :mod:`banditrepro.report.checks`).
"""

from __future__ import annotations

from typing import Callable

SIMULATION_BUILDERS: dict[str, Callable] = {}
REFERENCE_CURVES: dict[str, Callable] = {}
CLAIM_CHECKS: dict[str, Callable] = {}
TABLE_BUILDERS: dict[str, Callable] = {}
PANEL_PLOTTERS: dict[str, Callable] = {}


def _register(registry: dict, kind: str, name: str) -> Callable:
    def decorate(fn: Callable) -> Callable:
        if name in registry and registry[name] is not fn:
            raise ValueError(f"{kind} {name!r} is registered twice ({registry[name].__module__} and {fn.__module__})")
        registry[name] = fn
        return fn

    return decorate


def simulation_builder(name: str) -> Callable:
    """``fn(experiment: ExperimentSpec, algorithm: str) -> Simulation``."""
    return _register(SIMULATION_BUILDERS, "simulation builder", name)


def reference_curve(name: str) -> Callable:
    """``fn(t: ndarray, experiment: ExperimentSpec, **args) -> ndarray`` (analytic curves, e.g. bounds)."""
    return _register(REFERENCE_CURVES, "reference curve", name)


def claim_check(name: str) -> Callable:
    """``fn(ctx: ResultsContext, **args) -> ClaimResult``."""
    return _register(CLAIM_CHECKS, "claim check", name)


def table_builder(name: str) -> Callable:
    """``fn(ctx: ResultsContext, **args) -> pandas.DataFrame``."""
    return _register(TABLE_BUILDERS, "table builder", name)


def panel_plotter(name: str) -> Callable:
    """``fn(ax, ctx: ResultsContext, figure: str, panel: dict, style: Style) -> None`` for non-curve panels."""
    return _register(PANEL_PLOTTERS, "panel plotter", name)


def lookup(registry: dict, kind: str, name: str) -> Callable:
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(sorted(registry)) or "none"
        raise KeyError(f"unknown {kind} {name!r} (registered: {known})") from None
