"""An emulated run's result in the simulator's schema (``docs/scenario-format.md``).

Where a quantity exists for the real kernel it is filled in; where it does
not (the sender's FA ratio, RACK's internal counters) it is ``None``. Three
sources:

* the link emulator's report: the path's links and impairments, and what it
  saw on the wire of each flow (packets, retransmissions, ground-truth
  spurious retransmissions and drops, reordering at the receiver);
* the sender's sockets sampled over time (``struct tcp_info``): cwnd,
  ssthresh, RTT, RTO, window, bytes acknowledged (throughput);
* the namespaces' counters (nstat names): fast retransmits, timeouts, loss
  probes, DSACKs, undos. These are per namespace, so with several flows they
  are the flows' total and are left out of the per-flow rows.

Everything else (kernel settings read back, counters, samples, timing and
rate self-measurement) goes under the result's ``emulation`` key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reorderlab.scenario import Scenario

from .kernel import SERIES, KernelPlan

#: ``ssthresh`` the kernel reports when it has none (TCP_INFINITE_SSTHRESH)
INFINITE_SSTHRESH = 0x7FFFFFFF

#: Kernel series always kept per flow under ``emulation.samples``.
KERNEL_SERIES = (
    "snd_cwnd",
    "snd_ssthresh",
    "snd_wnd",
    "rtt",
    "rto",
    "total_retrans",
    "bytes_acked",
    "reordering",
    "ca_state",
)


@dataclass
class FlowSamples:
    """One flow's sender socket over time (times in s from the run's start)."""

    t: list[float]
    info: list[dict[str, int]]
    cc: str | None

    def column(self, name: str) -> list[float]:
        return [float(_field(i, name)) for i in self.info]


def _field(info: Mapping[str, int], name: str) -> float:
    if name == "pipe":  # packets in flight, as tcp_packets_in_flight() counts them
        return info["unacked"] - info["sacked"] - info["lost"] + info["retrans"]
    value = info.get(name, 0)
    if name in ("pacing_rate", "delivery_rate", "bbr_bw"):  # bytes/s -> segments/s
        return value / max(info.get("snd_mss", 1), 1)
    if name in ("rtt", "rto", "rttvar", "min_rtt", "bbr_min_rtt"):
        return value / 1e6
    if name == "snd_ssthresh" and value >= INFINITE_SSTHRESH:
        return math.inf
    return float(value)


def flow_samples(
    samples: Sequence[Mapping[str, Any]], src: str, dst: str, t0_ns: int
) -> FlowSamples:
    """The samples of the connection ``src -> dst`` (the one that carried
    the most data when a command opened several)."""
    t: list[float] = []
    info: list[dict[str, int]] = []
    cc = None
    for s in samples:
        mine = [k for k in s["sockets"] if k["src"] == src and k["dst"] == dst and "info" in k]
        if not mine:
            continue
        best = max(mine, key=lambda k: k["info"].get("bytes_acked", 0))
        t.append((s["t_ns"] - t0_ns) / 1e9)
        info.append(best["info"])
        cc = best.get("cc", cc)
    return FlowSamples(t, info, cc)


def acked_between(fs: FlowSamples, start: float, end: float) -> tuple[float, float]:
    """Bytes acknowledged in [start, end] and the span really covered: from
    the last sample at or before ``start`` (0 bytes if none: the connection
    did not exist yet) to the last sample at or before ``end``."""
    before = [k for k, t in enumerate(fs.t) if t <= start]
    upto = [k for k, t in enumerate(fs.t) if t <= end]
    if not upto:
        return 0.0, 0.0
    last = upto[-1]
    first_bytes = fs.info[before[-1]]["bytes_acked"] if before else 0
    first_t = fs.t[before[-1]] if before else start
    span = fs.t[last] - first_t
    return float(fs.info[last]["bytes_acked"] - first_bytes), span


def _counter(counters: Mapping[str, int], *names: str) -> int:
    return sum(int(counters.get(n, 0)) for n in names)


def _kernel_counts(counters: Mapping[str, int]) -> dict[str, int]:
    """Per-flow fields the namespace counters give (nstat names)."""
    return {
        "fast_retransmits": _counter(counters, "TcpExtTCPFastRetrans"),
        "timeout_retransmits": _counter(counters, "TcpExtTCPSlowStartRetrans"),
        "tlp_probes": _counter(counters, "TcpExtTCPLossProbes"),
        "timeouts": _counter(counters, "TcpExtTCPTimeouts"),
        "fast_recoveries": _counter(counters, "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery"),
        "dsacks_received": _counter(counters, "TcpExtTCPDSACKRecv", "TcpExtTCPDSACKOfoRecv"),
        "undos": _counter(
            counters,
            "TcpExtTCPFullUndo",
            "TcpExtTCPPartialUndo",
            "TcpExtTCPDSACKUndo",
            "TcpExtTCPLossUndo",
        ),
        "false_timeouts_detected": _counter(counters, "TcpExtTCPSpuriousRTOs"),
    }


def flow_row(
    i: int,
    sc: Scenario,
    kp: KernelPlan,
    wire: Mapping[str, Any],
    fs: FlowSamples,
    counters: Mapping[str, int] | None,
    receiver: Mapping[str, Any] | None,
    t0_ns: int,
) -> dict[str, Any]:
    """Flow ``i``'s row of the simulator's ``flows`` table."""
    spec, fp = sc.flows[i], kp.flows[i]
    seg = int(wire["segment_size"]) or 1
    measure_from = max(spec.start, sc.warmup)
    acked, span = acked_between(fs, measure_from, sc.duration)
    last = fs.info[-1] if fs.info else {}
    kernel = _kernel_counts(counters) if counters is not None else {}
    rto = fs.column("rto")
    cwnd = fs.column("snd_cwnd")
    ssthresh = _field(last, "snd_ssthresh") if last else math.inf
    completed = bool(receiver and receiver.get("closed"))
    fct = None
    if completed and receiver and receiver.get("last_ns"):
        fct = (receiver["last_ns"] - t0_ns) / 1e9 - spec.start
    delivered_bytes = int(receiver["bytes"]) if receiver else int(last.get("bytes_acked", 0))
    return {
        "flow": i,
        "name": spec.name or f"f{i}",
        "src": spec.src,
        "dst": spec.dst,
        "variant": spec.variant,
        "cc": fs.cc or fp.cc,
        "start": spec.start,
        "segments_sent": math.ceil(wire["bytes_sent"] / seg),
        "data_packets_sent": wire["data_packets_sent"],
        "bytes_sent": wire["data_packets_sent"] * seg,
        "retransmits": wire["retransmits"],
        "fast_retransmits": kernel.get("fast_retransmits"),
        "timeout_retransmits": kernel.get("timeout_retransmits"),
        "probe_retransmits": None,
        "tlp_probes": kernel.get("tlp_probes"),
        "timeouts": kernel.get("timeouts"),
        "fast_recoveries": kernel.get("fast_recoveries"),
        "rack_marked_lost": None,
        "rack_reorder_timeouts": None,
        "spurious_retransmits": wire["spurious_retransmits"],
        "spurious_fast_retransmits": None,
        "spurious_timeout_retransmits": None,
        "spurious_probe_retransmits": None,
        "data_drops": wire["data_drops"],
        "dsacks_received": kernel.get("dsacks_received"),
        "false_fast_retransmits_detected": None,
        "false_timeouts_detected": kernel.get("false_timeouts_detected"),
        "undos": kernel.get("undos"),
        "lt_idle_periods": None,
        "dupthresh": last.get("reordering"),
        "fa_ratio": None,
        "acks_received": last.get("segs_in"),
        "acks_sent": wire["acks_sent"],
        "segments_delivered": delivered_bytes // seg,
        "bytes_delivered": delivered_bytes,
        "duplicate_segments_received": wire["duplicates_delivered"],
        "reordered_ratio": wire["reordered_ratio"],
        "reorder_extent_mean": wire["reorder_extent_mean"],
        "reorder_extent_max": wire["reorder_extent_max"],
        "throughput_bps": acked * 8 / span if span > 0 else 0.0,
        "normalized_throughput": None,
        "completed": completed,
        "fct": fct,
        "srtt": _field(last, "rtt") if last else None,
        "rttvar": _field(last, "rttvar") if last else 0.0,
        "min_rtt": _field(last, "min_rtt") if last else None,
        "rto": _field(last, "rto") if last else 0.0,
        "rto_mean": sum(rto) / len(rto) if rto else 0.0,
        # the RTO in force at each expiry: tcp_info shows only the current one
        "rto_expired_mean": None,
        "cwnd": cwnd[-1] if cwnd else 0.0,
        "ssthresh": None if math.isinf(ssthresh) else ssthresh,
        "max_cwnd": max(cwnd) if cwnd else 0.0,
    }


def series_of(fs: FlowSamples, names: Sequence[str]) -> dict[str, list[float | None]]:
    """``{"t": [...], name: [...]}`` with the simulator's series names; an
    infinite value (no ssthresh yet) is ``None``, as the core writes it."""
    out: dict[str, list[float | None]] = {"t": list(fs.t)}
    for name in names:
        col = fs.column(SERIES[name])
        out[name] = [c if math.isfinite(c) else None for c in col]
    return out


def kernel_series(fs: FlowSamples) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {"t": list(fs.t)}
    for name in KERNEL_SERIES:
        out[name] = [c if math.isfinite(c) else None for c in fs.column(name)]
    return out
