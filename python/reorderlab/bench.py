"""Reference benchmarks of the engine, each run in its own process so that
its peak memory (resident set) can be reported."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reorderlab import _core
from reorderlab.scenario import check_seed

if TYPE_CHECKING:
    from reorderlab.scenario import Scenario

__all__ = [
    "BENCH_FIELDS",
    "PHASE_FIELDS",
    "bench_names",
    "run_benchmark",
    "run_benchmarks",
    "time_scenario",
]

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

#: Columns of a scenario's timing (:func:`time_scenario`), in display order.
PHASE_FIELDS: tuple[str, ...] = (
    "name",
    "seed",
    "build_s",
    "run_s",
    "result_s",
    "json_s",
    "json_mb",
    "events",
    "events_per_s",
    "peak_rss_mb",
)

# The child imports only the compiled core. Its peak resident set is read
# from /proc/self/status (VmHWM), which starts afresh at exec; ru_maxrss would
# carry over the parent's peak at fork time. Both are in KiB.
_CHILD = """
import json, resource, sys
from reorderlab import _core
if sys.argv[1] == "--scenario":
    report = json.loads(_core.time_scenario(sys.stdin.read(), json.loads(sys.argv[2])))
else:
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
report["build"] = _core.build_kind()
print(json.dumps(report))
"""


def bench_names() -> list[str]:
    """The engine's reference benchmark names."""
    return list(_core.bench_names())


def _child(args: list[str], stdin: str | None, what: str) -> dict[str, Any]:
    """Run the child with ``args`` (and ``stdin``); its report."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"{what} failed: {tail[0]}")
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return report


def time_scenario(scenario: Scenario, seed: int | None = None) -> dict[str, Any]:
    """Run ``scenario`` once (with ``seed``, else its own) in a fresh
    process and time each phase: ``build_s`` (validate and build the
    simulation), ``run_s`` (the events), ``result_s`` (collect the result),
    ``json_s`` (write it as JSON, ``json_mb`` long); also ``events``,
    ``events_per_s`` (of ``run_s``), ``peak_rss_mb`` of that process and
    ``build`` (how the core was compiled: "profile-guided", as ``make
    install`` builds it, or "plain").

    What a run of one's own costs, and where: a sweep of N such runs takes
    about N x (``build_s`` + ``run_s`` + ``result_s`` + ``json_s``) of CPU.
    """
    used = scenario.seed if seed is None else check_seed(seed)
    report = _child(
        ["--scenario", json.dumps(used)], scenario.to_json(), f"scenario {scenario.name!r}"
    )
    report["seed"] = used
    report["json_mb"] = report.pop("json_bytes") / 1e6
    report["events_per_s"] = report["events"] / report["run_s"] if report["run_s"] > 0 else 0.0
    return report


def run_benchmark(name: str) -> dict[str, Any]:
    """Run one benchmark in a fresh Python process; add ``peak_rss_mb`` and
    ``build`` (how the core was compiled, see :func:`time_scenario`).

    ``peak_rss_mb`` is the peak resident set of that process, which includes
    the Python interpreter and the extension (about 11 MB) besides the
    simulation.
    """
    return _child([name], None, f"benchmark {name!r}")


def run_benchmarks(names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Run the named benchmarks (default: all), one process each, one at a time."""
    known = bench_names()
    chosen = list(names) if names else known
    for name in chosen:
        if name not in known:
            raise ValueError(f"unknown benchmark {name!r} (known: {', '.join(known)})")
    return [run_benchmark(name) for name in chosen]
