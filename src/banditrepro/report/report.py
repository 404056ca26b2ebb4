"""The replication report: per paper (``results/<paper>/report.md``) and overall (``results/report.md``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from .findings import render_findings, tally, verdict_line
from .tables import to_markdown

# the report's claims table: kind beside the id, so a reader sees at once what a row can count for
REPORT_CLAIM_COLUMNS = ["claim_id", "kind", "figure", "statement", "measured", "threshold", "verdict"]


def paper_report(spec, claims: pd.DataFrame, figures: dict[str, list[Path]], tables: dict[str, Path],
                 unavailable: dict[str, str], standin: set[str], prov: dict, out_path: Path) -> str:
    out_dir = Path(out_path).parent
    lines = [f"# Replication report: {spec.title}", "",
             (f"Paper id `{spec.paper}` · scale `{spec.scale}` · seed {prov['seed']} · banditrepro "
              f"{prov['package_version']} · commit `{prov['git_commit']}`"), "",
             "## Findings", ""]
    lines += [f"- {sentence}" for sentence in render_findings(spec, claims)] + [""]
    lines += ["## Verdicts", "", verdict_line(claims), "",
              ("Only headline claims (statements the paper makes, on its algorithms and settings as printed) "
               "are tallied; variant claims test labelled sensitivity variants or alternative readings, sanity "
               "claims hold by construction or are decided by the setup."), ""]
    if spec.scale != "paper":
        lines += [(f"> Built at scale `{spec.scale}`: few replications and short horizons. Verdicts are a smoke "
                   "test of the pipeline, not a replication."), ""]
    if unavailable:
        lines += ["## Figures not built", ""] + [f"- {fig}: {why}" for fig, why in unavailable.items()] + [""]
    if standin:
        lines += ["## Figures on STAND-IN DATA", "",
                  "These figures use synthetic data of the real schema; their claims are inconclusive by design.", ""]
        lines += [f"- {fig}" for fig in sorted(standin)] + [""]
    if spec.resolutions:
        lines += ["## Resolutions of ambiguities (from the spec, named in the config)", ""]
        lines += [f"- **{r['id']}**: {r['choice']}" + (f" — {r['note']}" if r.get("note") else "")
                  for r in spec.resolutions] + [""]
    lines += ["## Claims", "", to_markdown(claims[[c for c in REPORT_CLAIM_COLUMNS if c in claims]])]
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


def overall_report(paper_claims: dict[str, Path], paper_reports: dict[str, Path], out_path: Path,
                   paper_findings: dict[str, list[str]] | None = None) -> str:
    """One row of headline tallies per paper (variant and sanity apart), then each paper's findings."""
    out_dir = Path(out_path).parent
    paper_findings = paper_findings or {}
    rows = []
    for paper, path in paper_claims.items():
        t = tally(pd.read_csv(path, dtype=str, keep_default_na=False))
        head = t["headline"]
        rel = os.path.relpath(paper_reports[paper], out_dir)
        rows.append({"paper": f"[{paper}]({rel})", "headline claims": sum(head.values()),
                     "reproduced": head["reproduced"], "not reproduced": head["not_reproduced"],
                     "inconclusive": head["inconclusive"],
                     "variant reproduced": f"{t['variant']['reproduced']}/{sum(t['variant'].values())}",
                     "sanity reproduced": f"{t['sanity']['reproduced']}/{sum(t['sanity'].values())}"})
    lines = ["# banditrepro replication report", "", to_markdown(pd.DataFrame(rows)),
             ("Only headline claims are tallied as reproductions; variant claims (labelled sensitivity variants, "
              "alternative readings) and sanity claims (true by construction) are counted apart. Each paper's "
              "report lists every claim with what was measured, the threshold, the verdict and its kind."), ""]
    for paper in paper_claims:
        if paper in paper_findings:
            lines += [f"## {paper}", ""] + [f"- {s}" for s in paper_findings[paper]] + [""]
    text = "\n".join(lines)
    Path(out_path).write_text(text)
    return text


def read_provenance(path: Path) -> dict:
    return json.loads(Path(str(path) + ".provenance.json").read_text())
