"""What the command line prints: tables of flows, registries, league tables
and benchmarks, as plain text (box-drawing characters where the output can
encode them). Not rich: its import alone was a fifth of a ``reorderlab run``
outside the simulation (``reproduce`` still prints its claims with rich)."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from reorderlab.errors import one_line, printable

__all__ = [
    "Output",
    "TextTable",
    "bench_table",
    "console",
    "flow_table",
    "league_table",
    "registry_table",
    "table",
]

#: Characters of the table: vertical, horizontal, then the corners and
#: crossings of the top, middle and bottom rules (left, inner, right).
_BOX = "\u2502\u2500\u250c\u252c\u2510\u251c\u253c\u2524\u2514\u2534\u2518"
_ASCII = "|-+++++++++"


class TextTable:
    """A table of text cells; columns too wide for the output are wrapped."""

    def __init__(self, title: str, columns: Sequence[str]) -> None:
        self.title = one_line(title, None)
        self.columns = [one_line(c, None) for c in columns]
        self.rows: list[list[str]] = []

    def add_column(self, name: str) -> None:
        self.columns.append(one_line(name, None))

    def add_row(self, *cells: str) -> None:
        # escaped before the widths are measured: a user's string (a flow's
        # name) may hold an ANSI sequence, which was printed raw
        self.rows.append([one_line(str(c), None) for c in cells])

    def render(self, width: int, box: str = _BOX) -> str:
        natural = [
            max([len(h), *(len(r[i]) for r in self.rows)]) for i, h in enumerate(self.columns)
        ]
        widths = _fit(natural, width)
        bar, line = box[0], box[1]

        def rule(left: str, inner: str, right: str) -> str:
            return left + inner.join(line * (w + 2) for w in widths) + right

        total = sum(widths) + 3 * len(widths) + 1
        out = [self.title.center(total).rstrip()] if self.title else []
        out.append(rule(*box[2:5]))
        out += _row_lines(self.columns, widths, bar)
        out.append(rule(*box[5:8]))
        for row in self.rows:
            out += _row_lines(row, widths, bar)
        out.append(rule(*box[8:11]))
        return "\n".join(out)


def _fit(natural: list[int], width: int) -> list[int]:
    """Column widths within ``width`` (borders included): the widest
    column gives way first, down to 6 characters."""
    widths = list(natural)
    while sum(widths) + 3 * len(widths) + 1 > width:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= 6:
            break
        widths[widest] -= 1
    return widths


def _row_lines(cells: Sequence[str], widths: Sequence[int], bar: str) -> list[str]:
    """One table row, its cells wrapped to their column's width."""
    wrapped = [textwrap.wrap(c, w) or [""] for c, w in zip(cells, widths, strict=True)]
    out = []
    for k in range(max(len(w) for w in wrapped)):
        pairs = zip(wrapped, widths, strict=True)
        parts = [(w[k] if k < len(w) else "").ljust(n) for w, n in pairs]
        out.append(f"{bar} " + f" {bar} ".join(parts) + f" {bar}")
    return out


class Output:
    """Prints text and tables to stdout."""

    def __init__(self) -> None:
        if sys.stdout.isatty():
            self.width = shutil.get_terminal_size().columns
        else:
            self.width = int(os.environ.get("COLUMNS", "140") or 140)
        encoding = sys.stdout.encoding or "ascii"
        try:
            "".join(_BOX).encode(encoding)
            self.box = _BOX
        except (UnicodeEncodeError, LookupError):
            self.box = _ASCII

    def print(self, item: TextTable | str) -> None:
        text = item.render(self.width, self.box) if isinstance(item, TextTable) else item
        print(printable(text))


def console() -> Output:
    return Output()


def table(title: str, columns: Sequence[str]) -> TextTable:
    return TextTable(title, columns)


def _scaled(value: Any, factor: float, digits: int) -> str:
    """``value * factor`` with ``digits`` decimals; ``-`` for a metric the
    run has no value of (e.g. no RTT sample in a very short run)."""
    try:
        number = float(value) * factor
    except (TypeError, ValueError):
        return "-"
    return "-" if number != number else f"{number:.{digits}f}"  # NaN: no value


def flow_table(result: Any) -> TextTable:
    """Per-flow metrics of a run (:class:`reorderlab.runner.Result`)."""
    title = f"{result.scenario_name}, seed {result.seed}"
    heads = ["flow", "name", "variant", "cc", "Mb/s", "retransmits", "timeouts", "spurious"]
    out = table(title + (" (from the store)" if result.cached else ""), [*heads, "srtt ms"])
    for i, row in enumerate(result.flow_records()):
        out.add_row(
            str(row.get("flow", i)),
            str(row.get("name", "")),
            str(row.get("variant", "")),
            str(row.get("cc", "")),
            _scaled(row.get("throughput_bps"), 1e-6, 4),
            str(row.get("retransmits", "")),
            str(row.get("timeouts", "")),
            str(row.get("spurious_retransmits", "")),
            _scaled(row.get("srtt"), 1000, 2),
        )
    return out


def registry_table(title: str, entries: list[dict[str, Any]], columns: list[str]) -> TextTable:
    out = table(title, columns)
    for entry in entries:
        cells = []
        for col in columns:
            value = entry.get(col, "")
            if isinstance(value, dict):
                value = ", ".join(f"{k}: {v}" for k, v in value.items())
            elif isinstance(value, list):
                value = ", ".join(str(v) for v in value)
            cells.append(str(value))
        out.add_row(*cells)
    return out


def league_table(league: Any) -> TextTable:
    """A compare league table (:func:`reorderlab.league.compare`): mean
    +- 95 % CI over the seeds, cells as :mod:`reorderlab.league_view`
    writes them everywhere."""
    from reorderlab.league_view import heads, row_cells

    finite = league.attrs.get("ranked_by") == "fct_s"
    seeds = len(league.attrs.get("seeds", []))
    title = f"{league.attrs.get('scenario', '')}: {seeds} seed(s), mean +- 95 % CI"
    out = table(title, heads(finite))
    for row in league.to_dict("records"):
        out.add_row(*row_cells(row, finite))
    return out


def phase_table(report: dict[str, Any], fields: Sequence[str]) -> TextTable:
    """One scenario's run, timed phase by phase (``bench --scenario``)."""
    heads = ["scenario", "seed", "build s", "run s", "result s", "JSON s", "JSON MB"]
    title = f"one run, by phase ({report.get('build', '?')} build)"
    out = table(title, [*heads, "events", "events/s", "peak MB"])
    fmt: list[Callable[[Any], str]] = [
        str,
        str,
        *[lambda v: f"{v:.3f}"] * 4,
        lambda v: f"{v:.1f}",
        lambda v: f"{int(v):,}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{v:.1f}",
    ]
    out.add_row(*(f(report.get(k, 0)) for f, k in zip(fmt, fields, strict=True)))
    return out


def bench_table(reports: list[dict[str, Any]], fields: Sequence[str]) -> TextTable:
    """The reference benchmarks' reports, one row each."""
    heads = ["name", "wall s", "sim s", "x realtime", "events", "events/s", "packet-hops/s"]
    builds = sorted({str(r.get("build", "?")) for r in reports})
    out = table(f"reference benchmarks ({', '.join(builds)} build)", [*heads, "peak MB"])
    fmt: list[Callable[[Any], str]] = [
        str,
        lambda v: f"{v:.3f}",
        lambda v: f"{v:g}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{int(v):,}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{v:,.0f}",
        lambda v: f"{v:.1f}",
    ]
    for r in reports:
        out.add_row(*(f(r.get(k, 0)) for f, k in zip(fmt, fields, strict=True)))
    return out
