"""The kernel backend: a script played against this machine's TCP.

Each script gets a network namespace of its own, ``rlpd<PID>`` (PID: this
process), with the agent (:mod:`.agent`) inside it: the agent makes the
TUN device, runs the script and prints its outcome. The namespace is
deleted after every script, whatever happened; the device goes with the
agent's process (it is not persistent). A script that has not finished
within its time limit (its last event's time plus ``margin`` seconds, or
``timeout``) is ended: the agent and anything it started are killed, the
namespace deleted, and the outcome is a failure saying so. Namespaces
left by a process that was killed outright (SIGKILL) are deleted by the
next run (their PID is gone), as the emulator's are.

Needs Linux, root, ``/dev/net/tun`` and ``ip`` (the emulator's
requirements, :func:`reorderlab._emu.netns.unavailable_reason`);
elsewhere every script is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from reorderlab._emu import netns
from reorderlab._emu.netns import (
    delete_namespace,
    ip,
    unavailable_reason,
)

from .model import Script, TimeKind
from .outcome import Failure, Outcome, outcome_of

PREFIX = "rlpd"
_NAME = re.compile(rf"^{PREFIX}(\d+)$")
#: Seconds a script may run beyond its last event's time before it is ended.
MARGIN = 15.0


def skip_reason() -> str | None:
    return unavailable_reason()


def sweep_stale() -> list[str]:
    """Delete the namespaces of script runs whose process is gone."""
    return netns.sweep_stale(_NAME)


def script_length(script: Script) -> float:
    """An upper bound of the script's duration in seconds (every relative
    time added up, every absolute one taken as is, ranges at their end)."""
    t = 0.0
    for ev in script.events:
        span = ev.time.end if ev.time.end is not None else ev.time.start
        if ev.time.kind is TimeKind.ABSOLUTE:
            t = max(t, span)
        elif ev.time.kind is TimeKind.RELATIVE:
            t += span
    return t


def run_kernel(script: Script, tolerance_us: int | None, timeout: float | None = None) -> Outcome:
    """Play ``script`` (parsed, for its length and marks) on the kernel."""
    xfail = script.xfail.get("kernel", "")
    reason = skip_reason()
    if reason is not None:
        return Outcome(script.path, "kernel", "skip", skip_reason=reason)
    sweep_stale()
    ns = f"{PREFIX}{os.getpid()}"
    limit = timeout if timeout is not None else script_length(script) + MARGIN
    if ns in netns.list_namespaces():
        delete_namespace(ns)
    ip("netns", "add", ns)
    try:
        data = _agent(ns, script.path, tolerance_us, limit)
    finally:
        delete_namespace(ns)
    if "error" in data:
        error = Failure("error", script.path, str(data["error"]))
        return outcome_of(script.path, "kernel", error, xfail, 0)
    f = data.get("failure")
    failure = Failure(**f) if isinstance(f, dict) else None
    trace = data.get("trace")
    lines = tuple(str(x) for x in trace) if isinstance(trace, list) else ()
    events = data.get("events", 0)
    return outcome_of(
        script.path, "kernel", failure, xfail, events if isinstance(events, int) else 0, lines
    )


def _agent(ns: str, path: str, tolerance_us: int | None, limit: float) -> dict[str, object]:
    argv = [
        "ip",
        "netns",
        "exec",
        ns,
        sys.executable,
        "-m",
        "reorderlab.conformance.agent",
        str(Path(path).resolve()),
        str(-1 if tolerance_us is None else tolerance_us),
    ]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"the script did not finish within {limit:g} s: ended (timeout)"}
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    lines = out.decode(errors="replace").strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = err.decode(errors="replace").strip().splitlines()
        return {
            "error": f"the agent exited with status {proc.returncode}: {tail[-1] if tail else ''}"
        }
    data: dict[str, object] = json.loads(lines[-1])
    return data
