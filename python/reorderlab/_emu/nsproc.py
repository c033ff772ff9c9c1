"""Kernel settings and counters of the network namespace this runs in.

``python -m reorderlab._emu.nsproc sysctl NAME=VALUE ... [-- NAME ...]``
writes each ``net.*`` sysctl, then prints a JSON object of the values of every
name given (set or only read), as the kernel reports them back.

``python -m reorderlab._emu.nsproc counters`` prints the namespace's SNMP
counters (``/proc/net/snmp`` and ``/proc/net/netstat``) as a JSON object
named as ``nstat`` names them (``TcpRetransSegs``, ``TcpExtTCPSACKReorder``).

``python -m reorderlab._emu.nsproc listening`` prints how many sockets wait
for peers: TCP sockets listening (``/proc/net/tcp``, state 0A) and UDP
sockets bound (``/proc/net/udp``).

Run through ``ip netns exec``: these files are per namespace. Only the
standard library, and no ``sysctl`` or ``nstat`` program, is needed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROC_SYS = Path("/proc/sys")


def sysctl_path(name: str) -> Path:
    """``net.ipv4.tcp_sack`` -> ``/proc/sys/net/ipv4/tcp_sack``."""
    if not name.startswith("net.") or ".." in name or "/" in name:
        raise ValueError(f"not a network sysctl: {name!r}")
    return PROC_SYS / name.replace(".", "/")


def read_sysctl(name: str) -> str:
    return " ".join(sysctl_path(name).read_text(encoding="ascii").split())


def write_sysctl(name: str, value: str) -> None:
    sysctl_path(name).write_text(value + "\n", encoding="ascii")


def parse_snmp(text: str) -> dict[str, int]:
    """Counters of a ``/proc/net/snmp``-style file: pairs of lines
    ``Prefix: names...`` / ``Prefix: values...``, named ``PrefixName``."""
    out: dict[str, int] = {}
    lines = text.splitlines()
    for head, values in zip(lines[::2], lines[1::2], strict=False):
        prefix, _, names = head.partition(":")
        vprefix, _, numbers = values.partition(":")
        if prefix != vprefix:
            continue
        for name, number in zip(names.split(), numbers.split(), strict=False):
            try:
                out[prefix + name] = int(number)
            except ValueError:
                continue
    return out


def counters() -> dict[str, int]:
    out: dict[str, int] = {}
    for name in ("snmp", "netstat"):
        path = Path("/proc/net") / name
        if path.exists():
            out.update(parse_snmp(path.read_text(encoding="ascii")))
    return out


def listening() -> int:
    """IPv4 TCP sockets in LISTEN state, plus UDP sockets."""
    tcp = Path("/proc/net/tcp").read_text(encoding="ascii").splitlines()[1:]
    udp = Path("/proc/net/udp").read_text(encoding="ascii").splitlines()[1:]
    return sum(1 for line in tcp if line.split()[3] == "0A") + len(udp)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "listening":
        print(listening())
        return 0
    if argv[0] == "counters":
        print(json.dumps(counters()))
        return 0
    if argv[0] != "sysctl":
        print(f"unknown command {argv[0]!r}", file=sys.stderr)
        return 2
    names: list[str] = []
    try:
        for arg in argv[1:]:
            if arg == "--":
                continue
            name, sep, value = arg.partition("=")
            if sep:
                try:
                    write_sysctl(name, value)
                except OSError as exc:
                    raise OSError(f"{name} = {value}: {exc.strerror or exc}") from None
            names.append(name)
        print(json.dumps({n: read_sysctl(n) for n in names}))
    except (OSError, ValueError) as exc:
        print(f"{exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
