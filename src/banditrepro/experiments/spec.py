"""Paper configurations (``config/papers/<paper>.yaml``): discovery, loading, validation, scale resolution.

The papers are the files ``config/papers/*.yaml``; each names the package
``banditrepro.experiments.<paper>`` that registers its functions. Any value in a paper config may be
``{paper: x, smoke: y}``; it is replaced by the value of the active scale. Everything downstream
(shards, builders, provenance) sees resolved values only. An experiment's ``params`` and algorithm
entries are checked against the parameters its builder declares (:mod:`banditrepro.registry`) and
completed with the declared defaults.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import importlib
import importlib.metadata
import importlib.resources
import importlib.util
import math
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jsonschema
import numpy as np
import yaml

from .. import layout, numba_cache
from ..registry import BUILDER_PARAMETERS, SIMULATION_BUILDERS, ParameterError, closest_name
from ..simulation_output import checkpoint_grid

SCALES = ("paper", "smoke")
# PyYAML's C loader where it is built (the same documents, several times faster: every `snakemake` call loads
# each paper while it builds the DAG)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PAPER_SCHEMA = "paper.schema.yaml"  # shipped in this package (banditrepro.experiments)


class ConfigError(ValueError):
    """A paper or workflow configuration is invalid; the message names the offending key."""


def resolve_scale(value, scale: str):
    """Replace every ``{paper: x, smoke: y}`` mapping by the entry of ``scale``, recursively."""
    if isinstance(value, dict):
        if value and set(value) <= set(SCALES):
            if set(value) != set(SCALES):
                raise ConfigError(f"scale-dependent value {value!r} must give both 'paper' and 'smoke'")
            return resolve_scale(value[scale], scale)
        return {k: resolve_scale(v, scale) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_scale(v, scale) for v in value]
    return value


@dataclass
class ExperimentSpec:
    paper: str
    id: str
    builder: str
    horizon: int
    replications: int
    checkpoints: np.ndarray
    params: dict
    algorithms: dict[str, dict]
    data: list[str]
    requires: list[str]
    common_random_numbers: bool
    repo_root: Path
    config: dict = field(repr=False)  # resolved config subset (provenance)
    # replications per Snakemake job for this experiment; None = the workflow's global shard_size
    shard_size: int | None = None

    def shards(self, shard_size: int) -> list[tuple[int, int]]:
        """Replication blocks [start, stop) of at most ``shard_size`` replications."""
        n = math.ceil(self.replications / shard_size)
        return [(i * shard_size, min((i + 1) * shard_size, self.replications)) for i in range(n)]

    def job_shards(self, default_size: int) -> list[tuple[int, int]]:
        """The blocks run as jobs: the experiment's own ``shard_size`` if it sets one, else ``default_size``.

        Costly experiments set their own so that one job stays well under a minute of one core
        (the paper's docs/papers/<paper>.md says what a job costs); neither size changes a number, since every
        replication has its own random streams whatever block it runs in.
        """
        return self.shards(self.shard_size or default_size)

    def label(self, algorithm: str) -> str:
        return self.algorithms[algorithm].get("label", algorithm)


@dataclass
class PaperSpec:
    paper: str
    title: str
    scale: str
    experiments: dict[str, ExperimentSpec]
    figures: dict[str, dict]
    claims: list[dict]
    tables: dict[str, dict]
    resolutions: list[dict]
    config: dict = field(repr=False)
    # the parameter names of each claim check the paper's claims and premises call (registry.CLAIM_CHECKS), taken
    # when the paper is loaded: planning reads them (report.sequential) from a cached spec without the checks
    check_parameters: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def figure_experiments(self, figure: str) -> list[str]:
        seen: list[str] = []
        for panel in self.figures[figure]["panels"]:
            for exp in panel_experiments(panel):
                if exp not in seen:
                    seen.append(exp)
        return seen

    @staticmethod
    def panel_experiments(panel: dict) -> list[str]:
        return panel_experiments(panel)

    def figure_datasets(self, figure: str) -> list[str]:
        out: list[str] = []
        for exp in self.figure_experiments(figure):
            for d in self.experiments[exp].data:
                if d not in out:
                    out.append(d)
        return out

    def algorithm_order(self) -> list[str]:
        """Algorithm ids in first-appearance order (fixes one colour per algorithm per paper)."""
        order: list[str] = []
        for exp in self.experiments.values():
            for a in exp.algorithms:
                if a not in order:
                    order.append(a)
        return order


def panel_experiments(panel: dict) -> list[str]:
    if "experiment" in panel:
        return [panel["experiment"]]
    return list(panel.get("experiments", []))


def paper_config_path(repo_root: Path, paper: str) -> Path:
    return Path(repo_root) / "config" / "papers" / f"{paper}.yaml"


def read_paper_yaml(path: Path) -> dict:
    """A paper config's YAML document, parsed once per process and file state (its bytes): building the DAG
    reads each paper twice (its options, then the paper), and parsing is most of a paper's load time. The
    caller gets its own copy, so editing it changes nothing for the next one."""
    data = Path(path).read_bytes()
    return copy.deepcopy(_parse_yaml(data))


@cache
def _parse_yaml(data: bytes):
    return yaml.load(data.decode("utf-8"), Loader=YAML_LOADER)


@cache
def paper_schema() -> dict:
    """The JSON schema of a paper config (``banditrepro/experiments/paper.schema.yaml``)."""
    text = importlib.resources.files(__package__).joinpath(PAPER_SCHEMA).read_text(encoding="utf-8")
    return yaml.load(text, Loader=YAML_LOADER)


@cache
def _paper_validator():
    """The paper schema's validator, its schema checked once (jsonschema.validate checks it on every call)."""
    schema = paper_schema()
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


def check_paper_id(paper: str, path: Path | str) -> None:
    """Refuse a paper id the workflow cannot build: ``layout.PAPER_ID`` is the one rule (the {paper} wildcard of
    every rule), so ``auer_ucb1.yaml`` stops here with the rule instead of later with "Missing input files"."""
    if not re.fullmatch(layout.PAPER_ID, paper):
        raise ConfigError(f"{path}: invalid paper id {paper!r}: a paper id is lower-case letters and underscores "
                          f"only (pattern {layout.PAPER_ID}, banditrepro.layout.PAPER_ID), e.g. "
                          f"{re.sub(r'[^a-z_]', '', paper.lower()) or 'my_paper'!r}")


def discover_papers(repo_root: Path | str = ".") -> list[str]:
    """Every paper of the project: the stems of ``config/papers/*.yaml``, sorted."""
    return sorted(p.stem for p in (Path(repo_root) / "config" / "papers").glob("*.yaml"))


def select_papers(repo_root: Path | str = ".", selection: list[str] | None = None) -> list[str]:
    """The discovered papers, or the ``selection`` (config ``papers:``) checked against them, in its order."""
    found = discover_papers(repo_root)
    for paper in found if selection is None else [p for p in selection if p in found]:
        check_paper_id(paper, paper_config_path(Path(repo_root), paper))  # before any rule matches its paths
    if selection is None:
        return found
    for paper in selection:
        if paper not in found:
            guess = closest_name(paper, found)
            hint = f"did you mean {guess!r}? " if guess else ""
            raise ConfigError(f"config 'papers': unknown paper {paper!r} ({hint}papers are the files "
                              f"config/papers/*.yaml: {', '.join(found) or 'none'})")
    return list(selection)


def import_paper_package(paper: str) -> None:
    """Import ``banditrepro.experiments.<paper>`` and the modules that register the paper's builders, checks, ...:
    those its ``__init__`` imports, and those it names in ``REGISTERING_MODULES`` (a package whose other modules
    the workflow imports while it plans, e.g. a rule file's helpers, names them there instead of importing them,
    so that planning does not import numba and the kernels with them)."""
    module = importlib.import_module(f"banditrepro.experiments.{paper}")
    for name in getattr(module, "REGISTERING_MODULES", ()):
        importlib.import_module(f"{module.__name__}.{name}")


def _import_paper_package(paper: str, path: Path) -> None:
    module = f"banditrepro.experiments.{paper}"
    if importlib.util.find_spec(module) is None:
        raise ConfigError(f"{path}: no package {module} registers this paper "
                          f"(src/banditrepro/experiments/{paper}/__init__.py; see docs/ADDING_A_PAPER.md)")
    import_paper_package(paper)


def load_paper(paper: str, scale: str = "paper", repo_root: Path | str = ".") -> PaperSpec:
    """A paper's spec, with its registered functions imported: what a job, a test or a tool loads.

    The spec is :func:`read_paper`'s, from the cache of :func:`load_paper_cached` where nothing it is made of
    has changed (every job of a build loads its paper: reading and validating a config took 0.1-0.4 s of each)."""
    spec = load_paper_cached(paper, scale, repo_root)
    import_paper_package(paper)
    return spec


def read_paper(paper: str, scale: str = "paper", repo_root: Path | str = ".") -> PaperSpec:
    """Read, validate and scale-resolve a paper config, and import its registered functions."""
    repo_root = Path(repo_root).resolve()
    if scale not in SCALES:
        raise ConfigError(f"scale must be one of {SCALES}, got {scale!r}")
    path = paper_config_path(repo_root, paper)
    if not path.exists():
        raise ConfigError(f"no paper config {path}")
    check_paper_id(paper, path)
    raw = expand_claim_cells(read_paper_yaml(path), path)
    try:
        _paper_validator().validate(raw)
    except jsonschema.ValidationError as err:
        where = "/".join(str(p) for p in err.absolute_path) or "<top level>"
        raise ConfigError(f"{path}: invalid value at '{where}': {err.message}") from None
    if raw["paper"] != paper:
        raise ConfigError(f"{path}: 'paper' is {raw['paper']!r}, expected {paper!r}")
    _import_paper_package(paper, path)
    for other in SCALES:  # a typo in a value of the other scale is caught now too
        if other != scale:
            _check_experiments(resolve_scale(copy.deepcopy(raw["experiments"]), other), path)
    resolved = resolve_scale(copy.deepcopy(raw), scale)
    completed = _check_experiments(resolved["experiments"], path)
    experiments = {}
    for exp_id, exp in resolved["experiments"].items():
        horizon = int(exp["horizon"])
        params, algorithms = completed[exp_id]
        experiments[exp_id] = ExperimentSpec(
            paper=paper, id=exp_id, builder=exp["builder"], horizon=horizon,
            replications=int(exp["replications"]),
            checkpoints=checkpoint_grid(horizon, exp.get("checkpoints")),
            params=params, algorithms=algorithms, data=exp.get("data", []),
            requires=exp.get("requires", []), common_random_numbers=exp.get("common_random_numbers", True),
            repo_root=repo_root, config=exp, shard_size=exp.get("shard_size"))
    spec = PaperSpec(paper=paper, title=resolved["title"], scale=scale, experiments=experiments,
                     figures=resolved.get("figures", {}), claims=resolved.get("claims", []),
                     tables=resolved.get("tables", {}), resolutions=resolved.get("resolutions", []),
                     config=resolved)
    _check_references(spec, path)
    spec.check_parameters = _check_parameters(spec)
    return spec


def _check_parameters(spec: PaperSpec) -> dict[str, tuple[str, ...]]:
    """{check name: its parameter names} of every registered check the paper's claims and premises call."""
    import inspect

    from ..registry import CLAIM_CHECKS

    names = {c["check"]["fn"] for c in spec.claims}
    names |= {c["premise"]["fn"] for c in spec.claims if isinstance(c.get("premise"), dict) and "fn" in c["premise"]}
    return {name: tuple(inspect.signature(CLAIM_CHECKS[name]).parameters) for name in sorted(names)
            if name in CLAIM_CHECKS}


# ------------------------------------------------------------------------------------------ planning cache

PLANNED_SPECS = numba_cache.PLANNED  # where load_paper_cached's entries lie in the cache directory of the sources
_CACHE_FORMAT = 2


@cache
def _planning_libraries() -> tuple[str, ...]:
    return sys.version, np.__version__, yaml.__version__, importlib.metadata.version("jsonschema")


def planning_key(repo_root: Path | str, *parts) -> str:
    """A key of everything planning reads but the package's sources (the cache directory stands for those): the
    paper configs (config/papers/*, cells CSVs included), the paper schema, ``parts``, and the interpreter and
    the libraries that parse, validate and pickle them (PyYAML, jsonschema, NumPy)."""
    h = hashlib.sha256(repr((_CACHE_FORMAT, parts, _planning_libraries())).encode())
    h.update(importlib.resources.files(__package__).joinpath(PAPER_SCHEMA).read_bytes())
    for path in sorted((Path(repo_root) / "config" / "papers").iterdir()):
        if path.is_file():
            h.update(f"\0{path.name}\0{path.stat().st_size}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def load_paper_cached(paper: str, scale: str = "paper", repo_root: Path | str = ".") -> PaperSpec:
    """:func:`read_paper`'s spec, from a cache where nothing it is made of has changed: what the Snakefile plans with.

    Every ``snakemake`` call plans the whole DAG and so loads every paper, and read_paper validates the config
    against the schema (both scales) and imports the paper's package (numba and every kernel module): about
    2.5 of the 5.7 s of ``snakemake -n satisficing_ucl --config scale=smoke`` on 2 cores. A spec is a function of
    the paper configs, the schema, the scale and the package's sources (the registry that completes every
    experiment's parameters), so it is kept, pickled, in the numba cache directory of the current sources
    (banditrepro.numba_cache.planned: one directory per state of every source file) under a key of the rest
    (:func:`planning_key`): an edit of any of them reads afresh, and an invalid config is reported as read_paper
    reports it (nothing is cached then). A hit imports neither the paper's package nor numba; :func:`load_paper`
    imports them after it. What the key cannot see is code changed in memory (a test that patches a function the
    spec is built with calls read_paper)."""
    repo_root = Path(repo_root).resolve()
    if scale not in SCALES or not paper_config_path(repo_root, paper).exists():
        return read_paper(paper, scale, repo_root)  # its error
    spec = numba_cache.planned(f"{paper}-{scale}", planning_key(repo_root, paper, scale),
                               lambda: read_paper(paper, scale, repo_root))
    for experiment in spec.experiments.values():  # the key leaves out where the tree is: another copy wrote it
        experiment.repo_root = repo_root
    return spec


def expand_claim_cells(raw: dict, path: Path) -> dict:
    """Expand the table-cell claims of a paper config from its cells CSV (before validation).

    A paper whose tables hold many cells, each checked the same way against the paper's printed
    value, keeps them in one CSV (one row per cell) instead of one YAML claim each. The config then
    has a top-level ``claim_cells`` mapping::

        claim_cells:
          file: <paper>_cells.csv        # beside the config
          check_columns: [experiment, algorithm, paper, tolerance]   # become check args ('fn' always)
          templates: {<name>: "statement with {column} placeholders"}
          notes: {<name>: "sentence appended to the statement"}

    and ``claims`` items ``{cells: <block>}`` that are replaced, in place, by the claims of the CSV
    rows of that block, in file order. Each row gives ``id``, ``figure``, optionally ``kind``, a
    ``template`` name, an optional ``note`` name, and the check columns (empty = absent; values
    parsed as YAML scalars). Placeholders are filled with the CSV text, so a statement shows a number
    exactly as the CSV writes it. Every row must be used exactly once.
    """
    if not isinstance(raw, dict) or "claim_cells" not in raw:
        return raw
    raw = dict(raw)
    cells = raw.pop("claim_cells")
    where = f"{path}: claim_cells"
    for key in ("file", "check_columns", "templates"):
        if key not in cells:
            raise ConfigError(f"{where}: missing key {key!r}")
    unknown = set(cells) - {"file", "check_columns", "templates", "notes"}
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}")
    csv_path = path.parent / cells["file"]
    if not csv_path.exists():
        raise ConfigError(f"{where}: no file {csv_path}")
    with csv_path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    required = {"block", "id", "figure", "template", "fn", *cells["check_columns"]}
    missing = required - set(rows[0] if rows else {})
    if missing:
        raise ConfigError(f"{csv_path}: missing column(s) {sorted(missing)}")
    templates, notes = cells["templates"], cells.get("notes", {})
    by_block: dict[str, list[dict]] = {}
    for row in rows:
        by_block.setdefault(row["block"], []).append(row)

    def claim_of(row: dict) -> dict:
        if row["template"] not in templates:
            raise ConfigError(f"{csv_path}: row {row['id']}: unknown template {row['template']!r}")
        statement = templates[row["template"]].format(**row)
        if row.get("note"):
            if row["note"] not in notes:
                raise ConfigError(f"{csv_path}: row {row['id']}: unknown note {row['note']!r}")
            statement = f"{statement} {notes[row['note']]}"
        check = {"fn": row["fn"]}
        check.update({c: yaml.load(row[c], Loader=YAML_LOADER) for c in cells["check_columns"] if row[c] != ""})
        claim = {"id": row["id"], "figure": row["figure"], "statement": statement, "check": check}
        if row.get("kind"):
            claim["kind"] = row["kind"]
        if row.get("cause"):  # optional column: the declared cause that explains the cell when it fails
            claim["cause"] = row["cause"]
        return claim

    claims, used = [], set()
    for item in raw.get("claims", []):
        if isinstance(item, dict) and set(item) == {"cells"}:
            block = item["cells"]
            if block not in by_block:
                raise ConfigError(f"{path}: claims: unknown cells block {block!r} (blocks of {csv_path.name}: "
                                  f"{', '.join(by_block)})")
            if block in used:
                raise ConfigError(f"{path}: claims: cells block {block!r} used twice")
            used.add(block)
            claims.extend(claim_of(row) for row in by_block[block])
        else:
            claims.append(item)
    unused = [b for b in by_block if b not in used]
    if unused:
        raise ConfigError(f"{path}: claims: cells block(s) {unused} of {csv_path.name} are never used")
    raw["claims"] = claims
    return raw


def _check_experiments(experiments: dict, path: Path) -> dict[str, tuple[dict, dict]]:
    """Each experiment's builder, datasets, params and algorithm entries against what is declared.

    Returns ``{experiment: (params, {algorithm: entry})}`` with every declared default filled in.
    """
    from ..data.manifest import DATASET_NAMES

    out = {}
    for exp_id, exp in experiments.items():
        builder = exp["builder"]
        if builder not in SIMULATION_BUILDERS:
            guess = closest_name(builder, SIMULATION_BUILDERS)
            hint = f"did you mean {guess!r}?" if guess else f"registered: {', '.join(sorted(SIMULATION_BUILDERS))}"
            raise ConfigError(f"{path}: experiments/{exp_id}/builder: unknown simulation builder {builder!r} ({hint})")
        for name in exp.get("data", []):
            if name not in DATASET_NAMES:
                guess = closest_name(name, DATASET_NAMES)
                hint = f"did you mean {guess!r}?" if guess else f"declared: {', '.join(DATASET_NAMES)}"
                raise ConfigError(f"{path}: experiments/{exp_id}/data: unknown dataset {name!r} ({hint}; "
                                  "datasets are declared in src/banditrepro/data/manifest.yaml)")
        declared = BUILDER_PARAMETERS[builder]
        try:
            params = declared.complete_params(exp.get("params"), f"experiments/{exp_id}/params")
            algorithms = {algo_id: declared.complete_algorithm(entry, f"experiments/{exp_id}/algorithms/{algo_id}")
                          for algo_id, entry in exp["algorithms"].items()}
        except ParameterError as err:
            raise ConfigError(f"{path}: {err} (builder {builder})") from None
        out[exp_id] = (params, algorithms)
    return out


def _check_references(spec: PaperSpec, path: Path) -> None:
    """Cross-references that a JSON schema cannot express."""
    for fig_id, fig in spec.figures.items():
        for panel in fig["panels"]:
            for exp in panel_experiments(panel):
                if exp not in spec.experiments:
                    raise ConfigError(f"{path}: figures/{fig_id}/panel {panel['id']}: unknown experiment {exp!r}")
                for algo in panel.get("algorithms", []):
                    if algo not in spec.experiments[exp].algorithms:
                        raise ConfigError(f"{path}: figures/{fig_id}/panel {panel['id']}: unknown algorithm {algo!r}")
    for claim in spec.claims:
        if claim["figure"] not in spec.figures:
            raise ConfigError(f"{path}: claim {claim['id']}: unknown figure {claim['figure']!r}")
    ids = [c["id"] for c in spec.claims]
    if len(ids) != len(set(ids)):
        raise ConfigError(f"{path}: duplicate claim ids")
    _check_diagnosis(spec.config, path)


def _check_diagnosis(config: dict, path: Path) -> None:
    """Every claim's ``cause`` is declared under ``causes:``; every reading maps headline claims to variant
    claims and names existing claims for its printed cells."""
    causes = config.get("causes") or {}
    kinds = {c["id"]: c["kind"] for c in config.get("claims", [])}
    for claim in config.get("claims", []):
        cause = claim.get("cause")
        if cause is not None and cause not in causes:
            guess = closest_name(cause, causes)
            hint = f"did you mean {guess!r}?" if guess else f"declared: {', '.join(causes) or 'none'}"
            raise ConfigError(f"{path}: claim {claim['id']}: unknown cause {cause!r} ({hint}; causes are "
                              "declared under 'causes:')")
    seen = set()
    for reading in config.get("readings") or []:
        where = f"{path}: readings/{reading['id']}"
        if reading["id"] in seen:
            raise ConfigError(f"{where}: duplicate reading id")
        seen.add(reading["id"])
        for headline, variant in reading["claims"].items():
            for cid, kind in ((headline, "headline"), (variant, "variant")):
                if cid not in kinds:
                    raise ConfigError(f"{where}: unknown claim {cid!r}")
                if kinds[cid] != kind:
                    raise ConfigError(f"{where}: claim {cid!r} is {kinds[cid]}, expected a {kind} claim "
                                      "(a reading maps headline claims to the variant claims measuring them)")
        for role, cid in (reading.get("cells") or {}).items():
            if cid not in kinds:
                raise ConfigError(f"{where}: cells/{role}: unknown claim {cid!r}")

