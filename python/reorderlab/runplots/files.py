"""Which pictures of a run, named how: ``tsg_flowN.png``,
``cwnd_flowN.png``, ``rtt_flowN.png`` and ``queue.png``, written next to
the run's CSVs (``series_flowN.csv``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure

from reorderlab.runplots.data import Result, queue_data, tsg_data
from reorderlab.runplots.queue import queue_figure
from reorderlab.runplots.state import state_figure
from reorderlab.runplots.tsg import tsg_figure

__all__ = ["KINDS", "NoDataError", "figure_of", "file_name", "write_plots"]

#: The pictures, in the order they are written.
KINDS = ("tsg", "cwnd", "rtt", "queue")

#: What a run must record for each picture (the message of a missing one).
NEEDS = {
    "tsg": "record.trace_window (and record.trace_details for causes, SACK blocks and drops)",
    "cwnd": "record.series with cwnd, ssthresh or pipe",
    "rtt": "record.series with srtt or rto",
    "queue": "record.trace_details with record.series (the queues are sampled with the series)",
}

#: Pixels per inch of the PNGs.
DPI = 110


class NoDataError(ValueError):
    """The run did not record what a picture draws."""


def file_name(kind: str, flow: int) -> str:
    """The file of picture ``kind`` of ``flow`` (the queues are the run's)."""
    return "queue.png" if kind == "queue" else f"{kind}_flow{flow}.png"


def figure_of(
    result: Result, kind: str, flow: int = 0, window: tuple[float, float] | None = None
) -> Figure:
    """Picture ``kind`` of ``flow`` (within ``window`` seconds, for the
    time-sequence graph); :class:`NoDataError` when the run did not record
    its data, naming what to record."""
    index = result._flow_index(flow)
    name = result.flow(index).get("name") or f"flow {index}"
    variant = result.flow(index).get("variant", "")
    title = f"{result.scenario_name}, seed {result.seed}: {name} ({variant})"
    figure: Figure | None
    if kind == "tsg":
        d = tsg_data(result, index, window)
        figure = None if d.empty else tsg_figure(d, f"time-sequence graph, {title}")
    elif kind in ("cwnd", "rtt"):
        what = "cwnd, ssthresh, pipe" if kind == "cwnd" else "RTT and RTO"
        figure = state_figure(result.series(index), kind, f"{what}, {title}")
    elif kind == "queue":
        figure = queue_figure(queue_data(result), f"queues, {result.scenario_name}")
    else:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    if figure is None:
        raise NoDataError(f"{kind}: the run recorded nothing to draw (it needs {NEEDS[kind]})")
    return figure


def write_plots(
    result: Result,
    out: str | Path,
    *,
    flow: int = 0,
    kinds: Sequence[str] = KINDS,
    window: tuple[float, float] | None = None,
) -> tuple[list[Path], list[str]]:
    """Write the pictures ``kinds`` of ``flow`` into ``out``; returns the
    files written and, for each picture the run has no data for, why.
    Asked for one picture only, missing data is a :class:`NoDataError`."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    missing: list[str] = []
    for kind in kinds:
        try:
            figure = figure_of(result, kind, flow, window)
        except NoDataError as exc:
            if len(kinds) == 1:
                raise
            missing.append(str(exc))
            continue
        path = out_dir / file_name(kind, result._flow_index(flow))
        figure.savefig(path, dpi=DPI)
        written.append(path)
    return written, missing
