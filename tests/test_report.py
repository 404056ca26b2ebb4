"""Snakemake's HTML report (`snakemake --report`) and the findings check at planning time, run in a
temporary copy of the project on the smoke DAG of satisficing_ucl (the fastest paper)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from banditrepro.experiments.spec import load_paper

from .test_workflow import _copy_repo, _snakemake

PAPER = "satisficing_ucl"
REPO_ROOT = Path(__file__).resolve().parents[1]


def _embedded(html: str, name: str) -> dict:
    """A JSON object the report assigns to `var <name> = {...}`."""
    m = re.search(rf"\n\s*var {name} = (\{{)", html)
    assert m, f"no `var {name}` in the report"
    return json.JSONDecoder().raw_decode(html, m.start(1))[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    repo = _copy_repo(root / "repo")
    _snakemake(repo, "--cores", "2", PAPER, "--config", "scale=smoke")
    _snakemake(repo, PAPER, "--config", "scale=smoke", "--report", "results/report.html")
    return repo


@pytest.mark.slow
def test_html_report_holds_every_figure_with_its_caption_and_the_claims_and_tables(built):
    spec = load_paper(PAPER, "smoke", built)
    html = (built / "results" / "report.html").read_text()
    results, categories = _embedded(html, "results"), _embedded(html, "categories")
    assert set(categories) == {PAPER}
    figures = [f"figures/{PAPER}/{fig}.png" for fig in spec.figures]
    assert sorted(categories[PAPER]["figures"]) == sorted(figures)
    for path in figures:
        entry = results[path]
        fig = Path(path).stem
        # the embedded file is the built figure, byte for byte
        assert base64.b64decode(entry["data_uri"].split("base64,", 1)[1]) == (built / path).read_bytes()
        assert spec.figures[fig]["title"].split(":")[0] in entry["caption"], fig
        if spec.figures[fig].get("caption"):
            words = spec.figures[fig]["caption"].split()[:3]
            assert all(w.split("(")[0] in entry["caption"] for w in words), fig
    assert categories[PAPER]["claims"] == [f"results/{PAPER}/claims.csv"]
    claims = results[f"results/{PAPER}/claims.csv"]
    assert base64.b64decode(claims["data_uri"].split("base64,", 1)[1]) == \
        (built / "results" / PAPER / "claims.csv").read_bytes()
    assert sorted(categories[PAPER]["tables"]) == sorted(f"results/{PAPER}/tables/{t}.csv" for t in spec.tables)
    assert categories[PAPER]["report"] == [f"results/{PAPER}/report.md"]


@pytest.mark.slow
def test_paper_report_opens_with_findings_and_tallies_headline_claims(built):
    text = (built / "results" / PAPER / "report.md").read_text()
    head = text.split("\n## ")
    assert head[1].startswith("Findings\n"), "Findings must follow the title and provenance line"
    assert re.search(r"\d+ of the paper's \d+ headline claims reproduces?", head[1])
    assert "{" not in head[1], "an unfilled placeholder"
    assert re.search(r"Headline claims: \d+ reproduced, \d+ not reproduced, \d+ inconclusive \(of \d+\) · "
                     r"variant: (none|\d+/\d+ reproduced) · sanity: (none|\d+/\d+ reproduced)", text)
    assert "| claim_id | kind | figure |" in text


def test_unknown_claim_in_findings_stops_planning_naming_it(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    cfg = repo / "config" / "papers" / f"{PAPER}.yaml"
    cfg.write_text(cfg.read_text() + "\nfindings:\n  - text: \"It holds: {F9z.measured}.\"\n"
                   if "\nfindings:" not in cfg.read_text() else
                   cfg.read_text().replace("\nfindings:\n", "\nfindings:\n  - \"It holds: {F9z.measured}.\"\n", 1))
    proc = _snakemake(repo, "-n", PAPER, "--config", "scale=smoke", check=False)
    assert proc.returncode != 0
    assert "unknown claim 'F9z'" in proc.stdout + proc.stderr


@pytest.mark.parametrize("script", sorted((REPO_ROOT / "workflow" / "scripts").glob("*.py")), ids=lambda p: p.name)
def test_workflow_scripts_share_one_form(script):
    """A main(snakemake) function called at the bottom; helpers come from the package, never sys.path."""
    import ast

    tree = ast.parse(script.read_text())
    mains = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    assert mains and [a.arg for a in mains[0].args.args] == ["snakemake"], "no main(snakemake)"
    last = tree.body[-1]
    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call), "main is not called at the bottom"
    call = last.value.args[0] if isinstance(last.value.func, ast.Attribute) else last.value  # sys.exit(main(...))
    assert isinstance(call, ast.Call) and getattr(call.func, "id", None) == "main"
    assert [getattr(a, "id", None) for a in call.args] == ["snakemake"]
    assert "sys.path" not in script.read_text()
