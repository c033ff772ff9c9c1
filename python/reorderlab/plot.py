"""Plots: matplotlib (Agg, no display), each written as PNG and SVG next to a
CSV of exactly the plotted data.

The same plot gives the same bytes every time: matplotlib's SVG otherwise
carries the time of writing (``dc:date``) and ids salted with a random
value per process (``svg.hashsalt``).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from reorderlab import pool, worker

__all__ = ["CDF_POINTS", "Series", "bar_plot", "cdf_points", "in_background", "line_plot"]

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
    symlogy: bool = False,
    panels: Mapping[str, str] | None = None,
) -> list[Path]:
    """Draw one line per series; write ``stem.png``, ``stem.svg``, ``stem.csv``.

    The CSV is long-form: ``series, x, y[, yerr]``, one row per plotted point.
    It is written at once; inside :func:`in_background`, the PNG and SVG are
    drawn by another process and exist when the block ends.

    ``symlogy``: a y axis logarithmic above 1 and linear below (values
    spanning decades, zero among them). ``panels``: series label -> the
    label of its own y axis, one panel per distinct label, stacked over a
    shared x axis (one quantity per axis); the CSV keeps ``ylabel``. A
    series on top of an earlier one (:func:`coinciding`) is drawn dashed
    with hollow markers over it and says so in the legend, not hidden.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {
        label: (list(xs), list(ys), None if err is None else list(err))
        for label, (xs, ys, err) in series.items()
    }
    rows: list[dict[str, object]] = []
    for label, (xs, ys, err) in data.items():
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            row: dict[str, object] = {"series": label, "x": x, "y": y}
            if err is not None:
                row["yerr"] = err[i]
            rows.append(row)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg", out_dir / f"{stem}.csv"]
    frame = pd.DataFrame(rows)
    frame.insert(1, "xlabel", xlabel)
    frame.insert(2, "ylabel", ylabel)
    frame.to_csv(paths[2], index=False)
    figure = _FigureSpec(
        png=str(paths[0]),
        svg=str(paths[1]),
        series=data,
        xlabel=xlabel,
        ylabel=ylabel,
        title=title,
        logx=logx,
        logy=logy,
        styles=dict(styles or {}),
        symlogy=symlogy,
        panels=dict(panels or {}),
    )
    if _background is not None:
        _background.submit(figure)
    else:
        _draw(figure)
    return paths


#: Most points :func:`cdf_points` keeps of one empirical CDF.
CDF_POINTS = 1000


def cdf_points(
    sample: Sequence[float] | np.ndarray, max_points: int = CDF_POINTS
) -> tuple[list[float], list[float]]:
    """The empirical CDF of ``sample`` as a line to plot: points
    ``(x_(i), i / n)``, ``x_(i)`` the i-th smallest of the ``n`` values,
    at most ``max_points`` of them.

    With ``n <= max_points`` every rank is kept. Otherwise the ranks kept
    are 1, n and ``ceil(j * n / (max_points - 1))`` for j = 1 ..
    max_points - 2: the smallest and the largest value are always there,
    every point kept is exactly a point of the whole CDF (same x, same
    ``i / n``), and two consecutive ones are at most
    ``ceil(n / (max_points - 1)) / n`` apart in y (0.1 % + 1 / n for 1000
    points: below a pixel of a figure here). The CDF is non-decreasing in
    both coordinates, so the line through the points kept stays within
    that distance, vertically, of the line through all n: the same curve
    drawn, from a bounded number of points (a million-sample CDF was a
    169 MB CSV and seconds to pickle and draw). Empty: no points.
    ``max_points`` below 2 is a ``ValueError``."""
    if max_points < 2:
        raise ValueError(f"max_points: must be >= 2, got {max_points}")
    v = np.sort(np.asarray(sample, dtype=float))
    n = len(v)
    if n == 0:
        return [], []
    ranks = np.arange(1, n + 1)
    if n > max_points:
        steps = max_points - 1
        j = np.arange(1, steps + 1)
        ranks = np.unique(np.concatenate(([1], -(-j * n // steps))))
    ys = ranks / n
    return list(v[ranks - 1].tolist()), list(ys.tolist())


@dataclass(frozen=True)
class _FigureSpec:
    """What :func:`_draw` needs (plain data: it may go to another process)."""

    png: str
    svg: str
    series: dict[str, tuple[list[float], list[float], list[float] | None]]
    xlabel: str
    ylabel: str
    title: str
    logx: bool
    logy: bool
    styles: dict[str, str]
    symlogy: bool = False
    panels: dict[str, str] = field(default_factory=dict)


#: Two curves closer than this share of the y axis's span at every point
#: are drawn on top of each other (a few pixels of a figure here).
ON_TOP = 0.01


def coinciding(
    series: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]],
) -> dict[str, str]:
    """Each series drawn on top of an earlier one -> that one's label: the
    same x values, and every y within :data:`ON_TOP` of the span of all
    the y values (equal points included)."""
    ys_all = [float(y) for _, ys, _ in series.values() for y in ys if y == y]
    span = (max(ys_all) - min(ys_all)) if ys_all else 0.0
    same: dict[str, str] = {}
    items = list(series.items())
    for i, (label, (xs, ys, _)) in enumerate(items):
        for other, (oxs, oys, _) in items[:i]:
            if other in same or not len(xs) or list(xs) != list(oxs):
                continue
            if all(abs(float(a) - float(b)) <= ON_TOP * span for a, b in zip(ys, oys, strict=True)):
                same[label] = other
                break
    return same


def _draw(spec: _FigureSpec) -> None:
    """Draw the figure and write its PNG and SVG."""
    names = list(dict.fromkeys(spec.panels.get(label, spec.ylabel) for label in spec.series))
    fig = Figure(figsize=(6.4, 4.4 if len(names) == 1 else 2.0 + 1.9 * len(names)),
                 layout="constrained")  # fmt: skip
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
    panel = {name: ax for name, ax in zip(names, axes, strict=True)}
    same = coinciding(spec.series)
    for label, (xs, ys, err) in spec.series.items():
        ax = panel[spec.panels.get(label, spec.ylabel)]
        style = spec.styles.get(label, "o-")
        extra: dict[str, object] = {}
        if label in same:  # drawn over the curve it equals, and still seen
            style = style.replace("-", "") + "--"
            extra = {"mfc": "none", "ms": 9, "zorder": 3}
            label = f"{label} (on top of {same[label]})"
        if err is not None:
            ax.errorbar(xs, ys, yerr=err, fmt=style, label=label, capsize=3, **extra)
        else:
            ax.plot(xs, ys, style, label=label, **extra)
    for name, ax in panel.items():
        _axes_style(spec, ax, name)
    axes[-1].set_xlabel(spec.xlabel)
    if spec.title:
        axes[0].set_title(spec.title)
    fig.savefig(spec.png, dpi=120)
    # The SVG keeps the layout the PNG's drawing computed: the constrained
    # layout solve is half the cost of a drawing, and would be done again.
    fig.set_layout_engine("none")
    with matplotlib.rc_context({"svg.hashsalt": "reorderlab"}):  # ids from the content
        fig.savefig(spec.svg, metadata={"Date": None})  # no time of writing


#: Processes drawing figures in the background: a figure costs 0.2-0.5 s of
#: CPU and a drawer ~0.7 s to import matplotlib; with two, the figures of
#: runs found in the store are drawn on both cores.
DRAWERS = min(2, os.cpu_count() or 1)


class _Background:
    """Figures drawn by worker processes while the caller goes on."""

    def __init__(self) -> None:
        self._executor: cf.ProcessPoolExecutor | None = None
        self._futures: list[cf.Future[None]] = []

    def submit(self, spec: _FigureSpec) -> None:
        if self._executor is None:
            self._executor = cf.ProcessPoolExecutor(
                DRAWERS,
                mp_context=pool.process_context(),
                # Ctrl-C is the caller's to handle (the block then waits for
                # the figure being drawn and drops the others)
                initializer=worker.ignore_sigint,
            )
        with pool.main_not_reimported():  # (its process starts with the first submit)
            self._futures.append(self._executor.submit(_draw, spec))

    def finish(self, cancel: bool) -> None:
        """Wait for every figure (or cancel those not started); raise the
        first failure."""
        if self._executor is None:
            return
        try:
            if not cancel:
                for future in self._futures:
                    future.result()
        finally:
            self._executor.shutdown(wait=True, cancel_futures=True)


_background: _Background | None = None


@contextlib.contextmanager
def in_background() -> Iterator[None]:
    """Inside this block, :func:`line_plot` writes its CSV at once and hands
    the drawing to :data:`DRAWERS` worker processes: drawing a figure costs
    0.2-0.5 s of CPU here (78 figures in ``reorderlab reproduce --quick``),
    which the simulations' workers can share instead of waiting for it. Every figure
    is written when the block ends (the first failure is raised then). Not
    reentrant across threads: one block at a time.
    """
    global _background
    if _background is not None:  # nested: the outer block waits
        yield
        return
    _background = _Background()
    failed = True
    try:
        yield
        failed = False
    finally:
        background, _background = _background, None
        background.finish(cancel=failed)


def _axes_style(spec: _FigureSpec, ax: Axes, ylabel: str) -> None:
    """Scales, label, grid and legend of one panel."""
    if spec.logx:
        ax.set_xscale("log")
        _plain_log_ticks(ax.xaxis)
    if spec.logy:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
    elif spec.symlogy:
        ax.set_yscale("symlog", linthresh=1.0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend()


def _plain_log_ticks(axis: Axis) -> None:
    """Label a log axis 0.5, 1, 2 rather than 5 x 10^-1."""
    fmt = FuncFormatter(lambda v, _pos: f"{v:g}")
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(FuncFormatter(lambda v, _pos: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def bar_plot(
    out: str | Path,
    stem: str,
    labels: Sequence[str],
    values: Sequence[float],
    errors: Sequence[float],
    *,
    xlabel: str,
    title: str = "",
) -> list[Path]:
    """Horizontal bars, the first label at the top, each with its error
    bar (a NaN error draws none); write ``stem.png`` and ``stem.svg`` (the
    same bytes every time, as :func:`line_plot`'s)."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    height = 1.2 + 0.28 * len(labels)
    fig = Figure(figsize=(7.0, height), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    xerr = [0.0 if e != e else e for e in errors]  # NaN: no error bar
    ax.barh(ys, values, xerr=xerr, color="#4c78a8", ecolor="#222222", capsize=3)
    ax.set_yticks(ys, labels=list(labels))
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.savefig(paths[0], dpi=120)
    fig.set_layout_engine("none")
    with matplotlib.rc_context({"svg.hashsalt": "reorderlab"}):
        fig.savefig(paths[1], metadata={"Date": None})
    return paths
