"""A segment the local stack sent, in the script's numbers, and how it is
compared with the script's expectation.

Both backends hand the interpreter :class:`Seg` values: sequence and
acknowledgment numbers relative to the initial sequence numbers (as the
script writes them), the time in seconds since the script's start.

The comparison (:func:`difference`) follows packetdrill's rules: the
flags, sequence range and acknowledgment number must be equal; the window
too when the script gives one; the options when the script lists them
(``<...>`` accepts any, no list accepts none), the timestamp option's
values excepted (they are the stack's clock).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .model import FLAG_BITS, SegmentSpec, TcpOption, flags_text

PSH_FIN = FLAG_BITS["P"] | FLAG_BITS["F"]


@dataclass(frozen=True)
class Seg:
    """A segment the local stack sent.

    ``win`` is ``None`` where the backend has no receive window (the
    simulator); ``tsval`` is the live TSval, the key the interpreter maps
    the script's TS ecr values to. ``partial``: the backend models neither
    PSH nor the options other than SACK (the simulator): those are not
    compared.
    """

    t: float
    flags: int
    seq: int
    end: int
    ack: int | None
    win: int | None
    options: tuple[TcpOption, ...]
    tsval: int | None = None
    partial: bool = False

    @property
    def length(self) -> int:
        return self.end - self.seq

    def split(self, at: int) -> tuple[Seg, Seg]:
        """The part below ``at`` (without PSH and FIN, which stay on the
        last byte) and the rest, as segmentation offload cuts a large
        segment."""
        head = replace(self, end=at, flags=self.flags & ~PSH_FIN)
        return head, replace(self, seq=at)


def options_text(options: tuple[TcpOption, ...] | None) -> str:
    if options is None:
        return " <...>"
    if not options:
        return ""
    return " <" + ",".join(str(o) for o in options) + ">"


def seg_text(flags: int, seq: int, end: int, ack: int | None, win: int | None) -> str:
    text = f"{flags_text(flags)} {seq}:{end}({end - seq})"
    if ack is not None:
        text += f" ack {ack}"
    if win is not None:
        text += f" win {win}"
    return text


def spec_text(s: SegmentSpec) -> str:
    return f"{s.direction.value} {seg_text(s.flags, s.seq, s.end, s.ack, s.win)}" + options_text(
        s.options
    )


def got_text(g: Seg) -> str:
    return f"> {seg_text(g.flags, g.seq, g.end, g.ack, g.win)}" + options_text(g.options)


def _option_difference(want: TcpOption, got: TcpOption) -> str | None:
    if want.kind != got.kind:
        return f"option {got} where the script has {want}"
    if want.kind == "TS":
        return None  # the stack's clock: not compared (as packetdrill)
    if want != got:
        return f"option {got}, expected {want}"
    return None


def options_difference(
    want: tuple[TcpOption, ...] | None, got: tuple[TcpOption, ...] | None
) -> str | None:
    if want is None or got is None:
        return None
    if len(want) != len(got):
        return f"options{options_text(got) or ' (none)'}, expected{options_text(want) or ' none'}"
    for w, g in zip(want, got, strict=True):
        if (d := _option_difference(w, g)) is not None:
            return d
    return None


def _sack_difference(want: SegmentSpec, got: Seg) -> str | None:
    """A partial backend's options: only the SACK blocks are compared."""
    if want.options is None:
        return None
    w = want.option("sack")
    g = next((o for o in got.options if o.kind == "sack"), None)
    if w == g:
        return None
    return f"{g or 'no SACK'}, expected {w or 'no SACK'}"


def difference(want: SegmentSpec, got: Seg) -> str | None:
    """Why ``got`` is not the segment ``want`` describes (``None``: it is)."""
    # PSH is not compared on data: the kernel sets it where segmentation
    # offload cut its burst (tcp_push, tcp_gso_segment), not by any rule of
    # loss recovery, and the simulator has none
    ignored = FLAG_BITS["P"] if got.partial or want.length > 0 else 0
    if (got.flags ^ want.flags) & ~ignored:
        return f"flags {flags_text(got.flags)}, expected {flags_text(want.flags)}"
    if (got.seq, got.end) != (want.seq, want.end):
        expected = f"{want.seq}:{want.end}({want.length})"
        return f"sequence {got.seq}:{got.end}({got.length}), expected {expected}"
    if want.ack is not None and got.ack != want.ack:
        return f"ack {got.ack}, expected {want.ack}"
    if want.win is not None and got.win is not None and got.win != want.win:
        return f"win {got.win}, expected {want.win}"
    if got.partial:
        return _sack_difference(want, got)
    return options_difference(want.options, got.options)
