"""Run ``reorderlab reproduce`` in a child process and report where its time goes.

    python scripts/profile_reproduce.py [REPRODUCE ARGS...] [--report FILE.json]
    python scripts/profile_reproduce.py tail-loss fig4 --out /tmp/r --store /tmp/r.duckdb

Per figure, and in total: wall time; CPU time (user + sys) of the driver,
of the sweep workers and of the figure drawers; the workers' idle time
(wall x workers - their CPU: on a loaded machine this includes waiting for
a core) and their waiting time (sampled: a worker asleep has no task,
whatever the load); the wall time spent inside sweeps; and, at the
end, the driver's own peak RSS (its VmHWM, read by the driver itself at
exit) and every helper process's. Also the results folder and store sizes.

How: the child is the ``reorderlab`` command line with logging on (the
recipes and sweeps log their steps, with timestamps), and this script reads
``/proc`` every ``--interval`` seconds for the CPU time and VmHWM of the
child's processes: the driver, the fork server's children (sweep workers;
those that have matplotlib mapped are figure drawers). CPU is counted per
process as last seen, so a helper that ends between two samples loses at
most one interval of CPU. Only Linux.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The child: the CLI, with reorderlab's INFO log (timestamped) on stderr
#: and its own CPU time and peak RSS logged at exit.
_BOOT = r"""
import atexit, logging, os, resource, sys, time
log = open(os.environ["REORDERLAB_PROFILE_LOG"], "a", buffering=1)
handler = logging.StreamHandler(log)
handler.setFormatter(logging.Formatter("%(created).3f %(name)s %(message)s"))
root = logging.getLogger("reorderlab")
root.addHandler(handler)
root.setLevel(logging.INFO)
def _at_exit():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    log.write(f"{time.time():.3f} driver-exit user={ru.ru_utime:.3f} sys={ru.ru_stime:.3f} "
              f"maxrss_kb={ru.ru_maxrss}\n")
atexit.register(_at_exit)
sys.argv[0] = "reorderlab"
from reorderlab.cli import app
app(sys.argv[1:])
"""

_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class _Proc:
    pid: int
    role: str
    cpu: float = 0.0  # user + sys seconds, as last seen
    hwm_kb: int = 0


@dataclass
class _Monitor:
    """Samples the child's process tree from ``/proc``."""

    root: int
    interval: float
    procs: dict[int, _Proc] = field(default_factory=dict)
    samples: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    #: the driver's resident memory (kB) at each sample
    driver_rss: list[tuple[float, int]] = field(default_factory=list)
    #: seconds sweep workers spent without a task, estimated from samples:
    #: a worker sleeping (state S) waits for a task on its pipe, one that
    #: simulates is running or runnable (R) whatever the machine's load
    waiting: float = 0.0
    last: float | None = None
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(self.interval)
        self.sample()

    def sample(self) -> None:
        now = time.time()
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                stat = _read(f"/proc/{entry.name}/stat")
                if stat:
                    parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        # the child's processes, parents before their children (a process's
        # role depends on its parent's)
        children: dict[int, list[int]] = {}
        for pid, ppid in parents.items():
            children.setdefault(ppid, []).append(pid)
        tree = [self.root]
        for pid in tree:
            tree.extend(sorted(children.get(pid, [])))
        step = 0.0 if self.last is None else now - self.last
        self.last = now
        for pid in tree:
            stat = _read(f"/proc/{pid}/stat")
            if not stat:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            known = self.procs.get(pid)
            if known is not None and known.role == "worker" and fields[0] == "S":
                self.waiting += step
            cpu = (int(fields[11]) + int(fields[12])) / _TICK
            proc = self.procs.get(pid)
            if proc is None:
                proc = self.procs[pid] = _Proc(pid, self._role(pid, parents))
            if proc.role == "worker" and "matplotlib" in _read(f"/proc/{pid}/maps"):
                proc.role = "drawer"
            proc.cpu = max(proc.cpu, cpu)
            for line in _read(f"/proc/{pid}/status").splitlines():
                if line.startswith("VmHWM:"):
                    proc.hwm_kb = max(proc.hwm_kb, int(line.split()[1]))
                elif line.startswith("VmRSS:") and pid == self.root:
                    self.driver_rss.append((now, int(line.split()[1])))
        totals: dict[str, float] = {"waiting": self.waiting}
        for proc in self.procs.values():
            totals[proc.role] = totals.get(proc.role, 0.0) + proc.cpu
        self.samples.append((now, totals))

    def _role(self, pid: int, parents: dict[int, int]) -> str:
        if pid == self.root:
            return "driver"
        cmd = _read(f"/proc/{pid}/cmdline").replace("\0", " ")
        if "resource_tracker" in cmd:
            return "tracker"
        if "forkserver" in cmd and parents.get(pid) == self.root:
            return "forkserver"
        parent = self.procs.get(parents.get(pid, -1))
        if parent is not None and parent.role == "forkserver":
            return "worker"  # (a drawer once it has matplotlib mapped)
        return "other"

    def at(self, t: float) -> dict[str, float]:
        """CPU totals by role at time ``t`` (the last sample before it)."""
        best: dict[str, float] = {}
        for when, totals in self.samples:
            if when > t:
                break
            best = totals
        return best


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _events(log: Path) -> list[tuple[float, str]]:
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        when, _, rest = line.partition(" ")
        try:
            out.append((float(when), rest))
        except ValueError:
            continue
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.2, help="sampling interval (s)")
    ap.add_argument("--report", type=Path, help="also write the numbers as JSON here")
    ap.add_argument("--workers", type=int, default=2, help="sweep workers (for idle time)")
    args, rest = ap.parse_known_args()
    out_dir = _option(rest, "--out", "results")
    store = _option(rest, "--store", None)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log"
        log.touch()
        env = dict(os.environ, REORDERLAB_PROFILE_LOG=str(log), PYTHONUNBUFFERED="1")
        t0 = time.time()
        child = subprocess.Popen(
            [sys.executable, "-c", _BOOT, "reproduce", *rest],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        mon = _Monitor(child.pid, args.interval)
        thread = threading.Thread(target=mon.run, daemon=True)
        thread.start()
        code = child.wait()
        t1 = time.time()
        mon.stop.set()
        thread.join()
        events = _events(log)
    report = _report(events, mon, t0, t1, args.workers)
    report["exit_code"] = code
    report["results_mb"] = round(_size(Path(out_dir)) / 1e6, 1) if Path(out_dir).exists() else None
    if store is not None and Path(store).exists():
        report["store_mb"] = round(_size(Path(store)) / 1e6, 1)
    _print(report)
    if args.report is not None:
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return code


def _option(argv: list[str], name: str, default: str | None) -> str | None:
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def _report(
    events: list[tuple[float, str]], mon: _Monitor, t0: float, t1: float, workers: int
) -> dict[str, Any]:
    figures: list[dict[str, Any]] = []
    starts = [(t, msg.split(": ", 1)[1]) for t, msg in events if "figure start: " in msg]
    bounds = [t for t, _ in starts] + [t1]
    sweeps = _sweep_intervals(events)
    driver_exit: dict[str, float] = {}
    for _t, msg in events:
        if msg.startswith("driver-exit"):
            driver_exit = {k: float(v) for k, v in (w.split("=") for w in msg.split()[1:])}
    for (start, name), end in zip(starts, bounds[1:], strict=True):
        figures.append({"figure": name, **_interval(mon, start, end, workers, sweeps)})
    total = {"figure": "total", **_interval(mon, t0, t1, workers, sweeps)}
    if driver_exit:
        total["driver_cpu_s"] = round(driver_exit["user"] + driver_exit["sys"], 1)
    peaks = {}
    for proc in mon.procs.values():
        peaks[proc.role] = max(peaks.get(proc.role, 0), proc.hwm_kb)
    if driver_exit:
        peaks["driver"] = int(driver_exit["maxrss_kb"])
    return {
        "figures": figures,
        "total": total,
        "peak_rss_mb": {k: round(v / 1024, 1) for k, v in sorted(peaks.items())},
        "driver_rss_peak": _rss_peak(mon, events),
        "driver_rss_mb": [
            [round(t - (events[0][0] if events else t0), 2), round(kb / 1024)]
            for t, kb in mon.driver_rss
        ],
        "steps": _steps(events),
    }


def _rss_peak(mon: _Monitor, events: list[tuple[float, str]]) -> str:
    """When the driver's sampled RSS was highest: after which logged step."""
    if not mon.driver_rss:
        return ""
    when, kb = max(mon.driver_rss, key=lambda x: x[1])
    before = [msg for t, msg in events if t <= when]
    after = before[-1] if before else "the start"
    first = events[0][0] if events else when
    return f"{kb / 1024:.0f} MB sampled at {when - first:.1f} s, after: {after}"


def _sweep_intervals(events: list[tuple[float, str]]) -> list[tuple[float, float]]:
    out = []
    begun: float | None = None
    for t, msg in events:
        if "sweep start" in msg:
            begun = t
        elif "sweep end" in msg and begun is not None:
            out.append((begun, t))
            begun = None
    return out


def _interval(
    mon: _Monitor, start: float, end: float, workers: int, sweeps: list[tuple[float, float]]
) -> dict[str, Any]:
    a, b = mon.at(start), mon.at(end)

    def cpu(role: str) -> float:
        return round(b.get(role, 0.0) - a.get(role, 0.0), 1)

    wall = end - start
    in_sweeps = sum(max(0.0, min(e, end) - max(s, start)) for s, e in sweeps)
    return {
        "wall_s": round(wall, 1),
        "in_sweeps_s": round(in_sweeps, 1),
        "driver_cpu_s": cpu("driver"),
        "worker_cpu_s": cpu("worker"),
        "worker_idle_s": round(max(0.0, workers * wall - cpu("worker")), 1),
        "worker_waiting_s": cpu("waiting"),
        "drawer_cpu_s": cpu("drawer"),
    }


def _steps(events: list[tuple[float, str]]) -> list[str]:
    """The log, times relative to its first line."""
    if not events:
        return []
    first = events[0][0]
    return [f"{t - first:8.2f} {msg}" for t, msg in events]


def _print(report: dict[str, Any]) -> None:
    head = (
        "figure",
        "wall_s",
        "in_sweeps_s",
        "driver_cpu_s",
        "worker_cpu_s",
        "worker_idle_s",
        "worker_waiting_s",
        "drawer_cpu_s",
    )
    rows = [*report["figures"], report["total"]]
    widths = [max(len(h), *(len(str(r.get(h, ""))) for r in rows)) for h in head]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    for r in rows:
        print("  ".join(str(r.get(h, "")).rjust(w) for h, w in zip(head, widths, strict=True)))
    print("peak RSS (MB):", ", ".join(f"{k} {v}" for k, v in report["peak_rss_mb"].items()))
    print("driver RSS peak:", report["driver_rss_peak"])
    for key in ("results_mb", "store_mb", "exit_code"):
        if report.get(key) is not None:
            print(f"{key}: {report[key]}")


if __name__ == "__main__":
    raise SystemExit(main())
