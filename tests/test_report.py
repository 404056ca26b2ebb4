"""The report layer: its one vocabulary and verdict tally, the README's results-at-a-glance table from the
verdicts file, the overall report's provenance (unit tests); Snakemake's HTML report (`snakemake --report`),
the paper and overall reports and the findings check at planning time, run in a temporary copy of the
project on the smoke DAG of satisficing_ucl (the fastest paper)."""

from __future__ import annotations

import base64
import json
import os
import re
from html import escape as html_escape
from pathlib import Path

import pandas as pd
import pytest
import yaml
from headless_browser import HeadlessBrowser, find_chromium  # tests/ is on sys.path (conftest.py)
from repo_copy import copy_build, shared_build
from repo_copy import copy_repo as _copy_repo
from repo_copy import run_snakemake as _snakemake

import banditrepro
from banditrepro import provenance
from banditrepro.experiments.spec import load_paper
from banditrepro.lock import VERDICTS_FILE, read_verdicts
from banditrepro.report import glance
from banditrepro.report.claims import CLAIM_COLUMNS, read_claims
from banditrepro.report.diagnosis import causes_of
from banditrepro.report.findings import headline_sentence, read_findings
from banditrepro.report.report import overall_report
from banditrepro.report.vocabulary import KINDS, NOT_MEASURED, VERDICTS, tally

PAPER = "satisficing_ucl"
REPO_ROOT = Path(__file__).resolve().parents[1]


def _embedded(html: str, name: str) -> dict:
    """A JSON object the report assigns to `var <name> = {...}`."""
    m = re.search(rf"\n\s*var {name} = (\{{)", html)
    assert m, f"no `var {name}` in the report"
    return json.JSONDecoder().raw_decode(html, m.start(1))[0]


@pytest.fixture(scope="session")
def built(smoke_build, shared_tmp):
    """The paper's smoke build (conftest.py) with the overall report and the HTML report added: made once for
    every worker, read-only."""

    def make(repo):
        copy_build(smoke_build(PAPER), repo)
        _snakemake(repo, "--cores", "2", "results/report.md", "--config", "scale=smoke", f"papers=[{PAPER}]")
        _snakemake(repo, PAPER, "--config", "scale=smoke", "--report", "results/report.html")

    return shared_build(shared_tmp, "report", make)


@pytest.mark.slow
def test_html_report_holds_the_paper_page_every_figure_with_its_caption_and_the_glance(built):
    spec = load_paper(PAPER, "smoke", built)
    html = (built / "results" / "report.html").read_text()
    results, categories = _embedded(html, "results"), _embedded(html, "categories")
    assert set(categories) == {PAPER}
    figures = [f"figures/{PAPER}/{fig}.html" for fig in spec.figures]
    assert sorted(categories[PAPER]["2. figures"]) == sorted(figures)
    for path in figures:
        entry = results[path]
        fig = Path(path).stem
        # each figure's page embeds the built figure, byte for byte, with the figure's title beneath it
        page = base64.b64decode(entry["data_uri"].split("base64,", 1)[1]).decode()
        png = base64.b64encode((built / "figures" / PAPER / f"{fig}.png").read_bytes()).decode()
        assert f'src="data:image/png;base64,{png}"' in page and "<figcaption>" in page
        assert html_escape(spec.figures[fig]["title"]) in page.split("<figcaption>", 1)[1]
        assert spec.figures[fig]["title"].split(":")[0] in entry["caption"], fig
        if spec.figures[fig].get("caption"):
            words = spec.figures[fig]["caption"].split()[:3]
            assert all(w.split("(")[0] in entry["caption"] for w in words), fig
    # the paper's page, not raw CSV or Markdown links that a browser opens blank
    assert categories[PAPER]["1. report"] == [f"results/{PAPER}/report.html"]
    assert not [p for p in results if not p.endswith(".html")]
    page = base64.b64decode(results[f"results/{PAPER}/report.html"]["data_uri"].split("base64,", 1)[1]).decode()
    assert page == (built / "results" / PAPER / "report.html").read_text()
    # the main page (the workflow description) opens with the results at a glance, this build's row of the paper
    m = re.search(r"\n\s*var workflow_desc = (\".*?\");\n", html)
    assert m, "no `var workflow_desc` in the report"
    desc = json.loads(m.group(1))
    row = (built / "results" / PAPER / "glance.html").read_text().strip()
    assert row.startswith(f"<tr><td>{PAPER}</td>") and row in desc
    assert desc.index('id="glance-table"') < desc.index("Each paper's category")


# what a reader sees: an element is visible when it has a size, is not hidden by style, lies in the
# viewport and is what the browser finds at its centre (nothing covers it)
VISIBLE_JS = """
function visible(el) {
  if (!el) return false;
  const r = el.getBoundingClientRect(), s = getComputedStyle(el);
  if (r.width < 2 || r.height < 2 || s.visibility !== "visible" || s.display === "none" || +s.opacity === 0) return false;
  if (r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) return false;
  const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + Math.min(r.height / 2, 8), 0), innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  return !!hit && (hit === el || el.contains(hit));
}
function show(el) { if (el) el.scrollIntoView({block: "center", inline: "nearest"}); return visible(el); }
"""


def _click(browser, selector_js: str, what: str) -> None:
    """Click the element a JavaScript expression finds (as a reader would), or fail naming it."""
    assert browser.evaluate(f"(() => {{ const el = {selector_js}; if (!el) return false; el.click(); return true; }})()"), \
        f"no {what} to click in the report"


def _link(text: str) -> str:
    return f"[...document.querySelectorAll('a')].find(a => a.textContent.trim() === {json.dumps(text)})"


def _claims_shown(browser, context: int) -> dict:
    """What the paper page in the report's frame shows of its claims table: a verdict cell and its row's kind
    cell, and whether they are visible."""
    return browser.evaluate(VISIBLE_JS + """(() => {
      const claims = [...document.querySelectorAll("table")].find(t => {
        const head = [...t.querySelectorAll("th")].map(th => th.textContent.trim());
        return head.includes("claim_id") && head.includes("verdict") && head.includes("kind");
      });
      const head = claims ? [...claims.querySelectorAll("th")].map(th => th.textContent.trim()) : [];
      const verdict = claims && claims.querySelector("td.verdict");
      const kind = verdict && verdict.parentElement.children[head.indexOf("kind")];
      const verdictShown = show(verdict);
      return {verdict: verdict ? verdict.textContent.trim() : null, verdict_visible: verdictShown,
              kind: kind ? kind.textContent.trim() : null, kind_visible: visible(kind)};
    })()""", context)


def _figure_shown(browser, context: int, figure_title: str) -> dict:
    """What a figure's page in the report's frame shows: the image and, beneath it, the caption with the
    figure's title."""
    return browser.evaluate(VISIBLE_JS + f"""(() => {{
      const figure = [...document.querySelectorAll("figure")]
        .find(f => (f.querySelector("figcaption") || {{}}).textContent.includes({json.dumps(figure_title)}));
      const img = figure && figure.querySelector("img"), caption = figure && figure.querySelector("figcaption");
      return {{
        image_loaded: !!img && img.complete && img.naturalWidth > 0, image_visible: show(img),
        caption_visible: show(caption), caption_under_image: !!img && img.nextElementSibling === caption,
      }};
    }})()""", context)


def _open_report(browser, report: Path) -> None:
    browser.open(report)
    browser.wait_for("document.querySelector('#app') && document.querySelector('#app').children.length > 0")


def _open_result(browser, report: Path, paper: str, subcategory: str, item: str) -> int:
    """From the report's main page, click through its menu to a result and its eye button, as a reader
    would; the execution context of the frame that then shows the result."""
    _open_report(browser, report)
    # the menu names each paper; a report of one paper has a single entry, "Results"
    _click(browser, f"({_link(paper)} || {_link('Results')})", f"menu entry {paper}")
    browser.wait_for(f"!!{_link(subcategory)}")
    _click(browser, _link(subcategory), f"menu entry {subcategory!r}")
    row = ("[...document.querySelectorAll('tr')]"
           f".find(r => r.firstElementChild && r.firstElementChild.textContent.trim() === {json.dumps(item)})")
    browser.wait_for(f"!!({row})")
    _click(browser, f"({row}).querySelector('a')", f"the eye button of {item!r}")
    context = browser.child_frame_context("data:text/html")
    frame = browser.evaluate(VISIBLE_JS + "(() => { const f = document.querySelector('iframe'); "
                             "const r = f.getBoundingClientRect(); return visible(f) && r.width > 600 && r.height > 400; })()")
    assert frame, f"the frame showing {item!r} is not visible"
    browser.wait_for("[...document.images].every(i => i.complete)", context)
    return context


@pytest.mark.slow
def test_html_report_shows_verdicts_and_captioned_figures_in_a_real_browser(built, tmp_path):
    """Opens the report in headless Chromium as a reader would: the main page's results at a glance, then
    the paper's report with its claims table, then a figure with its caption."""
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium: CI installs it (.ci/run, ci.yml); set $CHROMIUM to its path")
        pytest.skip("no Chromium on this machine (apt-get install chromium, or set $CHROMIUM)")
    spec = load_paper(PAPER, "smoke", built)
    fig_id = next(iter(spec.figures))
    report = built / "results" / "report.html"
    with HeadlessBrowser(chromium, width=1400, height=900) as browser:
        _open_report(browser, report)
        glance = browser.evaluate(VISIBLE_JS + f"""(() => {{
          const table = document.querySelector("#glance-table");
          const row = table && [...table.querySelectorAll("tr")].find(r => r.textContent.includes({json.dumps(PAPER)}));
          return {{table: show(table), row: visible(row), text: row ? row.textContent : null}};
        }})()""")
        browser.screenshot(tmp_path / "main.png")
        assert glance["table"] and glance["row"], f"results at a glance not visible ({tmp_path / 'main.png'})"
        assert "headline claims reproduce" in glance["text"]

        context = _open_result(browser, report, PAPER, "1. report", "findings, claims and tables")
        claims = _claims_shown(browser, context)
        browser.screenshot(tmp_path / "report.png")
        assert claims["verdict"] in VERDICTS and claims["verdict_visible"], (claims, tmp_path / "report.png")
        assert claims["kind"] in KINDS and claims["kind_visible"], claims
        # the check can fail: with the verdict cells hidden it says so
        browser.evaluate("document.querySelectorAll('td.verdict').forEach(td => td.style.visibility = 'hidden'); true",
                         context)
        assert not _claims_shown(browser, context)["verdict_visible"]

        context = _open_result(browser, report, PAPER, "2. figures", fig_id)
        figure = _figure_shown(browser, context, spec.figures[fig_id]["title"])
        browser.screenshot(tmp_path / "figure.png")
        assert figure["image_loaded"] and figure["image_visible"], (figure, tmp_path / "figure.png")
        assert figure["caption_visible"] and figure["caption_under_image"], figure
        browser.evaluate("document.querySelectorAll('figcaption').forEach(c => c.style.display = 'none'); true", context)
        assert not _figure_shown(browser, context, spec.figures[fig_id]["title"])["caption_visible"]


@pytest.mark.slow
def test_paper_report_opens_with_findings_and_tallies_headline_claims(built):
    text = (built / "results" / PAPER / "report.md").read_text()
    head = text.split("\n## ")
    assert head[1].startswith("Findings\n"), "Findings must follow the title and provenance line"
    assert re.search(r"\d+ of the paper's \d+ headline claims reproduces?", head[1])
    assert "{" not in head[1], "an unfilled placeholder"
    # the failures are counted by cause where the paper declares causes (issue 31): "1 not reproduced (1 …)"
    assert re.search(r"Headline claims: \d+ reproduced, \d+ not reproduced( \([^()]+\))?, \d+ inconclusive"
                     r"( \([^()]+\))? \(of \d+\) · variant: (none|\d+/\d+ reproduced) · "
                     r"sanity: (none|\d+/\d+ reproduced)", text)
    assert "| claim_id | kind | figure |" in text


@pytest.mark.slow
def test_overall_report_states_scale_seed_and_commit_like_the_paper_reports(built):
    seed = yaml.safe_load((built / "config" / "config.yaml").read_text())["seed"]
    overall_text = (built / "results" / "report.md").read_text()
    overall = overall_text.splitlines()
    paper = (built / "results" / PAPER / "report.md").read_text().splitlines()
    stated = f"scale `smoke` · seed {seed} · banditrepro {banditrepro.__version__} · commit `"
    assert overall[2].startswith(stated) and paper[2].startswith(f"Paper id `{PAPER}` · {stated}")
    assert overall[2].split("commit")[1] == paper[2].split("commit")[1]  # the same commit
    assert overall[4].startswith("> Built at scale `smoke`")
    sidecar = json.loads((built / "results" / "report.md.provenance.json").read_text())
    assert sidecar["seed"] == seed and sidecar["config"] == {"papers": [PAPER], "scale": "smoke"}
    # the findings shown per paper are the paper report's, whose first is the headline sentence
    claims = read_claims(built / "results" / PAPER / "claims.csv")
    findings = read_findings(built / "results" / PAPER / "report.md")
    causes = causes_of(load_paper(PAPER, "smoke", built).config)
    assert findings.splitlines()[0] == f"- {headline_sentence(claims, causes)}"
    assert f"## {PAPER}\n\n{findings}\n" in overall_text


@pytest.mark.slow
def test_unknown_claim_in_findings_stops_planning_naming_it(tmp_path):
    repo = _copy_repo(tmp_path / "repo")
    cfg = repo / "config" / "papers" / f"{PAPER}.yaml"
    cfg.write_text(cfg.read_text() + "\nfindings:\n  - text: \"It holds: {F9z.measured}.\"\n"
                   if "\nfindings:" not in cfg.read_text() else
                   cfg.read_text().replace("\nfindings:\n", "\nfindings:\n  - \"It holds: {F9z.measured}.\"\n", 1))
    proc = _snakemake(repo, "-n", PAPER, "--config", "scale=smoke", check=False)
    assert proc.returncode != 0
    assert "unknown claim 'F9z'" in proc.stdout + proc.stderr


# --- the vocabulary and the tally ----------------------------------------------------------------


def test_the_verdict_and_kind_lists_are_written_once():
    """Every other module imports them from report.vocabulary; the paper schema (YAML, it cannot import)
    is checked against them below."""
    def literal(words):  # a tuple, list or set of exactly these strings, in any quotes
        return re.compile(r"[(\[{]\s*" + r",\s*".join(f"[\"']{w}[\"']" for w in words) + r"\s*,?\s*[)\]}]")

    lists = [literal(VERDICTS), literal(KINDS)]
    vocabulary = REPO_ROOT / "src" / "banditrepro" / "report" / "vocabulary.py"
    sources = [p for top in ("src", "workflow", "tests") for p in (REPO_ROOT / top).rglob("*")
               if p.suffix in (".py", ".smk") and p != vocabulary]
    sources.append(REPO_ROOT / "Snakefile")
    assert len(sources) > 50
    copies = [str(p.relative_to(REPO_ROOT)) for p in sources for pattern in lists if pattern.search(p.read_text())]
    assert copies == [], f"a copy of the verdict or kind list (import it from banditrepro.report.vocabulary): {copies}"
    assert all(pattern.search(vocabulary.read_text()) for pattern in lists)


def test_the_paper_schema_spells_the_same_verdicts_and_kinds():
    schema = yaml.safe_load((REPO_ROOT / "src" / "banditrepro" / "experiments" / "paper.schema.yaml").read_text())
    enums = []

    def walk(node):
        if isinstance(node, dict):
            if "enum" in node:
                enums.append(node["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    verdict_enums = [e for e in enums if "reproduced" in e]
    kind_enums = [e for e in enums if "headline" in e]
    assert len(verdict_enums) == 2 and len(kind_enums) == 1
    assert all(e == list(VERDICTS) for e in verdict_enums) and kind_enums[0] == list(KINDS)


def test_tally_counts_by_kind_and_verdict_in_table_order_keeping_unknown_words():
    rows = [{"claim_id": "A", "kind": "headline", "verdict": "not_reproduced"},
            {"claim_id": "B", "kind": "", "verdict": "reproduced"},  # no kind: a headline claim
            {"claim_id": "C", "verdict": "not_reproduced"},
            {"claim_id": "D", "kind": "variant", "verdict": "passed"},
            {"claim_id": "E", "kind": "extra", "verdict": "reproduced"}]
    t = tally(rows)
    assert t.count("headline") == 3 and t.count("headline", "not_reproduced") == 2
    assert t.ids("headline") == ["A", "B", "C"] and t.ids("headline", "not_reproduced") == ["A", "C"]
    assert t.count("sanity") == 0 and t.rows("sanity", "reproduced") == []
    assert t.kinds() == [*KINDS, "extra"] and t.verdicts("variant") == [*VERDICTS, "passed"]
    assert t.verdicts("headline") == list(VERDICTS)
    frame = pd.DataFrame(rows).fillna("")
    assert tally(frame).ids("headline") == t.ids("headline")
    assert [tally(frame).count(k, v) for k in t.kinds() for v in t.verdicts(k)] == \
        [t.count(k, v) for k in t.kinds() for v in t.verdicts(k)]


# --- results at a glance -------------------------------------------------------------------------

GLANCE_ROWS = [{"paper": "p", "claim_id": "A", "kind": "headline", "measured": "1", "verdict": "reproduced"},
               {"paper": "p", "claim_id": "B", "kind": "headline", "measured": "a | b", "verdict": "inconclusive"},
               {"paper": "p", "claim_id": "S", "kind": "sanity", "measured": "0", "verdict": "not_reproduced"},
               {"paper": "q", "claim_id": "C1", "kind": "headline", "measured": NOT_MEASURED,
                "verdict": "inconclusive"},
               {"paper": "q", "claim_id": "C|2", "kind": "headline", "measured": "x", "verdict": "not_reproduced"}]


def test_glance_table_counts_headline_claims_and_states_the_headline_sentence():
    table = glance.glance_table(GLANCE_ROWS).splitlines()
    assert table[0] == "| " + " | ".join(glance.GLANCE_HEADER) + " |"
    assert table[2] == ("| `p` | 2 | 1 | 0 | 1 | 1 of the paper's 2 headline claims reproduces. 1 is inconclusive "
                        "on the measurement. |")
    assert table[3] == ("| `q` | 2 | 0 | 1 | 1 | 0 of the paper's 2 headline claims reproduce. 1 could not be "
                        "measured because its figure was not built. 1 does not reproduce. |")
    assert len(table) == 4
    # with the papers' configs, the failures are counted by the cause each claim declares, in the reports' words;
    # a pipe in a label is escaped so that the Markdown row keeps its cells
    configs = {"q": {"claims": [{"id": "C|2", "cause": "odd"}], "causes": {"odd": {"label": "a | b", "reading": "r"}}}}
    assert glance.glance_table(GLANCE_ROWS, configs).splitlines()[3].endswith(
        "1 does not reproduce, because of a \\| b. |")


def test_glance_disagreements_name_what_differs():
    readme = glance.replace_glance(f"intro\n{glance.GLANCE_BEGIN}\nold\n{glance.GLANCE_END}\nrest\n",
                                   glance.glance_table(GLANCE_ROWS))
    assert readme.startswith("intro\n") and readme.endswith(f"{glance.GLANCE_END}\nrest\n")
    assert glance.glance_disagreements(readme, GLANCE_ROWS) == []
    changed = glance.glance_disagreements(readme.replace("| 2 | 1 | 0 | 1 |", "| 2 | 2 | 0 | 0 |"), GLANCE_ROWS)
    assert len(changed) == 1 and changed[0].startswith("p: README shows")
    assert glance.glance_disagreements(readme, GLANCE_ROWS + [{**GLANCE_ROWS[0], "paper": "r"}]) == \
        ["r: in the verdicts file, not in README"]
    assert glance.glance_disagreements(readme, GLANCE_ROWS[:3]) == ["q: in README, not in the verdicts file"]
    swapped = glance.glance_disagreements(readme, GLANCE_ROWS[3:] + GLANCE_ROWS[:3])
    assert swapped == ["README lists the papers in another order than the verdicts file"]
    assert glance.glance_disagreements("no markers", GLANCE_ROWS) == ["README.md has no results-at-a-glance markers"]
    with pytest.raises(ValueError, match="markers"):
        glance.replace_glance("no markers", "table")


def test_readme_results_at_a_glance_agrees_with_the_committed_verdicts_file():
    rows = read_verdicts(REPO_ROOT / VERDICTS_FILE)
    configs = {paper: load_paper(paper, "paper", REPO_ROOT).config for paper in glance.rows_by_paper(rows)}
    problems = glance.glance_disagreements((REPO_ROOT / "README.md").read_text(), rows, configs)
    assert not problems, ("README.md and config/locks/verdicts.paper.csv disagree (regenerate with "
                          f"`snakemake --cores 1 results_at_a_glance`): {problems}")


# --- the overall report --------------------------------------------------------------------------


@pytest.mark.parametrize("scale", ["smoke", "paper"])
def test_overall_report_states_its_provenance_and_warns_below_paper_scale(tmp_path, scale):
    (tmp_path / "toy").mkdir()
    pd.DataFrame([("H1", "f", "s", "m", "t", "reproduced", "headline")], columns=CLAIM_COLUMNS).to_csv(
        tmp_path / "toy" / "claims.csv", index=False)
    prov = {**provenance.record({"scale": scale}, 7, tmp_path), "git_commit": "abc123"}
    text = overall_report({"toy": tmp_path / "toy" / "claims.csv"}, {"toy": tmp_path / "toy" / "report.md"},
                          tmp_path / "report.md", prov)
    lines = text.splitlines()
    assert lines[:3] == ["# banditrepro replication report", "",
                         f"scale `{scale}` · seed 7 · banditrepro {banditrepro.__version__} · commit `abc123`"]
    assert (f"> Built at scale `{scale}`" in text) is (scale != "paper")
    assert "| [toy](toy/report.md) | 1 | 1 | 0 |  | 0 | 0/0 | 0/0 |" in text  # nothing not reproduced: no causes
