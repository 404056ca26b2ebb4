"""What a paper's claims read: the figures and experiments behind each figure's claims, their premises, a
table's inputs. Pure functions of the spec (no pandas, no registry), for the Snakefile's input functions, which
plan every claims job (report.claims evaluates them; it re-exports these)."""

from __future__ import annotations

from collections.abc import Iterable


def claim_figures(spec) -> list[str]:
    """Figures that have claims, in order of their first claim."""
    out: list[str] = []
    for claim in spec.claims:
        if claim["figure"] not in out:
            out.append(claim["figure"])
    return out


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def result_dependencies(spec, figures: Iterable[str], arguments) -> tuple[list[str], list[str]]:
    """(figures, experiments) whose results a check or table may read: the given ``figures``, every
    figure or experiment named anywhere in ``arguments`` (check or table args), and the experiments of
    those figures. A name that is also something else (an algorithm id) only adds an input; it never
    hides one."""
    figs, experiments = list(dict.fromkeys(figures)), []
    for name in _strings(arguments):
        if name in spec.figures and name not in figs:
            figs.append(name)
        elif name in spec.experiments and name not in experiments:
            experiments.append(name)
    for fig in figs:
        for exp in spec.figure_experiments(fig):
            if exp not in experiments:
                experiments.append(exp)
    return figs, experiments


class PremiseError(ValueError):
    """A ``premise:`` that names an unknown claim, or premises that depend on each other in a circle."""


def premise_ids(claim: dict) -> list[str]:
    """The claim ids a claim's premise names (none for a check premise or no premise)."""
    premise = claim.get("premise")
    if isinstance(premise, str):
        return [premise]
    if isinstance(premise, list):
        return list(premise)
    return []


def premise_claims(spec, claim: dict, by_id: dict | None = None) -> list[dict]:
    """Every claim the premise of ``claim`` rests on, directly or through the premises' own premises
    (each once, nearest first); raises PremiseError on an unknown id or a circle. ``by_id``: the paper's
    claims by id, when the caller has it (check_premises walks every claim)."""
    by_id = {c["id"]: c for c in spec.claims} if by_id is None else by_id
    out, seen = [], {claim["id"]}

    def walk(c: dict, path: tuple[str, ...]) -> None:
        for pid in premise_ids(c):
            if pid not in by_id:
                raise PremiseError(f"{spec.paper}: claim {c['id']}: premise names unknown claim {pid!r}")
            if pid in path:
                raise PremiseError(f"{spec.paper}: claim {c['id']}: premises in a circle ({' -> '.join(path + (pid,))})")
            if pid not in seen:
                seen.add(pid)
                out.append(by_id[pid])
            walk(by_id[pid], path + (pid,))

    walk(claim, (claim["id"],))
    return out


def check_premises(spec) -> None:
    """Every premise of the paper names known claims, without circles (raises PremiseError): run when the
    workflow is planned (claim_dependencies), so a typo stops ``snakemake -n``."""
    by_id = {c["id"]: c for c in spec.claims}
    for claim in spec.claims:
        premise_claims(spec, claim, by_id)
        premise = claim.get("premise")
        if isinstance(premise, dict) and "fn" not in premise:
            raise PremiseError(f"{spec.paper}: claim {claim['id']}: a check premise needs 'fn'")


def claims_of_figure(spec, figure: str) -> list[dict]:
    """The claims of ``figure`` and the claims their premises rest on (other figures' too): what a figure's
    claims job evaluates, so a change to any of them reruns it."""
    mine = [c for c in spec.claims if c["figure"] == figure]
    return mine + [p for p in dict((p["id"], p) for c in mine for p in premise_claims(spec, c)).values()
                   if p["figure"] != figure]


def _check_arguments(claim: dict) -> list[dict]:
    """The arguments of a claim's check and of its check premise (if any)."""
    out = [{k: v for k, v in claim["check"].items() if k != "fn"}]
    if isinstance(claim.get("premise"), dict):
        out.append({k: v for k, v in claim["premise"].items() if k != "fn"})
    return out


def claim_dependencies(spec, figure: str) -> tuple[list[str], list[str]]:
    """(figures, experiments) whose results the claims of ``figure`` may read (see result_dependencies),
    their premises' included (a premise claim is evaluated with the claim that names it)."""
    check_premises(spec)
    mine = [c for c in spec.claims if c["figure"] == figure]
    premised = [p for c in mine for p in premise_claims(spec, c)]
    args = [a for c in mine + premised for a in _check_arguments(c)]
    return result_dependencies(spec, [figure] + [p["figure"] for p in premised], args)


def table_dependencies(spec, table: str) -> tuple[list[str], list[str]]:
    """(figures, experiments) a table may read: its declared ``figures`` and what its args name."""
    tspec = spec.tables[table]
    return result_dependencies(spec, tspec.get("figures", []), tspec.get("args", {}))
