"""The core's memory estimate against the memory a run takes (issue 40,
finding 6; docs/limits.md "Memory").

For each scenario of a corpus: the estimate (``_core.validate`` with a
1-byte limit refuses it and says "the whole run about X"), and the peak
memory of the core's run measured in a fresh process: VmRSS before
``_core.run``, the high-water mark reset (``/proc/self/clear_refs``),
``VmHWM`` after, the difference. The corpus: the property tests' random
valid scenarios (``tests/test_properties.py``, the first N of its fixed-seed
stream) and the scenarios whose allocations grow with a number (sessions,
series samples, trace packets, nodes, flows), at sizes of MBs to GBs.

    .venv/bin/python scripts/memory_estimate.py [--random N] [--json OUT]

Prints one row per scenario (estimate, measured, ratio), the worst ratio
and their spread (min / median / max); the estimate must be within 4x of
the measurement both ways (it counts the engine's fixed cost, about 2 MB
whatever the scenario: ``ENGINE_BYTES`` in ``spec/limits.rs``).
Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Below this (bytes) neither the estimate nor the measurement is compared
#: (0: every row is; before the engine's fixed cost was estimated, 16 MiB).
FLOOR = 0
#: The bound the estimate must keep to (both ways).
WITHIN = 4.0

_MEASURE = """
import json, sys
from reorderlab import _core
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)
text = sys.stdin.read()
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
out = _core.run(text, 1)
peak = status("VmHWM")
print(json.dumps({"measured": peak - before, "result_chars": len(out)}))
"""

_ABOUT = re.compile(r"the whole run about ([0-9.]+) (B|kB|MB|GB|TB|PB)")
_UNIT = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}


def estimate(scenario_json: str) -> float:
    """The core's estimate of the run's memory, bytes (3 significant digits)."""
    code = (
        "import sys; from reorderlab import _core\n"
        "try:\n    _core.validate(sys.stdin.read())\nexcept ValueError as e:\n    print(e)\n"
    )
    env = {**os.environ, "REORDERLAB_MEMORY_LIMIT": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], input=scenario_json, capture_output=True, text=True, env=env
    )
    m = _ABOUT.search(proc.stdout)
    if m is None:
        raise RuntimeError(f"no estimate in {proc.stdout!r} {proc.stderr[-500:]!r}")
    return float(m.group(1)) * _UNIT[m.group(2)]


#: Scenarios estimated above this are not run (the machine is shared).
RUN_AT_MOST = 3e9
#: The address space a measured run may take (a bound, should the estimate
#: be far too low).
ADDRESS_SPACE = 8 << 30


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def measure(scenario_json: str) -> dict[str, Any]:
    """The peak memory of the core's run above the process before it."""
    env = {**os.environ, "REORDERLAB_MEMORY_LIMIT": "1T"}
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE],
        preexec_fn=_bounded,
        input=scenario_json,
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-1000:])
    return dict(json.loads(proc.stdout))


def chain(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "duration": 2.0,
        "topology": {"kind": "chain", "bottleneck_rate": 8e6, "bottleneck_delay": 0.02},
        "flows": [{"src": "S1", "dst": "D"}],
    }
    base.update(extra)
    return base


def grown() -> list[tuple[str, dict[str, Any]]]:
    """Scenarios whose allocations grow with one number, at several sizes."""
    out: list[tuple[str, dict[str, Any]]] = []
    for n in (10_000, 50_000, 150_000):
        traffic = [{"server": "S1", "client": "D", "sessions": n}]
        out.append((f"traffic sessions={n}", chain(traffic=traffic)))
    for n in (10_000, 40_000):
        traffic = [{"kind": "page", "server": "S1", "client": "D", "sessions": n}]
        out.append((f"page sessions={n}", chain(traffic=traffic)))
    for interval in (1e-4, 1e-5, 2e-6):
        record = {"series": ["cwnd", "srtt", "pipe"], "interval": interval}
        out.append((f"series interval={interval:g}", chain(record=record)))
    for interval in (1e-5,):
        record = {"series": ["cwnd"], "interval": interval}
        fast = chain(record=record, duration=20.0)
        fast["flows"][0]["segments"] = 50
        out.append((f"series interval={interval:g}, a flow that ends", fast))
    for rate in (1e8, 1e9, 1e10):
        topo = {
            "kind": "chain",
            "bottleneck_rate": rate,
            "bottleneck_delay": 0.01,
            "access_rate": rate,
        }
        sc = chain(topology=topo, record={"trace_window": [0.0, 2.0]})
        sc["flows"][0]["tcp"] = {"max_window": 10_000}
        out.append((f"trace at {rate:g} b/s", sc))
    # a flow its window holds back: 2,000 segments a 24 ms round trip
    held = chain(
        topology={
            "kind": "chain",
            "bottleneck_rate": 1e10,
            "bottleneck_delay": 0.01,
            "access_rate": 1e10,
        },
        record={"trace_window": [0.0, 2.0]},
    )
    held["flows"][0]["tcp"] = {"max_window": 2000}
    out.append(("trace at 1e+10 b/s, window 2000", held))
    topo_slow = {
        "kind": "chain",
        "bottleneck_rate": 8e6,
        "bottleneck_delay": 0.01,
        "access_rate": 1e12,
    }
    out.append(
        (
            "trace, 1e12 access, 8e6 bottleneck",
            chain(topology=topo_slow, record={"trace_window": [0.0, 2.0]}),
        )
    )
    for pairs in (100, 1000, 4000):
        topo = {
            "kind": "dumbbell",
            "pairs": pairs,
            "bottleneck_rate": 1e8,
            "bottleneck_delay": 0.01,
        }
        out.append(
            (f"dumbbell pairs={pairs}", chain(topology=topo, flows=[{"src": "S0", "dst": "D0"}]))
        )
    for n in (1000, 5000):
        topo = {"kind": "dumbbell", "pairs": n, "bottleneck_rate": 1e9, "bottleneck_delay": 0.01}
        flows = [{"src": f"S{i}", "dst": f"D{i}", "segments": 5} for i in range(n)]
        out.append((f"flows={n}", chain(topology=topo, flows=flows, duration=1.0)))
    return out


def random_corpus(n: int) -> list[tuple[str, dict[str, Any]]]:
    """The first ``n`` scenarios of the property tests' fixed-seed stream."""
    sys.path.insert(0, str(ROOT))
    from hypothesis import given, settings
    from tests.test_properties import scenarios

    got: list[dict[str, Any]] = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None)
    @given(scenarios())
    def collect(data: dict[str, Any]) -> None:
        got.append(data)

    collect()
    return [(f"random {i}", d) for i, d in enumerate(got[:n])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--random", type=int, default=40, help="random valid scenarios (default 40)")
    ap.add_argument("--only-grown", action="store_true")
    ap.add_argument("--json", type=Path, help="write the rows here")
    a = ap.parse_args()
    from reorderlab.scenario import Scenario

    corpus = grown() + ([] if a.only_grown else random_corpus(a.random))
    rows = []
    for name, data in corpus:
        text = Scenario.from_dict(data).to_json() if name.startswith("random") else json.dumps(data)
        est = estimate(text)
        if est > RUN_AT_MOST:
            print(f"{name:45s} est {est / 1e6:10.1f} MB  not run", flush=True)
            continue
        try:
            got = measure(text)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"{name:45s} est {est / 1e6:10.1f} MB  failed: {str(exc)[-200:]}", flush=True)
            continue
        ratio = est / max(got["measured"], 1)
        compared = max(est, got["measured"]) >= FLOOR
        rows.append({"name": name, "estimate": est, **got, "ratio": ratio, "compared": compared})
        flag = "" if not compared or 1 / WITHIN <= ratio <= WITHIN else "  <-- outside"
        print(
            f"{name:45s} est {est / 1e6:10.1f} MB  measured {got['measured'] / 1e6:9.1f} MB"
            f"  ratio {ratio:8.2f}{flag}",
            flush=True,
        )
    cmp = [r for r in rows if r["compared"]]
    if cmp:
        worst = max(cmp, key=lambda r: max(r["ratio"], 1 / r["ratio"]))
        print(
            f"compared {len(cmp)} of {len(rows)}; worst {worst['name']}: ratio {worst['ratio']:.2f}"
        )
        for label, part in (("random", True), ("grown", False)):
            ratios = sorted(r["ratio"] for r in cmp if r["name"].startswith("random") == part)
            if ratios:
                mid = ratios[len(ratios) // 2]
                print(
                    f"{label}: {len(ratios)} ratios, min {ratios[0]:.3f} median {mid:.3f} "
                    f"max {ratios[-1]:.3f}"
                )
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
