"""The kernel's state of every TCP connection of a namespace, over time.

``python -m reorderlab._emu.tcpinfo INTERVAL`` (run through ``ip netns
exec``) asks the kernel for all its TCP sockets every INTERVAL seconds
(sock_diag netlink, ``INET_DIAG_INFO`` and ``INET_DIAG_CONG``: the
``struct tcp_info`` and congestion control that ``ss -ti`` shows; for bbr
also ``INET_DIAG_BBRINFO``, its bandwidth estimate, min RTT and gains,
which the kernel returns to a request for ``INET_DIAG_VEGASINFO``,
``bbr_get_info``) and writes
one JSON line per sample: ``{"t_ns": CLOCK_MONOTONIC, "sockets": [...]}``.
It stops at SIGTERM or when stdin closes.

:func:`parse_tcp_info` reads the fields of ``struct tcp_info``
(``include/uapi/linux/tcp.h``) present in the bytes the kernel returned;
newer fields are absent from older kernels' answers.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
INET_DIAG_INFO = 2
INET_DIAG_CONG = 4
INET_DIAG_VEGASINFO = 3
INET_DIAG_BBRINFO = 16
#: TCP states with data in flight: ESTABLISHED, FIN_WAIT1/2, CLOSE_WAIT,
#: LAST_ACK, CLOSING (the kernel's TCP_* numbers)
STATES = sum(1 << s for s in (1, 4, 5, 8, 9, 11))

#: (offset, struct format, name) of the ``struct tcp_info`` fields used.
TCP_INFO_FIELDS: tuple[tuple[int, str, str], ...] = (
    (1, "B", "ca_state"),
    (2, "B", "retransmits"),
    (4, "B", "backoff"),
    (5, "B", "options"),
    (8, "I", "rto"),
    (16, "I", "snd_mss"),
    (24, "I", "unacked"),
    (28, "I", "sacked"),
    (32, "I", "lost"),
    (36, "I", "retrans"),
    (60, "I", "pmtu"),
    (68, "I", "rtt"),
    (72, "I", "rttvar"),
    (76, "I", "snd_ssthresh"),
    (80, "I", "snd_cwnd"),
    (84, "I", "advmss"),
    (88, "I", "reordering"),
    (100, "I", "total_retrans"),
    (104, "Q", "pacing_rate"),
    (120, "Q", "bytes_acked"),
    (128, "Q", "bytes_received"),
    (136, "I", "segs_out"),
    (140, "I", "segs_in"),
    (148, "I", "min_rtt"),
    (156, "I", "data_segs_out"),
    (160, "Q", "delivery_rate"),
    (192, "I", "delivered"),
    (200, "Q", "bytes_sent"),
    (208, "Q", "bytes_retrans"),
    (216, "I", "dsack_dups"),
    (220, "I", "reord_seen"),
    (228, "I", "snd_wnd"),
    (232, "I", "rcv_wnd"),
    (240, "H", "total_rto"),
    (242, "H", "total_rto_recoveries"),
)


def parse_tcp_info(data: bytes) -> dict[str, int]:
    """The fields of ``struct tcp_info`` that ``data`` is long enough for."""
    out: dict[str, int] = {}
    for offset, fmt, name in TCP_INFO_FIELDS:
        end = offset + struct.calcsize(fmt)
        if end <= len(data):
            out[name] = struct.unpack_from("=" + fmt, data, offset)[0]
    if len(data) > 6:
        out["snd_wscale"] = data[6] & 0x0F
        out["rcv_wscale"] = data[6] >> 4
    return out


def _request(seq: int) -> bytes:
    """An INET_DIAG dump request for IPv4 TCP sockets with tcp_info and cc."""
    ext = (
        (1 << (INET_DIAG_INFO - 1))
        | (1 << (INET_DIAG_CONG - 1))
        | (1 << (INET_DIAG_VEGASINFO - 1))
    )
    req = struct.pack("=BBBxI", socket.AF_INET, socket.IPPROTO_TCP, ext, STATES) + bytes(48)
    head = struct.pack(
        "=IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, 0
    )
    return head + req


def _attributes(payload: bytes, at: int) -> dict[int, bytes]:
    attrs: dict[int, bytes] = {}
    while at + 4 <= len(payload):
        length, kind = struct.unpack_from("=HH", payload, at)
        if length < 4:
            break
        attrs[kind] = payload[at + 4 : at + length]
        at += (length + 3) & ~3
    return attrs


def parse_diag_message(payload: bytes) -> dict[str, Any]:
    """One ``inet_diag_msg`` with its attributes."""
    sport, dport = struct.unpack_from("!HH", payload, 4)
    src = socket.inet_ntoa(payload[8:12])
    dst = socket.inet_ntoa(payload[24:28])
    attrs = _attributes(payload, 72)
    sock: dict[str, Any] = {"src": src, "dst": dst, "sport": sport, "dport": dport}
    if INET_DIAG_CONG in attrs:
        sock["cc"] = attrs[INET_DIAG_CONG].split(b"\0", 1)[0].decode("ascii", "replace")
    if INET_DIAG_INFO in attrs:
        sock["info"] = parse_tcp_info(attrs[INET_DIAG_INFO])
        if INET_DIAG_BBRINFO in attrs:
            sock["info"].update(parse_bbr_info(attrs[INET_DIAG_BBRINFO]))
    return sock


def parse_bbr_info(data: bytes) -> dict[str, int]:
    """``struct tcp_bbr_info``: the bandwidth estimate in bytes/s (two
    halves), the min RTT in us and the gains x 256."""
    if len(data) < 20:
        return {}
    lo, hi, min_rtt, pacing_gain, cwnd_gain = struct.unpack_from("=5I", data, 0)
    return {
        "bbr_bw": lo | (hi << 32),
        "bbr_min_rtt": min_rtt,
        "bbr_pacing_gain": pacing_gain,
        "bbr_cwnd_gain": cwnd_gain,
    }


def dump(sock: socket.socket, seq: int) -> list[dict[str, Any]]:
    """Every TCP socket of this namespace with data in flight."""
    sock.send(_request(seq))
    found: list[dict[str, Any]] = []
    while True:
        data = sock.recv(1 << 16)
        at = 0
        while at + 16 <= len(data):
            length, kind = struct.unpack_from("=IH", data, at)
            if kind == NLMSG_DONE:
                return found
            if kind == NLMSG_ERROR:
                raise OSError("sock_diag request refused")
            if kind == SOCK_DIAG_BY_FAMILY:
                found.append(parse_diag_message(data[at + 16 : at + length]))
            if length < 16:
                return found
            at += (length + 3) & ~3


def main(argv: list[str]) -> int:
    interval = float(argv[0]) if argv else 0.1
    stop = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG)
    seq = 0
    next_at = time.monotonic()
    while not stop:
        seq += 1
        t = time.monotonic_ns()
        line = {"t_ns": t, "sockets": dump(sock, seq)}
        sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        next_at += interval
        wait = max(0.0, next_at - time.monotonic())
        readable, _, _ = select.select([sys.stdin], [], [], wait)
        if readable and not os.read(sys.stdin.fileno(), 64):
            break  # stdin closed: the controlling process is gone
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
