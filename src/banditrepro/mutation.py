"""Mutation testing of the claims: planted bugs (mutants), what each one can reach, and the scratch copies that
run them.

A paper declares its mutants in its config (``mutants:``, experiments/paper.schema.yaml): each one a plausible
implementation error written as a one-line substitution ``old`` -> ``new`` in one file of ``src/banditrepro``
or of ``workflow/scripts`` (``occurrence: n`` picks the n-th match when ``old`` occurs more than once). As
mutation-testing tools do (mutmut), the substitution is applied to a scratch copy of the project
(:func:`write_scratch_tree`, ``results/mutants/<mutant>/package``: the package, the workflow scripts, links to
the configs and the data), never to the project itself, so production code carries no mutant switch. Only
the mutant rules (workflow/rules/mutants.smk) run that copy: their jobs run ``python -m banditrepro.mutation
job`` with the copy's package first on ``PYTHONPATH`` (:func:`run_job`), which runs the copy's workflow script
(simulation, data preprocessing, summary, sequential look, claims, readings, table). The copy's numba kernels
are compiled from its own sources into its own cache directory (banditrepro.numba_cache keys the directory by
the sources, which differ by the planted line).

What a mutant reruns is derived from where its patch lies (:class:`PaperCode`, :class:`Reach`), never
declared: a patch inside code that only policies run (a unit of ``algorithms/`` owned by policies,
banditrepro.codegraph) is ``policy`` and reruns the runs of the algorithms that run one of those policies
(:func:`mutated_algorithms`: the algorithm's id, or its ``policy``, ``variant`` or ``oracle`` value); the main
build's shards give every other algorithm's runs (the same keys give the same numbers). A patch anywhere else
is ``shared`` and reruns the whole paper: every algorithm of every experiment of the rebuilt figures, and the
preprocessing of their data sets when the patched module is one the preprocessing job imports. The mutant's
``algorithm`` is only the label of mutants.csv.
"""

from __future__ import annotations

import argparse
import json
import runpy
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .codegraph import CodeGraph, CodeGraphError

PACKAGE = "banditrepro"
#: the source tree of the package this module belongs to (the one a scratch copy is made from)
PACKAGE_DIR = Path(__file__).resolve().parent
#: the prefix of a patched workflow script (a patch's file is otherwise relative to src/banditrepro)
SCRIPTS = "workflow/scripts/"
#: the kinds of claim whose verdicts a mutant must move (headline: the paper's statements; sanity: the guards)
MUTANT_CLAIM_KINDS = ("headline", "sanity")
#: where a patch lies: code only policies run, or code every run of the paper may run
POLICY, SHARED = "policy", "shared"
#: the kinds of sanity claim (guard): the algorithm's own theory, or a differential reference implementation
THEORY, REFERENCE = "theory", "reference"
#: the workflow scripts the mutant jobs run (a patch in another script would plant nothing they rebuild)
MUTANT_SCRIPTS = ("simulate_shard.py", "mutant_simulate_shard.py", "data_preprocess.py", "summarize_figure.py",
                  "sequential_look.py", "claims.py", "claims_merge.py", "readings.py", "table.py")


class MutantError(ValueError):
    """A mutant that cannot be planted: its file is missing, its ``old`` text is not found where it says, or
    it lies where no job of its paper that the mutants rebuild can run it."""


@dataclass(frozen=True)
class Mutant:
    id: str
    paper: str
    algorithm: str  # a label (mutants.csv): what is rerun is derived from the patch (PaperCode.reach)
    description: str
    file: str  # relative to src/banditrepro, or workflow/scripts/<script>.py
    old: str
    new: str
    explanation: str = ""
    occurrence: int | None = None  # which match of ``old`` (1-based) when it occurs more than once

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def patch_fields(self) -> dict:
        """What the scratch copy depends on (so a reworded description or explanation reruns nothing)."""
        return {"id": self.id, "paper": self.paper, "file": self.file, "old": self.old, "new": self.new,
                "occurrence": self.occurrence}

    @classmethod
    def from_patch(cls, fields: dict) -> Mutant:
        return cls(algorithm="", description="", **fields)

    @property
    def in_scripts(self) -> bool:
        return self.file.startswith(SCRIPTS)

    def source(self, package_dir: Path | str = PACKAGE_DIR) -> Path:
        """The patched file in the tree whose package is ``package_dir``."""
        package_dir = Path(package_dir)
        return package_dir.parents[1] / self.file if self.in_scripts else package_dir / self.file

    def where_text(self) -> str:
        return f"mutant {self.id} ({self.paper}), {self.file if self.in_scripts else f'{PACKAGE}/{self.file}'}"


def mutants_of(spec) -> list[Mutant]:
    """The mutants a paper config declares (``mutants:``), in config order."""
    return [Mutant(id=m["id"], paper=spec.paper, algorithm=m["algorithm"], description=m["description"].strip(),
                   file=m["patch"]["file"], old=m["patch"]["old"], new=m["patch"]["new"],
                   explanation=str(m.get("explanation", "")).strip(), occurrence=m["patch"].get("occurrence"))
            for m in spec.config.get("mutants", [])]


def match_offset(text: str, old: str, occurrence: int | None = None, where: str = "") -> int:
    """Where ``old`` is replaced in ``text``: its only occurrence, or its ``occurrence``-th (1-based) when the
    mutant says which. Without ``occurrence``, 0 or 2+ matches would plant no bug or an unintended one."""
    if not old:
        raise MutantError(f"{where}: the old text is empty")
    offsets, start = [], text.find(old)
    while start >= 0:
        offsets.append(start)
        start = text.find(old, start + 1)
    if occurrence is None:
        if len(offsets) != 1:
            raise MutantError(f"{where}: the old text {old!r} occurs {len(offsets)} times, expected exactly once "
                              "(say which with `occurrence: <n>`)")
        return offsets[0]
    if not 1 <= occurrence <= len(offsets):
        raise MutantError(f"{where}: occurrence {occurrence} of the old text {old!r}, which occurs "
                          f"{len(offsets)} times")
    return offsets[occurrence - 1]


def apply_patch(text: str, old: str, new: str, where: str = "", occurrence: int | None = None) -> str:
    """``text`` with one occurrence of ``old`` (see :func:`match_offset`) replaced by ``new``. A one-line
    substitution: ``old`` and ``new`` hold no line break and differ."""
    if "\n" in old or "\n" in new:
        raise MutantError(f"{where}: a mutant substitutes within one line; old/new must hold no line break")
    if old == new:
        raise MutantError(f"{where}: old and new text are the same (the mutant would change nothing)")
    at = match_offset(text, old, occurrence, where)
    return text[:at] + new + text[at + len(old):]


def _source_text(mutant: Mutant, package_dir: Path | str) -> str:
    path = mutant.source(package_dir)
    if not path.is_file():
        raise MutantError(f"{mutant.where_text()}: no such file")
    return path.read_text(encoding="utf-8")


def patched_source(mutant: Mutant, package_dir: Path | str = PACKAGE_DIR) -> str:
    """The mutated text of the mutant's file (the file is read, never written)."""
    return apply_patch(_source_text(mutant, package_dir), mutant.old, mutant.new, mutant.where_text(),
                       mutant.occurrence)


def patch_line(mutant: Mutant, package_dir: Path | str = PACKAGE_DIR) -> int:
    """The (1-based) line the patch changes."""
    text = _source_text(mutant, package_dir)
    return text.count("\n", 0, match_offset(text, mutant.old, mutant.occurrence, mutant.where_text())) + 1


# ------------------------------------------------------------------------------------ what a patch reaches


@dataclass(frozen=True)
class Reach:
    """Where a patch lies (``policy`` or ``shared``), the policies owning it (policy patches) and the unit that
    encloses it (``algorithms/fairness.py:record_pull``; a script, or ``<module>`` outside any unit)."""

    where: str
    policies: frozenset[str]
    unit: str


@lru_cache(maxsize=8)
def package_graph(package_dir: str) -> CodeGraph:
    """The code graph of every module of the package and of the workflow scripts beside it."""
    root = Path(package_dir)
    modules = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*.py"))]
    scripts = {f"{SCRIPTS}{p.name}": p for p in sorted((root.parents[1] / SCRIPTS).glob("*.py"))}
    return CodeGraph(root, modules, scripts)


class PaperCode:
    """The package as one paper's jobs see it: the modules they may import (banditrepro.sources) and which
    units of them only policies run (banditrepro.codegraph)."""

    def __init__(self, paper: str, package_dir: Path | str = PACKAGE_DIR):
        from .sources import paper_modules

        self.paper = paper
        self.package_dir = Path(package_dir).resolve()
        self.modules = set(paper_modules(paper, self.package_dir))
        self.graph = package_graph(str(self.package_dir))
        try:
            self.owners = self.graph.policy_owners(self.modules)
        except CodeGraphError as err:
            raise MutantError(str(err)) from None

    def reach(self, mutant: Mutant) -> Reach:
        """What the mutant's patch can reach; a patch no job of the paper that the mutants rebuild runs is an
        error (it would plant nothing)."""
        line = patch_line(mutant, self.package_dir)
        if mutant.in_scripts:
            script = mutant.file[len(SCRIPTS):]
            if script not in MUTANT_SCRIPTS:
                raise MutantError(f"{mutant.where_text()}: no mutant job runs this script (they run "
                                  f"{', '.join(MUTANT_SCRIPTS)})")
            return Reach(SHARED, frozenset(), mutant.file)
        if mutant.file not in self.modules:
            raise MutantError(f"{mutant.where_text()}: no job of {self.paper} imports this module, so the mutant "
                              "would plant nothing")
        unit = self.graph.unit_at(mutant.file, line)
        if unit is None:
            return Reach(SHARED, frozenset(), f"{mutant.file}:<module>")
        owners = self.owners.get(unit)
        return Reach(POLICY, owners, str(unit)) if owners else Reach(SHARED, frozenset(), str(unit))

    def preprocessing_reached(self, mutant: Mutant, reach: Reach, dataset: str) -> bool:
        """Whether a shared patch can change the preprocessing of ``dataset``: its module is one the
        preprocessing job imports (its script's imports and the manifest's preprocessor, transitively)."""
        from .data.manifest import dataset_spec
        from .sources import import_closure

        if reach.where == POLICY:
            return False
        script = f"{SCRIPTS}data_preprocess.py"
        if mutant.in_scripts:
            return mutant.file == script
        seeds = set(self.graph.imports_of(script))
        preprocess = dataset_spec(dataset).preprocess
        if preprocess:
            seeds.add(f"data/{preprocess.split(':')[0].replace('.', '/')}.py")
        return mutant.file in import_closure(sorted(seeds), self.package_dir)

    def guard_kind(self, check_fn) -> str:
        """``reference`` when a sanity claim's check function reaches a reference implementation (a unit of a
        module named reference.py: experiments/reference.py's differential comparison, a paper's
        reference.py), else ``theory`` (what the algorithm's own theory or construction must give)."""
        module = check_fn.__module__.split(".")[1:]
        rel = "/".join(module) + ".py"
        unit = self.graph.unit_at(rel, check_fn.__code__.co_firstlineno)
        if unit is None:
            raise MutantError(f"check {check_fn.__qualname__}: not found in {PACKAGE}/{rel}")
        reached = self.graph.reachable(unit)
        return REFERENCE if any(u.module.rsplit("/", 1)[-1] == "reference.py" for u in reached) else THEORY


@lru_cache(maxsize=32)
def _paper_code(paper: str, package_dir: str) -> PaperCode:
    return PaperCode(paper, package_dir)


def paper_code(paper: str, package_dir: Path | str = PACKAGE_DIR) -> PaperCode:
    """The PaperCode of a paper, built once per process (the sources do not change under a running build)."""
    return _paper_code(paper, str(Path(package_dir).resolve()))


def names_run(entry_id: str, entry: Mapping) -> set[str]:
    """The policy names an experiment's algorithm entry runs: its id and every string parameter value (its
    ``policy``, ``variant``, ``oracle``, ...; not its ``label``, which dispatches nothing)."""
    return {entry_id, *(v for k, v in entry.items() if isinstance(v, str) and k != "label")}


def mutated_algorithms(spec, reach: Reach, experiment: str) -> list[str]:
    """The algorithms of ``experiment`` a mutant reruns, in the experiment's order: every one for a shared
    patch; for a policy patch those that run one of its policies (the others' runs come from the main
    build's shard: each algorithm's runs depend only on its own keys, experiments/runner.py)."""
    algorithms = spec.experiments[experiment].config["algorithms"]
    if reach.where == SHARED:
        return list(algorithms)
    return [a for a, entry in algorithms.items() if names_run(a, entry) & reach.policies]


def mutated_experiments(spec, reach: Reach, experiments: Iterable[str]) -> list[str]:
    """The experiments of ``experiments`` the mutant reruns (some algorithm of theirs), in order."""
    return [e for e in experiments if mutated_algorithms(spec, reach, e)]


def mutant_figures(spec) -> list[str]:
    """Figures with a headline or sanity claim, in order of their first claim: what a mutant rebuilds."""
    out: list[str] = []
    for claim in spec.claims:
        if claim["kind"] in MUTANT_CLAIM_KINDS and claim["figure"] not in out:
            out.append(claim["figure"])
    return out


def figures_experiments(spec, figures: Iterable[str]) -> list[str]:
    """The experiments the claims of ``figures`` read, in order (report.claims.claim_dependencies)."""
    from .report.claim_inputs import claim_dependencies

    out: list[str] = []
    for fig in figures:
        out += [e for e in claim_dependencies(spec, fig)[1] if e not in out]
    return out


def check_mutants(spec, package_dir: Path | str = PACKAGE_DIR) -> list[tuple[Mutant, Reach]]:
    """A paper's mutants with what each reaches, each checked: a unique id, a patch that applies, a file some
    job of the paper runs, and for a policy patch an algorithm of the rebuilt figures that runs it (else the
    mutant would rebuild nothing)."""
    mutants = mutants_of(spec)
    seen: set[str] = set()
    code = paper_code(spec.paper, package_dir) if mutants else None
    experiments = figures_experiments(spec, mutant_figures(spec))
    out = []
    for m in mutants:
        if m.id in seen:
            raise MutantError(f"{spec.paper}: mutant id {m.id!r} is declared twice")
        seen.add(m.id)
        patched_source(m, package_dir)
        reach = code.reach(m)
        if not mutated_experiments(spec, reach, experiments):
            raise MutantError(f"{m.where_text()}: the patch lies in {reach.unit}, which only policies "
                              f"{sorted(reach.policies)} run, and no experiment of a headline or sanity figure runs one")
        out.append((m, reach))
    return out


def guard_kinds(spec, package_dir: Path | str = PACKAGE_DIR) -> dict[str, str]:
    """{claim id: theory | reference} of the paper's sanity claims (PaperCode.guard_kind of each check)."""
    from .registry import CLAIM_CHECKS, lookup

    code = paper_code(spec.paper, package_dir)
    return {c["id"]: code.guard_kind(lookup(CLAIM_CHECKS, "claim check", c["check"]["fn"]))
            for c in spec.claims if c["kind"] == "sanity"}


# ------------------------------------------------------------------------------------------ scratch trees


def write_scratch_tree(mutant: Mutant, dest: Path | str, repo_root: Path | str, links: Mapping[str, str] = {}
                       ) -> Path:
    """A scratch copy of the project in ``dest`` (replaced if it exists) with the mutant planted:
    ``src/banditrepro`` and ``workflow/scripts`` copied (without byte-code caches), ``config`` and ``data``
    linked to the project's, and ``links`` ({path in the copy: target}) in place of what the project has there
    (a data set preprocessed by the mutant, a paper's precomputed inputs). Returns the copy's package folder."""
    dest, repo_root = Path(dest), Path(repo_root).resolve()
    mutated = patched_source(mutant, repo_root / "src" / PACKAGE)
    targets = {"config": repo_root / "config", "data": repo_root / "data", **{k: Path(v) for k, v in links.items()}}
    for rel in targets:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise MutantError(f"mutant {mutant.id}: {rel} is not a path inside the project (a link of its copy)")
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    package = dest / "src" / PACKAGE
    shutil.copytree(repo_root / "src" / PACKAGE, package, ignore=ignore)
    shutil.copytree(repo_root / SCRIPTS, dest / SCRIPTS, ignore=ignore)
    mutant.source(package).write_text(mutated, encoding="utf-8")
    for rel, target in sorted(targets.items()):
        _link(dest, repo_root, Path(rel), Path(target).resolve())
    (dest / "mutant.json").write_text(json.dumps(mutant.patch_fields(), indent=1, sort_keys=True) + "\n",
                                      encoding="utf-8")
    return package


def _link(dest: Path, repo_root: Path, rel: Path, target: Path) -> None:
    """Link ``dest/rel`` to ``target``. A link already on the way (``data`` when ``data/processed/x`` is
    replaced) becomes a folder of links to the project's entries, so only ``rel`` differs; a folder on the way
    that nothing linked is created empty (never a link to the project's results/, which holds the copy)."""
    here = dest
    for i, part in enumerate(rel.parts[:-1]):
        here = here / part
        if here.is_symlink():  # linked whole so far: now a folder of links to what the project has there
            here.unlink()
            here.mkdir()
            original = repo_root.joinpath(*rel.parts[: i + 1])
            for entry in sorted(original.iterdir()) if original.is_dir() else ():
                (here / entry.name).symlink_to(entry)
        here.mkdir(parents=True, exist_ok=True)
    path = dest / rel
    if path.is_symlink() or path.exists():
        path.unlink()
    path.symlink_to(target, target_is_directory=True)


# ------------------------------------------------------------------------------------------- mutant jobs


class _Named(list):
    """A Snakemake-like named list (``x[0]`` and ``x.name``) built from a dict or a list."""

    def __init__(self, value):
        if isinstance(value, dict):
            super().__init__(v for v in value.values())
            for k, v in value.items():
                setattr(self, k, v)
        else:
            super().__init__(value)
        self._names = list(value) if isinstance(value, dict) else []

    def get(self, name, default=None):
        """``x.get(name, default)``, as Snakemake's named lists offer (workflow/scripts/claims.py reads its
        optional ``sequential`` input so)."""
        return getattr(self, name) if name in self._names else default

    def keys(self):
        return list(self._names)


class JobContext:
    """What a workflow script reads of its ``snakemake`` object, rebuilt from a job description."""

    def __init__(self, job: dict, script: Path):
        self.wildcards = _Named(job.get("wildcards", {}))
        self.params = _Named(job.get("params", {}))
        self.input = _Named(job.get("input", {}))
        self.output = _Named(job.get("output", {}))
        self.log = _Named(job.get("log", []))
        self.scriptdir = str(script.parent)


def run_job(tree: Path | str, job: dict) -> None:
    """Run the scratch copy's workflow script ``job["script"]`` (a name in workflow/scripts) as its rule
    would, under the copy in ``tree``: the copy's package must be the ``banditrepro`` this process imported
    (the job's shell put ``tree/src`` first on PYTHONPATH), else the job stops before computing anything. The
    script sees ``tree`` as the repository root (its configs and data are links)."""
    tree = Path(tree).resolve()
    copy = tree / "src" / PACKAGE
    if copy != PACKAGE_DIR:
        raise MutantError(f"a mutant job must run the scratch copy {copy}, but imported {PACKAGE} from {PACKAGE_DIR} "
                          "(put the copy's src/ folder first on PYTHONPATH)")
    script = tree / SCRIPTS / job["script"]
    if str(script.parent) not in sys.path:  # as Snakemake runs a local script: its folder importable
        sys.path.append(str(script.parent))
    runpy.run_path(str(script), init_globals={"snakemake": JobContext(job, script)}, run_name="__main__")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m banditrepro.mutation", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    job = sub.add_parser("job", help="run one workflow script under a mutant's scratch copy of the project")
    job.add_argument("tree", help="the scratch copy (its src/ folder first on PYTHONPATH)")
    job.add_argument("job", help="the job as JSON: script, wildcards, params, input, output, log")
    args = parser.parse_args(argv)
    job = json.loads(args.job)
    status = _hand_off(Path(args.tree).resolve(), job)
    if status is not None:
        sys.exit(status)
    run_job(args.tree, job)


def _hand_off(tree: Path, job: dict) -> int | None:
    """The job's exit status where the build's worker ran it (workflow/scripts/worker_handoff.py, the copy's:
    the worker forks, forgets the package it imported and imports this copy), else None: run it here."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("worker_handoff", tree / SCRIPTS / "worker_handoff.py")
    if spec is None or spec.loader is None:
        return None
    handoff = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(handoff)  # its own hand_off() finds no Snakemake job here and does nothing
    return handoff.hand_off_mutant_job(str(tree), str(tree / SCRIPTS / job["script"]), job)


if __name__ == "__main__":
    main(sys.argv[1:])
