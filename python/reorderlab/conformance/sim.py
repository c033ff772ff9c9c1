"""The simulator backend: a script played against the simulated sender.

One simulated connection (``reorderlab._core.Harness``: the sender of a
variant, ``Linux`` by default, and its receiver) stands for the local
socket; the script's inbound segments are handed to it at their times in
simulated time, and what it sends is read back with its time.

The simulator counts whole segments; the script counts bytes. The local
end's segment size is the peer's MSS (its SYN's ``mss`` option, 536 when
absent, at most 1460) less the 12 bytes of the timestamp option when both
ends use timestamps (``tcp_sync_mss``/``tcp_mss_to_mtu`` in
``net/ipv4/tcp_output.c``); local segment ``k`` is bytes
``1 + k*S .. 1 + (k+1)*S`` (the SYN takes sequence number 0). The peer's
data is counted in the size of its first data segment. A write, an ACK or a
SACK block that is not a whole number of segments is an error naming it.

What the model has no notion of is not compared: the receive window,
the PSH flag, the TCP options of the local end's segments other than the
SACK blocks of its ACKs (:class:`~reorderlab.conformance.segment.Seg`'s
``partial``). The handshake's third segment (the ACK of a SYN-ACK, for an
active open) is the one segment the backend writes itself: the model's
handshake has no such ACK. ``close()`` sends no FIN (the model has none).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .backend import BackendError
from .model import FLAG_BITS, Command, SegmentSpec, Syscall, TcpOption
from .segment import Seg, got_text, spec_text
from .sysctls import read_command, sim_settings

NS = 1_000_000_000
NS_PER_MS = 1_000_000
#: Default MSS without the option (RFC 9293 Sec. 3.7.1) and the largest
#: one on a 1500-byte path.
DEFAULT_MSS = 536
MAX_MSS = 1460
TS_OPTION_BYTES = 12
#: Linux's minimum delayed-ACK time (TCP_DELACK_MIN, include/net/tcp.h).
DELACK_MIN = 0.04
#: SACK blocks in an ACK that also carries timestamps (RFC 2018 Sec. 3).
SACK_BLOCKS_WITH_TS = 3
SACK_BLOCKS = 4

_ACK = FLAG_BITS["."]
_SYN = FLAG_BITS["S"]
_PSH = FLAG_BITS["P"]
_RST = FLAG_BITS["R"]
_FIN = FLAG_BITS["F"]


def scenario_json(variant: str, settings: dict[str, str], timestamps: bool = True) -> str:
    """The one-flow scenario of the connection under the kernel settings
    ``settings`` (:func:`~reorderlab.conformance.sysctls.sim_settings`)."""
    for name in ("tcp_sack", "tcp_dsack", "tcp_timestamps", "tcp_window_scaling"):
        if settings[name] != "1":
            raise BackendError(
                f"net.ipv4.{name}={settings[name]}: the simulator's sender has it on"
            )
    if settings["tcp_slow_start_after_idle"] not in ("0", "1"):
        raise BackendError("net.ipv4.tcp_slow_start_after_idle must be 0 or 1")
    tcp: dict[str, Any] = {
        "syn": True,
        "min_rto": int(settings["tcp_rto_min_us"]) / 1e6,
        "max_rto": int(settings["tcp_rto_max_ms"]) / 1e3,
    }
    if settings["tcp_reordering"] != "3":
        tcp["dupthresh"] = int(settings["tcp_reordering"])
    flow = {
        "src": "S1",
        "dst": "D",
        "variant": variant,
        "cc": settings["tcp_congestion_control"],
        "tcp": tcp,
        "receiver": {
            "delayed_ack": "quickack",
            "delack_timeout": DELACK_MIN,
            "max_sack_blocks": SACK_BLOCKS_WITH_TS if timestamps else SACK_BLOCKS,
        },
    }
    scenario = {
        "duration": 3600,
        "topology": {"kind": "chain", "bottleneck_rate": 1e9, "bottleneck_delay": 0.01},
        "flows": [flow],
    }
    return json.dumps(scenario)


class SimBackend:
    """The simulator's connection behind the script (module docstring)."""

    name = "sim"

    def __init__(self, script_dir: Path, variant: str = "Linux") -> None:
        self.script_dir = script_dir
        self.variant = variant
        self.sysctls: dict[str, str] = {}
        self.harness: Any = None
        self.queue: list[Seg] = []
        #: every segment in and out, in script notation (``--trace``)
        self.trace: list[str] = []
        self.seg_size: int | None = None
        self.peer_size: int | None = None
        self.peer_ts = False
        self.passive = False
        self.established = False
        self.nonblocking = False
        #: TSval (ms) -> the send time (ns) it stands for
        self.ts_sent: dict[int, int] = {}
        self.snd_nxt = 1  # bytes: after the local SYN
        self.rcv_nxt = 1  # bytes of the peer's: after its SYN

    # -- set-up ---------------------------------------------------------------

    def command(self, cmd: Command) -> None:
        if self.harness is not None:
            raise BackendError(
                f"{cmd.pos}: the simulator reads sysctls only before the connection opens"
            )
        self.sysctls.update(read_command(cmd, self.script_dir))

    def _build(self) -> Any:
        if self.harness is None:
            from reorderlab._core import Harness

            settings = sim_settings(self.sysctls, lambda name: name)
            try:
                ts = self.peer_ts or not self.passive
                self.harness = Harness(scenario_json(self.variant, settings, ts), ts)
            except ValueError as exc:
                raise BackendError(f"the simulator cannot build the connection: {exc}") from None
        return self.harness

    def begin(self) -> None:
        pass

    # -- time -----------------------------------------------------------------

    def now(self) -> float:
        return 0.0 if self.harness is None else float(self.harness.now()) / NS

    def _advance(self, to_ns: int) -> None:
        try:
            self.harness.advance(to_ns)
        except RuntimeError as exc:
            raise BackendError(str(exc)) from None
        self._collect()

    def wait(self, t: float) -> None:
        if self.harness is not None:
            self._advance(max(round(t * NS), self.harness.now()))

    def outbound(self, deadline: float) -> Seg | None:
        h = self.harness
        if h is None:
            return None
        end = round(deadline * NS)
        while not self.queue:
            nd = h.next_deadline()
            if nd is None or nd > end:
                self._advance(max(end, h.now()))
                break
            self._advance(nd)
        return self.queue.pop(0) if self.queue else None

    # -- segments out -----------------------------------------------------------

    def _collect(self) -> None:
        for at, _from, kind, seq, _copy, ts, sack in self.harness.take_sent():
            seg = self._seg(float(at) / NS, kind, seq, ts, sack)
            self.trace.append(f"{seg.t:.6f} {got_text(seg)}")
            self.queue.append(seg)

    def _tsval(self, ts_ns: int) -> int:
        """The TSval of a segment sent at ``ts_ns``: a 1 ms clock, the
        kernel's (``tcp_time_stamp_ts``), remembered for the echo."""
        ms = ts_ns // NS_PER_MS
        self.ts_sent.setdefault(ms, ts_ns)
        return ms

    def _seg(self, t: float, kind: str, seq: int, ts_ns: int, sack: list[tuple[int, int]]) -> Seg:
        ts = self._tsval(ts_ns) if kind != "ack" else 0
        if kind in ("syn", "synack"):
            flags = _SYN | (_ACK if self.passive else 0)
            return Seg(t, flags, 0, 0, 1 if self.passive else None, None, (), ts, partial=True)
        if kind == "data":
            s = self._size()
            start = 1 + seq * s
            self.snd_nxt = max(self.snd_nxt, start + s)
            return Seg(t, _ACK, start, start + s, self.rcv_nxt, None, (), ts, partial=True)
        # an ACK of the receiver: cumulative ACK `seq` of the peer's segments
        p = self.peer_size or 1
        self.rcv_nxt = max(self.rcv_nxt, 1 + seq * p)
        blocks = tuple((1 + a * p, 1 + b * p) for a, b in sack)
        opts = (TcpOption("sack", blocks=blocks),) if blocks else ()
        return Seg(t, _ACK, self.snd_nxt, self.snd_nxt, 1 + seq * p, None, opts, None, partial=True)

    def _size(self) -> int:
        if self.seg_size is None:
            raise BackendError(
                "the segment size is not known yet (no SYN from the peer with its MSS)"
            )
        return self.seg_size

    # -- segments in ----------------------------------------------------------

    def _learn_syn(self, spec: SegmentSpec) -> None:
        mss = spec.option("mss")
        size = min(mss.value if mss is not None and mss.value else DEFAULT_MSS, MAX_MSS)
        self.peer_ts = spec.option("TS") is not None
        self.seg_size = size - (TS_OPTION_BYTES if self.peer_ts else 0)

    def _segments(self, nbytes: int, size: int, what: str) -> int:
        if nbytes % size:
            raise BackendError(
                f"{what}: {nbytes} bytes is not a whole number of {size}-byte segments"
            )
        return nbytes // size

    def _local(self, byte: int, what: str) -> int:
        return self._segments(byte - 1, self._size(), what)

    def inject(self, spec: SegmentSpec, ecr: int | None) -> None:
        self.trace.append(f"{self.now():.6f} {spec_text(spec)}")
        flags = spec.flags
        if flags & (_RST | _FIN):
            raise BackendError("the simulator models no RST or FIN from the peer")
        if flags & _SYN and not flags & _ACK:  # the peer opens: our SYN-ACK
            self.passive = True
            self._learn_syn(spec)
            self._build().open()
            self._collect()
            return
        h = self.harness
        if h is None:
            raise BackendError("a segment before the connection exists (no SYN, no connect)")
        if flags & _SYN:  # the SYN-ACK to our SYN: the handshake's ACK is ours
            self._learn_syn(spec)
            h.handshake_done()
            self.established = True
            ack = Seg(self.now(), _ACK, 1, 1, 1, None, (), None, partial=True)
            self.trace.append(f"{ack.t:.6f} {got_text(ack)}")
            self.queue.append(ack)
            self._collect()
            return
        if not self.established:  # the ACK of our SYN-ACK
            h.handshake_done()
            self.established = True
            if spec.length == 0:
                self._collect()
                return
        if spec.length > 0:
            self._data(spec)
        if spec.ack is not None and (spec.length == 0 or spec.ack > 1):
            self._ack(spec, ecr)
        self._collect()

    def _data(self, spec: SegmentSpec) -> None:
        if self.peer_size is None:
            self.peer_size = spec.length
        p = self.peer_size
        first = self._segments(spec.seq - 1, p, f"{spec.pos}: peer data at {spec.seq}")
        count = self._segments(spec.length, p, f"{spec.pos}: peer data length")
        ts = spec.option("TS")
        for k in range(count):
            self.harness.data(first + k, ts.value if ts is not None and ts.value else 0)

    def _ack(self, spec: SegmentSpec, ecr: int | None) -> None:
        assert spec.ack is not None
        where = f"{spec.pos}"
        ack = self._local(spec.ack, f"{where}: ack {spec.ack}")
        blocks: list[tuple[int, int]] = []
        sack = spec.option("sack")
        for a, b in sack.blocks if sack is not None else ():
            blocks.append(
                (self._local(a, f"{where}: SACK {a}"), self._local(b, f"{where}: SACK {b}"))
            )
        echo = self.ts_sent.get(ecr, ecr * NS_PER_MS) if ecr else 0
        self.harness.ack(ack, blocks, echo)

    # -- socket calls ---------------------------------------------------------

    def syscall(self, call: Syscall) -> tuple[int, str | None]:
        name = call.name
        if name == "socket":
            return (call.result if call.result is not None else 3), None
        if name == "fcntl":
            return self._fcntl(call), None
        if name == "connect":
            self._build().open()
            self._collect()
            return (-1, "EINPROGRESS") if self.nonblocking else (0, None)
        if name == "accept":
            if not self.established:
                raise BackendError("accept() would block: no connection is established yet")
            return (call.result if call.result is not None else 4), None
        if name == "write":
            n = call.args[2].int_value() if len(call.args) > 2 else None
            if n is None:
                raise BackendError("write() needs a byte count")
            if self.harness is None or not self.established:
                raise BackendError("write() before the connection is established")
            self.harness.write(self._segments(n, self._size(), f"{call.pos}: write of {n}"))
            self._collect()
            return n, None
        return 0, None  # setsockopt, bind, listen, close: nothing the model has

    def _fcntl(self, call: Syscall) -> int:
        cmd = str(call.args[1]) if len(call.args) > 1 else ""
        if cmd == "F_SETFL":
            self.nonblocking = "O_NONBLOCK" in str(call.args[2])
            return 0
        if cmd == "F_GETFL":
            return 0x2 | (0x800 if self.nonblocking else 0)
        raise BackendError(f"fcntl {cmd} is not supported")

    def info(self) -> dict[str, int]:
        if self.harness is None:
            raise BackendError("no connection to read tcp_info from")
        return {k: int(v) for k, v in self.harness.info().items()}
