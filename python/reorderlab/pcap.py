"""Packet captures: runs that write pcap files (``record.pcap``) and a small
reader of them.

The core writes the files itself, streaming, while the run goes on
(``docs/pcap.md``); this module passes it the output folder and reads back
what each file holds. :func:`read_pcap` decodes a capture with the
standard library alone (IPv4 and TCP headers, options, checksums), for
tests and for scripts that want the packets without Wireshark.

Where the files go is not part of a run's identity: the cache key hashes
the scenario without ``record.pcap`` (a capture observes and does not
change the result), so a run with captures and the same run without share
one stored result. The store holds results, not captures, so a run asked
for captures is always simulated (and its result stored as any other).
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reorderlab import _core

__all__ = ["Capture", "TcpPacket", "read_pcap", "simulate_with_captures", "tap_spec"]

#: pcap magic numbers (little-endian files): microsecond and nanosecond.
_MAGIC_MICROS = 0xA1B2C3D4
_MAGIC_NANOS = 0xA1B23C4D
_LINKTYPE_RAW = 101
_LINKTYPE_ETHERNET = 1


@dataclass(frozen=True)
class Capture:
    """What one capture file of a run holds (as the core reports it)."""

    link: str
    position: str
    file: str
    packets: int
    data_packets: int
    acks: int
    syns: int
    handshakes_added: int
    sack_blocks: int
    sack_blocks_left_out: int
    bytes: int


def simulate_with_captures(
    scenario_json: str, seed: int | None, pcap_dir: str | Path
) -> tuple[str, float, list[Capture]]:
    """Run the scenario in the core writing its captures into ``pcap_dir``
    (created if missing): (result JSON, seconds in the core, captures).

    Raises ``ValueError`` for an invalid scenario (the caller names it) and
    ``OSError`` naming the file for a capture that cannot be written.
    """
    folder = Path(pcap_dir)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    text, captures = _core.run_capture(scenario_json, seed, str(folder))
    wall = time.perf_counter() - t0
    return text, wall, [Capture(**c) for c in json.loads(captures)]


def tap_spec(text: str) -> dict[str, str]:
    """``--pcap`` of the command line: ``LINK`` or ``LINK:POSITION``
    (``R1->R2``, ``R1->R2:ingress``; default ``egress``)."""
    link, sep, position = text.rpartition(":")
    if sep and position in ("ingress", "egress"):
        return {"link": link, "position": position}
    return {"link": text, "position": "egress"}


# --- reading ------------------------------------------------------------------


@dataclass(frozen=True)
class TcpPacket:
    """One decoded IPv4 / TCP packet of a capture."""

    time_ns: int
    captured: int
    length: int
    src: str
    dst: str
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int
    window: int
    payload: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def syn(self) -> bool:
        return bool(self.flags & 0x02)

    @property
    def has_ack(self) -> bool:
        return bool(self.flags & 0x10)


class PcapError(ValueError):
    """A capture file that does not decode, naming the record."""


def read_pcap(path: str | Path) -> Iterator[TcpPacket]:
    """Every packet of a pcap file (raw IPv4 or Ethernet link type), decoded
    and checked: IPv4 and TCP header lengths, the IPv4 header checksum and
    the TCP checksum (of the headers, taking a truncated payload as zeros,
    as the core writes it). Raises :class:`PcapError` on the first packet
    that does not decode."""
    with Path(path).open("rb") as f:
        head = f.read(24)
        if len(head) < 24:
            raise PcapError(f"{path}: no pcap header")
        magic, _major, _minor, _zone, _figs, _snap, linktype = struct.unpack("<IHHiIII", head)
        if magic not in (_MAGIC_MICROS, _MAGIC_NANOS):
            raise PcapError(f"{path}: not a little-endian pcap file (magic {magic:#x})")
        scale = 1 if magic == _MAGIC_NANOS else 1000
        index = 0
        while record := f.read(16):
            if len(record) < 16:
                raise PcapError(f"{path}: record {index}: cut short")
            sec, frac, caplen, orig = struct.unpack("<IIII", record)
            data = f.read(caplen)
            if len(data) < caplen:
                raise PcapError(f"{path}: record {index}: cut short")
            if linktype == _LINKTYPE_ETHERNET:
                data, orig = data[14:], orig - 14
            elif linktype != _LINKTYPE_RAW:
                raise PcapError(f"{path}: link type {linktype} is not raw IP or Ethernet")
            try:
                yield _decode(data, orig, sec * 1_000_000_000 + frac * scale)
            except (PcapError, struct.error, IndexError) as exc:
                raise PcapError(f"{path}: record {index}: {exc}") from None
            index += 1


def _decode(data: bytes, length: int, time_ns: int) -> TcpPacket:
    """One IPv4 packet carrying TCP."""
    if data[0] >> 4 != 4:
        raise PcapError(f"IP version {data[0] >> 4}, not 4")
    ihl = (data[0] & 0x0F) * 4
    total, proto = struct.unpack("!H", data[2:4])[0], data[9]
    if total != length:
        raise PcapError(f"IP total length {total} != packet length {length}")
    if _checksum(data[:ihl]) != 0:
        raise PcapError("bad IPv4 header checksum")
    if proto != 6:
        raise PcapError(f"protocol {proto}, not TCP")
    tcp = data[ihl:]
    sport, dport, seq, ack, off, flags, window = struct.unpack("!HHIIBBH", tcp[:16])
    hlen = (off >> 4) * 4
    if hlen < 20 or len(tcp) < hlen:
        raise PcapError(f"TCP header length {hlen} does not fit the {len(tcp)} bytes captured")
    segment = total - ihl
    pseudo = data[12:20] + struct.pack("!BBH", 0, 6, segment)
    if _checksum(pseudo + tcp[:hlen] + tcp[hlen:]) != 0:
        raise PcapError("bad TCP checksum")
    src = ".".join(str(b) for b in data[12:16])
    dst = ".".join(str(b) for b in data[16:20])
    return TcpPacket(
        time_ns=time_ns,
        captured=len(data),
        length=total,
        src=src,
        dst=dst,
        sport=sport,
        dport=dport,
        seq=seq,
        ack=ack,
        flags=flags,
        window=window,
        payload=segment - hlen,
        options=_options(tcp[20:hlen]),
    )


def _options(raw: bytes) -> dict[str, Any]:
    """TCP options by name: mss, wscale, sack_permitted, ts (val, ecr), sack
    (list of (left, right)); an option that overruns the header is an error."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        size = raw[i + 1]
        body = raw[i + 2 : i + size]
        if size < 2 or i + size > len(raw):
            raise PcapError(f"TCP option {kind} of length {size} overruns the header")
        if kind == 2:
            out["mss"] = struct.unpack("!H", body)[0]
        elif kind == 3:
            out["wscale"] = body[0]
        elif kind == 4:
            out["sack_permitted"] = True
        elif kind == 5:
            out["sack"] = [struct.unpack("!II", body[k : k + 8]) for k in range(0, len(body), 8)]
        elif kind == 8:
            out["ts"] = struct.unpack("!II", body)
        i += size
    return out


def _checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``: 0 when ``data`` holds
    a correct checksum field."""
    if len(data) % 2:
        data += b"\0"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
