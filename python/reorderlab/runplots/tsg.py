"""The time-sequence graph of one flow, in the style of tcptrace (and of
Wireshark's Stevens graph): time across, segment number up.

* each first transmission is a short vertical bar from its segment to the
  next (tcptrace's segment arrows, without heads);
* each retransmission is marked by its cause (fast retransmit / SACK /
  RACK: red; timeout: orange; tail loss probe: purple), filled when the
  ground truth calls it necessary, hollow when spurious (an earlier copy
  was not lost);
* the cumulative ACK is a green step line, the receive window's right
  edge (ACK + receiver window) a yellow one above it;
* SACK blocks are blue bars at their ACK's time, DSACK blocks magenta;
* copies the network dropped are black crosses at the time of the drop.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from reorderlab.runplots.data import TsgData

__all__ = ["CAUSE_STYLE", "draw_tsg", "tsg_figure"]

#: A retransmission's colour and marker, by cause; and its legend label.
CAUSE_STYLE: dict[str, tuple[str, str, str]] = {
    "fast": ("#d62728", "o", "retransmission: fast / SACK / RACK"),
    "timeout": ("#ff7f0e", "s", "retransmission: timeout"),
    "probe": ("#9467bd", "D", "retransmission: loss probe"),
    "unknown": ("#d62728", "o", "retransmission"),
}


def _bars(t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[list[tuple[float, float]]]:
    return [[(float(x), float(a)), (float(x), float(b))] for x, a, b in zip(t, lo, hi, strict=True)]


def draw_tsg(ax: Axes, d: TsgData) -> None:
    """Draw ``d`` on ``ax``. Each element carries a ``gid`` naming what it
    shows (``segments``, ``acks``, ``rwnd``, ``sack``, ``dsack``, ``drops``,
    ``retx-<cause>``, ``retx-<cause>-spurious``): the tests find them by it."""
    segs = LineCollection(
        _bars(d.new_t, d.new_seq, d.new_seq + 1),
        colors="#222222",
        linewidths=0.8,
        label="data segment",
    )
    segs.set_gid("segments")
    ax.add_collection(segs)
    if len(d.ack_t):
        (acks,) = ax.step(d.ack_t, d.ack, where="post", color="#2ca02c", lw=1.0, label="ACK")
        acks.set_gid("acks")
        if d.rwnd is not None:
            (edge,) = ax.step(
                d.ack_t,
                d.ack + d.rwnd,
                where="post",
                color="#e6b800",
                lw=1.0,
                label=f"receive window ({d.rwnd} segments)",
            )
            edge.set_gid("rwnd")
    for gid, mask, colour, label in (
        ("sack", ~d.dsack, "#1f77b4", "SACK block"),
        ("dsack", d.dsack, "#e377c2", "DSACK block"),
    ):
        if mask.any():
            bars = LineCollection(
                _bars(d.sack_t[mask], d.sack_start[mask], d.sack_end[mask]),
                colors=colour,
                linewidths=2.0,
                alpha=0.6,
                label=label,
            )
            bars.set_gid(gid)
            ax.add_collection(bars)
    _draw_retransmissions(ax, d)
    if len(d.drop_t):
        (drops,) = ax.plot(
            d.drop_t, d.drop_seq + 0.5, "x", color="black", ms=6, label="dropped by the network"
        )
        drops.set_gid("drops")


def _draw_retransmissions(ax: Axes, d: TsgData) -> None:
    for cause, r in d.retx.items():
        colour, marker, label = CAUSE_STYLE[cause]
        for spurious in (False, True):
            mask = r.spurious == spurious
            if not mask.any():
                continue
            face = "none" if spurious else colour
            text = f"{label}, spurious (ground truth)" if spurious else label
            (pts,) = ax.plot(
                r.t[mask],
                r.seq[mask] + 0.5,
                marker,
                color=colour,
                mfc=face,
                ms=6,
                ls="none",
                label=text,
            )
            pts.set_gid(f"retx-{cause}" + ("-spurious" if spurious else ""))


def tsg_figure(d: TsgData, title: str) -> Figure:
    """A figure of the time-sequence graph ``d``."""
    fig = Figure(figsize=(11.0, 6.5), layout="constrained")
    ax = fig.add_subplot()
    draw_tsg(ax, d)
    ax.autoscale_view()
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segment number")
    ax.set_title(title + "".join(f"\n({n})" for n in d.notes), fontsize=10)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", fontsize=8)
    return fig
