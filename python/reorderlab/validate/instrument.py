"""The emulator checked as an instrument, from its own captures.

Before the matrix is trusted, ``reorderlab validate`` measures what the
emulator applied (each check a row of ``instrument.csv`` with what was
measured, what the scenario asked and whether it holds):

* **probes** (UDP datagrams numbered and stamped with their send time, at a
  tenth of a 10 Mb/s, 50 ms path, so that the queue is empty, 20 % of them
  held by Normal(12.5 ms, 4 ms)): per datagram, from the two captures, the
  time the emulator held it (written to the receiver's device minus read
  from the sender's) against the path's unloaded latency. The datagrams
  not held give the **propagation and serialisation** error (their excess
  over the path's latency: p50, p99, max); the held ones' excess is the
  **held packets' extra delay**, tested against the specified distribution
  (Kolmogorov-Smirnov, :func:`ks_test`; the fraction held against 20 %);
  **read latency**: from the send time in the datagram to the emulator's
  read of it (the sender's kernel and the emulator's wake-up, which the
  emulator's own timing error does not see).
* **serialisation** at the bottleneck: a full link's data packets are
  written out one transmission time apart (1.2 ms for 1500 bytes at
  10 Mb/s); the median gap between back-to-back writes against it.
* **closed forms**: a window-limited flow (20 segments on a 42-segment
  path) gets W x payload / RTT; a full link with no impairment its payload
  rate (link rate x 1448 / 1500); the kernel's goodput against each.
"""

from __future__ import annotations

import itertools
import json
import math
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reorderlab.scenario import (
    ChainTopology,
    DelayImpairment,
    DroptailQueue,
    FlowSpec,
    NormalVar,
    ReceiverSpec,
    Scenario,
    TcpSpec,
)

RATE, RTT, PACKET = 10e6, 0.05, 1500
ACCESS_RATE, ACCESS_DELAY = 1e9, 0.0005
HELD_FRACTION, HELD_MEAN, HELD_SD = 0.2, 0.0125, 0.004
PROBE_SIZE, PROBE_RATE, PROBE_SECONDS = 1000, 1e6, 8.0
#: A datagram whose excess over the path's latency is above this was held
#: (the held ones' draws are tested conditioned on being above it: the
#: emulator's own lateness reaches a few ms on a loaded machine, so a lower
#: threshold takes late datagrams for held ones).
HELD_ABOVE = 0.002


def _chain(queue: int) -> ChainTopology:
    return ChainTopology(
        access_rate=ACCESS_RATE,
        access_delay=ACCESS_DELAY,
        bottleneck_rate=RATE,
        bottleneck_delay=RTT / 2 - 2 * ACCESS_DELAY,
        queue=DroptailQueue(limit_packets=queue),
    )


def unloaded_latency(size: int) -> float:
    """One-way latency of a ``size``-byte packet on the idle path (s)."""
    tx = size * 8
    return 2 * (ACCESS_DELAY + tx / ACCESS_RATE) + (RTT / 2 - 2 * ACCESS_DELAY) + tx / RATE


# -- statistics ---------------------------------------------------------------


def normal_cdf_truncated(x: float, mean: float, sd: float) -> float:
    """CDF of Normal(mean, sd) truncated at 0 (negative draws redrawn, as
    the simulator's ``normal`` does)."""
    if x <= 0:
        return 0.0

    def phi(z: float) -> float:
        return 0.5 * (1 + math.erf(z / math.sqrt(2)))

    low = phi((0 - mean) / sd)
    return (phi((x - mean) / sd) - low) / (1 - low)


def ks_test(samples: list[float], cdf: Any) -> tuple[float, float]:
    """One-sample Kolmogorov-Smirnov: (D, asymptotic p-value) of ``samples``
    against the continuous ``cdf`` (Kolmogorov's series for the p-value)."""
    xs = sorted(samples)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    d = 0.0
    for i, x in enumerate(xs):
        f = cdf(x)
        d = max(d, (i + 1) / n - f, f - i / n)
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


# -- captures -------------------------------------------------------------------


def raw_records(path: Path) -> Iterator[tuple[int, bytes]]:
    """(time ns, IPv4 packet bytes as captured) of a raw-IP pcap file."""
    with path.open("rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return
        while rec := f.read(16):
            if len(rec) < 16:
                return
            sec, frac, caplen, _orig = struct.unpack("<IIII", rec)
            data = f.read(caplen)
            if len(data) < caplen:
                return
            yield sec * 1_000_000_000 + frac, data


def udp_probes(path: Path) -> dict[int, tuple[int, int]]:
    """Probe number -> (capture time ns, send time ns) of every datagram."""
    out: dict[int, tuple[int, int]] = {}
    for t, data in raw_records(path):
        if len(data) < 20 or data[0] >> 4 != 4 or data[9] != 17:
            continue
        ihl = (data[0] & 0x0F) * 4
        body = data[ihl + 8 : ihl + 24]
        if len(body) < 16:
            continue
        number, sent = struct.unpack("!QQ", body)
        out.setdefault(number, (t, sent))
    return out


# -- the checks ----------------------------------------------------------------


@dataclass
class Check:
    name: str
    measured: float
    expected: float
    unit: str
    holds: bool
    detail: str

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


def probe_scenario() -> Scenario:
    held = NormalVar(mean=HELD_MEAN, sd=HELD_SD)
    return Scenario(
        name="validate/instrument/probes",
        duration=PROBE_SECONDS + 1,
        topology=_chain(100),
        impairments=[DelayImpairment(link="R1->R2", fraction=HELD_FRACTION, delay=held)],
        flows=[FlowSpec(src="S1", dst="D", variant="Linux", tcp=TcpSpec(mss=PACKET))],
    )


def probe_checks(folder: Path) -> list[Check]:
    """The probe run's checks, from its captures and emulator report."""
    report = json.loads((folder / "link-report.json").read_text(encoding="utf-8"))
    mono_minus_real = int(report["start_monotonic_ns"]) - int(report["start_realtime_ns"])
    read = udp_probes(folder / "sender.pcap")
    written = udp_probes(folder / "receiver.pcap")
    base = unloaded_latency(PROBE_SIZE)
    excess = {n: (written[n][0] - read[n][0]) / 1e9 - base for n in written if n in read}
    plain = [e for e in excess.values() if e <= HELD_ABOVE]
    held = [e for e in excess.values() if e > HELD_ABOVE]
    latency = [(t + mono_minus_real - sent) / 1e3 for t, sent in read.values()]
    low = normal_cdf_truncated(HELD_ABOVE, HELD_MEAN, HELD_SD)
    d, p = ks_test(held, lambda x: (normal_cdf_truncated(x, HELD_MEAN, HELD_SD) - low) / (1 - low))
    share = len(held) / len(excess) if excess else math.nan
    sd_share = math.sqrt(HELD_FRACTION * (1 - HELD_FRACTION) / max(1, len(excess)))
    p99_us = quantile(plain, 0.99) * 1e6
    return [
        Check(
            "path latency (datagrams not held): excess p99",
            p99_us,
            0.0,
            "us",
            quantile(plain, 0.01) * 1e6 >= 0 and p99_us < 1000,
            f"{len(plain)} datagrams; p50 {quantile(plain, 0.5) * 1e6:.0f} us, max "
            f"{max(plain, default=math.nan) * 1e6:.0f} us over the path's {base * 1000:.3f} ms",
        ),
        Check(
            "held fraction",
            share,
            HELD_FRACTION,
            "",
            abs(share - HELD_FRACTION) <= 3 * sd_share,
            f"{len(held)} of {len(excess)} datagrams (3 sd = {3 * sd_share:.3f})",
        ),
        Check(
            "held extra delay vs Normal(12.5 ms, 4 ms): KS p-value",
            p,
            0.05,
            "",
            p >= 0.01,
            f"D = {d:.4f} over {len(held)}; mean {sum(held) / max(1, len(held)) * 1000:.3f} ms",
        ),
        Check(
            "read latency (send to the emulator's read) p99",
            quantile(latency, 0.99),
            0.0,
            "us",
            quantile(latency, 0.99) < 1000,
            f"p50 {quantile(latency, 0.5):.0f} us, max {max(latency, default=math.nan):.0f} us",
        ),
    ]


def tcp_scenario(name: str, max_window: int | None, duration: float, warmup: float) -> Scenario:
    """A cubic flow; every segment acknowledged at once (the route's
    ``quickack``), so that a window-limited flow's round trip is the path's."""
    return Scenario(
        name=f"validate/instrument/{name}",
        duration=duration,
        warmup=warmup,
        topology=_chain(max(10, math.ceil(RATE * RTT / 8 / PACKET))),
        flows=[
            FlowSpec(
                src="S1",
                dst="D",
                variant="Linux",
                cc="cubic",
                tcp=TcpSpec(mss=PACKET, syn=True, max_window=max_window),
                receiver=ReceiverSpec(delayed_ack="none", max_sack_blocks=3),
            )
        ],
    )


WINDOW = 20


def closed_form_checks(full: dict[str, Any], limited: dict[str, Any], folder: Path) -> list[Check]:
    """The two TCP runs against their closed forms, and the serialisation
    of the full link's packets from its capture."""
    pay = full["emulation"]["segment_payload"]
    link_payload = RATE * pay / PACKET
    got_full = float(full["flows"][0]["throughput_bps"])
    # one window per round trip: the path's RTT plus a data packet's and an
    # ACK's transmission times
    rtt = RTT + PACKET * 8 / RATE + 2 * PACKET * 8 / ACCESS_RATE
    window_rate = WINDOW * pay * 8 / rtt
    got_lim = float(limited["flows"][0]["throughput_bps"])
    gaps = _write_gaps(folder / "receiver.pcap")
    tx = PACKET * 8 / RATE
    near = [g for g in gaps if 0.5 * tx < g < 1.5 * tx]
    med = quantile(near, 0.5)
    return [
        Check(
            "full link, no impairment: goodput / payload rate",
            got_full / link_payload,
            1.0,
            "",
            got_full / link_payload >= 0.98,
            f"{got_full / 1e6:.3f} of {link_payload / 1e6:.3f} Mb/s",
        ),
        Check(
            f"window-limited ({WINDOW} segments): goodput / (W x payload / RTT)",
            got_lim / window_rate,
            1.0,
            "",
            abs(got_lim / window_rate - 1) <= 0.02,
            f"{got_lim / 1e6:.3f} of {window_rate / 1e6:.3f} Mb/s",
        ),
        Check(
            "bottleneck serialisation: median gap of back-to-back writes",
            med * 1e6,
            tx * 1e6,
            "us",
            abs(med - tx) <= 20e-6,
            f"{len(near)} of {len(gaps)} gaps within 0.5-1.5 transmission times",
        ),
    ]


def _write_gaps(path: Path) -> list[float]:
    """Gaps (s) between consecutive data packets written to the receiver."""
    times = [
        t
        for t, data in raw_records(path)
        if len(data) >= 4 and struct.unpack("!H", data[2:4])[0] >= 1000
    ]
    return [(b - a) / 1e9 for a, b in itertools.pairwise(times)]


def run_instrument(out: Path, log: Any = None) -> list[Check]:
    """Run the three emulations (about 40 s) and return every check."""
    from reorderlab.emulate import emulate

    say = log or (lambda m: print(m, file=sys.stderr))
    workload = [sys.executable, "-m", "reorderlab._emu.workload"]
    probes = out / "probes"
    say("instrument: UDP probes, 20 % held by Normal(12.5 ms, 4 ms)")
    sender = [
        *workload,
        "udp-send",
        "{sender}",
        "{receiver}",
        "{port}",
        str(PROBE_RATE),
        str(PROBE_SIZE),
    ]
    emulate(
        probe_scenario(),
        out=probes,
        sender_cmd=[*sender, str(PROBE_SECONDS)],
        receiver_cmd=[*workload, "udp-recv", "{receiver}", "{port}", str(probes / "probes.json")],
    )
    checks = probe_checks(probes)
    say("instrument: a full link and a window-limited flow (TCP, cubic)")
    full = emulate(tcp_scenario("full", None, 12.0, 2.0), out=out / "full").to_dict()
    limited = emulate(tcp_scenario("window", WINDOW, 12.0, 2.0), out=out / "window").to_dict()
    checks += closed_form_checks(full, limited, out / "full")
    return checks
