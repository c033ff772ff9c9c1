"""``reorderlab bench``: the engine's reference benchmarks, one scenario
timed phase by phase (``--scenario``), or a sweep's speed-up (``--sweep``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

from reorderlab import bench as bench_mod
from reorderlab.bench_sweep import measure_sweep
from reorderlab.cli import output as show
from reorderlab.cli.common import errors, fail
from reorderlab.scenario import load_scenario

__all__ = ["cmd_bench"]


def cmd_bench(a: argparse.Namespace) -> None:
    """Run the engine's reference benchmarks (wall, events/s, packet-hops/s, memory)."""
    if a.sweep:
        _bench_sweep(a)
        return
    if a.scenario is not None:
        _bench_scenario(a)
        return
    if a.seed is not None:
        fail("bench: --seed goes with --scenario", 2)
    try:
        reports = bench_mod.run_benchmarks(a.names or None)
    except ValueError as exc:
        fail(str(exc), 2)
    except RuntimeError as exc:
        fail(str(exc), 1)
    _json_or_table(a, reports, lambda show: show.bench_table(reports, bench_mod.BENCH_FIELDS))


def _json_or_table(a: argparse.Namespace, data: Any, table: Callable[[ModuleType], Any]) -> None:
    """``data`` as JSON with ``--json``, else the table ``table`` makes of
    it with the output module."""
    if a.json:
        print(json.dumps(data, indent=2))
        return
    show.console().print(table(show))


def _bench_scenario(a: argparse.Namespace) -> None:
    """``bench --scenario FILE``: one run of the user's scenario, timed
    phase by phase, in its own process (for its peak memory)."""
    with errors(str(a.scenario)):
        sc = load_scenario(a.scenario)
        try:
            report = bench_mod.time_scenario(sc, a.seed)
        except RuntimeError as exc:
            fail(str(exc), 1)
    _json_or_table(a, report, lambda show: show.phase_table(report, bench_mod.PHASE_FIELDS))


def _bench_sweep(a: argparse.Namespace) -> None:
    """``bench --sweep``: a sweep's speed-up and overhead."""
    try:
        report = measure_sweep(a.runs, a.seconds, preset=a.preset, backend=a.backend)
    except ValueError as exc:
        fail(str(exc), 2)
    except RuntimeError as exc:  # e.g. the dask backend without Dask installed
        fail(str(exc), 1)
    if a.json:
        print(json.dumps(report, indent=2))
        return
    con = show.console()
    con.print(
        f"{a.runs} runs of {a.seconds:g} simulated seconds, preset {a.preset}, backend {a.backend}"
    )
    rows = [(f"{w} worker(s)", r) for w, r in report["by_workers"].items()]
    rows.append((f"{report['workers']} worker(s) in a new process", report["cold_process"]))
    for label, r in rows:
        con.print(
            f"{label}: {r['wall_s']:.2f} s wall, {r['sim_core_cpu_s']:.2f} s of CPU in the "
            f"core (mean {r['mean_run_s'] * 1000:.1f} ms/run), "
            f"outside simulation {100 * r['outside_simulation_fraction']:.1f} %"
        )
    con.print(
        f"speed-up with {report['workers']} workers: {report['speedup']:.2f}x; "
        f"outside simulation: {100 * report['outside_simulation_fraction']:.1f} %"
    )
