"""The replication report: per paper (``results/<paper>/report.md``) and overall (``results/report.md``)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .claims import read_claims
from .deviations import (
    ADDED_COLUMNS,
    ADDED_HEADING,
    ADDED_NOTE,
    CODE_FILE,
    DEVIATION_COLUMNS,
    DEVIATIONS_FILE,
    DEVIATIONS_HEADING,
    FIRST_FORMS_FILE,
)
from .diagnosis import CAUSE_COLUMN, NO_READING, UNDIAGNOSED, cause_breakdown, cause_labels, causes_of, reading_sentences
from .findings import FINDINGS_HEADING, render_findings, verdict_line
from .mutants import mutation_lines, overall_mutation_lines, read_mutants
from .robustness import STABILITY_COLUMN, robustness_seeds_of, stability_labels, stability_sentence, stability_summary
from .tables import to_markdown
from .vocabulary import HEADLINE, INCONCLUSIVE, KINDS, NOT_REPRODUCED, REPRODUCED, tally

# the report's claims table: kind beside the id, so a reader sees at once what a row can count for
REPORT_CLAIM_COLUMNS = ["claim_id", "kind", "figure", "statement", "measured", "threshold", "verdict", CAUSE_COLUMN]
#: the overall report's column counting each paper's headline non-reproductions by cause
CAUSES_COLUMN = "not reproduced, by cause"
#: the overall report's column counting each paper's changes to claims after results were known
DEVIATIONS_COLUMN = "claims changed after results"
#: the overall report's column counting each paper's headline claims added after its first lock
ADDED_COLUMN = "claims added after results"


def causes_section(spec, claims: pd.DataFrame) -> list[str]:
    """'## Causes of non-reproduction': each declared cause with its label and the claims it explains
    (every kind), and the headline failures nobody diagnosed; no lines for a paper without causes."""
    causes = causes_of(spec.config)
    if not causes or CAUSE_COLUMN not in claims:
        return []
    labels = cause_labels(claims)
    lines = ["## Causes of non-reproduction", "",
             "Each claim that is not reproduced carries the mechanism that explains it (config `causes:`); "
             "*undiagnosed* marks a headline claim that fails without one.", ""]
    for cause, label in causes.items():
        ids = [cid for cid, c in zip(claims.claim_id, labels) if c == cause]
        lines.append(f"- **{label}** (`{cause}`): {', '.join(ids) if ids else 'no claim at present'}")
    undiagnosed = [cid for cid, c in zip(claims.claim_id, labels) if c == UNDIAGNOSED]
    if undiagnosed:
        lines.append(f"- **{UNDIAGNOSED}**: {', '.join(undiagnosed)}")
    return lines + [""]


def readings_section(spec, claims: pd.DataFrame, readings: pd.DataFrame | None) -> list[str]:
    """'## Alternative readings': each reading's description and the text it deviates from, one sentence on
    what it flips, and the table of results/<paper>/readings.csv; no lines without readings."""
    if readings is None or readings.empty or not spec.config.get("readings"):
        return []
    lines = ["## Alternative readings", "",
             "The headline claims test the printed algorithm; each reading below is a labelled variant run that "
             "measures the same statements under another reading of the paper (*flips*: the verdict changes; "
             "*printed_cells* / *reading_cells*: how close the printed algorithm and the reading come to the "
             "paper's printed table cells, where the config names that comparison). Every headline claim that "
             f"does not reproduce has a row: those that no reading measures are listed as {NO_READING}, with "
             "their cause.", ""]
    for reading in spec.config.get("readings") or []:
        lines.append(f"- **{reading['id']}**: {' '.join(reading['description'].split())} "
                     f"(deviates from: {' '.join(str(reading['deviates_from']).split())})")
    lines += [""] + [f"- {s}" for s in reading_sentences(spec.config, claims)] + [""]
    shown = readings.drop(columns=["deviates_from"])
    for col in ("printed_cells", "reading_cells"):
        if not shown[col].astype(str).str.len().any():
            shown = shown.drop(columns=[col])
    return lines + [to_markdown(shown), ""]


def deviations_section(rows: list[dict] | None, unrecorded: list[str] | None = None) -> list[str]:
    """'## Changes to claims after results were known': every recorded change of a headline claim's form
    after it first entered a paper-scale lock (report/deviations.py), with the old and new verdicts and
    the reason, and any change that is not recorded (which a test forbids); no lines when ``rows`` is None."""
    if rows is None:
        return []
    lines = [DEVIATIONS_HEADING, "",
             ("Every change of a headline claim's statement, threshold, band, kind, gate, premise or comparison set "
              "or of the code its check runs after the claim first entered a paper-scale lock, as pre-registered "
              f"replications keep a deviations table (`{DEVIATIONS_FILE}`; the first locked forms: "
              f"`{FIRST_FORMS_FILE}`, the recorded code: `{CODE_FILE}`). Each row is one change: what changed "
              "(old → new; *code of*: the functions whose code changed), the claim's verdict before and after it, "
              "why, and the commit."), ""]
    if unrecorded:
        lines += ["> **Changed without a record:** " + "; ".join(unrecorded), ""]
    if not rows:
        return lines + ["No claim of this paper changed after its results were known.", ""]
    claims = len({r["claim_id"] for r in rows})
    lines += [f"{len(rows)} change{'s' if len(rows) != 1 else ''} to {claims} claim{'s' if claims != 1 else ''}.", ""]
    return lines + [to_markdown(pd.DataFrame(rows, columns=DEVIATION_COLUMNS)), ""]


def added_section(rows: list[dict] | None) -> list[str]:
    """'## Claims added after results were known': every headline claim that entered a later paper-scale lock
    than the paper's first, or none yet (report/deviations.py, added_rows), with its first verdict and what
    was set with the results known; no lines when ``rows`` is None."""
    if rows is None:
        return []
    lines = [ADDED_HEADING, "",
             ("Headline claims the paper's first paper-scale lock did not hold: each was written, or its threshold "
              "chosen, with some results of the paper known, so its verdict is weaker evidence than a claim's fixed "
              f"before any result. Each row: the claim, the lock that first held it, its first verdict, and the note "
              f"*{ADDED_NOTE}* with what its config says was set with the results known (`set_after_results`)."), ""]
    if not rows:
        return lines + ["No headline claim of this paper was added after its first lock.", ""]
    lines += [f"{len(rows)} claim{'s' if len(rows) != 1 else ''} added after the first lock.", ""]
    return lines + [to_markdown(pd.DataFrame(rows, columns=ADDED_COLUMNS)), ""]


def provenance_line(scale: str, prov: dict) -> str:
    """'scale `paper` · seed 1 · banditrepro 0.1.0 · commit `abc…`': what a report was built from
    (``prov``: a :func:`banditrepro.provenance.record`)."""
    return (f"scale `{scale}` · seed {prov['seed']} · banditrepro {prov['package_version']} · "
            f"commit `{prov['git_commit']}`")


def scale_warning(scale: str) -> list[str]:
    """The note a report below paper scale carries (no lines at paper scale)."""
    if scale == "paper":
        return []
    return [(f"> Built at scale `{scale}`: few replications and short horizons. Verdicts are a smoke "
             "test of the pipeline, not a replication."), ""]


def paper_report(spec, claims: pd.DataFrame, figures: dict[str, list[Path]], tables: dict[str, Path],
                 not_built: dict[str, str], standin: set[str], prov: dict, out_path: Path,
                 robustness: pd.DataFrame | None = None, readings: pd.DataFrame | None = None,
                 mutants: pd.DataFrame | None = None, deviations: list[dict] | None = None,
                 unrecorded: list[str] | None = None, added: list[dict] | None = None) -> str:
    """The paper's report; with ``robustness`` (its robustness.csv) the claims table gains a column saying
    whether each headline verdict held under every extra root seed, and the findings a stability sentence.
    The verdict line counts the failures by cause; ``readings`` (its readings.csv) adds the alternative
    readings section; with ``mutants`` (its mutants.csv) a section gives the mutation score and the uncaught
    mutants; ``deviations`` (report.deviations.deviation_rows) the changes to claims after results were
    known, with ``unrecorded`` the changes no deviation entry records; ``added`` (report.deviations.added_rows)
    the headline claims added after the paper's first lock."""
    out_dir = Path(out_path).parent
    lines = [f"# Replication report: {spec.title}", "",
             f"Paper id `{spec.paper}` · {provenance_line(spec.scale, prov)}", "",
             FINDINGS_HEADING, ""]
    findings = render_findings(spec, claims)
    if robustness is not None:
        findings.append(stability_sentence(robustness))
    lines += [f"- {sentence}" for sentence in findings] + [""]
    lines += ["## Verdicts", "", verdict_line(claims, causes_of(spec.config)), "",
              ("Only headline claims (statements the paper makes, on its algorithms and settings as printed) "
               "are tallied; variant claims test labelled sensitivity variants or alternative readings, sanity "
               "claims hold by construction or are decided by the setup."), ""]
    lines += scale_warning(spec.scale)
    if not_built:
        lines += ["## Figures not built", ""] + [f"- {fig}: {why}" for fig, why in not_built.items()] + [""]
    if standin:
        lines += ["## Figures on STAND-IN DATA", "",
                  "These figures use synthetic data of the real schema; their claims are inconclusive by design.", ""]
        lines += [f"- {fig}" for fig in sorted(standin)] + [""]
    if spec.resolutions:
        lines += ["## Resolutions of ambiguities (from the spec, named in the config)", ""]
        lines += [f"- **{r['id']}**: {r['choice']}" + (f" — {r['note']}" if r.get("note") else "")
                  for r in spec.resolutions] + [""]
    lines += causes_section(spec, claims)
    lines += readings_section(spec, claims, readings)
    lines += deviations_section(deviations, unrecorded)
    lines += added_section(added)
    if mutants is not None:
        lines += mutation_lines(mutants, spec.paper)
    lines += ["## Claims", ""]
    shown = claims[[c for c in REPORT_CLAIM_COLUMNS if c in claims]]
    if CAUSE_COLUMN in shown:
        shown = shown.assign(**{CAUSE_COLUMN: cause_labels(claims)})
    if robustness is not None:
        seeds = robustness_seeds_of(robustness)
        lines += [(f"*{STABILITY_COLUMN}*: whether a headline claim's verdict is the same under the "
                   f"{len(seeds) - 1} extra root seeds ({', '.join(map(str, seeds[1:]))}) as under the main "
                   f"seed {seeds[0]} (agreeing seeds / extra seeds); `results/{spec.paper}/robustness.csv` has "
                   "each seed's verdict and measured value."), ""]
        shown = shown.assign(**{STABILITY_COLUMN: stability_labels(claims, robustness)})
    lines += [to_markdown(shown)]
    if tables:
        lines += ["## Tables", ""]
        for md in tables.values():
            lines += [Path(md).read_text(), ""]
    lines += ["## Figures", ""]
    for fig_id, paths in figures.items():
        png = [p for p in paths if str(p).endswith(".png")]
        title = spec.figures[fig_id]["title"]
        mark = " (STAND-IN DATA)" if fig_id in standin else ""
        lines.append(f"### {title}{mark}")
        lines.append("")
        if png:
            lines.append(f"![{fig_id}]({os.path.relpath(png[0], out_dir)})")
        if spec.figures[fig_id].get("caption"):
            lines += ["", spec.figures[fig_id]["caption"].strip()]
        lines.append("")
    text = "\n".join(lines)
    Path(out_path).write_text(text)
    return text


def overall_report(paper_claims: dict[str, Path], paper_reports: dict[str, Path], out_path: Path, prov: dict,
                   paper_findings: dict[str, list[str]] | None = None,
                   paper_robustness: dict[str, Path] | None = None, not_built: dict | None = None,
                   paper_causes: dict[str, dict[str, str]] | None = None,
                   paper_mutants: dict[str, Path] | None = None,
                   paper_deviations: dict[str, tuple[int, int]] | None = None,
                   paper_added: dict[str, int] | None = None) -> str:
    """One row of headline tallies per paper (variant and sanity apart), then each paper's findings;
    ``prov`` (a provenance record whose config holds the ``scale``) says what the report was built from,
    as in each paper report. With ``paper_robustness`` ({paper: robustness.csv}) a column counts the
    headline claims stable across seeds. ``not_built`` ({"datasets": {name: why}, "figures": {paper:
    {figure: why}}}, the workflow's not_built()) adds a section listing what this machine could not build
    and why. A column counts each paper's headline non-reproductions by cause, each cause by its label in
    ``paper_causes`` ({paper: its config's causes}); with ``paper_deviations`` ({paper: (changes, claims)},
    report.deviations.deviation_count) a column counts the changes to claims after results were known, with
    ``paper_added`` ({paper: headline claims added after its first lock}, report.deviations.added_rows) one
    the claims added after results were known."""
    out_dir = Path(out_path).parent
    paper_causes = paper_causes or {}
    scale = prov["config"]["scale"]
    paper_findings = paper_findings or {}
    paper_robustness = paper_robustness or {}
    rows = []
    for paper, path in paper_claims.items():
        claims = read_claims(path)
        t = tally(claims)
        rel = os.path.relpath(paper_reports[paper], out_dir)
        row = {"paper": f"[{paper}]({rel})", "headline claims": t.count(HEADLINE),
               "reproduced": t.count(HEADLINE, REPRODUCED), "not reproduced": t.count(HEADLINE, NOT_REPRODUCED),
               CAUSES_COLUMN: cause_breakdown(claims, paper_causes.get(paper, {}), NOT_REPRODUCED),
               "inconclusive": t.count(HEADLINE, INCONCLUSIVE)}
        for kind in KINDS:
            if kind != HEADLINE:
                row[f"{kind} reproduced"] = f"{t.count(kind, REPRODUCED)}/{t.count(kind)}"
        if paper_deviations is not None:
            changes, changed = paper_deviations.get(paper, (0, 0))
            row[DEVIATIONS_COLUMN] = f"{changed} ({changes} change{'s' if changes != 1 else ''})" if changes else "0"
        if paper_added is not None:
            row[ADDED_COLUMN] = str(paper_added.get(paper, 0))
        if paper_robustness:
            path = paper_robustness.get(paper)
            row[STABILITY_COLUMN] = stability_summary(read_claims(path)) if path else "not built"
        rows.append(row)
    lines = ["# banditrepro replication report", "", provenance_line(scale, prov), ""] + scale_warning(scale)
    lines += [to_markdown(pd.DataFrame(rows)),
              ("Only headline claims are tallied as reproductions; variant claims (labelled sensitivity variants, "
               "alternative readings) and sanity claims (true by construction) are counted apart. Each paper's "
               "report lists every claim with what was measured, the threshold, the verdict and its kind"
               + ("; *" + DEVIATIONS_COLUMN + "*: the claims whose statement, threshold, band, kind, gate, premise "
                  "or comparison set, or the code of their checks, changed after their results were known (each paper "
                  "report's section "
                  "\"Changes to claims after results were known\")" if paper_deviations is not None else "")
               + ("; *" + ADDED_COLUMN + "*: the headline claims added after the paper's first paper-scale lock, "
                  "with some of its results known (each paper report's section \"Claims added after results were "
                  "known\")" if paper_added is not None else "")
               + "."), ""]
    for paper in paper_claims:
        if paper in paper_findings:
            lines += [f"## {paper}", ""] + [f"- {s}" for s in paper_findings[paper]] + [""]
    lines += overall_mutation_lines({paper: read_mutants(path) for paper, path in (paper_mutants or {}).items()})
    if not_built and (not_built.get("datasets") or not_built.get("figures")):
        lines += ["## Not built", ""]
        lines += [f"- data set `{name}`: {why}" for name, why in not_built.get("datasets", {}).items()]
        lines += [f"- `{paper}` {fig}: {why}" for paper, figs in not_built.get("figures", {}).items()
                  for fig, why in figs.items()]
        lines.append("")
    text = "\n".join(lines)
    Path(out_path).write_text(text)
    return text
