"""The sender's state over time, from the run's series: cwnd, ssthresh
and pipe in one picture (segments), the smoothed RTT and the RTO in
another (milliseconds): one quantity per axis."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["TIME_SERIES", "WINDOW_SERIES", "state_figure"]

#: Series of the window picture (segments) and of the time one (seconds).
WINDOW_SERIES = ("cwnd", "ssthresh", "pipe")
TIME_SERIES = ("srtt", "rto")

#: An ssthresh above this many times the largest cwnd is its initial
#: "infinite" value: left out rather than flattening the picture.
SSTHRESH_CAP = 4.0


def state_figure(series: dict[str, np.ndarray], kind: str, title: str) -> Figure | None:
    """The ``cwnd`` (window) or ``rtt`` (time) picture of one flow's series;
    None when the run recorded none of its series."""
    names = WINDOW_SERIES if kind == "cwnd" else TIME_SERIES
    present = [n for n in names if n in series and len(series[n])]
    if "t" not in series or not present:
        return None
    t = series["t"]
    fig = Figure(figsize=(9.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for name in present:
        values = series[name].astype(float)
        label = name
        if kind == "cwnd" and name == "ssthresh" and "cwnd" in series:
            cap = SSTHRESH_CAP * max(float(np.nanmax(series["cwnd"])), 1.0)
            if (values > cap).any():
                values = np.where(values > cap, np.nan, values)
                label = "ssthresh (its initial, unbounded value not drawn)"
        if kind == "rtt":
            values = values * 1000.0
        (line,) = ax.step(t, values, where="post", lw=1.0, label=label)
        line.set_gid(name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segments" if kind == "cwnd" else "milliseconds")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    return fig
