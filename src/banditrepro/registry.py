"""Named Python functions that paper configs refer to, and the parameters each simulation builder takes.

Paper YAML files are data; where they need code (how to build a simulation, an analytic bound,
a claim check, a table, a special panel) they name a function registered here by the paper's
package ``banditrepro.experiments.<paper>``. Registries are global so checks and plotters can be
shared between papers (the generic ones live in :mod:`banditrepro.report.checks`).

A simulation builder also declares what its experiment's ``params:`` and each of its algorithm entries
may hold: names, types, defaults and allowed values (:class:`Param`). ``load_paper`` checks every
experiment against its builder's declaration, so a misspelled key stops ``snakemake -n`` naming the key
and the closest valid name, and builders read completed mappings (``params["key"]``): the defaults live
in the declaration, never in ``.get(key, default)`` calls scattered through builder code.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


REQUIRED = _Marker("REQUIRED")  # the key must be given
OMITTED = _Marker("OMITTED")  # the key may be left out and then stays absent (code tests ``key in mapping``)


class ParameterError(ValueError):
    """A parameter mapping does not match its declaration; ``where`` is the path of the offending key."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


def closest_name(key: str, names) -> str | None:
    """The valid name ``key`` most likely misspells (same name up to case first, then difflib), or None."""
    names = list(names)
    for name in names:
        if name.lower() == str(key).lower():
            return name
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_key_message(key: str, names) -> str:
    """``unknown key 'treshold' (did you mean 'threshold'?)``, or the valid names when none is close."""
    guess = closest_name(key, names)
    hint = f"did you mean {guess!r}?" if guess else f"valid: {', '.join(sorted(names)) or 'none'}"
    return f"unknown key {key!r} ({hint})"


_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "a mapping"}


def _is_type(value, kind: type) -> bool:
    if kind is float:  # YAML writes 1 for 1.0; a boolean is never a number
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


@dataclass(frozen=True)
class Param:
    """One declared key: accepted types, default (or REQUIRED / OMITTED), allowed values, nested keys.

    ``types`` is a type or a tuple of types (``float`` accepts integers). ``default=None`` lets the key be
    left out and read as None (the builder then tells "not given" apart). ``fields`` declares the keys of a
    mapping value, ``items`` each element of a list value; both are checked (and completed) recursively.
    """

    types: type | tuple[type, ...]
    default: Any = REQUIRED
    choices: tuple | None = None
    fields: Mapping[str, Param] | None = None
    items: Param | None = None
    doc: str = ""

    def __post_init__(self):
        if not isinstance(self.types, tuple):
            object.__setattr__(self, "types", (self.types,))
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    def check(self, value, where: str):
        """The value with nested defaults filled in; ParameterError if it does not match."""
        if value is None and self.default is None:
            return None
        if not any(_is_type(value, kind) for kind in self.types):
            wanted = " or ".join(_TYPE_NAMES.get(kind, kind.__name__) for kind in self.types)
            raise ParameterError(where, f"{value!r} is not {wanted}")
        if self.choices is not None and isinstance(value, (str, bool, int, float)) and value not in self.choices:
            raise ParameterError(where, f"{value!r} is not one of {', '.join(map(repr, self.choices))}")
        if isinstance(value, dict) and self.fields is not None:
            return complete(value, self.fields, where)
        if isinstance(value, list) and self.items is not None:
            return [self.items.check(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return value


def complete(values: Mapping | None, declared: Mapping[str, Param], where: str = "") -> dict:
    """Check ``values`` against ``declared`` and return a new dict with every default filled in.

    Unknown keys, missing required keys, wrong types and values outside ``choices`` raise
    :class:`ParameterError` naming the key's path below ``where``. Keys declared ``OMITTED`` that are
    not given stay absent. Idempotent: completing a completed mapping returns an equal one.
    """
    values = {} if values is None else values
    if not isinstance(values, Mapping):
        raise ParameterError(where, f"{values!r} is not a mapping")
    unknown = [key for key in values if key not in declared]
    if unknown:  # all of them on one line: fixing one typo should not reveal the next
        raise ParameterError(where, "; ".join(unknown_key_message(key, declared) for key in unknown))
    out = {}
    for key, param in declared.items():
        path = f"{where}/{key}" if where else str(key)
        if key in values:
            out[key] = param.check(values[key], path)
        elif param.default is REQUIRED:
            raise ParameterError(where, f"missing required key {key!r}")
        elif param.default is not OMITTED:
            out[key] = _copy_default(param.default)
    return out


def _copy_default(value):
    if isinstance(value, dict):
        return {k: _copy_default(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_default(v) for v in value]
    return value


# Every algorithm entry may carry a legend label (``ExperimentSpec.label``), whatever its builder.
LABEL = Param(str, default=OMITTED, doc="legend label (default: the algorithm id)")


def complete_entry(values: Mapping | None, declared: Mapping[str, Param], where: str = "") -> dict:
    """:func:`complete` for an algorithm entry: ``label`` is allowed besides the ``declared`` keys."""
    return complete(values, {"label": LABEL, **declared}, where)


@dataclass(frozen=True)
class BuilderParameters:
    """What a simulation builder reads: its experiment's ``params:`` and each ``algorithms:`` entry."""

    params: Mapping[str, Param] = field(default_factory=dict)
    algorithm: Mapping[str, Param] = field(default_factory=dict)

    def __post_init__(self):
        if "label" in self.algorithm:
            raise ValueError("'label' is declared for every algorithm entry; do not redeclare it")
        object.__setattr__(self, "algorithm", {"label": LABEL, **self.algorithm})

    def complete_params(self, values: Mapping | None, where: str = "params") -> dict:
        return complete(values, self.params, where)

    def complete_algorithm(self, values: Mapping | None, where: str = "") -> dict:
        return complete(values, self.algorithm, where)


SIMULATION_BUILDERS: dict[str, Callable] = {}
BUILDER_PARAMETERS: dict[str, BuilderParameters] = {}
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


def simulation_builder(name: str, *, params: Mapping[str, Param], algorithm: Mapping[str, Param]) -> Callable:
    """``fn(experiment: ExperimentSpec, algorithm: str) -> Simulation``.

    ``params`` declares the keys of the experiment's ``params:``, ``algorithm`` those of each algorithm
    entry (``label`` is always allowed). The function sees both completed: every default filled in.
    """
    declaration = BuilderParameters(params, algorithm)

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def build(experiment, algorithm: str):
            # load_paper has completed both already; an ExperimentSpec made by hand (tests) is completed here
            where = f"experiments/{experiment.id}"
            entry = declaration.complete_algorithm(experiment.algorithms[algorithm], f"{where}/algorithms/{algorithm}")
            experiment = dataclasses.replace(
                experiment, params=declaration.complete_params(experiment.params, f"{where}/params"),
                algorithms={**experiment.algorithms, algorithm: entry})
            return fn(experiment, algorithm)

        build.parameters = declaration
        _register(SIMULATION_BUILDERS, "simulation builder", name)(build)
        BUILDER_PARAMETERS[name] = declaration
        return build

    return decorate


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
        guess = closest_name(name, registry)
        hint = f"; did you mean {guess!r}?" if guess else ""
        raise KeyError(f"unknown {kind} {name!r}{hint} (registered: {known})") from None
