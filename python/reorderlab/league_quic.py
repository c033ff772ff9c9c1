"""A QUIC row of a league (:func:`reorderlab.league.compare`): the
scenario's flows, written for TCP senders, made QUIC flows.

A QUIC flow refuses every ``tcp`` field but ``mss`` and ``ack_size`` and
every ``receiver`` field set to other than its default (the core's
``spec/check_quic.rs``: its sender and receiver would ignore them), so a
user who writes them on a QUIC flow by hand hears of it. A league swaps
the sender of flows written for TCP, so it carries over what has a QUIC
counterpart and leaves the rest, and says so in one note line:

* ``tcp.max_window`` (the receiver's window, segments) becomes
  ``quic.max_window``, flow control as a window (RFC 9000 Sec. 4.1): the
  QUIC rows run under the same cap as the TCP rows;
* every other TCP-only field is dropped (the QUIC sender has none of it).
"""

from __future__ import annotations

from typing import Any

from reorderlab._scenario_models import ReceiverSpec, TcpSpec

__all__ = ["QUIC_READS_TCP", "as_quic_flows", "quic_note"]

#: The ``tcp`` fields a QUIC flow reads (``QUIC_READS_TCP`` of the core's
#: ``spec/check_quic.rs``).
QUIC_READS_TCP = frozenset({"mss", "ack_size"})

#: ``tcp`` fields with a QUIC counterpart: carried to ``quic.<name>``.
CARRIED = {"max_window": "max_window"}


def _set_fields(
    section: dict[str, Any], default: dict[str, Any], reads: frozenset[str]
) -> list[str]:
    """The fields of ``section`` outside ``reads`` whose value is not the
    default (those the QUIC refusal names)."""
    return [k for k, v in section.items() if k not in reads and default.get(k) != v]


def as_quic_flows(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Make every flow of scenario ``data`` (a plain dict, changed in place)
    fit a QUIC sender: the carried ``tcp`` fields moved to ``quic`` (a
    ``quic`` value the flow already has stays), the other fields a QUIC
    flow refuses removed. Returns the carried and the dropped field paths
    (``tcp.max_window``, ``receiver.sack``), sorted."""
    tcp_default = TcpSpec().model_dump(mode="json", exclude_none=True)
    rcv_default = ReceiverSpec().model_dump(mode="json", exclude_none=True)
    carried: set[str] = set()
    dropped: set[str] = set()
    for flow in data.get("flows", []):
        tcp = flow.get("tcp", {})
        for k in _set_fields(tcp, tcp_default, QUIC_READS_TCP):
            value = tcp.pop(k)
            if k in CARRIED:
                flow.setdefault("quic", {}).setdefault(CARRIED[k], value)
                carried.add(f"tcp.{k}")
            else:
                dropped.add(f"tcp.{k}")
        receiver = flow.get("receiver", {})
        for k in _set_fields(receiver, rcv_default, frozenset()):
            receiver.pop(k)
            dropped.add(f"receiver.{k}")
    return sorted(carried), sorted(dropped)


def quic_note(carried: list[str], dropped: list[str]) -> str | None:
    """The league's note on what its QUIC rows made of the TCP fields;
    None when nothing was carried or dropped."""
    parts = [f"{p} carried to quic.{p.split('.', 1)[1]}" for p in carried]
    if dropped:
        parts.append(f"{', '.join(dropped)} not used by QUIC")
    return f"QUIC rows: {'; '.join(parts)}" if parts else None
