"""The first packet where the kernel and the simulator differ.

Both sides write a pcap of the sender's view: the emulator what it read
from and wrote to the sender's TUN device (``sender.pcap``), the simulator
its tap at the sender's end of ``S1->R1`` (``record.pcap``, ``ingress``).
Both carry real TCP sequence numbers (the simulator maps segment ``s`` to
bytes ``ISN + 1 + s * payload``), so each side's data transmissions become
(time since the SYN, segment number, first transmission or not), and the
k-th transmission of one side is compared with the k-th of the other:

* a different segment, or a retransmission on one side and a first
  transmission on the other: a difference of **content**;
* the same segment more than ``tolerance`` apart in time: a difference of
  **time**. The tolerance is max(1 ms, RTT / 10) plus 1 % of the time
  since the SYN (the kernel's path adds tens of microseconds per round
  trip, which add up over a bulk flow).

The report names the transmission (index, segment, time on each side) and
the last ACK each side had received before it (cumulative ACK and SACK
blocks in segments), which is usually what explains it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reorderlab.pcap import PcapError, TcpPacket, read_pcap


@dataclass(frozen=True)
class Ack:
    t: float
    ack: int
    sack: tuple[tuple[int, int], ...]

    def text(self) -> str:
        blocks = " ".join(f"{a}-{b - 1}" for a, b in self.sack)
        return (
            f"ack {self.ack}"
            + (f" sack {blocks}" if blocks else "")
            + f" at {self.t * 1000:.3f} ms"
        )


@dataclass(frozen=True)
class Tx:
    """One data transmission: time since the SYN (s), segment, retransmission."""

    t: float
    seg: int
    retrans: bool
    last_ack: Ack | None

    def text(self) -> str:
        kind = "retransmission of" if self.retrans else "segment"
        before = f" (after {self.last_ack.text()})" if self.last_ack else ""
        return f"{kind} {self.seg} at {self.t * 1000:.3f} ms{before}"


def _packets(path: Path) -> list[TcpPacket]:
    """Every TCP packet of a capture; a record that does not decode ends the
    list there (the emulator's capture may end with a cut record)."""
    out: list[TcpPacket] = []
    try:
        for p in read_pcap(path):
            out.append(p)
    except PcapError:
        pass
    return out


def transmissions(path: Path) -> list[Tx]:
    """The data transmissions of the first connection in ``path``, in order."""
    pkts = _packets(path)
    syn = next((p for p in pkts if p.syn and not p.has_ack), None)
    if syn is None:
        return []
    sender, isn, t0 = syn.src, syn.seq, syn.time_ns
    size = next((p.payload for p in pkts if p.src == sender and p.payload > 0), 0)
    if size == 0:
        return []

    def seg(byte: int) -> int:
        return ((byte - isn - 1) % (1 << 32)) // size

    out: list[Tx] = []
    seen: set[int] = set()
    last: Ack | None = None
    for p in pkts:
        t = (p.time_ns - t0) / 1e9
        if p.src != sender:
            if p.has_ack and not p.syn:
                blocks = tuple((seg(a), seg(b)) for a, b in p.options.get("sack", []))
                last = Ack(t, seg(p.ack), blocks)
            continue
        if p.payload <= 0:
            continue
        s = seg(p.seq)
        out.append(Tx(t, s, s in seen, last))
        seen.add(s)
    return out


@dataclass(frozen=True)
class FirstDifference:
    index: int
    reason: str
    kernel: Tx | None
    sim: Tx | None
    tolerance_ms: float

    def text(self) -> str:
        k = self.kernel.text() if self.kernel else "nothing"
        s = self.sim.text() if self.sim else "nothing"
        return f"transmission {self.index}: {self.reason}: kernel {k}; simulator {s}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["text"] = self.text()
        return d


def first_difference(kernel: list[Tx], sim: list[Tx], rtt: float) -> FirstDifference | None:
    """The first transmission where the two lists differ (None: they agree
    as far as both go and have the same length)."""
    base = max(0.001, rtt / 10)
    for i, (k, s) in enumerate(zip(kernel, sim, strict=False)):
        tol = base + 0.01 * max(k.t, s.t)
        if k.seg != s.seg or k.retrans != s.retrans:
            return FirstDifference(i, "different segment", k, s, tol * 1000)
        if abs(k.t - s.t) > tol:
            return FirstDifference(i, f"sent {(s.t - k.t) * 1000:+.3f} ms apart", k, s, tol * 1000)
    n = min(len(kernel), len(sim))
    if len(kernel) != len(sim):
        kx = kernel[n] if n < len(kernel) else None
        sx = sim[n] if n < len(sim) else None
        return FirstDifference(n, "one side sent more", kx, sx, base * 1000)
    return None


def wire_fct(folder: Path, segments: int) -> float | None:
    """A finite flow's completion time on the wire, as the simulator counts
    it: from the SYN the sender's kernel sent (``sender.pcap``) to the
    moment the last of its ``segments`` first reached the receiver's device
    (``receiver.pcap``); None if it never did. (The receiving program's
    own clock, which ``emulate`` reports as ``fct``, adds its wake-up.)"""
    sent = _packets(folder / "sender.pcap")
    syn = next((p for p in sent if p.syn and not p.has_ack), None)
    if syn is None:
        return None
    got: set[int] = set()
    size = 0
    for p in _packets(folder / "receiver.pcap"):
        if p.src != syn.src or p.payload <= 0:
            continue
        size = size or p.payload
        got.add(((p.seq - syn.seq - 1) % (1 << 32)) // size)
        if len(got) >= segments:
            return (p.time_ns - syn.time_ns) / 1e9
    return None
