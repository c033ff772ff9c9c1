"""The scaling table of BENCHMARKS.md: events/s and memory per flow of one
bottleneck from 1 to 1,000 flows and from 10 Mb/s to 10 Gb/s.

Each point is one run of ``reorderlab-bench --scale=RATE,FLOWS,RTT,SECONDS``
(SACK/Reno flows on a dumbbell, queue of one bandwidth-delay product, see
``reorderlab::bench::scaling_scenario``) in a process of its own, so that
its peak RSS is its own. Memory per flow is the peak RSS above that of the
smallest run (10 Mb/s, one flow), divided by the flows.

    cargo build --release -p reorderlab --bin reorderlab-bench
    python scripts/scaling.py [--rtt 0.1] [--repeat 3] > table.md

Speed is events per second of the run's CPU time (user + system, from
``getrusage`` of the child): on a machine shared with other jobs the wall
time also counts the time the run waited for a core. ``--repeat`` runs each
point several times and keeps the fastest (the machine's other load only
ever slows a run down).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

BINARY = Path(__file__).resolve().parent.parent / "target" / "release" / "reorderlab-bench"
RATES = (10e6, 100e6, 1e9, 10e9)
FLOWS = (1, 10, 100, 1000)
#: Events aimed at per run: about six per segment (three hops each way).
TARGET_EVENTS = 2e7


def duration(rate: float, rtt: float) -> float:
    """Simulated seconds of a point: about TARGET_EVENTS at full rate, at
    least 100 round trips, at most 600 s."""
    events_per_s = rate / (1500 * 8) * 6
    return min(max(TARGET_EVENTS / events_per_s, 100 * rtt), 600.0)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(rate: float, flows: int, rtt: float) -> dict[str, float]:
    spec = f"--scale={rate},{flows},{rtt},{duration(rate, rtt)}"
    before = _children_cpu()
    out = subprocess.run(
        [str(BINARY), spec, "--json"], check=True, capture_output=True, text=True
    ).stdout
    data: dict[str, float] = json.loads(out)
    data["cpu_s"] = _children_cpu() - before
    data["events_per_cpu_s"] = data["events"] / data["cpu_s"]
    return data


def best(rate: float, flows: int, rtt: float, repeat: int) -> dict[str, float]:
    runs = [run(rate, flows, rtt) for _ in range(repeat)]
    return min(runs, key=lambda r: r["cpu_s"])


def rate_name(rate: float) -> str:
    return f"{rate / 1e9:g} Gb/s" if rate >= 1e9 else f"{rate / 1e6:g} Mb/s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rtt", type=float, default=0.1, help="round trip (s)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per point (fastest kept)")
    args = ap.parse_args()
    if not BINARY.exists():
        sys.exit(f"error: {BINARY} not found: cargo build --release -p reorderlab")
    results = {(r, f): best(r, f, args.rtt, args.repeat) for r in RATES for f in FLOWS}
    base = results[(RATES[0], 1)]["peak_rss_mb"]
    print(
        f"| bottleneck (RTT {args.rtt * 1000:g} ms) | flows | simulated s | events | "
        "CPU s | M events per CPU s | ns/event | peak RSS (MB) | KB per flow |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (rate, flows), r in results.items():
        per_flow = (r["peak_rss_mb"] - base) * 1024 / flows
        print(
            f"| {rate_name(rate)} | {flows} | {r['sim_s']:g} | {r['events'] / 1e6:.2f} M | "
            f"{r['cpu_s']:.2f} | {r['events_per_cpu_s'] / 1e6:.1f} | "
            f"{1e9 / r['events_per_cpu_s']:.0f} | {r['peak_rss_mb']:.1f} | {per_flow:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
