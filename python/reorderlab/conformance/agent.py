"""The kernel backend's inside: this machine's TCP, played by a script
through a TUN device, in a network namespace of its own.

``python -m reorderlab.conformance.agent SCRIPT TOLERANCE_US`` runs inside
the namespace (``ip netns exec``, :mod:`.kernel` starts it). It creates
the device ``tun0`` (the local address 192.168.0.1/16, the script's peer
192.0.2.1 behind it, as packetdrill's defaults), sets the base sysctls,
then plays the script: the script's socket calls are made on real sockets,
its inbound segments written to the device at their times, and the
segments the kernel writes to it are read, time-stamped and handed to the
interpreter (:mod:`.runner`). It prints one JSON line: the first
difference (or none) and how many events ran.

Sequence numbers: the peer's are the script's own; the local stack's are
shifted by its initial sequence number, learned from its first SYN or
SYN-ACK (a script writes the local ISN as 0, as packetdrill scripts do).
"""

from __future__ import annotations

import contextlib
import errno as errno_mod
import fcntl
import json
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from reorderlab._emu.tcpinfo import parse_tcp_info

from . import sysctl_shim
from .backend import BackendError
from .info import INFO_FIELDS
from .model import FLAG_BITS, Command, Expr, SegmentSpec, Syscall, TcpOption
from .packets import Wire, build, parse
from .parser import parse_file
from .runner import run_script
from .segment import Seg, got_text, spec_text
from .sysctls import BASE

TUN_NAME = "tun0"
LOCAL_IP = "192.168.0.1"
REMOTE_IP = "192.0.2.1"
LOCAL_PORT = 8080
REMOTE_PORT = 48000
_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
#: Seconds an assert waits for the kernel to handle the segments written
#: just before it.
INFO_SETTLE = 0.001


def _run(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise BackendError(f"{' '.join(argv)}: {detail[-1] if detail else proc.returncode}")


def write_sysctl(name: str, value: str) -> None:
    path = Path("/proc/sys") / name.replace(".", "/")
    try:
        path.write_text(value + "\n", encoding="ascii")
    except OSError as exc:
        raise BackendError(f"sysctl {name}={value}: {exc.strerror or exc}") from None


def open_tun() -> int:
    """``tun0`` up, with the local address and a route to the peer."""
    write_sysctl("net.ipv6.conf.all.disable_ipv6", "1")
    write_sysctl("net.ipv6.conf.default.disable_ipv6", "1")
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", TUN_NAME.encode(), _IFF_TUN | _IFF_NO_PI))
    _run(["ip", "link", "set", "lo", "up"])
    _run(["ip", "link", "set", TUN_NAME, "mtu", "1500", "up"])
    _run(["ip", "addr", "add", f"{LOCAL_IP}/16", "dev", TUN_NAME])
    _run(["ip", "route", "add", "192.0.2.0/24", "dev", TUN_NAME])
    return fd


def _symbol(e: Expr) -> int:
    """A symbolic argument (``SOL_SOCKET``, ``O_RDWR|O_NONBLOCK``) as a number."""
    if e.kind == "int" and isinstance(e.value, int):
        return e.value
    if e.kind == "symbol" and isinstance(e.value, str):
        total = 0
        for name in e.value.split("|"):
            value = next((getattr(m, name) for m in (socket, os, fcntl) if hasattr(m, name)), None)
            if not isinstance(value, int):
                raise BackendError(f"unknown constant {name}")
            total |= value
        return total
    raise BackendError(f"expected a number or a constant, got {e}")


class KernelBackend:
    """The kernel's TCP behind ``tun0`` (see the module's docstring)."""

    name = "kernel"

    def __init__(self, script_dir: Path) -> None:
        self.script_dir = script_dir
        self.tun = open_tun()
        self.bin = Path(tempfile.mkdtemp(prefix="rlpd-bin-"))
        shim = self.bin / "sysctl"
        shim.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -m reorderlab.conformance.sysctl_shim "$@"\n'
        )
        shim.chmod(0o755)
        if sysctl_shim.main(["-q", *(f"{k}={v}" for k, v in BASE.items())]) != 0:
            raise BackendError("cannot set the base configuration")
        self.t0 = time.monotonic()
        self.socks: dict[int, socket.socket] = {}
        self.conn: socket.socket | None = None
        self.local_isn: int | None = None
        self.local_port = LOCAL_PORT
        #: the peer's port: its own for a passive open, the one the
        #: script's connect() goes to for an active one
        self.remote_port = REMOTE_PORT
        self.queue: list[Seg] = []
        #: every segment read and written, in script notation (--trace)
        self.trace: list[str] = []

    def begin(self) -> None:
        self.t0 = time.monotonic()

    # -- time and packets -----------------------------------------------------

    def now(self) -> float:
        return time.monotonic() - self.t0

    def _read(self, timeout: float) -> None:
        """Read every packet the kernel wrote, waiting up to ``timeout``."""
        ready, _, _ = select.select([self.tun], [], [], max(0.0, timeout))
        while ready:
            try:
                data = os.read(self.tun, 65536)
            except BlockingIOError:
                return
            t = self.now()
            w = parse(data)
            if w is not None and w.src == LOCAL_IP and w.dst == REMOTE_IP:
                seg = self._script_seg(w, t)
                self.trace.append(f"{t:.6f} {got_text(seg)}")
                self.queue.append(seg)

    def _script_seg(self, w: Wire, t: float) -> Seg:
        if w.flags & FLAG_BITS["S"] and self.local_isn is None:
            self.local_isn = w.seq
            self.local_port = w.sport
        isn = self.local_isn or 0
        seq = (w.seq - isn) % (1 << 32)
        ack = w.ack if w.flags & FLAG_BITS["."] else None
        opts = tuple(
            TcpOption("sack", blocks=o.blocks) if o.kind == "sack" else o for o in w.options
        )
        ts = next((o for o in w.options if o.kind == "TS"), None)
        return Seg(t, w.flags, seq, seq + w.payload_len, ack, w.win, opts, ts.value if ts else None)

    def wait(self, t: float) -> None:
        while True:
            left = t - self.now()
            if left <= 0:
                self._read(0)
                return
            self._read(left)

    def outbound(self, deadline: float) -> Seg | None:
        while not self.queue:
            left = deadline - self.now()
            if left < 0:
                self._read(0)
                break
            self._read(left)
        return self.queue.pop(0) if self.queue else None

    def inject(self, spec: SegmentSpec, ecr: int | None) -> None:
        isn = self.local_isn or 0
        opts = []
        for o in spec.options or ():
            if o.kind == "TS":
                o = TcpOption("TS", o.value, ecr=ecr)
            elif o.kind == "sack":
                o = TcpOption("sack", blocks=tuple((a + isn, b + isn) for a, b in o.blocks))
            opts.append(o)
        w = Wire(
            REMOTE_IP,
            LOCAL_IP,
            self.remote_port,
            self.local_port,
            spec.seq,
            (spec.ack or 0) + isn,
            spec.flags,
            spec.win if spec.win is not None else 65535,
            tuple(opts),
            spec.length,
        )
        os.write(self.tun, build(w))
        self.trace.append(f"{self.now():.6f} {spec_text(spec)}")

    # -- socket calls ---------------------------------------------------------

    def syscall(self, call: Syscall) -> tuple[int, str | None]:
        try:
            return self._call(call), None
        except OSError as exc:
            code = exc.errno or 0
            return -1, errno_mod.errorcode.get(code, str(code))

    def _sock(self, e: Expr) -> socket.socket:
        fd = e.int_value()
        if fd is None or fd not in self.socks:
            raise BackendError(f"no socket {e} in this script")
        return self.socks[fd]

    def _call(self, call: Syscall) -> int:
        a = call.args
        name = call.name
        if name == "socket":
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            fd = call.result if call.result is not None else s.fileno()
            self.socks[fd] = s
            return fd
        s = self._sock(a[0])
        if name == "setsockopt":
            value = a[3].int_value() if a[3].kind != "string" else None
            raw: int | bytes = value if value is not None else str(a[3].value).encode()
            s.setsockopt(_symbol(a[1]), _symbol(a[2]), raw)
        elif name == "fcntl":
            if _symbol(a[1]) == fcntl.F_SETFL:
                s.setblocking(not (_symbol(a[2]) & os.O_NONBLOCK))
            else:
                return fcntl.fcntl(s.fileno(), _symbol(a[1]))
        elif name == "bind":
            s.bind((LOCAL_IP, LOCAL_PORT))
        elif name == "listen":
            s.listen(_symbol(a[1]))
        elif name == "accept":
            return self._accept(call, s)
        elif name == "connect":
            self.conn = s
            self.remote_port = LOCAL_PORT
            if s.gettimeout() == 0:
                s.connect((REMOTE_IP, LOCAL_PORT))
            else:  # a blocking connect completes with a later event: start it
                s.setblocking(False)
                err = s.connect_ex((REMOTE_IP, LOCAL_PORT))
                s.setblocking(True)
                if err not in (0, errno_mod.EINPROGRESS):
                    raise OSError(err, os.strerror(err))
        elif name == "write":
            n = a[2].int_value()
            if n is None:
                raise BackendError("write() needs a byte count")
            return s.send(bytes(n))
        elif name == "close":
            s.close()
            del self.socks[a[0].int_value() or 0]
        return 0

    def _accept(self, call: Syscall, s: socket.socket) -> int:
        if s.gettimeout() != 0:
            ready, _, _ = select.select([s], [], [], 0.05)
            if not ready:
                raise BackendError("accept() would block: no connection is established yet")
        conn, _ = s.accept()
        fd = call.result if call.result is not None else conn.fileno()
        self.socks[fd] = conn
        self.conn = conn
        return fd

    def info(self) -> dict[str, int]:
        if self.conn is None:
            raise BackendError("no connection to read tcp_info from (accept or connect first)")
        # the kernel handles a packet written to the device in its receive
        # path, maybe on another CPU: let the last one be handled first
        self._read(INFO_SETTLE)
        raw = self.conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        fields = parse_tcp_info(raw)
        return {k: int(fields[k]) for k in INFO_FIELDS}

    def command(self, cmd: Command) -> None:
        env = dict(os.environ, PATH=f"{self.bin}:{os.environ.get('PATH', '')}")
        proc = subprocess.run(
            ["sh", "-c", cmd.text],
            cwd=self.script_dir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise BackendError(
                f"command failed ({proc.returncode}): {cmd.text}: {detail[-1] if detail else ''}"
            )


def realtime() -> None:
    """``SCHED_FIFO`` for this process (root), so that a loaded machine's
    other work does not delay the script's events; best effort."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))


def main(argv: list[str]) -> int:
    path, tolerance = argv[0], int(argv[1])
    realtime()
    backend: KernelBackend | None = None
    out: dict[str, object]
    try:
        script = parse_file(path)
        backend = KernelBackend(Path(path).resolve().parent)
        failure, events = run_script(script, backend, tolerance if tolerance >= 0 else None)
        out = {
            "failure": asdict(failure) if failure else None,
            "events": events,
            "trace": backend.trace,
        }
    except (BackendError, OSError, ValueError) as exc:
        out = {"error": str(exc)}
    finally:
        if backend is not None:
            shutil.rmtree(backend.bin, ignore_errors=True)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
