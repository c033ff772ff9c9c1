"""The wwan paper: link-layer in-order vs out-of-order delivery, TCP-Aix (Figs. 2-4).

Paper key ``wwan``; one recipe per row of ``docs/papers.md`` (The wwan paper).

Setting (Sec. III, Fig. 1), one user
    ``S -(100 Mb/s, 2 ms)- N1 -(100 Mb/s, 8 ms)- N2 -(10 Mb/s, 20 ms)- R``:
    N1 holds the shared buffer, N2 the user's own buffer (the queue of the
    last hop, 10 Mb/s, the bottleneck), and the last hop runs link-layer
    ARQ (``arq`` element at its egress): every attempt fails with the frame
    error rate (0, 3 or 10 %), a failed frame is retried one link RTT
    (40 ms) later until it gets through; the link layer delivers in order
    (holds frames behind a gap) or out of order. End-to-end propagation RTT
    60 ms, bdp = 75 segments of 1000 bytes. Senders: no delayed ACK,
    timestamps (an RTT sample from every ACK), limited transmit, unlimited
    advertised window, and ns-2.27's RTT estimator and timer (the release
    the paper used: 10-ms ticks, timestamp samples rounded to ticks, integer
    srtt x 8 / rttvar x 4, RTO floored to whole ticks, ``ts_resetRTO_``:
    every timestamp sample ends the backoff; timing cancelled at every fast
    retransmit and timeout, no sample in SACK fast recovery;
    ``tcp.rto_estimator = "ns2-2.27"``, ``docs/variants.md``) with the
    paper's min RTO of 200 ms (it lowered 2.27's 1 s default). RED: thresholds at 1/10 and 1/2
    of the buffer, on the instantaneous queue.

Variants
    ``SACK-CWV`` (standards compliant: SACK, limited transmit, RFC 2861
    congestion window validation), ``TCP-NCR-aggressive`` (RFC 4653's
    aggressive mode: the paper's NCR "sends new segments in response to
    each dupack received until congestion control is invoked", Sec. II,
    which is the aggressive limited transmit; careful mode sends one new
    segment per two duplicate ACKs), ``TCP-Aix``; and ``RACK-TLP`` (RFC
    8985) as an extra curve.

Full fidelity: 200 s runs, 10 seeds per point (the paper's ten
repetitions, Sec. IV-A and IV-B); Fig. 3 CoV over the last 150 s with 95 %
confidence intervals (Student t); Fig. 4 throughput over the 200 s.
Quick (``--quick``): 60 s runs (CoV over the last 45 s), 5 seeds. Every
claim is tested on the per-seed values with a 95 % interval from the seed
spread (:mod:`reorderlab.checks.seeded`); the sentences and why some are
not encoded are in ``coverage.toml``.

Assumptions (the paper does not say)
    * Link rates and the split of the 60 ms between the hops (above); N1's
      shared buffer is 1000 packets (it never fills with one user).
    * The N2 buffer is 100 packets in Figs. 2 and 3 (not given).
    * Sending rate = data packets sent (retransmissions included) per time
      interval; the CoV at scale delta = sd / mean of the per-interval
      rates, intervals of the last 150 s (``sent`` series sampled every
      50 ms, summed to coarser scales).
    * RED is gentle (ns-2.27's default), w_q 0.002, max_p 0.1.
    * Fig. 2: the trace window is 100-101 s; "bursts" are measured as the
      share of the window spent in sending gaps of at least 20 ms.
    * Fig. 4: a curve's buffer need is the smallest N2 buffer at which its
      throughput comes within 1 % of the link rate (0.1 Mb/s, a line's
      width on the paper's 0-10 Mb/s axis) of "the highest possible
      throughput" (Sec. IV-B), read as the panel's best (the highest
      throughput any of the paper's curves reaches in that panel), per
      seed; 275 segments when no buffer of the grid gets there (a lower
      bound). The curve's own best, the other reading, is tabulated beside
      it. "The same" or "does not increase" throughput is a difference
      within that 1 %; "perform the same" is tested at each buffer.
      "A lower buffer requirement" is more throughput from the same
      one-bdp (75-segment) buffer. Sec. IV-B's no-error statement is
      tested on runs at 0 % errors (``fig4``'s panel ``droptail 0 %``, not
      drawn in the paper).
    * "Reordering events" of Sec. IV-A are the frames the link layer had
      to retry (the ARQ element's ``held`` count); those "mistaken for
      congestion" are the spurious fast retransmits.

Sensitivity (drawn and tabulated, not judged; issue 20)
    ``fig3_sensitivity`` (PNG + CSV of its points; per-case numbers in
    ``fig3-sensitivity-runs.csv``): TCP-NCR out-of-order at 3 % errors for
    N2 buffers of 50, 100 and 200 segments (the one setting of Fig. 3 the
    paper does not give) with the paper's link layer, and, as diagnostics
    of why NCR does not cope there, with at most one link retry and with a
    20-ms link RTT; the other readings of the paper's NCR (RFC 4653's
    careful mode, TCP-DCR) and TCP-Aix with the paper's link for reference.
    3 runs per point (quick: 1). ``fig4-need-summary.csv``: each Fig. 4
    curve's buffer need under three readings of "enough" (within 1, 2 and
    5 % of the link rate of the panel's best, and of the curve's own
    best). ``fig4-same.csv``: the in-order curves' differences at each
    buffer, with their intervals and seed spread. ``papers/deviations/wwan.toml``
    cites both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from reorderlab.papers.kit.mode import (
    Modes,
)
from reorderlab.scenario import (
    ArqImpairment,
    CustomTopology,
    DroptailQueue,
    FlowSpec,
    LinkSpec,
    Queue,
    RecordSpec,
    RedQueue,
    Scenario,
    TcpSpec,
)

PAPER = "wwan"

MSS = 1000
RATE = 10e6
LINK_RTT = 0.04
BDP = 75
SAMPLE = 0.05  # the finest CoV time scale
TIME_SCALES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
PAPER_VARIANTS = ("SACK-CWV", "TCP-NCR-aggressive", "TCP-Aix")
#: Plus RACK-TLP (RFC 8985), which the paper predates.
VARIANTS = (*PAPER_VARIANTS, "RACK-TLP")
ERRORS = (0.0, 0.03, 0.10)

FULL_DURATION, QUICK_DURATION = 200.0, 60.0


#: Run length (s); the seeds of every point (the paper: ten repetitions).
DURATION = Modes(full=FULL_DURATION, quick=QUICK_DURATION)
SEEDS = Modes(full=10, quick=5)


def n2_queue(kind: str, buffer: int) -> Queue:
    """The user's buffer at N2: DropTail, or RED on the instantaneous queue
    with thresholds at 1/10 and 1/2 of the buffer."""
    if kind == "red":
        return RedQueue(
            limit_packets=buffer,
            min_th=buffer / 10,
            max_th=buffer / 2,
            gentle=True,
            instantaneous=True,
        )
    return DroptailQueue(limit_packets=buffer)


def scenario(
    variant: str,
    *,
    in_order: bool,
    frame_error: float,
    duration: float,
    buffer: int = 100,
    qdisc: str = "droptail",
    trace: tuple[float, float] | None = None,
    link_rtt: float = LINK_RTT,
    max_attempts: int | None = None,
) -> Scenario:
    """One user over Fig. 1's path (``link_rtt`` and ``max_attempts``: the
    link layer's retry delay and attempt limit, changed only by the
    diagnostic runs of ``fig3_sensitivity``)."""

    def link(a: str, b: str, rate: float, delay: float, queue: Queue) -> LinkSpec:
        return LinkSpec(from_=a, to=b, rate=rate, delay=delay, queue=queue)

    links = [
        link("S", "N1", 100e6, 0.002, DroptailQueue(limit_packets=1000)),
        link("N1", "N2", 100e6, 0.008, DroptailQueue(limit_packets=1000)),
        link("N2", "R", RATE, LINK_RTT / 2, n2_queue(qdisc, buffer)),
    ]
    return Scenario(
        name="wwan",
        duration=duration,
        topology=CustomTopology(nodes_=["S", "N1", "N2", "R"], links_=links),
        impairments=[
            ArqImpairment(
                link="N2->R",
                frame_error=frame_error,
                link_rtt=link_rtt,
                in_order=in_order,
                max_attempts=max_attempts,
            )
        ]
        if frame_error > 0
        else [],
        flows=[
            FlowSpec(
                name=variant,
                src="S",
                dst="R",
                variant=variant,
                tcp=TcpSpec(
                    mss=MSS,
                    ack_size=40,
                    max_window=1_000_000,
                    min_rto=0.2,
                    rtt_timing="per_ack",
                    rto_estimator="ns2-2.27",
                    limited_transmit=True,
                ),
            )
        ],
        record=RecordSpec(
            series=["sent"],
            interval=SAMPLE,
            trace_window=list(trace) if trace else [],
        ),
    )


def cov_by_scale(
    t: np.ndarray, sent: np.ndarray, start: float, scales: Sequence[float] = TIME_SCALES
) -> dict[float, float]:
    """CoV of the sending rate at each time scale, over samples from ``start``.

    ``sent`` is the cumulative packet count sampled every ``SAMPLE`` s; the
    rate in each interval of length ``scale`` (a multiple of the sample
    interval) is one sample; CoV = sd / mean of those samples.
    """
    keep = t >= start - 1e-9
    counts = np.diff(sent[keep])
    out: dict[float, float] = {}
    for scale in scales:
        k = round(scale / SAMPLE)
        n = len(counts) // k
        if n < 2:
            out[scale] = float("nan")
            continue
        rates = counts[: n * k].reshape(n, k).sum(axis=1)
        mean = rates.mean()
        out[scale] = float(rates.std(ddof=0) / mean) if mean > 0 else float("nan")
    return out


def idle_share(sent_t: np.ndarray, gap: float = 0.02) -> float:
    """Share of the traced time spent in sending gaps of at least ``gap``."""
    if len(sent_t) < 2:
        return 1.0
    d = np.diff(np.sort(sent_t))
    return float(d[d >= gap].sum() / (sent_t.max() - sent_t.min()))


def ci95(values: Sequence[float]) -> float:
    """Half width of the 95 % confidence interval of the mean (Student t)."""
    v = np.asarray([x for x in values if not np.isnan(x)], dtype=float)
    if len(v) < 2:
        return 0.0
    t_975 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}
    t = t_975.get(len(v), 1.96)
    return float(t * v.std(ddof=1) / np.sqrt(len(v)))


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig2", "fig3", "fig4")
