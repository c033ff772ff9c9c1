"""The HTML report of reproduced papers: ``DIR/index.html``.

``reorderlab reproduce`` leaves, per paper, ``DIR/<paper>/claims.json`` and
its plots (``NAME.png`` + ``NAME.svg`` + ``NAME.csv``). The report is built
from those files alone, so it can be rebuilt, copied or published without
the store or a rerun. It links the images instead of embedding them: the
page stays small and the PNGs stay the one copy.

The recipes do not record which figure drew which plot, so a plot is shown
under a figure when its file name starts with the figure's key or with one
of the figures the key names (``fig10-11`` names ``fig10`` and ``fig11``;
``fig8a_to_frac`` belongs to ``fig8``; ``-`` and ``_`` are the same); other
plots are listed under "other plots", by name.

The same files give the same bytes: no timestamps, no absolute paths, and
every listing is sorted.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reorderlab.claims import KINDS, Claim, Tally, tally, tally_text
from reorderlab.coverage import Sentence, coverage
from reorderlab.deviations import CAUSES, DeviationError, from_dict
from reorderlab.report_claims import (
    SummaryRow,
    claims_table,
    coverage_table,
    headline,
    summary_table,
)
from reorderlab.report_leagues import League, leagues_html
from reorderlab.report_nav import TocPaper, figure_anchor, header_html, paper_anchor, toc_html
from reorderlab.run_info import RunInfo, read_info
from reorderlab.tallies import Before, before

__all__ = ["PaperResults", "ReportError", "collect", "read_claims", "render", "write_report"]

#: The claim fields that must be strings for a claim to be shown.
_TEXT_FIELDS = ("paper", "figure", "claim", "expected", "measured")


class ReportError(ValueError):
    """No results to report, or a claims file that cannot be read."""


@dataclass(frozen=True)
class Artifact:
    """One plot (a PNG, maybe with its SVG and CSV) or one CSV-only table."""

    stem: str
    png: bool
    svg: bool
    csv: bool


@dataclass(frozen=True)
class PaperResults:
    """What the report shows of one paper."""

    key: str
    title: str
    claims: list[Claim]
    figures: list[str]  # in the order the sections show them
    figure_titles: dict[str, str] = field(default_factory=dict)
    artifacts: list[Artifact] = field(default_factory=list)
    files: frozenset[str] = frozenset()  # every file name in its folder
    coverage: tuple[Sentence, ...] = ()
    before: Before | None = None

    @property
    def held(self) -> int:
        return sum(1 for c in self.claims if c.holds)

    def tally(self) -> Tally:
        """Per kind: statements holding, statements."""
        return tally(self.claims)

    def by_cause(self) -> dict[str, int]:
        """Claims not holding per deviation cause, and ``unexplained``."""
        counts = dict.fromkeys((*CAUSES, "unexplained"), 0)
        for c in self.claims:
            if not c.holds:
                counts[c.deviation.cause if c.deviation else "unexplained"] += 1
        return counts


def write_report(out: Path) -> Path:
    """Write ``out/index.html`` for every paper found in ``out`` and every
    league table of ``compare`` in ``out/compare``; return its path."""
    from reorderlab.report_leagues import LeagueError, find_leagues

    try:
        leagues = find_leagues(Path(out))
    except LeagueError as exc:
        raise ReportError(str(exc)) from None
    from reorderlab.validate.report import find_section

    validation = find_section(Path(out))
    try:
        papers = collect(Path(out))
    except ReportError:
        if not leagues and validation is None:
            raise
        papers = []  # league tables (or the validation) alone
    page = render(papers, leagues, [validation] if validation else [], read_info(Path(out)))
    page = _with_conformance(page, Path(out))
    path = Path(out) / "index.html"
    path.write_text(page, encoding="utf-8", newline="\n")
    return path


def _with_conformance(page: str, out: Path) -> str:
    """The page with the conformance scripts' table before ``</body>`` when
    ``out`` has one (:mod:`reorderlab.report_conformance`)."""
    from reorderlab.report_conformance import conformance_html, read_outcomes

    try:
        section = conformance_html(read_outcomes(out))
    except ValueError as exc:
        raise ReportError(str(exc)) from None
    return page.replace("</body>", section + "\n</body>", 1) if section else page


# --- reading the results --------------------------------------------------


def collect(out: Path) -> list[PaperResults]:
    """Every subdirectory of ``out`` with a ``claims.json``, sorted by name."""
    if not out.exists():
        raise ReportError(f"{out}: no such directory (run 'reorderlab reproduce' first)")
    if not out.is_dir():
        raise ReportError(f"{out}: not a directory")
    dirs = sorted(p.parent for p in out.glob("*/claims.json") if p.is_file())
    if not dirs:
        raise ReportError(
            f"{out}: no <paper>/claims.json in it (run 'reorderlab reproduce --out {out}' first)"
        )
    registry = _registry()
    return [_paper(d, registry.get(d.name)) for d in dirs]


def _paper(directory: Path, known: tuple[str, list[str], dict[str, str]] | None) -> PaperResults:
    """One paper's claims and files, with the registry's titles when it knows
    the paper (a results directory may hold papers no longer registered)."""
    title, order, figure_titles = known or (directory.name, [], {})
    claims = read_claims(directory / "claims.json")
    figures = _figure_order([c.figure for c in claims], order)
    rank = {f: i for i, f in enumerate(figures)}
    return PaperResults(
        key=directory.name,
        title=title,
        claims=sorted(claims, key=lambda c: rank[c.figure]),  # stable: file order within
        figures=figures,
        figure_titles=figure_titles,
        artifacts=_artifacts(directory),
        files=frozenset(p.name for p in directory.iterdir() if p.is_file()),
        coverage=coverage(directory.name) if known else (),
        before=before().get(directory.name),
    )


def _figure_order(figures: Sequence[str], registered: Sequence[str]) -> list[str]:
    """The figures claimed, in registration order (then by name): a single
    figure rerun moves its claims to the end of claims.json, not in the report."""
    rank = {f: i for i, f in enumerate(registered)}
    return sorted(set(figures), key=lambda f: (rank.get(f, len(rank)), _natural(f)))


def read_claims(path: Path) -> list[Claim]:
    """The claims in ``path``, checked enough to be shown: a malformed file
    is reported by name rather than rendered half-way."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not valid JSON: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, list):
        raise ReportError(f"{path}: expected a JSON list of claims, got {type(data).__name__}")
    return [_claim(item, f"{path}: claim {i}") for i, item in enumerate(data)]


def _claim(item: Any, where: str) -> Claim:
    """One claims.json entry as a :class:`Claim` (extra keys ignored)."""
    if not isinstance(item, dict):
        raise ReportError(f"{where}: expected an object, got {type(item).__name__}")
    for key in _TEXT_FIELDS:
        if not isinstance(item.get(key), str):
            raise ReportError(f"{where}: {key}: expected a string, got {item.get(key)!r:.60}")
    if not isinstance(item.get("holds"), bool):
        raise ReportError(f"{where}: holds: expected true or false, got {item.get('holds')!r:.60}")
    values = item.get("values", {})
    if not isinstance(values, dict):
        raise ReportError(f"{where}: values: expected an object, got {type(values).__name__}")
    paper, figure, claim, expected, measured = (item[key] for key in _TEXT_FIELDS)
    deviation = None
    if item.get("deviation") is not None:
        try:
            deviation = from_dict(item["deviation"], f"{where}: deviation")
        except DeviationError as exc:
            raise ReportError(str(exc)) from None
    return Claim(
        paper, figure, claim, expected, measured, item["holds"], values, deviation,
        **_encoding(item, where),
    )  # fmt: skip


def _encoding(item: dict[str, Any], where: str) -> dict[str, Any]:
    """A claim's kind, quote, where, seed share and test records (absent in
    files written before they existed: a claim, no quote, no tests)."""
    kind = item.get("kind", "claim")
    if kind not in KINDS:
        raise ReportError(f"{where}: kind: {kind!r} is not one of {', '.join(KINDS)}")
    out: dict[str, Any] = {"kind": kind}
    for key in ("quote", "where"):
        value = item.get(key, "")
        if not isinstance(value, str):
            raise ReportError(f"{where}: {key}: expected a string, got {value!r:.60}")
        out[key] = value
    share = item.get("seed_share")
    if share is not None and (isinstance(share, bool) or not isinstance(share, int | float)):
        raise ReportError(f"{where}: seed_share: expected a number or null, got {share!r:.60}")
    tests = item.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        raise ReportError(f"{where}: tests: expected a list of objects, got {tests!r:.60}")
    return {**out, "seed_share": share, "tests": tests}


def _artifacts(directory: Path) -> list[Artifact]:
    """Plots (a PNG) and tables (a CSV without a PNG) in ``directory``, by name."""
    names = {p.name for p in directory.iterdir() if p.is_file()}
    stems = {n[: -len(ext)] for n in names for ext in (".png", ".csv") if n.endswith(ext)}
    return [
        Artifact(s, f"{s}.png" in names, f"{s}.svg" in names, f"{s}.csv" in names)
        for s in sorted(stems, key=_natural)
    ]


def _registry() -> dict[str, tuple[str, list[str], dict[str, str]]]:
    """Paper key -> (title, figure keys, figure titles) from the registry
    (:mod:`reorderlab.papers`: a paper's title is the first line of its
    package's docstring)."""
    from reorderlab.papers import papers, title

    return {
        key: (title(key), list(figs), {f: rec.title for f, rec in figs.items()})
        for key, figs in papers().items()
    }


def _natural(name: str) -> list[Any]:
    """Sort key putting ``fig2`` before ``fig10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


# --- which figure drew a plot -----------------------------------------------


def group(
    figures: Sequence[str], items: Sequence[Artifact]
) -> list[tuple[str | None, list[Artifact]]]:
    """``items`` under the figure that drew them (see the module docstring),
    in the order of ``figures``; those of no known figure last, under None."""
    groups: dict[str | None, list[Artifact]] = {f: [] for f in figures}
    groups[None] = []
    for item in items:
        groups[_owner(item.stem, figures)].append(item)
    return [(f, found) for f, found in groups.items() if found]


def _owner(stem: str, figures: Sequence[str]) -> str | None:
    """The figure whose longest matching name starts ``stem``, if any."""
    name = stem.replace("_", "-")
    best: tuple[int, str | None] = (0, None)
    for figure in figures:
        for alias in _aliases(figure):
            tail = r"[a-z]?" if alias[-1:].isdigit() else ""  # fig8a -> fig8
            if len(alias) > best[0] and re.match(re.escape(alias) + tail + r"(-|$)", name):
                best = (len(alias), figure)
    return best[1]


def _aliases(figure: str) -> list[str]:
    """A figure key and, for a key naming several figures, each of them:
    ``fig12-13-table3`` -> ``fig12``, ``fig13``, ``table3``."""
    key = figure.replace("_", "-")
    parts = key.split("-")
    if len(parts) < 2:
        return [key]
    names, word = [key], ""
    for part in parts:
        found = re.fullmatch(r"([A-Za-z]*)(\d+)", part)
        if found is None or not (found[1] or word):
            return [key]
        word = found[1] or word
        names.append(word + found[2])
    return names


# --- HTML ---------------------------------------------------------------------

_CSS = """\
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 110em;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.count { text-align: right; white-space: nowrap; }
tr.fails td { background: #fdecea; }
tr.why td { background: #fff8e1; font-size: 0.92em; }
tr.why ul { margin: 0.3em 0 0; padding-left: 1.2em; }
.cause { font-weight: bold; }
.kind { font-style: italic; }
q.quote { font-style: italic; color: #444; }
.verdict { white-space: nowrap; font-weight: bold; }
.holds .verdict, .all-hold { color: #1b6e20; }
.fails .verdict, .some-fail { color: #b3261e; }
.plots { display: grid; grid-template-columns: repeat(auto-fill, minmax(26em, 1fr));
         gap: 1em; }
figure { margin: 0; }
figure img { width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.1em 1em;
          margin: 0.5em 0 1em; }
dl.meta dt { font-weight: bold; }
dl.meta dd { margin: 0; }
nav.toc ol { margin: 0.2em 0; }
nav.toc > ol > li { margin-bottom: 0.3em; }
nav.toc ol ol { font-size: 0.92em; columns: 2 28em; }
.tally { color: #555; }
details > summary { cursor: pointer; }
table.league td { text-align: right; }
table.league td:nth-child(2), table.league td:nth-child(3) { text-align: left; }
"""


def _e(text: object) -> str:
    """Text escaped for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


def _href(*parts: str) -> str:
    """A relative link to a file under the report's directory."""
    return _e(quote("/".join(parts)))


_anchor = paper_anchor


def render(
    papers: Sequence[PaperResults],
    leagues: Sequence[League] = (),
    extra: Sequence[str] = (),
    info: RunInfo | None = None,
) -> str:
    """The whole page: a header (what was reproduced how, where:
    :mod:`reorderlab.report_nav`), the table of contents, the papers'
    summary, the league tables of ``compare``
    (:mod:`reorderlab.report_leagues`), the ``extra`` sections
    (``reorderlab validate``'s, :mod:`reorderlab.validate.report`), then
    each paper."""
    befores = [p.before for p in papers if p.before is not None]
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>reorderlab: reproduced papers</title>",
        f"<style>\n{_CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>reorderlab: reproduced papers</h1>",
        headline([p.tally() for p in papers], befores),
        header_html(info),
        "</header>",
        _toc(papers, leagues, extra),
    ]
    body = [_summary(papers), *([leagues_html(leagues)] if leagues else []), *extra]
    body += [_section(p) for p in papers]
    return "\n".join([*head, *body, "</body>", "</html>"]) + "\n"


def _toc(papers: Sequence[PaperResults], leagues: Sequence[League], extra: Sequence[str]) -> str:
    """The table of contents: each paper with its figures that have plots
    or claims, then the other sections of the page."""
    entries = []
    for p in papers:
        shown = [f for f, _ in group(p.figures, p.artifacts) if f is not None]
        figures = [f for f in p.figures if f in shown] + [f for f in shown if f not in p.figures]
        titles = [(f, p.figure_titles.get(f, "")) for f in figures]
        entries.append(TocPaper(p.key, p.title, tally_text(p.tally()), titles))
    sections = [("leagues", "compare: league tables")] if leagues else []
    for part in extra:  # the sections that plug in name their own anchor and title
        found = re.match(r'\s*<section id="([^"]+)">\s*<h2>(.*?)</h2>', part, re.S)
        if found:
            sections.append((found[1], re.sub(r"<[^>]+>", "", html.unescape(found[2]))))
    return toc_html(entries, sections)


def _summary(papers: Sequence[PaperResults]) -> str:
    """One row per paper: its tallies by kind, before, those not holding by
    cause (:mod:`reorderlab.deviations`), and a link to its section."""
    return summary_table(
        [
            SummaryRow(_anchor(p.key), p.key, p.title, p.tally(), p.before, p.by_cause())
            for p in papers
        ]
    )


def _section(paper: PaperResults) -> str:
    """A paper: its claims, its coverage table, then its plots grouped by figure."""
    lines = [
        f'<section id="{_anchor(paper.key)}">',
        f"<h2>{_e(paper.key)}: {_e(paper.title)}</h2>",
        f"<p>{_e(tally_text(paper.tally()))} "
        f'(<a href="{_href(paper.key, "claims.json")}">claims.json</a>).</p>',
        claims_table(paper.key, paper.claims, paper.files),
        coverage_table(paper.coverage, paper.claims),
    ]
    groups = group(paper.figures, paper.artifacts)
    if not groups:
        lines.append("<p>No plots.</p>")
    for figure, items in groups:
        lines.append(_figure_heading(paper, figure))
        lines.extend(_artifacts_html(paper.key, items))
    lines.append("</section>")
    return "\n".join(lines)


def _figure_heading(paper: PaperResults, figure: str | None) -> str:
    if figure is None:
        return "<h3>other plots</h3>"
    title = paper.figure_titles.get(figure)
    anchor = figure_anchor(paper.key, figure)
    return f'<h3 id="{anchor}">{_e(figure)}' + (f": {_e(title)}" if title else "") + "</h3>"


def _artifacts_html(paper: str, items: Sequence[Artifact]) -> list[str]:
    """The plots as images (each linking to its SVG), then the CSV-only tables."""
    plots = [_plot_html(paper, a) for a in items if a.png]
    tables = [
        f'<li><a href="{_href(paper, a.stem + ".csv")}">{_e(a.stem)}.csv</a></li>'
        for a in items
        if not a.png
    ]
    lines = ['<div class="plots">', *plots, "</div>"] if plots else []
    if tables:
        lines += ["<p>Tables (CSV):</p>", "<ul>", *tables, "</ul>"]
    return lines


def _plot_html(paper: str, plot: Artifact) -> str:
    png = _href(paper, plot.stem + ".png")
    image = f'<img src="{png}" alt="{_e(plot.stem)}" loading="lazy">'
    links = [
        f'<a href="{_href(paper, plot.stem + ext)}">{label}</a>'
        for ext, label, present in ((".svg", "SVG", plot.svg), (".csv", "CSV", plot.csv))
        if present
    ]
    target = _href(paper, plot.stem + ".svg") if plot.svg else png
    caption = _e(plot.stem) + (": " + " ".join(links) if links else "")
    return f'<figure><a href="{target}">{image}</a><figcaption>{caption}</figcaption></figure>'
