"""The replication report: per paper (``results/<paper>/report.md``) and overall (``results/report.md``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from .tables import to_markdown


def paper_report(spec, claims: pd.DataFrame, figures: dict[str, list[Path]], tables: dict[str, Path],
                 unavailable: dict[str, str], standin: set[str], prov: dict, out_path: Path) -> str:
    out_dir = Path(out_path).parent
    counts = claims.verdict.value_counts().to_dict()
    lines = [f"# Replication report: {spec.title}", "",
             f"Paper id `{spec.paper}` · scale `{spec.scale}` · seed {prov['seed']} · banditrepro "
             f"{prov['package_version']} · commit `{prov['git_commit']}`", "",
             "## Verdicts", "",
             ", ".join(f"{counts.get(v, 0)} {v}" for v in ("reproduced", "not_reproduced", "inconclusive")), ""]
    if spec.scale != "paper":
        lines += [f"> Built at scale `{spec.scale}`: few replications and short horizons. Verdicts are a smoke "
                  "test of the pipeline, not a replication.", ""]
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
    lines += ["## Claims", "", to_markdown(claims)]
    if tables:
        lines += ["## Tables", ""]
        for table_id, md in tables.items():
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


def overall_report(paper_claims: dict[str, Path], paper_reports: dict[str, Path], out_path: Path) -> str:
    out_dir = Path(out_path).parent
    rows = []
    for paper, path in paper_claims.items():
        df = pd.read_csv(path)
        c = df.verdict.value_counts().to_dict()
        rel = os.path.relpath(paper_reports[paper], out_dir)
        rows.append({"paper": f"[{paper}]({rel})", "claims": len(df), "reproduced": c.get("reproduced", 0),
                     "not_reproduced": c.get("not_reproduced", 0), "inconclusive": c.get("inconclusive", 0)})
    text = "# banditrepro replication report\n\n" + to_markdown(pd.DataFrame(rows)) + \
        "\nEach paper's report lists every claim with what was measured, the threshold and the verdict.\n"
    Path(out_path).write_text(text)
    return text


def read_provenance(path: Path) -> dict:
    return json.loads(Path(str(path) + ".provenance.json").read_text())
