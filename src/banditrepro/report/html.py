"""The paper report as one self-contained HTML page, and the results-at-a-glance rows, for Snakemake's HTML
report (``snakemake --report results/report.html``).

Snakemake's report shows an HTML result in a frame but offers a CSV or Markdown result only as a download
link, which a browser opens as a blank page, and shows a figure's caption only in a side panel. So each
paper gets ``results/<paper>/report.html``: its Markdown report (findings, verdicts, resolutions, claims
table, tables, whatever sections the report has) rendered to HTML, the verdict cells of its tables marked,
its figures listed with their captions; and each figure gets ``figures/<paper>/<figure>.html``, the PNG
embedded with its caption beneath it. The frame loads a result from a data: URL, which Chromium refuses
above 2 MB, so the figures are not embedded in the paper page. The main page of the Snakemake report
(``report/workflow.rst``) opens with a results-at-a-glance table whose rows (``results/<paper>/glance.html``)
are written beside each paper page.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from markdown_it import MarkdownIt

from .findings import headline_sentence
from .vocabulary import HEADLINE, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, VERDICTS, tally

#: the heading of the paper report's figures section, which the page replaces by embedded figures
FIGURES_HEADING = "## Figures"
#: the columns of the results-at-a-glance table, as report/workflow.rst heads them
GLANCE_COLUMNS = ("paper", "headline claims", "reproduced", "not reproduced", "inconclusive", "finding")

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 15px; line-height: 1.45;
       margin: 1.2em 2em 4em; color: #1f2328; max-width: 1400px; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 7px; vertical-align: top; text-align: left; }
th { background: #f6f8fa; position: sticky; top: 0; }
td { max-width: 42em; overflow-wrap: break-word; }
td.verdict { font-weight: 600; white-space: nowrap; }
td.verdict-reproduced { background: #dafbe1; color: #116329; }
td.verdict-not_reproduced { background: #ffebe9; color: #a40e26; }
td.verdict-inconclusive { background: #fff8c5; color: #7d4e00; }
blockquote { margin: 0.8em 0; padding: 0.3em 1em; border-left: 4px solid #d4a72c; background: #fff8c5; }
figure { margin: 1em 0 2.2em; }
figure img { display: block; width: 100%; max-width: 1100px; height: auto; border: 1px solid #eaeef2; }
figcaption { max-width: 1100px; margin-top: 0.5em; font-size: 14px; }
figcaption .figure-title { font-weight: 600; }
"""


def _markdown() -> MarkdownIt:
    # CommonMark with pipe tables; raw HTML in a report is shown as text, never interpreted
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _mark_verdicts(tokens) -> None:
    """Give every table cell that holds just a verdict word the classes ``verdict verdict-<word>``."""
    for i, tok in enumerate(tokens[:-1]):
        if tok.type == "td_open" and tokens[i + 1].type == "inline" and tokens[i + 1].content.strip() in VERDICTS:
            tok.attrSet("class", f"verdict verdict-{tokens[i + 1].content.strip()}")


def markdown_to_html(text: str) -> str:
    md = _markdown()
    tokens = md.parse(text)
    _mark_verdicts(tokens)
    return md.renderer.render(tokens, md.options, {})


def _split_figures_section(text: str) -> tuple[str, str]:
    """The Markdown report before and after its figures section (which runs to the next level-2 heading)."""
    lines = text.splitlines()
    if FIGURES_HEADING not in lines:
        return text, ""
    start = lines.index(FIGURES_HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[:start]), "\n".join(lines[end:])


def data_uri(path: Path, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"


def _page(title: str, body: str) -> str:
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n")


def _caption(title: str, caption: str, standin: bool) -> str:
    text = f'<span class="figure-title">{html.escape(title + (" (STAND-IN DATA)" if standin else ""))}.</span>'
    return text + (" " + html.escape(" ".join(caption.split())) if caption.strip() else "")


def figure_page(fig_id: str, title: str, caption: str, png: Path, standin: bool) -> str:
    """One figure as a page: the PNG embedded, its title and caption beneath it."""
    img = f'<img src="{data_uri(png)}" alt="{html.escape(fig_id)}: {html.escape(title)}">'
    return _page(title, f'<figure id="figure-{html.escape(fig_id)}">\n{img}\n'
                        f"<figcaption>{_caption(title, caption, standin)}</figcaption>\n</figure>")


def paper_page(spec, report_md: str, figures: list[str], standin: set[str]) -> str:
    """The paper's HTML page: its Markdown report rendered, the figures section replaced by the list of the
    built ``figures`` with their captions (each figure is its own page, :func:`figure_page`)."""
    before, after = _split_figures_section(report_md)
    parts = [markdown_to_html(before)]
    if figures:
        parts.append("<h2>Figures</h2>\n<p>Each figure opens, with its caption, under <em>2. figures</em> of this "
                     "paper.</p>\n<ul class=\"figures\">")
        for fig_id in figures:
            fig = spec.figures[fig_id]
            parts.append(f"<li>{_caption(fig['title'], fig.get('caption') or '', fig_id in standin)}</li>")
        parts.append("</ul>")
    if after.strip():
        parts.append(markdown_to_html(after))
    return _page(spec.title, "\n".join(parts))


def glance_row(paper: str, claims, causes: dict[str, str] | None = None) -> str:
    """One row of the results-at-a-glance table (HTML, a ``<tr>``): the paper's headline tallies and the
    headline finding, read from its built claims, each failure counted under its cause's label in ``causes``
    (the paper's, as report.md words them)."""
    t = tally(claims)
    cells = [html.escape(paper), t.count(HEADLINE), t.count(HEADLINE, REPRODUCED),
             t.count(HEADLINE, NOT_REPRODUCED), t.count(HEADLINE, INCONCLUSIVE),
             html.escape(headline_sentence(claims, causes))]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>\n"

