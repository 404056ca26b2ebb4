"""A paper's own switches: the ``options:`` of ``config/papers/<paper>.yaml``.

A paper declares each option with its allowed values (each with what it does) and a default; the option
is a workflow config key (``--config <name>=<value>`` or a line in config/config.yaml) that only the
paper's rule file (``workflow/rules/papers/<paper>.smk``) reads. The Snakefile checks every config key
that some paper declares here (all papers, selected or not: a key stays valid while another paper is
built) and the rest against the workflow schema, so no generic file names a paper's option.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jsonschema

from .. import numba_cache
from .spec import ConfigError, discover_papers, paper_config_path, paper_schema, planning_key, read_paper_yaml

# YAML 1.1 (Snakemake's --config and configfile) reads these words as booleans
_YAML_BOOL_WORDS = {False: ("off", "no", "false", "n"), True: ("on", "yes", "true", "y")}


@dataclass(frozen=True)
class PaperOption:
    paper: str
    name: str
    description: str
    default: str
    values: dict  # {value: {"description": ..., optionally "measured_time": {experiment: why}}}

    def resolve(self, given) -> str:
        """The value ``given`` in the config (None: the default), checked against the declared values."""
        if given is None:
            return self.default
        if isinstance(given, bool):  # an unquoted off/yes/... in YAML or on the command line
            spelled = [w for w in _YAML_BOOL_WORDS[given] if w in self.values]
            given = spelled[0] if spelled else str(given).lower()
        value = str(given)
        if value not in self.values:
            raise ConfigError(f"config {self.name}: {value!r} is not one of {', '.join(self.values)} (an option of "
                              f"paper {self.paper}, config/papers/{self.paper}.yaml: {self.description})")
        return value

    def measured_time(self, value: str) -> dict[str, str]:
        """{experiment: why} of the experiments that replay this machine's wall-clock times under ``value``."""
        return dict(self.values[value].get("measured_time", {}))


def _read_options(path: Path, paper: str) -> list[PaperOption]:
    declared = (read_paper_yaml(path) or {}).get("options") or {}
    schema = paper_schema()
    validator = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], **schema["properties"]["options"]})
    error = jsonschema.exceptions.best_match(validator.iter_errors(declared))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        raise ConfigError(f"{path}: invalid value at 'options/{where}': {error.message}")
    out = []
    for name, entry in declared.items():
        if entry["default"] not in entry["values"]:
            raise ConfigError(f"{path}: options/{name}: default {entry['default']!r} is not one of its values "
                              f"({', '.join(entry['values'])})")
        out.append(PaperOption(paper, name, " ".join(entry["description"].split()), entry["default"],
                               entry["values"]))
    return out


def declared_options(repo_root: Path | str) -> dict[str, PaperOption]:
    """{config key: option} declared by every paper (config/papers/*.yaml); two papers may not share a key.
    Kept in the planning cache (banditrepro.numba_cache.planned) while no paper config changed: every
    ``snakemake`` call asks, and reading them means parsing every config (about 0.2 s)."""
    return numba_cache.planned("options", planning_key(repo_root, "options"), lambda: _declared_options(repo_root))


def _declared_options(repo_root: Path | str) -> dict[str, PaperOption]:
    found: dict[str, PaperOption] = {}
    for paper in discover_papers(repo_root):
        for option in _read_options(paper_config_path(Path(repo_root), paper), paper):
            if option.name in found:
                raise ConfigError(f"config option {option.name!r} is declared by both {found[option.name].paper} "
                                  f"and {paper}")
            found[option.name] = option
    return found


def resolve_options(config: dict, declared: dict[str, PaperOption]) -> dict[str, str]:
    """{config key: checked value} of every declared option (its default where the config does not set it)."""
    return {name: option.resolve(config.get(name)) for name, option in declared.items()}


def measured_time_experiments(declared: dict[str, PaperOption], paper: str, values: dict) -> dict[str, str]:
    """{experiment: why} of ``paper``'s experiments replaying this machine's wall-clock times under the option
    ``values`` in force (resolve_options)."""
    out: dict[str, str] = {}
    for option in declared.values():
        if option.paper == paper:
            out.update(option.measured_time(values[option.name]))
    return out
