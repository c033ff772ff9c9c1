"""Network namespaces of one emulation, and their clean-up.

Each run makes two named namespaces, ``rlemu<PID>s`` (senders) and
``rlemu<PID>r`` (receivers), PID being the controlling process. Clean-up
kills every process still inside them (``ip netns pids``: a user's command
and all its children), then deletes them; the TUN devices go with the link
emulator's process (they are not persistent). Namespaces left by a
controlling process that was killed outright (SIGKILL cannot be caught) are
removed by the next run: their PID is no longer alive.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

PREFIX = "rlemu"
_NAME = re.compile(rf"^{PREFIX}(\d+)[sr]$")


class EmulationUnavailableError(RuntimeError):
    """This machine cannot run the emulator (not root, no TUN, no netns);
    ``str()`` is one line saying why."""


class EmulationError(RuntimeError):
    """An emulation failed (a command, a device, the workload); one line."""


def ip(*args: str, check: bool = True) -> str:
    """Run ``ip ARGS``; a failure is an :class:`EmulationError` with its message."""
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        detail = msg[-1] if msg else f"exit status {proc.returncode}"
        raise EmulationError(f"ip {' '.join(args)}: {detail}")
    return proc.stdout


def unavailable_reason() -> str | None:
    """Why the emulator cannot run here, or ``None`` if it can (as far as can
    be told without creating anything)."""
    if not sys.platform.startswith("linux"):
        return "emulation needs Linux (TUN devices and network namespaces)"
    if os.geteuid() != 0:
        return (
            "emulation needs root (it creates network namespaces and TUN devices); run it as root"
        )
    if not Path("/dev/net/tun").exists():
        return "no TUN support: /dev/net/tun does not exist (load the tun module)"
    if shutil.which("ip") is None:
        return "the 'ip' command (iproute2) is not installed"
    if not Path("/proc/self/ns/net").exists():
        return "this kernel has no network namespaces (/proc/self/ns/net is missing)"
    return None


def in_namespace(ns: str, argv: Sequence[str]) -> list[str]:
    """``argv`` run inside namespace ``ns``."""
    return ["ip", "netns", "exec", ns, *argv]


def python_in(ns: str, module: str, *args: str) -> list[str]:
    """``python -m reorderlab._emu.MODULE ARGS`` inside ``ns``."""
    return in_namespace(ns, [sys.executable, "-m", f"reorderlab._emu.{module}", *args])


def namespace_pids(ns: str) -> list[int]:
    out = ip("netns", "pids", ns, check=False)
    return [int(p) for p in out.split() if p.isdigit()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_namespace_processes(ns: str, grace: float = 0.5) -> None:
    """SIGTERM every process in ``ns``, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        pids = namespace_pids(ns)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.02)


def list_namespaces() -> list[str]:
    out = ip("netns", "list", check=False)
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def delete_namespace(ns: str) -> None:
    kill_namespace_processes(ns)
    ip("netns", "del", ns, check=False)


def sweep_stale(names: re.Pattern[str] = _NAME) -> list[str]:
    """Delete the namespaces whose controlling process died: the
    emulator's by default, or those matching ``names`` (its group 1: the
    PID of the process that made them, e.g. the conformance scripts')."""
    removed = []
    for ns in list_namespaces():
        m = names.match(ns)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            delete_namespace(ns)
            removed.append(ns)
    return removed


class Namespaces:
    """The sender and receiver namespaces of this process's emulation."""

    def __init__(self) -> None:
        pid = os.getpid()
        self.sender = f"{PREFIX}{pid}s"
        self.receiver = f"{PREFIX}{pid}r"
        self.created: list[str] = []

    @property
    def names(self) -> tuple[str, str]:
        return (self.sender, self.receiver)

    def create(self) -> None:
        for ns in self.names:
            if ns in list_namespaces():
                delete_namespace(ns)  # left by an earlier run of this PID
            try:
                ip("netns", "add", ns)
            except EmulationError as exc:
                raise EmulationUnavailableError(
                    f"cannot create a network namespace: {exc}"
                ) from None
            self.created.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")

    def destroy(self) -> None:
        for ns in reversed(self.created):
            delete_namespace(ns)
        self.created.clear()
