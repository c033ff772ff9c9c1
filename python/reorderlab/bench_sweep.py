"""Sweep overhead benchmark: a 100-run sweep of 10-second scenarios.

Runs the same sweep with 1 worker and with N workers (default: all cores),
each time into a fresh temporary store (so every run is simulated and stored),
and reports:

* the speed-up of N workers over 1 (wall time ratio);
* the fraction of wall time spent outside simulation:
  ``1 - sum(CPU time of the core in each run) / (wall time x workers)``,
  i.e. the share of the workers' time lost to process start-up, pickling,
  the store, the driver's own CPU and waiting on the driver (also given with
  the runs' wall times in place of their CPU times, which hides the CPU the
  driver takes from a worker in the middle of a run);
* the same for the N-worker sweep as the first thing a new Python process
  does (``cold_process``): its first worker waits for the fork server
  that worker processes are forked from, which starts with the sweep's
  first worker, and the driver runs its code paths for the first time;
* the driver's CPU time (all its threads) during the sweep, in total and per
  run: what the driver takes from the cores the workers share with it, and
  less sensitive to other load on the machine than wall times.

Usage: ``python -m reorderlab.bench_sweep [--runs 100] [--seconds 10]`` or
``reorderlab bench --sweep``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reorderlab.errors import import_distributed
from reorderlab.scenario import (
    ChainTopology,
    DroptailQueue,
    DumbbellTopology,
    FlowSpec,
    LossImpairment,
    Scenario,
    TcpSpec,
)
from reorderlab.store import wait_for_background_closes
from reorderlab.sweep import Backend, sweep

__all__ = ["BACKENDS", "PRESETS", "bench_scenarios", "measure_sweep"]


PRESETS = ("light", "medium", "heavy")
#: Backends the benchmark measures (``dask``: on a LocalCluster).
BACKENDS = ("local", "threads", "dask")


def bench_scenarios(
    runs: int, seconds: float, preset: str = "medium"
) -> list[tuple[dict[str, Any], Scenario]]:
    """``runs`` distinct scenarios of ``seconds`` simulated seconds each.

    * ``light``: the rr-tcp chain (8 Mb/s, P = 50 ms), one SACK flow with
      M = 50, i.i.d. loss p = 0.01 % .. 2 % (a few ms of core time per run);
    * ``medium``: the chain at 100 Mb/s, four SACK flows, p = 0.01 % .. 0.5 %
      (tens of ms per run);
    * ``heavy``: a 1 Gb/s dumbbell (50 ms one-way, 1500-byte packets, queue of
      one BDP) with eight SACK flows, p = 0.001 % .. 0.01 % (about a second
      per run).

    Each run gets its own p, so no two runs share a cache key.
    """
    _check_choice("preset", preset, PRESETS)
    lo, hi = {"light": (0.0001, 0.02), "medium": (0.0001, 0.005), "heavy": (0.00001, 0.0001)}[
        preset
    ]
    points: list[tuple[dict[str, Any], Scenario]] = []
    for i in range(runs):
        p = round(lo + (hi - lo) * i / max(1, runs - 1), 9)
        loss = [LossImpairment(link="R1->R2", p=p)]
        if preset == "light":
            topology: Any = ChainTopology(bottleneck_rate=8e6, bottleneck_delay=0.023)
            flows = [FlowSpec(src="S1", dst="D", tcp=TcpSpec(max_window=50))]
        elif preset == "medium":
            big = DroptailQueue(limit_packets=2000)
            topology = ChainTopology(
                access_rate=1e9,
                bottleneck_rate=100e6,
                bottleneck_delay=0.023,
                queue=big,
                access_queue=big,
            )
            flows = [
                FlowSpec(src="S1", dst="D", start=0.01 * k, tcp=TcpSpec(max_window=10_000))
                for k in range(4)
            ]
        else:
            topology = DumbbellTopology(
                pairs=8,
                access_rate=10e9,
                access_delay=0.0005,
                bottleneck_rate=1e9,
                bottleneck_delay=0.05,
                queue=DroptailQueue(limit_packets=8500),
            )
            flows = [
                FlowSpec(
                    src=f"S{k}",
                    dst=f"D{k}",
                    start=0.01 * k,
                    tcp=TcpSpec(mss=1500, max_window=100_000),
                )
                for k in range(8)
            ]
        sc = Scenario(
            name=f"bench-sweep-{preset}",
            duration=seconds,
            topology=topology,
            impairments=loss,
            flows=flows,
        )
        points.append(({"p": p}, sc))
    return points


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name}: must be one of {', '.join(choices)}, got {value!r}")


def measure_sweep(
    runs: int = 100,
    seconds: float = 10.0,
    workers: int | None = None,
    preset: str = "medium",
    backend: Backend = "local",
) -> dict[str, Any]:
    """Time the sweep with 1 and with ``workers`` processes (cold: each
    measurement includes starting its worker pool), and with ``workers`` in
    a new process. A bad ``preset`` or ``backend`` is a ``ValueError``
    naming it, before anything runs."""
    _check_choice("preset", preset, PRESETS)
    _check_choice("backend", backend, BACKENDS)
    n = workers or os.cpu_count() or 1
    report: dict[str, Any] = {
        "preset": preset,
        "backend": backend,
        "runs": runs,
        "sim_seconds_per_run": seconds,
        "cold_process": _in_new_process(runs, seconds, n, preset, backend),
        "by_workers": {},
    }
    points = bench_scenarios(runs, seconds, preset)
    for w in sorted({1, n}):
        report["by_workers"][w] = _measure(points, w, backend)
    one = report["by_workers"][1]["wall_s"]
    report["workers"] = n
    report["speedup"] = one / report["by_workers"][n]["wall_s"]
    report["outside_simulation_fraction"] = report["by_workers"][n]["outside_simulation_fraction"]
    return report


def _in_new_process(runs: int, seconds: float, workers: int, preset: str, backend: str) -> Any:
    """:func:`_measure` as the first sweep of a new Python process."""
    args = [
        sys.executable,
        "-m",
        "reorderlab.bench_sweep",
        "--one",
        f"--runs={runs}",
        f"--seconds={seconds}",
        f"--workers={workers}",
        f"--preset={preset}",
        f"--backend={backend}",
    ]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"sweep benchmark in a new process failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def _measure(points: list[tuple[dict[str, Any], Scenario]], w: int, backend: Any) -> dict[str, Any]:
    """One cold-pool sweep of ``points`` with ``w`` workers into a new store
    (``dask``: on a ``LocalCluster`` of ``w`` one-thread worker processes
    started before the clock starts: its start-up is not the sweep's)."""
    with (
        tempfile.TemporaryDirectory(prefix="reorderlab-bench-") as tmp,
        _cluster(backend, w) as address,
    ):
        cpu0 = time.process_time()
        df = sweep(
            points,
            seeds=[1],
            backend=backend,
            address=address,
            workers=w,
            store=Path(tmp) / "bench.duckdb",
            progress=False,
        )
        # the store's background close counts in the driver's CPU time,
        # and must end before the directory goes
        wait_for_background_closes()
        driver_cpu = time.process_time() - cpu0
    stats = df.attrs["stats"]
    return {
        "wall_s": stats.wall_s,
        "sim_core_s": stats.sim_wall_s,
        "sim_core_cpu_s": stats.sim_cpu_s,
        "mean_run_s": stats.sim_wall_s / max(1, stats.executed),
        "outside_simulation_fraction": stats.outside_fraction,
        "outside_simulation_fraction_by_run_wall": stats.outside_fraction_by_run_wall,
        "driver_cpu_s": driver_cpu,
        "driver_cpu_per_run_ms": 1000 * driver_cpu / max(1, stats.executed),
        "executed": stats.executed,
    }


@contextlib.contextmanager
def _cluster(backend: str, workers: int) -> Iterator[Any]:
    """A Dask client of a new ``LocalCluster`` for the dask backend, else None."""
    if backend != "dask":
        yield None
        return
    dist: Any = import_distributed()  # untyped package
    with (
        dist.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.WARNING,
        ) as cluster,
        dist.Client(cluster) as client,
    ):
        yield client


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--preset", choices=PRESETS, default="medium")
    parser.add_argument("--backend", choices=BACKENDS, default="local")
    parser.add_argument("--one", action="store_true", help="only the --workers sweep")
    args = parser.parse_args(argv)
    if args.one:
        points = bench_scenarios(args.runs, args.seconds, args.preset)
        report = _measure(points, args.workers or os.cpu_count() or 1, args.backend)
    else:
        report = measure_sweep(args.runs, args.seconds, args.workers, args.preset, args.backend)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
