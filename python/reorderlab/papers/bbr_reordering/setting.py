"""The setting of ``bbr-reordering`` (issue 37): BBR, CUBIC and Reno under
the ``Linux`` loss recovery on two of the papers' reordering impairments.

Senders
    The ``Linux`` variant (RACK-TLP, PRR, DSACK and timestamp undo, adaptive
    reordering, F-RTO: ``docs/variants.md``) with congestion control ``bbr``
    (BBRv1 after Linux's ``tcp_bbr.c``, pacing at its own rate), ``cubic``
    or ``reno`` (not paced: the kernel paces a flow by itself only when its
    congestion control asks for it, as bbr does, ``tcp_needs_internal_pacing``),
    a Linux receiver (quickack delayed ACKs, 3 SACK blocks, timestamps on),
    the handshake simulated (the kernel always makes one).

The rr-tcp chain (:mod:`.chain`)
    The rr-tcp paper's Fig. 4 setting (``rr_tcp.setting``): ``S1 - R1 - R2 -
    D``, 1 ms access links, the bottleneck ``R1 -> R2`` of 50 ms one way
    (P = 50 ms), 1000-byte data packets, a fraction 0..30 % of the data
    packets on ``R1 -> R2`` delayed by Normal(25 ms, 8 ms). Here the
    bottleneck runs at 10 and 100 Mb/s (Fig. 4's is 3.7 Mb/s, 50 segments per
    round trip). Assumptions: the access links at 1 Gb/s (Fig. 4's 10 Mb/s
    would be the bottleneck at 100 Mb/s), a DropTail queue of one
    bandwidth-delay product (130 and 1300 packets; the validation matrix's
    rule, issue 35), no receive-window limit (Fig. 4's 50 segments would cap
    every sender at 3.8 Mb/s), and the kernel's own minimum RTO and ACK size
    (Linux's 200 ms, not the paper's ns-2 1 s).

The high-speed generator (:mod:`.gigabit`)
    The high-speed paper's dumbbell (``high_speed.setting``): a 1 Gb/s, 50 ms
    bottleneck, web traffic in both directions, the reordering generator on
    the studied flow's access link (mean interval 20 ms, block 1, exponential
    delay time swept as its Fig. 10), throughput after its 10 s warm-up. The
    studied flow runs the ``Linux`` variant with its own RTO estimator and
    minimum RTO (the paper's ns-2 timer is for its ns-2 senders).

Kernel runs
    The chain's points are emulated (``reorderlab emulate``, one run per
    point) by ``reorderlab reproduce bbr-reordering kernel`` (root, TUN,
    network namespaces; elsewhere it says why and returns no claim) and
    saved under ``<out>/kernel/{quick,full}/<cc>-<rate>-<fraction>/``. The
    ``chain`` figure draws and checks them beside the simulator's whenever
    they are there, so ``reorderlab report --recheck`` and a machine without
    root read them back. 1 Gb/s is beyond the emulator (200 Mb/s), so the
    ``gigabit`` figure has no kernel curve.

Full fidelity: chain 30 s runs, 5 seeds, fractions 0, 1, 2, 5, 10, 15, 20, 25,
30 %; gigabit 60 s, 3 seeds, delay times 0-100 us. Quick: chain 10 s, 3 seeds,
0, 10, 30 %; gigabit 20 s (10 s measured), 2 seeds, 0, 20, 100 us.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reorderlab.errors import MissingRunsError
from reorderlab.papers.high_speed import setting as hs
from reorderlab.papers.kit.mode import Mode, Modes
from reorderlab.papers.rr_tcp.setting import FIG4_DELAY, FIG4_P, bottleneck_delay
from reorderlab.scenario import (
    ChainTopology,
    DelayImpairment,
    DroptailQueue,
    FlowSpec,
    Impairment,
    ReceiverSpec,
    RecordSpec,
    Scenario,
    TcpSpec,
)

PAPER = "bbr-reordering"

#: Curve label -> congestion control; every curve runs the ``Linux`` variant.
CURVES = {"BBR": "bbr", "CUBIC": "cubic", "Reno": "reno"}
VARIANT = "Linux"

MSS = 1000
ACCESS_RATE = 1e9
ACCESS_DELAY = 0.001
RATES = (10e6, 100e6)
FRACTIONS = (0.0, 0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
FRACTIONS_QUICK = (0.0, 0.10, 0.30)
CHAIN_MODE = Modes(full=Mode(30.0, 5), quick=Mode(10.0, 3))
CHAIN_FRACTIONS = Modes(full=FRACTIONS, quick=FRACTIONS_QUICK)

GIGABIT_MODE = Modes(full=Mode(60.0, 3), quick=Mode(20.0, 2))
GIGABIT_DELAYS = Modes(full=hs.FIG10_DELAYS, quick=hs.QUICK_DELAYS)

#: BBR's state recorded over time on both sides (the ``state`` figure), and
#: how often: tcp_info's ``delivery_rate`` and ``pacing_rate``, bbr_info's
#: bandwidth estimate and min RTT (INET_DIAG), the congestion window.
STATE_SERIES = ("bbr_bw", "bbr_min_rtt", "pacing_rate", "delivery_rate", "cwnd")
STATE_INTERVAL = 0.1

#: The emulator's reach (``docs/emulation.md``).
EMULATOR_MAX_RATE = 200e6
#: Issue 37's agreement with the kernel: goodput within 10 %; a count within
#: 20 % (or +/- 2, the validation matrix's rule for small counts).
GOODPUT_BAND = 0.10
COUNT_SHARE, COUNT_SLACK = 0.20, 2.0


def rtt() -> float:
    """The chain's propagation round trip."""
    return 2 * (bottleneck_delay(FIG4_P) + 2 * ACCESS_DELAY)


def queue_packets(rate: float) -> int:
    """One bandwidth-delay product of the chain, in packets (at least 10)."""
    return max(10, math.ceil(rate * rtt() / 8 / MSS))


def chain(cc: str, rate: float, fraction: float, duration: float) -> Scenario:
    """One flow of ``cc`` over the chain at ``rate`` with ``fraction`` of
    the data packets delayed as in Fig. 4."""
    imps: list[Impairment] = []
    if fraction > 0:
        imps.append(
            DelayImpairment(link="R1->R2", fraction=fraction, delay=FIG4_DELAY, data_only=True)
        )
    return Scenario(
        name=PAPER,
        duration=duration,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=rate,
            bottleneck_delay=bottleneck_delay(FIG4_P),
            queue=DroptailQueue(limit_packets=queue_packets(rate)),
        ),
        impairments=imps,
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant=VARIANT,
                cc=cc,
                tcp=TcpSpec(mss=MSS, syn=True),
                receiver=ReceiverSpec(delayed_ack="quickack", max_sack_blocks=3),
            )
        ],
        record=RecordSpec(series=list(STATE_SERIES), interval=STATE_INTERVAL)
        if cc == "bbr"
        else RecordSpec(),
    )


def chain_grid(quick: bool) -> list[tuple[str, float, float]]:
    """(curve, rate, fraction) of every chain point."""
    return [(c, r, x) for r in RATES for c in CURVES for x in CHAIN_FRACTIONS(quick)]


def gigabit(cc: str, delay: float, duration: float) -> Scenario:
    """The high-speed dumbbell with the studied flow on ``Linux`` over ``cc``
    and the generator's delay time ``delay``."""
    data = hs.at_point(VARIANT, cc, duration, "delay", delay).to_dict()
    tcp = data["flows"][0]["tcp"]
    for ns2 in ("rto_estimator", "min_rto", "ack_size"):
        tcp.pop(ns2, None)
    return Scenario.from_dict(data)


# --------------------------------------------------------------------------
# The kernel runs of the chain (real time; saved under out/kernel/)
# --------------------------------------------------------------------------


def kernel_dir(out: Path, quick: bool, curve: str, rate: float, x: float) -> Path:
    return out / "kernel" / ("quick" if quick else "full") / f"{curve}-{rate / 1e6:g}M-{x:g}"


def measure(quick: bool, out: Path, rates: tuple[float, ...] = RATES) -> int:
    """Emulate every chain point at ``rates`` not saved yet (one run each,
    ``result.json`` and its CSVs in its own folder); how many were run."""
    from reorderlab.emulate import EmulationSpec, emulate

    duration = CHAIN_MODE(quick).duration
    made = 0
    for curve, rate, x in chain_grid(quick):
        where = kernel_dir(out, quick, curve, rate, x)
        if rate not in rates or rate > EMULATOR_MAX_RATE or (where / "result.json").exists():
            continue
        print(
            f"{PAPER}: kernel {curve} at {rate / 1e6:g} Mb/s, {x:.0%} delayed ({duration:g} s)",
            file=sys.stderr,
        )
        sc = chain(CURVES[curve], rate, x, duration)
        emulate(sc, out=where, emulation=EmulationSpec(pcap_snaplen=0))
        made += 1
    return made


@dataclass(frozen=True)
class KernelPoint:
    """One emulated run: goodput in data segments per second and its counts."""

    pps: float
    retransmits: int
    spurious_retransmits: int
    timing_p99_us: float


def read_kernel(out: Path, quick: bool) -> dict[tuple[str, float, float], KernelPoint]:
    """The chain's kernel runs saved under ``out`` (those there: the
    figure draws what it has)."""
    found = {}
    for curve, rate, x in chain_grid(quick):
        path = kernel_dir(out, quick, curve, rate, x) / "result.json"
        if path.exists():
            found[(curve, rate, x)] = kernel_point(json.loads(path.read_text(encoding="utf-8")))
    return found


def kernel_point(data: dict[str, Any]) -> KernelPoint:
    """A saved emulation result as a :class:`KernelPoint`."""
    emu, row = data.get("emulation"), (data.get("flows") or [None])[0]
    if not isinstance(emu, dict) or not isinstance(row, dict):
        raise MissingRunsError("a kernel result without 'emulation' or 'flows[0]'")
    return KernelPoint(
        pps=float(row["throughput_bps"]) / 8 / float(emu["segment_payload"]),
        retransmits=int(row["retransmits"]),
        spurious_retransmits=int(row.get("spurious_retransmits") or 0),
        timing_p99_us=float(emu["timing"]["p99_us"]),
    )


def counts_agree(kernel: float, sim: float) -> bool:
    """Within 20 % of the kernel's count, or +/- 2."""
    return abs(sim - kernel) <= max(COUNT_SLACK, COUNT_SHARE * abs(kernel))
