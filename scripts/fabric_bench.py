"""Fabric-scale benchmarks (BENCHMARKS.md, "Fabric scale"; issue 39).

``scenario CM K RATE [--buffer BYTES] [--min-rto S] [--ack-every N] [--out FILE]``
    The reorderlab scenario matching an htsim permutation run: the
    connection matrix ``CM`` (htsim's ``.cm`` text: ``src->dst id N start S
    size B`` lines) as explicit flows on a 3-tier k-ary fat-tree of
    ``RATE`` bit/s links, 1 us per hop, ECMP, htsim's 4150-byte packets
    (the segments of each flow: its bytes over htsim's 4086-byte payload),
    64-byte ACKs, every segment ACKed (``--ack-every 4``: every fourth, as
    htsim's receiver ACKs every 16,384 bytes), a NewReno sender starting at htsim's
    window (1.5 bandwidth-delay products) in congestion avoidance (htsim's
    DCTCP does not slow-start), htsim's switch queue and minimum
    RTO (what ``htsim_uec -disable_trim`` prints: 892,250 bytes and 443 us
    at 100 Gb/s on the 128-host tree).
    Written as JSON (the core's format: ``reorderlab-bench --scenario``).

``fct HTSIM_OUT`` / ``fct-sim SCENARIO_JSON``
    p50, p99 and max flow completion time (us) of an htsim run's output
    (its ``Flow ... finished at T`` lines; every flow starts at 0) or of
    the scenario run by reorderlab (``--seed``: the switches' ECMP salts).

``scaling``
    The scaling rows: a permutation of 1 MB flows on k = 4, 8, 12 and 16
    fat-trees (16 to 1,024 hosts) at 100 Gb/s, each run in its own
    ``reorderlab-bench --scenario`` process: events, CPU s, ns per event,
    peak RSS, and memory per flow and per link.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "target" / "release" / "reorderlab-bench"

#: htsim's packet on the wire and its payload (uec.cpp: _hdr_size 64).
HTSIM_MTU, HTSIM_PAYLOAD = 4150, 4150 - 64


def read_cm(path: Path) -> list[tuple[int, int, float, int]]:
    """(src, dst, start s, bytes) of every connection of an htsim matrix."""
    pat = re.compile(r"^(\d+)->(\d+) id \d+ start (\S+) size (\d+)")
    out = []
    for line in path.read_text().splitlines():
        m = pat.match(line.strip())
        if m:
            out.append((int(m[1]), int(m[2]), float(m[3]) * 1e-6, int(m[4])))
    return out


def matched(
    cm: Path, k: int, rate: float, buffer: int, min_rto: float, ack_every: int = 1
) -> dict[str, Any]:
    """The reorderlab scenario of an htsim permutation (module docstring);
    ``ack_every`` > 1: the receiver ACKs every that many segments (a 20 us
    timer for the rest), as htsim's does every 16,384 bytes (4 packets)."""
    rtt = 2 * 6 * 1e-6 + 6 * (HTSIM_MTU + 64) * 8 / rate
    window = math.ceil(1.5 * rtt * rate / 8 / HTSIM_MTU)
    flows = [
        {
            "src": f"h{s}",
            "dst": f"h{d}",
            "start": start,
            "variant": "NewReno",
            "segments": math.ceil(size / HTSIM_PAYLOAD),
            "tcp": {
                "mss": HTSIM_MTU,
                "ack_size": 64,
                "initial_window": window,
                "initial_ssthresh": window,
                "max_window": 1 << 20,
                "min_rto": min_rto,
                "initial_rto": min_rto,
            },
        }
        for s, d, start, size in read_cm(cm)
    ]
    if ack_every > 1:
        for f in flows:
            f["receiver"] = {
                "delayed_ack": "rfc1122",
                "delack_every": ack_every,
                "delack_timeout": 20e-6,
            }
    return {
        "name": f"htsim-matched {cm.stem}",
        "duration": 0.05,
        "topology": {
            "kind": "fat_tree",
            "k": k,
            "tiers": 3,
            "rate": rate,
            "hop_delay": 1e-6,
            "buffer_bytes": buffer,
            "load_balancing": "ecmp",
        },
        "flows": flows,
    }


def percentiles(fcts_us: list[float]) -> dict[str, float]:
    xs = sorted(fcts_us)

    def pct(p: float) -> float:
        # linear interpolation between closest ranks (numpy's default)
        i = (len(xs) - 1) * p
        lo, hi = math.floor(i), math.ceil(i)
        return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)

    return {"n": len(xs), "p50": pct(0.5), "p99": pct(0.99), "max": xs[-1]}


def htsim_fcts(path: Path) -> list[float]:
    pat = re.compile(r"^Flow \S+ flowId \d+ \S+ \d+ finished at (\S+)")
    return [float(m[1]) for line in path.read_text().splitlines() if (m := pat.match(line))]


def sim_fcts(path: Path, seed: int) -> list[float]:
    from reorderlab import run
    from reorderlab.scenario import Scenario

    flows = run(Scenario.from_json(path.read_text()), seed=seed, store=None).flows
    return [float(x) * 1e6 for x in flows["fct"][flows["completed"]]]


def permutation(k: int, rate: float) -> dict[str, Any]:
    """A 1 MB permutation on a k-ary 3-tier fat-tree (the scaling rows)."""
    return {
        "name": f"scaling k={k}",
        "duration": 0.05,
        "topology": {"kind": "fat_tree", "k": k, "rate": rate, "hop_delay": 1e-6},
        "workloads": [
            {
                "pattern": "permutation",
                "flow_size": {"dist": "constant", "value": 1e6},
                "variant": "NewReno",
                "tcp": {"mss": 1500, "min_rto": 1e-3, "initial_rto": 1e-3},
            }
        ],
    }


def bench(scenario: dict[str, Any]) -> dict[str, Any]:
    """One ``reorderlab-bench --scenario --json`` run in its own process,
    with its CPU time (user + system, s) and peak RSS (MB) from ``time``."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    cmd = ["/usr/bin/time", "-f", "%U %S %M", str(BENCH), f"--scenario={f.name}", "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    Path(f.name).unlink()
    user, system, rss_kb = out.stderr.strip().splitlines()[-1].split()
    r = dict(json.loads(out.stdout.strip().splitlines()[-1]))
    r["cpu_s"] = float(user) + float(system)
    r["peak_rss_mb"] = float(rss_kb) / 1024
    return r


def scaling() -> None:
    print("| hosts | links | flows | events | CPU s | ns/event | peak RSS MB | KB/flow | KB/link |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in (4, 8, 12, 16):
        hosts, links = k**3 // 4, 2 * 3 * k**3 // 4
        r = bench(permutation(k, 100e9))
        cpu, events, rss = r["cpu_s"], r["events"], r["peak_rss_mb"]
        print(
            f"| {hosts} | {links} | {hosts} | {events / 1e6:.2f} M | {cpu:.2f} | "
            f"{cpu / events * 1e9:.0f} | {rss:.1f} | {rss * 1024 / hosts:.1f} | "
            f"{rss * 1024 / links:.1f} |"
        )


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scenario")
    s.add_argument("cm", type=Path)
    s.add_argument("k", type=int)
    s.add_argument("rate", type=float)
    s.add_argument("--buffer", type=int, default=892250, help="htsim's non-trimming queue")
    s.add_argument("--min-rto", type=float, default=443.28e-6, help="htsim's min RTO (s)")
    s.add_argument("--ack-every", type=int, default=1, help="segments per ACK (htsim: 4)")
    s.add_argument("--out", type=Path)
    sub.add_parser("fct").add_argument("path", type=Path)
    f = sub.add_parser("fct-sim")
    f.add_argument("path", type=Path)
    f.add_argument("--seed", type=int, default=1, help="the seed (ECMP's salts)")
    sub.add_parser("scaling")
    a = p.parse_args(argv)
    if a.cmd == "scenario":
        text = json.dumps(matched(a.cm, a.k, a.rate, a.buffer, a.min_rto, a.ack_every))
        if a.out:
            a.out.write_text(text)
        else:
            print(text)
    elif a.cmd == "fct":
        print(json.dumps(percentiles(htsim_fcts(a.path))))
    elif a.cmd == "fct-sim":
        print(json.dumps(percentiles(sim_fcts(a.path, a.seed))))
    else:
        scaling()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
