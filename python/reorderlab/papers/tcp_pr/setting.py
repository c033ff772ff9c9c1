"""The tcp-pr paper: TCP-PR (Bohacek, Hespanha, Lee, Lim, Obraczka), Secs. V-VI, Figs. 4-16.

Paper key ``tcp-pr``; one recipe per row of ``docs/papers.md`` (The tcp-pr paper).

Fairness (Sec. V, Figs. 4-12)
    n flows share one path, half TCP-PR (alpha = 0.999, beta = 3, the
    extreme-loss rules of Table III on) and half TCP-SACK (Figs. 6 and 8:
    SACK and Reno). ``x_i`` is the data the flow delivered in the last 60 s
    of the run, ``T_i = x_i / mean_j x_j`` its normalized throughput; a
    protocol's mean normalized throughput is the mean of its flows' ``T_i``;
    the coefficient of variation is the paper's
    ``sqrt(sum (T_i - mean T)^2) / sum T_i`` over one protocol's flows. The
    core computes all three (``RunResult.fairness``); Jain's index is
    reported as well.

Multipath and queue swaps (Sec. VI, Figs. 13, 15, 16)
    One flow, variants TCP-PR, SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA,
    TD-FR (and TCP-DCR in Figs. 15-16), throughput over the whole run.

Full fidelity: 200 s runs (fairness measured over the last 60 s), 3 seeds
(Fig. 11: 10, as the paper's "ten simulations"), 2..64 flows. Quick mode
(``--quick``): 90 s runs (again the last 60 s), 1 seed (Fig. 11: 3), 4, 16
and 64 flows, fewer x values elsewhere. Claims are checked on those runs as
they come out; a claim that fails is reported as not holding, with the
deviation recorded for it (``papers/deviations/tcp_pr.toml``). Figs. 4-7,
9, 13 and 15-16 also draw a sensitivity sweep over what the paper does not
give (``<figure>_sensitivity``, :mod:`reorderlab.papers.kit.sensitivity`).

Assumptions (the paper does not say)
    * 1000-byte data packets, 40-byte ACKs, no delayed ACK, SACK receiver,
      min RTO 1 s (RFC 2988; TCP-PR's extreme-loss mxrtt of 1 s emulates
      it), no receiver-window limit (the flows are congestion-limited).
    * Seeds: a fairness run's seed also sets its flows' start times (seed 1
      evenly spread over the first 5 s, other seeds uniform random in it):
      a dumbbell without RED or HTTP has nothing else random, and its seeds
      were copies of one run.
    * The RTT estimator and retransmission timer of the ns-2 of the paper's
      time (2002-2004; the release is not named, the references end in
      2004): ns-2.1b9 to 2.27 share their defaults, 10-ms ticks, integer
      srtt x 8 / rttvar x 4, RTO floored to whole ticks, ``rfc2988_``
      (clamp to the 1 s minimum, then back off), initial RTO 6 s; timing
      cancelled at every fast retransmit and timeout, no sample in SACK fast
      recovery (``tcp.rto_estimator = "ns2-2.26"``, ``docs/variants.md``).
      TCP-PR's own timer (mxrtt) is unchanged by it.
    * Limited transmit (RFC 3042) for SACK (RFC 6675 includes it) and, in
      Figs. 6 and 8, for Reno too: ns-2 turned it on (``singledup_``) for
      every TCP agent on 2001/11/28 (ns-2.1b9 on; the Sack1 agent has
      honoured it since 2000). The paper's Sec. III-B, though, reports that
      in its simulations SACK timed out on a drop "while the congestion
      window size is smaller than 4", which happens only without limited
      transmit (ns-2.1b8's default). Which one held decides the
      small-window panels (Fig. 4 right, Fig. 7, the RED panels of Figs. 9
      and 10): ``fig4-5-7_sensitivity`` shows both.
    * Dumbbell: every flow S_i -> R1 -> R2 -> D_i with 100 Mb/s, 1 ms access
      links; the bottleneck delay makes the propagation RTT 20 ms or 200 ms.
      The flows start evenly spread over the first 5 s.
    * Queue sizes and disciplines follow the figure captions: Fig. 4 RED with
      (200 ms, 250 packets) and (20 ms, 25); Fig. 5 DropTail with (200 ms,
      250) and (20 ms, 250); Figs. 6, 9, 10, 11, 12 DropTail (Fig. 9, 10: and
      RED) with 250 packets at 20 ms; Figs. 7, 8 1.5 Mb/s, 20 ms, 25 packets.
    * RED: ns-2's defaults (min_th 5, max_th 15 packets, max_p 0.1,
      w_q 0.002), gentle; the paper gives none. Its thresholds set the
      windows of the 25-packet panels (``fig4-5-7_sensitivity``).
    * HTTP background (Figs. 9-12): the paper's per-session parameters (page
      gap Exp(1 s), 1 object per page, inter-object Exp(10 ms), Pareto
      objects of mean 40 KB and shape 1.2), one connection per object, SACK.
      Sessions are closed loop (the page gap is a think time after the page
      arrived). Calibration (Fig. 9's dumbbell): the paper's 50 sessions
      ("five Web server-client pairs, each of which running ten concurrent
      connections") offer 50 x 40 KB/s = 16 Mb/s to a 15 Mb/s link and
      cannot be the "around 10% of the total traffic" it states (Sec. V):
      they gave 48 % of the delivered bytes (full fidelity, closed loop; 83 %
      open loop). The session count is calibrated to that condition alone:
      ``WEB_SESSIONS`` = 8, the count whose mean share over both Fig. 9
      panels and every n came nearest 10 % (200 s, 3 seeds: 8 sessions
      9.9 %, 10: 10.6 %, 12: 12.2 %); the share is checked as a claim of
      its own and ``fig9_sensitivity`` draws it against the count. The
      parking lot (Figs. 10-12) keeps the paper's 80 sessions: no share is
      stated for it.
    * Parking lot (Fig. 3 left): routers R0-R3 (the paper's 1-4), 15 Mb/s
      hops, cross-source access links CS1 5, CS2 1.66, CS3 2.5 Mb/s, other
      access links 15 Mb/s, 1 ms; hop delay 8/3 ms so S -> D has a 20 ms
      propagation RTT; 250-packet queues. The studied flows go S -> D; HTTP
      cross traffic: 10 sessions per web server/client pair, 2 pairs for
      CS1 -> CD1 and CS3 -> CD3, 1 for CS1 -> CD2, CS1 -> CD3, CS2 -> CD2,
      CS2 -> CD3.
    * Fig. 11: 32 flows (16 + 16); the bottleneck rate is lowered to raise
      the loss rate (dumbbell: 15, 7.5, 4, 2, 1 Mb/s; parking lot: every
      15 Mb/s link scaled the same way); "percent of packets dropped" =
      drops / data packets sent over the studied flows.
    * Fig. 12: alpha in {0.99, 0.995, 0.999, 0.9999}, beta in
      {1, 1.5, 2, 3, 5, 10} (the paper's axes are not in the text).
    * Fig. 13: bottleneck 10 Mb/s, DropTail 250 packets, "propagation delay"
      = the bottleneck link's one-way delay (30 or 180 ms); K swaps of two
      random waiting packets in the bottleneck queue every 1 s, K in
      {0, 2, 5, 10, 20, 50}.
    * Figs. 15-16: Fig. 14's mesh is not in the text; three node-disjoint
      paths of 3, 4 and 5 hops from S to D, every link 10 Mb/s with a
      100-packet queue and the given delay (10 or 60 ms); data packets take
      path k with probability proportional to exp(-epsilon (hops_k - 3))
      (epsilon = 0: equally, 500: the 3-hop path only); ACKs take the
      shortest path back.

Observed (session 8), why TCP-PR trails SACK at long RTTs (Fig. 13 at
180 ms, Figs. 15-16 at 60 ms per link)
    A start-up transient, not the steady state. On the single 3-hop path at
    60 ms per link (propagation RTT 360 ms, 100-packet queue) TCP-PR detects
    the slow-start overshoot only mxrtt = 3 srtt after the first drop; its
    SACKed packets keep opening cwnd meanwhile (to 1213 packets against
    SACK's 555), ~690 packets are dropped, the first drop halves cwnd(n)
    to 114.5 and the burst trips the extreme-loss rule (ssthresh 57, cwnd 1,
    a wait of 1.3 s). Congestion avoidance from 57 packets at 1 packet per
    0.44 s RTT needs ~200 s to reach the path's ~550. Throughput, seed 1:
    90 s (quick) TCP-PR 3.59 vs SACK 7.38 Mb/s; 200 s (full) 6.42 vs 8.18;
    1000 s 8.29 vs 8.66. Fig. 13 at 180 ms with K = 5 swaps the same way
    (TCP-PR's cwnd reaches 2903, ~2200 drops; SACK 652, 6 drops): 90 s
    4.90 vs 7.38, 200 s 7.45 vs 7.52, 1000 s 9.26 vs 7.61, TCP-PR ahead as
    in the paper. The recipes keep the 90 s / 200 s runs of every
    tcp-pr experiment; the claims report what those give.

Tolerances of the claims are stated in each claim's ``expected`` text.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np

from reorderlab.papers.kit.mode import (
    Mode,
    Modes,
)
from reorderlab.scenario import (
    CustomTopology,
    DroptailQueue,
    DumbbellTopology,
    FlowSpec,
    LinkSpec,
    MultipathSpec,
    ParkingLotTopology,
    Queue,
    RedQueue,
    Scenario,
    SwapImpairment,
    TcpSpec,
    TrafficSpec,
)

PAPER = "tcp-pr"

MSS = 1000
ACK = 40
ACCESS_RATE = 100e6
ACCESS_DELAY = 0.001
WINDOW = 100_000  # no receiver-window limit
#: ns-2.1b9-2.27's RTT estimator and timer (the paper's ns-2 release is not
#: named; its references end in 2004).
RTO_ESTIMATOR = "ns2-2.26"
MEASURE = 60.0  # the last 60 s

FULL_DURATION, FULL_SEEDS, FULL_FLOWS = 200.0, 3, (2, 4, 8, 16, 32, 64)
QUICK_DURATION, QUICK_SEEDS, QUICK_FLOWS = 90.0, 1, (4, 16, 64)

PR, SACK, RENO = "TCP-PR", "SACK", "Reno"
#: Sec. VI's comparison set (Figs. 13, 15, 16).
REORDER_VARIANTS = ("TCP-PR", "SACK", "DSACK-NM", "Inc-by-1", "Inc-by-N", "EWMA", "TD-FR")
#: Dupthresh-driven variants "most" of which fall behind in Figs. 13 and 15.
DUPACK_VARIANTS = ("SACK", "DSACK-NM", "Inc-by-1", "Inc-by-N", "EWMA")

FAIR_BAND = (0.8, 1.2)


#: Run length and seeds of every figure's runs; the fairness figures' flow counts.
MODE = Modes(full=Mode(FULL_DURATION, FULL_SEEDS), quick=Mode(QUICK_DURATION, QUICK_SEEDS))
FLOWS = Modes(full=FULL_FLOWS, quick=QUICK_FLOWS)


#: RED's (min_th, max_th) in packets: ns-2's defaults (the paper gives none).
RED_THRESHOLDS = (5.0, 15.0)


def queue(kind: str, limit: int, red: tuple[float, float] = RED_THRESHOLDS) -> Queue:
    """DropTail, or RED with ns-2's default parameters (gentle); ``red``:
    its (min_th, max_th)."""
    if kind == "red":
        min_th, max_th = red
        return RedQueue(
            limit_packets=limit, min_th=min_th, max_th=max_th, max_p=0.1, w_q=0.002, gentle=True
        )
    return DroptailQueue(limit_packets=limit)


def tcp_spec(
    alpha: float | None = None, beta: float | None = None, limited_transmit: bool | None = None
) -> TcpSpec:
    return TcpSpec(
        mss=MSS,
        ack_size=ACK,
        max_window=WINDOW,
        rto_estimator=RTO_ESTIMATOR,
        alpha=alpha,
        beta=beta,
        limited_transmit=limited_transmit,
    )


#: The flows of a fairness run start within the first START_SPREAD seconds.
START_SPREAD = 5.0


def flow_starts(n: int, seed: int = 1) -> list[float]:
    """Start times of n flows: seed 1 evenly spread over ``START_SPREAD``;
    any other seed uniform in [0, START_SPREAD) from a generator of that
    seed. Without RED or HTTP nothing else in a dumbbell run is random, so
    every seed repeated one run (the "ten simulations" of Fig. 11 were ten
    copies) until the start times differed."""
    if seed == 1:
        return [START_SPREAD * i / n for i in range(n)]
    rng = np.random.default_rng(seed)
    return [float(t) for t in rng.uniform(0.0, START_SPREAD, n)]


def flows(
    n: int,
    variants: tuple[str, str],
    src: str | None,
    dst: str | None,
    seed: int = 1,
    sack_lt: bool | None = None,
    **tcp: Any,
) -> list[FlowSpec]:
    """n flows alternating between the two variants, started as
    :func:`flow_starts` says for ``seed``.

    ``src`` / ``dst`` None: flow i uses the dumbbell pair ``S{i}`` / ``D{i}``.
    ``sack_lt``: SACK's limited transmit (None: the variant's, on).
    """
    starts = flow_starts(n, seed)
    # ns-2 enables limited transmit (singledup_) for every TCP agent, Reno
    # included; our Reno registry entry is RFC 5681's, without.
    lt = {RENO: True, SACK: sack_lt}
    return [
        FlowSpec(
            name=f"{variants[i % 2]}-{i}",
            src=src or f"S{i}",
            dst=dst or f"D{i}",
            variant=variants[i % 2],
            start=starts[i],
            tcp=tcp_spec(**tcp, limited_transmit=lt.get(variants[i % 2])),
        )
        for i in range(n)
    ]


#: Web sessions of the dumbbell's HTTP background (Fig. 9), calibrated to
#: the paper's "around 10% of the total traffic" (see the module docstring).
WEB_SESSIONS = 8


def web(name: str, server: str, client: str, sessions: int) -> TrafficSpec:
    """The paper's web sessions (TrafficSpec defaults), closed loop."""
    return TrafficSpec(
        name=name, server=server, client=client, sessions=sessions, closed_loop=True, tcp=tcp_spec()
    )


def dumbbell(
    n: int,
    *,
    rate: float = 15e6,
    rtt: float = 0.02,
    limit: int = 250,
    qdisc: str = "droptail",
    variants: tuple[str, str] = (PR, SACK),
    http: bool = False,
    duration: float = FULL_DURATION,
    alpha: float | None = None,
    beta: float | None = None,
    seed: int = 1,
    web_sessions: int = WEB_SESSIONS,
    red: tuple[float, float] = RED_THRESHOLDS,
    sack_lt: bool | None = None,
) -> Scenario:
    """n flows on the tcp-pr paper's dumbbell (Fig. 3 right); ``seed``: the run's
    seed, which sets the flows' start times (:func:`flow_starts`); ``red``:
    RED's thresholds; ``sack_lt``: SACK's limited transmit (None: on)."""
    return Scenario(
        name="tcp-pr-dumbbell",
        duration=duration,
        warmup=max(0.0, duration - MEASURE),
        topology=DumbbellTopology(
            pairs=n,
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=rate,
            bottleneck_delay=rtt / 2 - 2 * ACCESS_DELAY,
            queue=queue(qdisc, limit, red),
        ),
        flows=flows(n, variants, None, None, seed, sack_lt, alpha=alpha, beta=beta),
        traffic=[web("web", "R1", "R2", web_sessions)] if http else [],
    )


#: (server, client, pairs) of the parking lot's HTTP cross traffic.
PARKING_LOT_WEB = (
    ("CS1", "CD1", 2),
    ("CS1", "CD2", 1),
    ("CS1", "CD3", 1),
    ("CS2", "CD2", 1),
    ("CS2", "CD3", 1),
    ("CS3", "CD3", 2),
)


def parking_lot(
    n: int,
    *,
    rate: float = 15e6,
    qdisc: str = "droptail",
    duration: float = FULL_DURATION,
    alpha: float | None = None,
    beta: float | None = None,
    seed: int = 1,
) -> Scenario:
    """n flows S -> D across the 3-bottleneck parking lot with HTTP cross
    traffic; ``seed`` sets the flows' start times (:func:`flow_starts`)."""
    scale = rate / 15e6
    return Scenario(
        name="tcp-pr-parking-lot",
        duration=duration,
        warmup=max(0.0, duration - MEASURE),
        topology=ParkingLotTopology(
            hop_rates=[rate] * 3,
            hop_delay=(0.01 - 2 * ACCESS_DELAY) / 3,
            access_rate=rate,
            cross_access_rates=[5e6 * scale, 1.66e6 * scale, 2.5e6 * scale],
            access_delay=ACCESS_DELAY,
            queue=queue(qdisc, 250),
            access_queue=queue("droptail", 250),
        ),
        flows=flows(n, (PR, SACK), "S", "D", seed, alpha=alpha, beta=beta),
        traffic=[web(f"{s}-{c}", s, c, 10 * pairs) for s, c, pairs in PARKING_LOT_WEB],
    )


def swap_scenario(variant: str, delay: float, swaps: int, duration: float) -> Scenario:
    """Fig. 13: one flow, K swaps in the bottleneck queue every second."""
    sc = dumbbell(1, rate=10e6, limit=250, variants=(variant, variant), duration=duration)
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    topo.bottleneck_delay = delay
    sc.name = "tcp-pr-swaps"
    sc.warmup = 0.0
    if swaps:
        sc.impairments = [SwapImpairment(link="R1->R2", period=1.0, swaps=swaps)]
    return sc


#: Hops of the three node-disjoint paths of the Figs. 15-16 mesh.
MESH_HOPS = (3, 4, 5)


def mesh_scenario(variant: str, delay: float, epsilon: float, duration: float) -> Scenario:
    """Figs. 15-16: one flow S -> D split over 3 disjoint paths by epsilon."""
    nodes = ["S", "D"]
    links: list[LinkSpec] = []
    paths: list[list[str]] = []
    for k, hops in enumerate(MESH_HOPS):
        inner = [f"P{k}H{j}" for j in range(1, hops)]
        nodes += inner
        hop_nodes = ["S", *inner, "D"]
        path = []
        for a, b in itertools.pairwise(hop_nodes):
            links.append(
                LinkSpec(from_=a, to=b, rate=10e6, delay=delay, queue=queue("droptail", 100))
            )
            path.append(f"{a}->{b}")
        paths.append(path)
    return Scenario(
        name="tcp-pr-mesh",
        duration=duration,
        topology=CustomTopology(nodes_=nodes, links_=links),
        multipath=[MultipathSpec(at="S", dst="D", paths=paths, epsilon=epsilon)],
        flows=[FlowSpec(name=variant, src="S", dst="D", variant=variant, tcp=tcp_spec())],
    )


#: The sensitivity runs' flow count (where the small-window panels fail most).
SENS_FLOWS = 16
#: Swaps per swap event of the sensitivity sweeps of Figs. 13 and 15-16.
SENS_SWAPS = 5


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig4-5-7", "fig6-8", "fig9", "fig10", "fig11", "fig12", "fig13", "fig15-16")
