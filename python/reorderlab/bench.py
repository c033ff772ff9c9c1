"""Reference benchmarks of the engine, each run in its own process so that
its peak memory (resident set) can be reported."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from reorderlab import _core

__all__ = ["BENCH_FIELDS", "bench_names", "run_benchmark", "run_benchmarks"]

#: Columns of a benchmark report, in display order.
BENCH_FIELDS: tuple[str, ...] = (
    "name",
    "wall_s",
    "sim_s",
    "realtime_factor",
    "events",
    "events_per_s",
    "packet_hops_per_s",
    "peak_rss_mb",
)

# The child imports only the compiled core. Its peak resident set is read
# from /proc/self/status (VmHWM), which starts afresh at exec; ru_maxrss would
# carry over the parent's peak at fork time. Both are in KiB.
_CHILD = """
import json, resource, sys
from reorderlab import _core
report = json.loads(_core.bench(sys.argv[1]))
peak_kib = None
try:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                peak_kib = float(line.split()[1])
except OSError:
    pass
if peak_kib is None:
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report["peak_rss_mb"] = peak_kib / 1024.0
print(json.dumps(report))
"""


def bench_names() -> list[str]:
    """The engine's reference benchmark names."""
    return list(_core.bench_names())


def run_benchmark(name: str) -> dict[str, Any]:
    """Run one benchmark in a fresh Python process; add ``peak_rss_mb``.

    ``peak_rss_mb`` is the peak resident set of that process, which includes
    the Python interpreter and the extension (about 11 MB) besides the
    simulation.
    """
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, name],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"benchmark {name!r} failed: {tail[0]}")
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def run_benchmarks(names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the named benchmarks (default: all), one process each, one at a time."""
    known = bench_names()
    chosen = list(names) if names else known
    for name in chosen:
        if name not in known:
            raise ValueError(f"unknown benchmark {name!r} (known: {', '.join(known)})")
    return [run_benchmark(name) for name in chosen]
