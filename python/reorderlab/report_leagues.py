"""The report's league tables: every ``reorderlab compare`` result placed in
the results folder (``DIR/compare/NAME/league.csv`` with its ``league.json``
and bar chart), shown after the papers' summary.

Built from those files alone, like the rest of the report; the same files
give the same bytes.
"""

from __future__ import annotations

import csv
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from reorderlab.league_view import heads, row_cells

__all__ = ["League", "LeagueError", "find_leagues", "leagues_html"]

#: Columns every row of a league.csv fills (``reorderlab.league.LEAGUE_COLUMNS``;
#: a number may be empty: the interval of one seed, a share of nothing,
#: shown ``-``).
_NEEDED = ("rank", "variant", "cc")


class LeagueError(ValueError):
    """A league table that cannot be read (the message names the file)."""


@dataclass(frozen=True)
class League:
    """One compare result: its folder (relative to the report), what it is
    (``league.json``) and its rows (``league.csv``)."""

    folder: str
    meta: dict[str, Any]
    rows: list[dict[str, str]]
    chart: bool = False
    svg: bool = False
    files: list[str] = field(default_factory=list)


def find_leagues(out: Path) -> list[League]:
    """Every ``compare/*/league.csv`` under ``out``, sorted by folder name."""
    base = out / "compare"
    if not base.is_dir():
        return []
    # the `latest` link of compare is the same folder again: not shown twice
    found = sorted(base.glob("*/league.csv"))
    return [_league(out, p.parent) for p in found if p.is_file() and not p.parent.is_symlink()]


def _league(out: Path, folder: Path) -> League:
    csv_path = folder / "league.csv"
    try:
        with csv_path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise LeagueError(f"{csv_path}: cannot read: {exc}") from None
    for i, row in enumerate(rows):
        missing = [c for c in _NEEDED if not row.get(c)]
        if missing:
            raise LeagueError(f"{csv_path}: row {i + 1}: no {missing[0]}")
    meta: dict[str, Any] = {}
    meta_path = folder / "league.json"
    if meta_path.is_file():
        try:
            loaded = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LeagueError(f"{meta_path}: cannot read: {exc}") from None
        if isinstance(loaded, dict):
            meta = loaded
    files = sorted(p.name for p in folder.iterdir() if p.suffix in (".csv", ".json", ".svg"))
    return League(
        folder=folder.relative_to(out).as_posix(),
        meta=meta,
        rows=rows,
        chart=(folder / "league.png").is_file(),
        svg=(folder / "league.svg").is_file(),
        files=files,
    )


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _href(*parts: str) -> str:
    return _e(quote("/".join(parts)))


def leagues_html(leagues: Sequence[League]) -> str:
    """The section of every league table (empty without any)."""
    if not leagues:
        return ""
    parts = [
        '<section id="leagues">',
        "<h2>Which sender copes with this network? (<code>reorderlab compare</code>)</h2>",
    ]
    parts += [_league_html(league) for league in leagues]
    parts.append("</section>")
    return "\n".join(parts)


def _league_html(league: League) -> str:
    meta = league.meta
    finite = meta.get("ranked_by") == "fct_s"
    seeds = meta.get("seeds", [])
    rows = [
        "<tr>" + "".join(f"<td>{c}</td>" for c in row_cells(r, finite, "&plusmn;")) + "</tr>"
        for r in ({k: _e(v) for k, v in row.items()} for row in league.rows)
    ]
    ranked = "completion time (lowest first)" if finite else "goodput (highest first)"
    name = meta.get("scenario") or league.folder
    lines = [
        f'<h3 id="league-{_e(league.folder.replace("/", "-"))}">{_e(name)}</h3>',
        f"<p>{len(league.rows)} sender(s), mean over {len(seeds)} seed(s) with its 95 % "
        f"confidence interval, ranked by {ranked}; =N: senders whose intervals overlap "
        "share a rank. Undisturbed: "
        f"{_e(meta.get('undisturbed', 'the scenario without impairments'))}.</p>",
        '<table class="league">',
        "<thead><tr>" + "".join(f"<th>{h}</th>" for h in heads(finite)) + "</tr></thead>",
        "<tbody>",
        *rows,
        "</tbody>",
        "</table>",
    ]
    if league.chart:
        png = _href(league.folder, "league.png")
        target = _href(league.folder, "league.svg") if league.svg else png
        lines.append(
            f'<figure><a href="{target}"><img src="{png}" alt="{_e(name)}: league chart"></a>'
            f"<figcaption>{_e(name)}</figcaption></figure>"
        )
    links = [f'<a href="{_href(league.folder, f)}">{_e(f)}</a>' for f in league.files]
    lines.append("<p>Files: " + ", ".join(links) + "</p>")
    return "\n".join(lines)
