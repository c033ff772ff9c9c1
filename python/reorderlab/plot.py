"""Plots: matplotlib (Agg, no display), each written as PNG and SVG next to a
CSV of exactly the plotted data.

The same plot gives the same bytes every time: matplotlib's SVG otherwise
carries the time of writing (``dc:date``) and ids salted with a random
value per process (``svg.hashsalt``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

__all__ = ["Series", "line_plot"]

#: label -> (x values, y values, optional y error)
Series = Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]]


def line_plot(
    out: str | Path,
    stem: str,
    series: Series,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    logx: bool = False,
    logy: bool = False,
    styles: Mapping[str, str] | None = None,
) -> list[Path]:
    """Draw one line per series; write ``stem.png``, ``stem.svg``, ``stem.csv``.

    The CSV is long-form: ``series, x, y[, yerr]``, one row per plotted point.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    rows: list[dict[str, object]] = []
    for label, (xs, ys, err) in series.items():
        style = (styles or {}).get(label, "o-")
        if err is not None:
            ax.errorbar(list(xs), list(ys), yerr=list(err), fmt=style, label=label, capsize=3)
        else:
            ax.plot(list(xs), list(ys), style, label=label)
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            row: dict[str, object] = {"series": label, "x": x, "y": y}
            if err is not None:
                row["yerr"] = list(err)[i]
            rows.append(row)
    if logx:
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
    if logy:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg", out_dir / f"{stem}.csv"]
    fig.savefig(paths[0], dpi=120)
    with matplotlib.rc_context({"svg.hashsalt": "reorderlab"}):  # ids from the content
        fig.savefig(paths[1], metadata={"Date": None})  # no time of writing
    frame = pd.DataFrame(rows)
    frame.insert(1, "xlabel", xlabel)
    frame.insert(2, "ylabel", ylabel)
    frame.to_csv(paths[2], index=False)
    return paths


def _plain_log_ticks(axis: Axis) -> None:
    """Label a log axis 0.5, 1, 2 rather than 5 x 10^-1."""
    fmt = FuncFormatter(lambda v, _pos: f"{v:g}")
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(FuncFormatter(lambda v, _pos: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
