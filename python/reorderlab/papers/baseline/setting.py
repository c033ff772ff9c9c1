"""Baseline checks of the engine: an undisturbed chain and random loss vs PFTK.

Paper key ``baseline``. Two figures:

``undisturbed``
    The rr-tcp paper's chain (its Fig. 3): ``S1 -(10 Mb/s, 1 ms)- R1
    -(bottleneck)- R2 -(10 Mb/s, 1 ms)- D``, path propagation RTT P = 50 ms
    (bottleneck delay 23 ms), one SACK flow with max window M = 50 segments of
    1000 bytes, 40-byte ACKs, no delayed ACK, a 100-packet bottleneck queue.

    The bottleneck rate is S = M / R packets per second, where R is the RTT an
    unqueued packet sees: the propagation RTT *plus* the transmission time of
    the data packet at each of its three hops and of its ACK at each of three
    hops on the way back::

        R = P + 2 (8 mss + 8 ack) / access_rate + (8 mss + 8 ack) / C,   C = 8 mss S

    Since C depends on R, solving gives
    ``R = (P + 2 (8 mss + 8 ack) / access_rate) / (1 - (mss + ack) / (mss M))``
    = 52.76 ms, S = 947.7 packets/s, C = 7.58 Mb/s (with 1000 / 40-byte packets).
    A window of exactly M then fills the pipe without a standing queue, so
    the flow should run at S with no retransmission.

    Sanity checks (two seeds, identical): throughput (measured after a
    warm-up that excludes slow start) within 1 % of S; zero retransmissions.

``random-loss``
    The same chain with a 100 Mb/s bottleneck and 100 Mb/s access links,
    10 000-packet queues and a max window of 10 000 segments (so neither
    the window nor the link limits the flow), and i.i.d. loss of data packets
    with probability p in {0.1, 0.5, 1, 2} % on R1->R2. One flow, Reno or
    SACK.

    Models: Padhye, Firoiu, Towsley, Kurose, "Modeling TCP Throughput: A
    Simple Model and its Empirical Validation", SIGCOMM 1998, the full model
    (eq. 31) with timeouts and the window limit W_max, b = 1 (an ACK per
    segment), evaluated with the run's own RTT (its final ``srtt``) and
    timeout T0 (``rto_mean``, the mean RTO the sender armed); and the
    timeout-free square-root law (Mathis et al. 1997, C = sqrt(3/2)). Both
    give the send rate in packets/s; the simulator reports goodput
    (in-order bytes delivered), so the comparison is with rate x (1 - p).

    PFTK is a model of *Reno*: its timeout term assumes that a loss in a
    window of w segments ends in a timeout with probability Q(w) ~ 3 / w
    (fewer than three duplicate ACKs come back). A SACK sender with limited
    transmit avoids most of those timeouts and is faster than PFTK as soon as
    the timeout term matters (ratios of about 1.2 at 0.5 %, 1.4 at 1 %, 1.8 at
    2 %). So, as in the engine's own test (``tests/baseline.rs``):

    Sanity checks, per p, on the per-seed ratios (95 % intervals over the
    seeds): Reno / PFTK full model in [0.7, 1.3]; SACK / square-root law in
    [0.7, 1.3]; SACK / Reno above 0.98 (at least as fast, within 2 %). At
    p = 0.1 %, where timeouts are rare, SACK / PFTK full model in [0.7, 1.3].
"""

from __future__ import annotations

import math

from reorderlab.papers.kit.mode import (
    Mode,
    Modes,
)
from reorderlab.scenario import (
    ChainTopology,
    DroptailQueue,
    FlowSpec,
    LossImpairment,
    RecordSpec,
    Scenario,
    TcpSpec,
)

PAPER = "baseline"

MSS = 1000
ACK = 40
ACCESS_RATE = 10e6
ACCESS_DELAY = 0.001
BOTTLENECK_DELAY = 0.023
P = 2 * (2 * ACCESS_DELAY + BOTTLENECK_DELAY)  # propagation RTT, 50 ms
M = 50

LOSS_RATES = (0.001, 0.005, 0.01, 0.02)
VARIANTS = ("Reno", "SACK")

#: The undisturbed run (deterministic, nothing random: two seeds, whose
#: identical results make the checks' intervals a point).
UNDISTURBED = Modes(full=Mode(300.0, 2, warmup=10.0), quick=Mode(30.0, 2, warmup=5.0))
#: The random-loss runs.
RANDOM_LOSS = Modes(full=Mode(1000.0, 5, warmup=20.0), quick=Mode(300.0, 5, warmup=10.0))


def unqueued_rtt(max_window: int = M) -> float:
    """R of the undisturbed chain (see the module docstring)."""
    per_hop_bits = 8 * (MSS + ACK)
    return (P + 2 * per_hop_bits / ACCESS_RATE) / (1 - (MSS + ACK) / (MSS * max_window))


def bottleneck_rate(max_window: int = M) -> float:
    """C = 8 mss M / R bit/s, so that S = M / R packets/s."""
    return 8 * MSS * max_window / unqueued_rtt(max_window)


def undisturbed_scenario(duration: float, warmup: float) -> Scenario:
    """One SACK flow on the rr-tcp chain with S = M / R."""
    return Scenario(
        name="baseline-undisturbed",
        duration=duration,
        warmup=warmup,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=bottleneck_rate(),
            bottleneck_delay=BOTTLENECK_DELAY,
            queue=DroptailQueue(limit_packets=100),
        ),
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant="SACK",
                tcp=TcpSpec(mss=MSS, ack_size=ACK, max_window=M, min_rto=1.0),
            )
        ],
        record=RecordSpec(series=["cwnd", "srtt"], interval=0.1),
    )


def random_loss_scenario(
    p: float, duration: float, warmup: float, variant: str = "SACK"
) -> Scenario:
    """One flow, not window- or link-limited, i.i.d. data loss ``p`` on R1->R2."""
    big = DroptailQueue(limit_packets=10_000)
    return Scenario(
        name="baseline-random-loss",
        duration=duration,
        warmup=warmup,
        topology=ChainTopology(
            access_rate=100e6,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=100e6,
            bottleneck_delay=BOTTLENECK_DELAY,
            queue=big,
            access_queue=big,
        ),
        impairments=[LossImpairment(link="R1->R2", p=p)],
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant=variant,
                # PFTK's RTT is the mean round trip: measure it on every ACK.
                tcp=TcpSpec(
                    mss=MSS, ack_size=ACK, max_window=10_000, min_rto=1.0, rtt_timing="per_ack"
                ),
            )
        ],
    )


def pftk_full(p: float, rtt: float, t0: float, w_max: float, b: int = 1) -> float:
    """PFTK full model (SIGCOMM 1998, eq. 31): send rate in packets/s.

    ``p`` loss probability, ``rtt`` round-trip time (s), ``t0`` timeout (s),
    ``w_max`` maximum window (segments), ``b`` packets acknowledged per ACK.
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    q = 1 - p

    def q_hat(w: float) -> float:
        # Probability that a loss in a window of w is a timeout (eq. 24 bound)
        num = (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3)))
        den = 1 - q**w
        return min(1.0, float(num / den))

    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    k = (2 + b) / (3 * b)
    ew = k + math.sqrt(8 * (1 - p) / (3 * b * p) + k * k)  # E[W_u], unconstrained window
    if ew < w_max:
        qh = q_hat(ew)
        num = (1 - p) / p + ew + qh / (1 - p)
        den = rtt * (b / 2 * ew + 1) + qh * t0 * f / (1 - p)
    else:
        qh = q_hat(w_max)
        num = (1 - p) / p + w_max + qh / (1 - p)
        den = rtt * (b / 8 * w_max + (1 - p) / (p * w_max) + 2) + qh * t0 * f / (1 - p)
    return float(num / den)


def sqrt_law(p: float, rtt: float) -> float:
    """Square-root law (Mathis et al. 1997), C = sqrt(3/2): packets/s."""
    return math.sqrt(1.5) / (rtt * math.sqrt(p))
