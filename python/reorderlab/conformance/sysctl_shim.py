"""The ``sysctl`` command a script's commands find first on ``PATH``
inside the kernel backend's namespace.

``sysctl [-q] [-w] NAME=VALUE ...`` writes each value under ``/proc/sys``,
except one: a network namespace other than the host's may only default to
a congestion control the host allows (``tcp_allowed_congestion_control``;
writing another gives EPERM), so ``net.ipv4.tcp_congestion_control=NAME``
becomes the ``congctl`` option of the route to the script's peer, which
every connection to it then uses. ``sysctl NAME`` prints the value. The
exit status is 1 if a value could not be written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: the route to the peer (agent.py's)
ROUTE = ("192.0.2.0/24", "dev", "tun0")


def set_congestion_control(name: str) -> str | None:
    avail = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    if name not in avail:
        return f"{name} is not available (available: {' '.join(avail)})"
    proc = subprocess.run(
        ["ip", "route", "replace", *ROUTE, "congctl", name],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stderr.strip() or None if proc.returncode else None


def main(argv: list[str]) -> int:
    quiet = False
    status = 0
    for arg in argv:
        if arg.startswith("-"):
            quiet = quiet or "q" in arg
            continue
        name, sep, value = arg.partition("=")
        path = Path("/proc/sys") / name.replace(".", "/")
        if not sep:
            print(f"{name} = {path.read_text().strip()}")
            continue
        value = " ".join(value.split())
        if name == "net.ipv4.tcp_congestion_control":
            err = set_congestion_control(value)
        else:
            try:
                path.write_text(value + "\n")
                err = None
            except OSError as exc:
                err = exc.strerror or str(exc)
        if err is not None:
            print(f"sysctl: {name}={value}: {err}", file=sys.stderr)
            status = 1
        elif not quiet:
            print(f"{name} = {value}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
