"""Line figures written as data.

A :class:`LineFigure` is what a line plot shows apart from its points:
file stem, axis labels, title, log axes and line styles. The stem, the
labels and the title may hold ``{fields}`` filled when it is drawn (the mode's seeds and
duration, a panel's number). A figure module declares its plots as
``LineFigure`` s and draws each with the series its table gives, built by
:func:`series_of` (one line per value of a column) or :func:`stat_series`
(one line per curve of a :data:`~reorderlab.papers.kit.summary.Table`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reorderlab.papers.kit.names import artifact_stem
from reorderlab.papers.kit.summary import Table, x_values
from reorderlab.plot import line_plot

__all__ = ["LineFigure", "Lines", "series_of", "stat_series"]

#: Plot series: label -> (xs, ys, error bars or None), in drawing order.
Lines = dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]]


@dataclass(frozen=True)
class LineFigure:
    """One line plot: ``stem.png`` / ``.svg`` / ``.csv``
    (:func:`reorderlab.plot.line_plot`), the stem named by
    :func:`~reorderlab.papers.kit.names.artifact_stem`."""

    stem: str
    xlabel: str
    ylabel: str
    title: str = ""
    logx: bool = False
    logy: bool = False
    styles: Mapping[str, str] | None = None
    #: a y axis logarithmic above 1, linear below (values spanning decades and 0)
    symlogy: bool = False
    #: series label -> the label of its own y axis (one quantity per axis)
    panels: Mapping[str, str] | None = None

    def draw(self, out: Path, series: Mapping[str, Any], **fields: Any) -> list[Path]:
        """Plot ``series`` under ``out``; ``fields`` fill the stem, the
        labels and the title."""

        def fill(text: str) -> str:
            return text.format(**fields) if fields else text

        return line_plot(
            out,
            artifact_stem(fill(self.stem)),
            series,
            xlabel=fill(self.xlabel),
            ylabel=fill(self.ylabel),
            title=fill(self.title),
            logx=self.logx,
            logy=self.logy,
            styles=self.styles,
            symlogy=self.symlogy,
            panels=self.panels,
        )


def series_of(
    table: pd.DataFrame, label: str, x: str, y: str, *, xscale: float = 1.0, yscale: float = 1.0
) -> Lines:
    """One line per value of column ``label``: ``y`` against ``x`` (as
    floats, times their scales), in the table's order."""
    return {
        str(name): (
            list(g[x].astype(float) * xscale),
            list(g[y].astype(float) * yscale),
            None,
        )
        for name, g in table.groupby(label, sort=False)
    }


def stat_series(
    table: Table,
    labels: Iterable[str],
    metric: str,
    *,
    xscale: float = 1.0,
    yscale: float = 1.0,
    key: Callable[[str], str] | None = None,
) -> Lines:
    """One line per label of ``metric`` against x, error bars the sample
    standard deviation over the seeds (none with one seed). A label's curve
    in ``table`` is ``key(label)`` (default: the label itself); a curve
    without points is left out."""
    series: Lines = {}
    for label in labels:
        curve = label if key is None else key(label)
        points = x_values(table, curve)
        if not points:
            continue
        stats = [table[(curve, x)] for x in points]
        ys = [s[metric] * yscale for s in stats]
        err: list[float] | None = None
        if metric in stats[0].sd and all(s.seeds > 1 for s in stats):
            err = [s.sd[metric] * yscale for s in stats]
        series[label] = ([x * xscale for x in points], ys, err)
    return series
