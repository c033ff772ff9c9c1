"""The script model: what a parsed packetdrill script is, as plain data.

A script is an optional list of command-line style options (``--name=value``
lines at its top), then timed events. Each event has a time
(:class:`EventTime`) and one action: a segment the remote peer sends
(``<``) or the local stack must send (``>``) (:class:`SegmentSpec`), a
socket call (:class:`Syscall`), a shell command in back quotes
(:class:`Command`, of which the suite uses ``sysctl`` lines), or a block of
assertions on ``struct tcp_info`` (:class:`AssertBlock`).

Sequence numbers, acknowledgment numbers and SACK blocks are the script's
own (relative to each side's initial sequence number, as packetdrill writes
them); times are seconds. Every element keeps its place in the file
(:class:`Pos`) for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True)
class Pos:
    """A place in a script file (1-based line and column)."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


class ScriptError(ValueError):
    """A malformed script: ``str()`` is one line, ``file:line:column: what``."""

    def __init__(self, pos: Pos, message: str) -> None:
        super().__init__(f"{pos}: {message}")
        self.pos = pos
        self.message = message


class TimeKind(Enum):
    """How an event's time is given."""

    ABSOLUTE = "absolute"  # 0.100: seconds since the script's start
    RELATIVE = "relative"  # +0.100: seconds after the previous event
    ANY = "any"  # *: whenever it happens


@dataclass(frozen=True)
class EventTime:
    """``t``, ``+t``, ``*``, ``t1~t2`` or ``+t1~+t2`` (a range: the event may
    happen at any time between the two)."""

    kind: TimeKind
    start: float = 0.0
    end: float | None = None

    def __str__(self) -> str:
        if self.kind is TimeKind.ANY:
            return "*"
        sign = "+" if self.kind is TimeKind.RELATIVE else ""
        text = f"{sign}{self.start:g}"
        if self.end is not None:
            text += f"~{sign}{self.end:g}"
        return text


class Direction(Enum):
    INBOUND = "<"  # the remote peer (the script) sends it
    OUTBOUND = ">"  # the local stack must send it


@dataclass(frozen=True)
class TcpOption:
    """One TCP option as a script writes it: ``nop``, ``eol``, ``mss N``,
    ``wscale N``, ``sackOK``, ``sack a:b c:d``, ``TS val V ecr E``."""

    kind: str
    value: int | None = None
    blocks: tuple[tuple[int, int], ...] = ()
    ecr: int | None = None

    def __str__(self) -> str:
        if self.kind in ("mss", "wscale"):
            return f"{self.kind} {self.value}"
        if self.kind == "sack":
            return "sack " + " ".join(f"{a}:{b}" for a, b in self.blocks)
        if self.kind == "TS":
            return f"TS val {self.value} ecr {self.ecr}"
        return self.kind


#: TCP flag letters in packetdrill's notation and their header bits.
FLAG_BITS: dict[str, int] = {
    "F": 0x01,
    "S": 0x02,
    "R": 0x04,
    "P": 0x08,
    ".": 0x10,
    "U": 0x20,
    "E": 0x40,
    "W": 0x80,
}
#: The order flags are written in (``S.``, ``FP.``, ``R.``).
FLAG_ORDER = "FSRPUEW."


def flags_text(bits: int) -> str:
    """Header bits in packetdrill's notation (``.`` is ACK; ``-`` none)."""
    text = "".join(c for c in FLAG_ORDER if bits & FLAG_BITS[c])
    return text or "-"


@dataclass(frozen=True)
class SegmentSpec:
    """A TCP segment in a script: ``< S. 0:0(0) ack 1 win 65535 <mss 1460>``.

    ``ack`` and ``win`` are ``None`` when the script leaves them out (an
    outbound window left out is not checked); ``options`` is ``None`` for
    ``<...>`` (any options), ``()`` when the script gives none.
    """

    direction: Direction
    flags: int
    seq: int
    end: int
    length: int
    ack: int | None
    win: int | None
    options: tuple[TcpOption, ...] | None
    pos: Pos

    @property
    def inbound(self) -> bool:
        return self.direction is Direction.INBOUND

    def option(self, kind: str) -> TcpOption | None:
        for o in self.options or ():
            if o.kind == kind:
                return o
        return None


@dataclass(frozen=True)
class Expr:
    """A socket call's argument: ``...`` (``kind = "ellipsis"``), an integer,
    a symbol (``SOCK_STREAM``, ``O_RDWR|O_NONBLOCK``), an array (``[1]``), a
    string or anything in braces (kept as text)."""

    kind: str  # "ellipsis" | "int" | "symbol" | "array" | "string" | "struct"
    value: int | str | tuple[Expr, ...] | None = None
    pos: Pos | None = None

    def int_value(self) -> int | None:
        if self.kind == "int" and isinstance(self.value, int):
            return self.value
        if self.kind == "array" and isinstance(self.value, tuple) and len(self.value) == 1:
            return self.value[0].int_value()
        return None

    def __str__(self) -> str:
        if self.kind == "ellipsis":
            return "..."
        if self.kind == "array" and isinstance(self.value, tuple):
            return "[" + ", ".join(str(v) for v in self.value) + "]"
        if self.kind == "string":
            return f'"{self.value}"'
        return str(self.value)


@dataclass(frozen=True)
class Syscall:
    """``write(4, ..., 1000) = 1000``; ``connect(3, ..., ...) = -1 EINPROGRESS
    (Operation now in progress)``. ``end`` is the end time of a call that
    blocks (``0.1...0.2 accept(...)``), seconds from the call's start."""

    name: str
    args: tuple[Expr, ...]
    result: int | None  # None: "= ..." (any)
    errno: str | None
    pos: Pos
    end: float | None = None

    def __str__(self) -> str:
        args = ", ".join(str(a) for a in self.args)
        res = "..." if self.result is None else str(self.result)
        tail = f" {self.errno}" if self.errno else ""
        return f"{self.name}({args}) = {res}{tail}"


@dataclass(frozen=True)
class Command:
    """A shell command in back quotes, run before the events or between
    them (packetdrill's preamble: ``sysctl -q net.ipv4.tcp_sack=1``)."""

    text: str
    pos: Pos


@dataclass(frozen=True)
class Check:
    """One ``assert FIELD OP VALUE`` of a ``%{ }%`` block; ``field`` is the
    name without ``tcpi_`` (``snd_cwnd``, ``ca_state``); ``value`` an
    integer or another field's name."""

    field: str
    op: str
    value: int | str
    pos: Pos
    text: str

    def holds(self, info: dict[str, int]) -> bool:
        left = info[self.field]
        right = info[self.value] if isinstance(self.value, str) else self.value
        return {
            "==": left == right,
            "!=": left != right,
            "<": left < right,
            "<=": left <= right,
            ">": left > right,
            ">=": left >= right,
        }[self.op]


@dataclass(frozen=True)
class AssertBlock:
    """A ``%{ ... }%`` block of ``assert`` lines."""

    checks: tuple[Check, ...]
    pos: Pos


Action = SegmentSpec | Syscall | Command | AssertBlock


@dataclass(frozen=True)
class Event:
    time: EventTime
    action: Action
    pos: Pos


@dataclass
class Script:
    """A whole script: its options (``--tolerance_usecs=8000``), the
    expected outcome on each backend (``// xfail-sim: reason`` lines), and
    its events in file order."""

    path: str
    options: dict[str, str] = field(default_factory=dict)
    #: commands without a time before the first event (and after the last)
    preamble: list[Command] = field(default_factory=list)
    cleanup: list[Command] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    #: backend -> why this script is known to fail there (``// xfail-BACKEND:``)
    xfail: dict[str, str] = field(default_factory=dict)
    #: the first comment lines: the rule the script checks
    header: str = ""
