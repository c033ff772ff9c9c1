"""The links' queues over time: packets queued or being sent on each link
that ever held one, sampled with the run's series."""

from __future__ import annotations

from matplotlib.figure import Figure

from reorderlab.runplots.data import QueueData

__all__ = ["queue_figure"]


def queue_figure(d: QueueData, title: str) -> Figure | None:
    """The queue picture; None when the run sampled no queue."""
    if not len(d.t) or not d.links:
        return None
    fig = Figure(figsize=(9.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for name, values in d.links.items():
        (line,) = ax.step(d.t, values, where="post", lw=1.0, label=name)
        line.set_gid(name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets in the link (queued or being sent)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    return fig
