"""The top of the report (:mod:`reorderlab.report` builds the page): a
header saying what the page shows (mode, date, engine and model revision,
machine: :mod:`reorderlab.run_info`) and a table of contents, each paper
with its figures, every entry a link to its section."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reorderlab.run_info import RunInfo

__all__ = ["TocPaper", "figure_anchor", "header_html", "paper_anchor", "toc_html"]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def paper_anchor(key: str) -> str:
    """The id of a paper's section."""
    return "paper-" + re.sub(r"[^A-Za-z0-9_-]+", "-", key)


def figure_anchor(paper: str, figure: str) -> str:
    """The id of a figure's heading in its paper's section."""
    return paper_anchor(paper) + "-" + re.sub(r"[^A-Za-z0-9_-]+", "-", figure)


def _revision(engine: str) -> str:
    """``0.1.0+m17`` -> ``0.1.0+m17 (model revision 17)``."""
    found = re.search(r"\+m(\d+)$", engine)
    return f"{engine} (model revision {found[1]})" if found else engine


def _by_value(papers: Mapping[str, Mapping[str, str]], field: str) -> str:
    """One value for every paper, or each value with its papers."""
    values: dict[str, list[str]] = {}
    for key, info in papers.items():
        values.setdefault(info[field], []).append(key)
    if len(values) == 1:
        return next(iter(values))
    return "; ".join(f"{v} ({', '.join(ks)})" for v, ks in sorted(values.items()))


def _dates(dates: Sequence[str]) -> str:
    """One date, or the first and the last (each paper keeps its own)."""
    if len(dates) == 1:
        return dates[0]
    return f"{dates[0]} to {dates[-1]} (each paper when its last figure was done)"


def header_html(info: RunInfo | None) -> str:
    """The header's facts as a definition list (``dl.meta``)."""
    if info is None or not info.papers:
        rows = [("reproduction", "mode, date, engine and machine not recorded "
                 "(no reproduction.json: a folder from an older reorderlab)")]  # fmt: skip
    else:
        mode = _by_value(info.papers, "mode")
        engines = {k: {"engine": _revision(v["engine"])} for k, v in info.papers.items()}
        rows = [
            ("mode", mode + (" (short runs, fewer seeds)" if mode == "quick" else "")),
            ("date", _dates(info.dates())),
            ("engine", _by_value(engines, "engine")),
            ("machine", info.machine),
        ]
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
    return f'<dl class="meta">{items}</dl>'


@dataclass(frozen=True)
class TocPaper:
    """A paper's entry in the table of contents."""

    key: str
    title: str
    tally: str
    figures: Sequence[tuple[str, str]]  # (figure key, title)


def toc_html(papers: Sequence[TocPaper], sections: Sequence[tuple[str, str]] = ()) -> str:
    """The table of contents: each paper and its figures, then ``sections``
    (anchor, title) of the rest of the page."""
    if not papers and not sections:
        return ""
    items = []
    for p in papers:
        figures = "".join(
            f'<li><a href="#{figure_anchor(p.key, f)}">{_e(f)}</a>'
            + (f": {_e(t)}" if t else "")
            + "</li>"
            for f, t in p.figures
        )
        items.append(
            f'<li><a href="#{paper_anchor(p.key)}">{_e(p.key)}</a>: {_e(p.title)} '
            f'<span class="tally">({_e(p.tally)})</span>'
            + (f"<ol>{figures}</ol>" if figures else "")
            + "</li>"
        )
    items += [f'<li><a href="#{_e(a)}">{_e(t)}</a></li>' for a, t in sections]
    return f'<nav class="toc"><h2>contents</h2><ol>{"".join(items)}</ol></nav>'
