"""IPv4 / TCP packets as bytes, for the kernel backend's TUN device.

:func:`build` makes the bytes of an inbound segment (the IPv4 header and
checksum, RFC 791; the TCP header, its options and checksum over the
pseudo-header, RFC 9293 Sec. 3.1); :func:`parse` reads an outbound one.
Options are written in the script's order, padded with EOL to a multiple
of four bytes (RFC 9293 Sec. 3.1: kinds 0 EOL, 1 NOP, 2 MSS; RFC 7323:
3 window scale, 8 timestamps; RFC 2018: 4 SACK-permitted, 5 SACK).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .model import TcpOption

IPPROTO_TCP = 6
_KIND = {"eol": 0, "nop": 1, "mss": 2, "wscale": 3, "sackOK": 4, "sack": 5, "TS": 8}


@dataclass(frozen=True)
class Wire:
    """A TCP segment's fields as sent (live sequence numbers)."""

    src: str
    dst: str
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int
    win: int
    options: tuple[TcpOption, ...]
    payload_len: int


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _addr(text: str) -> bytes:
    return bytes(int(x) for x in text.split("."))


def encode_options(options: tuple[TcpOption, ...]) -> bytes:
    out = bytearray()
    for o in options:
        kind = _KIND[o.kind]
        if o.kind in ("eol", "nop"):
            out.append(kind)
        elif o.kind == "mss":
            out += struct.pack("!BBH", kind, 4, o.value or 0)
        elif o.kind == "wscale":
            out += struct.pack("!BBB", kind, 3, o.value or 0)
        elif o.kind == "sackOK":
            out += struct.pack("!BB", kind, 2)
        elif o.kind == "sack":
            out += struct.pack("!BB", kind, 2 + 8 * len(o.blocks))
            for a, b in o.blocks:
                out += struct.pack("!II", a % (1 << 32), b % (1 << 32))
        else:  # TS
            out += struct.pack(
                "!BBII", kind, 10, (o.value or 0) % (1 << 32), (o.ecr or 0) % (1 << 32)
            )
    while len(out) % 4:
        out.append(0)
    return bytes(out)


def decode_options(data: bytes) -> tuple[TcpOption, ...]:
    out: list[TcpOption] = []
    i = 0
    while i < len(data):
        kind = data[i]
        if kind == 0:
            break  # EOL: the rest is padding
        if kind == 1:
            out.append(TcpOption("nop"))
            i += 1
            continue
        if i + 1 >= len(data) or data[i + 1] < 2:
            break
        length = data[i + 1]
        body = data[i + 2 : i + length]
        if kind == 2 and length == 4:
            out.append(TcpOption("mss", struct.unpack("!H", body)[0]))
        elif kind == 3 and length == 3:
            out.append(TcpOption("wscale", body[0]))
        elif kind == 4 and length == 2:
            out.append(TcpOption("sackOK"))
        elif kind == 5:
            pairs = struct.unpack(f"!{len(body) // 4}I", body[: len(body) // 8 * 8])
            out.append(TcpOption("sack", blocks=tuple(zip(pairs[::2], pairs[1::2], strict=True))))
        elif kind == 8 and length == 10:
            val, ecr = struct.unpack("!II", body)
            out.append(TcpOption("TS", val, ecr=ecr))
        else:
            out.append(TcpOption(f"kind{kind}"))
        i += length
    return tuple(out)


def build(w: Wire) -> bytes:
    """The IPv4 packet of ``w`` with a zero-filled payload."""
    opts = encode_options(w.options)
    doff = (20 + len(opts)) // 4
    tcp = struct.pack(
        "!HHIIBBHHH",
        w.sport,
        w.dport,
        w.seq % (1 << 32),
        w.ack % (1 << 32),
        doff << 4,
        w.flags,
        w.win,
        0,
        0,
    )
    tcp += opts + bytes(w.payload_len)
    pseudo = _addr(w.src) + _addr(w.dst) + struct.pack("!BBH", 0, IPPROTO_TCP, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
    total = 20 + len(tcp)
    ip = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, IPPROTO_TCP, 0, _addr(w.src), _addr(w.dst)
    )
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return ip + tcp


def parse(packet: bytes) -> Wire | None:
    """The TCP segment in an IPv4 packet (``None``: not IPv4 TCP, or cut)."""
    if len(packet) < 20 or packet[0] >> 4 != 4 or packet[9] != IPPROTO_TCP:
        return None
    ihl = (packet[0] & 0x0F) * 4
    total = struct.unpack("!H", packet[2:4])[0]
    tcp = packet[ihl:total]
    if len(tcp) < 20:
        return None
    sport, dport, seq, ack, off, flags, win = struct.unpack("!HHIIBBH", tcp[:16])
    doff = (off >> 4) * 4
    src = ".".join(str(b) for b in packet[12:16])
    dst = ".".join(str(b) for b in packet[16:20])
    return Wire(
        src, dst, sport, dport, seq, ack, flags, win, decode_options(tcp[20:doff]), len(tcp) - doff
    )
