"""The built-in bulk sender and receiver of ``reorderlab emulate``.

``python -m reorderlab._emu.workload recv ADDR PORT REPORT`` listens on
ADDR:PORT, prints ``listening``, accepts one connection and reads until the
sender closes it (or SIGTERM), then writes REPORT (JSON): bytes received, the
CLOCK_MONOTONIC times of the first and last byte, whether the sender closed.

``python -m reorderlab._emu.workload send SRC DST PORT BYTES REPORT AT`` waits
until CLOCK_MONOTONIC reaches AT (ns; it is started early so that Python's
start-up does not delay the flow), connects from SRC to DST:PORT, writes
BYTES bytes (0: until SIGTERM), waits until they are all acknowledged and
closes (so its FIN plays no part in the data's loss recovery); REPORT gets
the bytes written and the connect / close times.

``python -m reorderlab._emu.workload udp-send SRC DST PORT RATE SIZE SECONDS``
and ``udp-recv ADDR PORT REPORT`` are the probe pair of the emulator's own
tests: numbered datagrams carrying their send time, and the receiver's list
of (number, send time, receive time).

Only the standard library: the kernel does the work, Python only feeds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import signal
import socket
import struct
import sys
import termios
import time
from pathlib import Path
from typing import Any

CHUNK = 1 << 16


class TerminatedError(Exception):
    """SIGTERM: finish up and write the report."""


def _on_term(signum: int, frame: object) -> None:
    raise TerminatedError


def _write(path: str, report: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(report), encoding="utf-8")


def receive(addr: str, port: int, report: str) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((addr, port))
    listener.listen(1)
    print("listening", flush=True)
    got: dict[str, Any] = {"bytes": 0, "first_ns": None, "last_ns": None, "closed": False}
    buf = bytearray(CHUNK * 4)
    view = memoryview(buf)
    try:
        conn, _ = listener.accept()
        got["accepted_ns"] = time.monotonic_ns()
        while True:
            n = conn.recv_into(view)
            if n == 0:
                got["closed"] = True
                break
            now = time.monotonic_ns()
            if got["first_ns"] is None:
                got["first_ns"] = now
            got["last_ns"] = now
            got["bytes"] += n
    except TerminatedError:
        pass
    _write(report, got)
    return 0


def send(src: str, dst: str, port: int, total: int, report: str, at_ns: int) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((src, 0))
    done: dict[str, Any] = {"bytes": 0, "connect_ns": None, "closed_ns": None}
    data = memoryview(b"\0" * CHUNK)
    try:
        time.sleep(max(0.0, (at_ns - time.monotonic_ns()) / 1e9))
        done["connect_ns"] = time.monotonic_ns()
        sock.connect((dst, port))
        done["established_ns"] = time.monotonic_ns()
        while total == 0 or done["bytes"] < total:
            want = CHUNK if total == 0 else min(CHUNK, total - done["bytes"])
            done["bytes"] += sock.send(data[:want])
        done["written_ns"] = time.monotonic_ns()
        _wait_acknowledged(sock)
        done["acknowledged_ns"] = time.monotonic_ns()
        sock.shutdown(socket.SHUT_WR)
        done["closed_ns"] = time.monotonic_ns()
    except TerminatedError:
        pass
    _write(report, done)
    return 0


def _wait_acknowledged(sock: socket.socket) -> None:
    """Until every byte written is acknowledged (``SIOCOUTQ``: for TCP the
    bytes written and not yet acknowledged, ``write_seq - snd_una``), so
    that the FIN follows the data's recovery instead of taking part in it:
    a FIN sent right behind a lost tail is SACKed and reveals the loss
    (RACK), which a flow that stays open (the simulator's, a persistent
    HTTP connection) does not have."""
    outq = bytearray(4)
    while True:
        fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, outq)
        if int.from_bytes(outq, sys.byteorder) == 0:
            return
        time.sleep(0.0005)


#: a probe datagram's header: number, send time (ns)
PROBE = struct.Struct("!QQ")


def udp_send(src: str, dst: str, port: int, rate: float, size: int, seconds: float) -> int:
    """Datagrams of ``size`` bytes (IP length) at ``rate`` bit/s, paced by
    the clock (not by sleeping after each one, so the rate holds)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((src, 0))
    payload = bytearray(max(PROBE.size, size - 28))
    gap = size * 8 / rate
    start = time.monotonic()
    n = 0
    while True:
        due = start + n * gap
        now = time.monotonic()
        if now - start >= seconds:
            break
        if due > now:
            time.sleep(due - now)
        PROBE.pack_into(payload, 0, n, time.monotonic_ns())
        with contextlib.suppress(OSError):  # a full device queue drops it
            sock.sendto(payload, (dst, port))
        n += 1
    return 0


def udp_receive(addr: str, port: int, report: str) -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    sock.bind((addr, port))
    print("listening", flush=True)
    rows: list[tuple[int, int, int]] = []
    buf = bytearray(65536)
    try:
        while True:
            sock.recv_into(buf)
            number, sent = PROBE.unpack_from(buf, 0)
            rows.append((number, sent, time.monotonic_ns()))
    except TerminatedError:
        pass
    _write(report, {"probes": rows})
    return 0


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _on_term)
    match argv:
        case ["recv", addr, port, report]:
            return receive(addr, int(port), report)
        case ["send", src, dst, port, total, report, at]:
            return send(src, dst, int(port), int(total), report, int(at))
        case ["udp-send", src, dst, port, rate, size, seconds]:
            return udp_send(src, dst, int(port), float(rate), int(size), float(seconds))
        case ["udp-recv", addr, port, report]:
            return udp_receive(addr, int(port), report)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
