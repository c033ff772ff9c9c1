"""The data of a run's pictures, taken from a :class:`~reorderlab.Result`:
plain numpy arrays, what :mod:`.tsg`, :mod:`.state` and :mod:`.queue`
draw and what the tests compare with the drawn artists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

__all__ = ["CAUSES", "Result", "Retransmissions", "TsgData", "queue_data", "tsg_data"]


class Result(Protocol):
    """What the pictures read of a run: :class:`reorderlab.runner.Result`
    (named by its members, so that the runner, whose ``plot_tsg`` draws
    with this package, is not imported here)."""

    _data: dict[str, Any]

    @property
    def scenario_name(self) -> str: ...

    @property
    def seed(self) -> int: ...

    def _flow_index(self, flow: int | str) -> int: ...

    def flow(self, flow: int | str = 0) -> dict[str, Any]: ...

    def series(self, flow: int | str = 0) -> dict[str, np.ndarray]: ...

#: Causes of a retransmission as the core names them (``trace_details``).
CAUSES = ("fast", "timeout", "probe")


@dataclass(frozen=True)
class Retransmissions:
    """Retransmissions of one cause: send times, segments, and which of
    them the ground truth calls spurious (the earlier copies were not all
    dropped)."""

    t: np.ndarray
    seq: np.ndarray
    spurious: np.ndarray


@dataclass(frozen=True)
class TsgData:
    """One flow's time-sequence graph, in segment numbers.

    ``new``: first transmissions; ``retx``: retransmissions by cause
    (``"unknown"`` when the run recorded no details); ``acks``: the
    cumulative ACK at each ACK's arrival; ``sack``: SACK blocks
    ``[start, end)`` at their ACK's arrival, ``dsack`` those reporting a
    duplicate (RFC 2883, as the core marks them); ``rwnd``: the receiver
    window, whose right edge (ACK + window) is drawn; ``drops``: copies the
    network dropped, when it dropped them.
    """

    flow: int
    new_t: np.ndarray
    new_seq: np.ndarray
    retx: dict[str, Retransmissions]
    ack_t: np.ndarray
    ack: np.ndarray
    sack_t: np.ndarray
    sack_start: np.ndarray
    sack_end: np.ndarray
    dsack: np.ndarray
    rwnd: int | None
    drop_t: np.ndarray
    drop_seq: np.ndarray
    detailed: bool
    notes: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return len(self.new_t) == 0 and len(self.ack_t) == 0


def _arr(raw: dict[str, object], key: str, dtype: type = float) -> np.ndarray:
    return np.asarray(raw.get(key, []), dtype=dtype)


def _window(t: np.ndarray, window: tuple[float, float] | None) -> np.ndarray:
    """The mask of the times inside ``window`` (all without one)."""
    if window is None:
        return np.ones(len(t), dtype=bool)
    return (t >= window[0]) & (t <= window[1])


def tsg_data(result: Result, flow: int = 0, window: tuple[float, float] | None = None) -> TsgData:
    """The time-sequence graph of ``flow``, within ``window`` (seconds)."""
    index = result._flow_index(flow)
    raw = result._data
    trace = raw.get("traces", {}).get(str(index), {})
    detail = (raw.get("trace_details") or {}).get("flows", {}).get(str(index))
    send_t, send_seq = _arr(trace, "send_t"), _arr(trace, "send_seq", np.int64)
    copy = _arr(trace, "send_copy", np.int64)
    keep = _window(send_t, window)
    first = keep & (copy == 0)
    ack_t, ack = _arr(trace, "ack_t"), _arr(trace, "ack_seq", np.int64)
    keep_ack = _window(ack_t, window)
    ack_t, ack = ack_t[keep_ack], ack[keep_ack]
    if detail is None:
        again = keep & (copy > 0)
        retx = {
            "unknown": Retransmissions(
                send_t[again], send_seq[again], np.zeros(int(again.sum()), dtype=bool)
            )
        }
        empty = np.zeros(0)
        return TsgData(
            index,
            send_t[first],
            send_seq[first],
            retx,
            ack_t,
            ack,
            empty,
            empty.astype(np.int64),
            empty.astype(np.int64),
            empty.astype(bool),
            None,
            empty,
            empty.astype(np.int64),
            detailed=False,
            notes=[
                "no trace details (record.trace_details): causes, SACK blocks, "
                "drops and the receiver window not recorded"
            ],
        )
    return _detailed(index, send_t[first], send_seq[first], ack_t, ack, detail, window)


def _detailed(
    index: int,
    new_t: np.ndarray,
    new_seq: np.ndarray,
    ack_t: np.ndarray,
    ack: np.ndarray,
    detail: dict[str, object],
    window: tuple[float, float] | None,
) -> TsgData:
    rt, rs = _arr(detail, "retx_t"), _arr(detail, "retx_seq", np.int64)
    cause = np.asarray(detail.get("retx_cause", []), dtype=object)
    spurious = _arr(detail, "retx_spurious", bool)
    keep = _window(rt, window)
    retx = {
        c: Retransmissions(
            rt[keep & (cause == c)], rs[keep & (cause == c)], spurious[keep & (cause == c)]
        )
        for c in CAUSES
    }
    st = _arr(detail, "sack_t")
    ss, se = _arr(detail, "sack_start", np.int64), _arr(detail, "sack_end", np.int64)
    keep_s = _window(st, window)
    st, ss, se = st[keep_s], ss[keep_s], se[keep_s]
    dt, ds = _arr(detail, "drop_t"), _arr(detail, "drop_seq", np.int64)
    keep_d = _window(dt, window)
    rwnd = detail.get("rwnd")
    dsack = _arr(detail, "sack_dsack", bool)[keep_s]
    return TsgData(
        index,
        new_t,
        new_seq,
        retx,
        ack_t,
        ack,
        st,
        ss,
        se,
        dsack,
        int(rwnd) if isinstance(rwnd, int) else None,
        dt[keep_d],
        ds[keep_d],
        detailed=True,
    )


@dataclass(frozen=True)
class QueueData:
    """Packets in each link (queued or being sent) at each sample."""

    t: np.ndarray
    links: dict[str, np.ndarray]


def queue_data(result: Result, links: list[str] | None = None) -> QueueData:
    """The links' queues the run sampled (``links``: those only; default:
    every link that ever held a packet)."""
    details = result._data.get("trace_details") or {}
    t = np.asarray(details.get("queue_t", []), dtype=float)
    queues = {
        name: np.asarray(values, dtype=float)
        for name, values in (details.get("queues") or {}).items()
        if (links is None and any(values)) or (links is not None and name in links)
    }
    return QueueData(t, queues)
