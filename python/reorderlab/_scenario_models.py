"""The scenario's pydantic models, generated from the core's schema.

Do not edit: each field is declared once, in ``crates/reorderlab/src/spec``;
after changing one, run ``python -m reorderlab._schema_gen`` (``make install``
first). ``tests/test_schema.py`` checks this file is what it writes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from reorderlab._field_types import (
    U32,
    U64,
    Bool,
    Int,
    Model,
    Name,
    Range,
    Real,
    Registry,
)

#: The names ``series`` accepts.
SERIES_NAMES: tuple[str, ...] = (
    "cwnd",
    "ssthresh",
    "srtt",
    "rto",
    "dupthresh",
    "pipe",
    "delivered",
    "fa_ratio",
    "sent",
    "reorder_p10",
    "reorder_p50",
    "reorder_p90",
    "pacing_rate",
    "delivery_rate",
    "bbr_bw",
    "bbr_min_rtt",
)


class DroptailQueue(Model):
    """Tail drop when either limit would be exceeded."""

    kind: Literal["droptail"] = "droptail"

    #: Most packets in the queue (none: no packet limit).
    limit_packets: Annotated[U32, Range(ge=1)] | None = None

    #: Most bytes in the queue (none: no byte limit).
    limit_bytes: Annotated[U64, Range(ge=1, unit="bytes")] | None = None


class RedQueue(Model):
    """Random Early Detection (Floyd & Jacobson 1993), thresholds in packets."""

    kind: Literal["red"] = "red"

    #: Most packets in the queue.
    limit_packets: Annotated[U32, Range(ge=1)]

    #: Average queue length (packets) where early drops start.
    min_th: Annotated[Real, Range(ge=0)]

    #: Average queue length (packets) where the drop probability reaches max_p; > min_th.
    max_th: Annotated[Real, Range(gt=0)]

    #: Drop probability at max_th.
    max_p: Annotated[Real, Range(gt=0, le=1)] = 0.1

    #: Weight of each new sample in the average queue length (EWMA).
    w_q: Annotated[Real, Range(gt=0, le=1)] = 0.002

    #: Gentle RED: drop probability rises from max_p to 1 between max_th and 2 max_th.
    gentle: Bool = False

    #: Use the instantaneous queue length instead of the EWMA (the wwan paper).
    instantaneous: Bool = False


Queue = Annotated[DroptailQueue | RedQueue, Field(discriminator="kind")]


#: How a switch picks one of its equal-cost uplinks for a packet.
LoadBalancing = Literal["ecmp", "spray", "round_robin", "adaptive", "flowlet", "reps"]


#: What happens to a cable at a [`LinkEvent`].
LinkAction = Literal["down", "up", "rate"]


class LinkEvent(Model):
    """A change of one cable of a fat-tree at a given time (`[[topology.events]]`)."""

    #: When, s from the start of the run (< duration).
    at: Annotated[Real, Range(ge=0, le=1000000000, unit="s")]

    #: The cable, by the name of either direction (`"agg0->core0"`).
    link: Name

    #: "down", "up" or "rate".
    action: LinkAction

    #: action = "rate": the factor of the cable's nominal rate, in (0, 1].
    factor: Annotated[Real, Range(gt=0, le=1)] | None = None


class LinkSpec(Model):
    """One unidirectional link of a custom topology."""

    #: Node the link leaves.
    from_: Name = Field(alias="from")

    #: Node the link enters.
    to: Name

    #: Transmission rate.
    rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")]

    #: One-way propagation delay.
    delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")]

    #: The link's queue.
    queue: Queue = Field(default_factory=lambda: DroptailQueue(limit_packets=100))

    #: Also create the reverse link `to -> from` with the same parameters.
    duplex: Bool = True


class ChainTopology(Model):
    """rr-tcp Fig. 3: `S1 -(access)- R1 -(bottleneck)- R2 -(access)- D`."""

    kind: Literal["chain"] = "chain"

    #: Rate of the access links S1-R1 and R2-D.
    access_rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")] = 10000000.0

    #: One-way delay of each access link.
    access_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.001

    #: Rate of the bottleneck R1-R2.
    bottleneck_rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")]

    #: One-way delay of the bottleneck.
    bottleneck_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")]

    #: Queue of the bottleneck (both directions).
    queue: Queue = Field(default_factory=lambda: DroptailQueue(limit_packets=100))

    #: Queue of the access links (none: droptail, 1000 packets).
    access_queue: Queue | None = None


class DumbbellTopology(Model):
    """`S0..S{n-1} - R1 - R2 - D0..D{n-1}`; pair i uses `S{i}` and `D{i}`."""

    kind: Literal["dumbbell"] = "dumbbell"

    #: Sender / receiver pairs n.
    pairs: Annotated[Int, Range(ge=1, le=100000)]

    #: Rate of every access link.
    access_rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")] = 10000000.0

    #: One-way delay of each pair's access links (both sides), one per pair; empty: access_delay.
    access_delays: list[Annotated[Real, Range(ge=0, le=1000000000, unit="s")]] = Field(
        default_factory=list
    )

    #: One-way delay of every access link when access_delays is empty.
    access_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.001

    #: Rate of the bottleneck R1-R2.
    bottleneck_rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")]

    #: One-way delay of the bottleneck.
    bottleneck_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")]

    #: Queue of the bottleneck (both directions).
    queue: Queue = Field(default_factory=lambda: DroptailQueue(limit_packets=100))

    #: Queue of the access links (none: droptail, 1000 packets).
    access_queue: Queue | None = None


class ParkingLotTopology(Model):
    """tcp-pr Fig. 3: routers `R0 .. R{h}` in a chain, hop i = `R{i-1} -> R{i}`. End hosts `S`
    (at R0) and `D` (at R{h}) for the long flow, and cross traffic hosts `CS{i}` (at R{i-1})
    and `CD{i}` (at R{i}) for every hop.
    """

    kind: Literal["parking_lot"] = "parking_lot"

    #: Rate of each router-router hop (its length is the number of hops h).
    hop_rates: list[Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")]]

    #: One-way delay of every hop.
    hop_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.002

    #: Rate of every access link.
    access_rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")] = 10000000.0

    #: Rate of each cross source's access link `CS{i} -> R{i-1}` (tcp-pr Fig. 3: 5, 1.66, 2.5
    #: Mb/s), one per hop; empty: access_rate.
    cross_access_rates: list[Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")]] = Field(
        default_factory=list
    )

    #: One-way delay of every access link.
    access_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.001

    #: Queue of every hop.
    queue: Queue = Field(default_factory=lambda: DroptailQueue(limit_packets=100))

    #: Queue of the access links (none: droptail, 1000 packets).
    access_queue: Queue | None = None


class FatTreeTopology(Model):
    """k-ary fat-tree of k-port switches (Al-Fares et al., SIGCOMM 2008), `docs/fabrics.md`.
    Three tiers: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores, k^3/4
    hosts. Two tiers (leaf-spine): k leaves, k/2 spines, k^2/2 hosts. Nodes `h{i}`,
    `edge{i}`, `agg{i}`, `core{i}`; every cable is a duplex link.
    """

    kind: Literal["fat_tree"] = "fat_tree"

    #: Switch ports k, even.
    k: Annotated[Int, Range(ge=2, le=64)]

    #: Switch tiers: 2 (leaf-spine) or 3 (edge, aggregation, core).
    tiers: Annotated[Int, Range(ge=2, le=3)] = 3

    #: Rate of every host link (and of every switch-switch link divided by oversubscription at
    #: the edge).
    rate: Annotated[Real, Range(gt=0, le=1000000000000, unit="bit/s")] = 100000000000.0

    #: Host to uplink capacity ratio at the edge (leaf) tier: edge-aggregation links run at rate
    #: / oversubscription.
    oversubscription: Annotated[Real, Range(ge=1)] = 1.0

    #: One-way propagation delay of every link, per hop (ns resolution, e.g. 5e-7).
    hop_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 5e-07

    #: Buffer of every switch port, tail drop (hosts' own queues: 1000 packets).
    buffer_bytes: Annotated[U64, Range(ge=1, unit="bytes")] = 150000

    #: How every switch picks among equal-cost uplinks.
    load_balancing: LoadBalancing = "ecmp"

    #: Cables down for the whole run, by the name of either direction (`"edge0->agg1"`).
    failed_links: list[Name] = Field(default_factory=list)

    #: ECN: every switch port marks CE on a data packet arriving to more than this many bytes
    #: queued (DCTCP's K; none: no marking).
    ecn_threshold_bytes: Annotated[U64, Range(ge=1, unit="bytes")] | None = None

    #: Packet trimming: a switch port that would drop a data packet forwards its header at high
    #: priority instead (NDP; Ultra Ethernet).
    trimming: Bool | None = None

    #: load_balancing = "flowlet": the idle gap after which a flow's next packet may take another
    #: uplink (default 100 us).
    flowlet_gap: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] | None = None

    #: Changes of cables during the run: down, up, or a fraction of their rate.
    events: list[LinkEvent] | None = None


class CustomTopology(Model):
    """Explicit nodes and links."""

    kind: Literal["custom"] = "custom"

    #: Node names, unique.
    nodes_: list[Name] = Field(alias="nodes")

    #: The links between them.
    links_: list[LinkSpec] = Field(alias="links")


Topology = Annotated[
    ChainTopology | DumbbellTopology | ParkingLotTopology | FatTreeTopology | CustomTopology,
    Field(discriminator="kind"),
]


#: Position of an impairment element on its link.
Position = Literal["ingress", "egress"]


class ConstantVar(Model):
    """Always `value`."""

    dist: Literal["constant"] = "constant"

    #: The value.
    value: Annotated[Real, Range(ge=0)]


class UniformVar(Model):
    """Uniform on `[low, high]`."""

    dist: Literal["uniform"] = "uniform"

    #: Lowest value.
    low: Annotated[Real, Range(ge=0)]

    #: Highest value; >= low.
    high: Real


class NormalVar(Model):
    """Normal with `mean` and standard deviation `sd`, truncated at 0 (negative draws are
    redrawn), as delays cannot be negative.
    """

    dist: Literal["normal"] = "normal"

    #: Mean of the untruncated law.
    mean: Real

    #: Standard deviation of the untruncated law.
    sd: Annotated[Real, Range(ge=0)]


class ExponentialVar(Model):
    """Exponential with the given `mean` (rate 1 / mean)."""

    dist: Literal["exponential"] = "exponential"

    #: The mean.
    mean: Annotated[Real, Range(gt=0)]


class HyperexponentialVar(Model):
    """Mixture of exponentials: with probability `probs[i]` an exponential of mean `means[i]`."""

    dist: Literal["hyperexponential"] = "hyperexponential"

    #: Mean of each exponential, each > 0.
    means: list[Real]

    #: Probability of each, one per mean, summing to 1.
    probs: list[Real]


class ParetoVar(Model):
    """Pareto type I: P(X > x) = (scale / x)^shape for x >= scale; mean shape * scale / (shape
    - 1) for shape > 1.
    """

    dist: Literal["pareto"] = "pareto"

    #: The smallest value.
    scale: Annotated[Real, Range(gt=0)]

    #: Tail index.
    shape: Annotated[Real, Range(gt=0)]


class Pareto2Var(Model):
    """Pareto type II (Lomax): P(X > x) = (1 + x / scale)^-shape for x >= 0; mean scale /
    (shape - 1) for shape > 1.
    """

    dist: Literal["pareto2"] = "pareto2"

    #: Scale of the law.
    scale: Annotated[Real, Range(gt=0)]

    #: Tail index.
    shape: Annotated[Real, Range(gt=0)]


class EmpiricalVar(Model):
    """Empirical CDF: `cdf[i]` = P(X <= values[i]), both ascending, the last cdf value 1;
    sampled by linear interpolation of the inverse CDF (below the first point: `values[0]`).
    """

    dist: Literal["empirical"] = "empirical"

    #: Values, ascending, each >= 0.
    values: list[Real]

    #: P(X <= values[i]), one per value, ascending to 1.
    cdf: list[Real]


RandomVar = Annotated[
    ConstantVar
    | UniformVar
    | NormalVar
    | ExponentialVar
    | HyperexponentialVar
    | ParetoVar
    | Pareto2Var
    | EmpiricalVar,
    Field(discriminator="dist"),
]


#: Which retransmitted copies a positioned loss drops.
CopiesDropped = Literal["original", "all"]


#: What the reordering generator (high-speed Sec. III-B) counts a block's delay time from.
ReorderAnchor = Literal["later-packet", "block-arrival"]


class LossImpairment(Model):
    """Independent (Bernoulli) drop of each packet with probability `p`."""

    kind: Literal["loss"] = "loss"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Drop probability of each packet.
    p: Annotated[Real, Range(ge=0, lt=1)]

    #: Only data packets (true) or every packet (false).
    data_only: Bool = True


class DelayImpairment(Model):
    """Each packet independently, with probability `fraction`, is held for a delay drawn from
    `delay` (seconds); the others pass at once, so a long delay reorders (rr-tcp Sec. 5).
    """

    kind: Literal["delay"] = "delay"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Probability that a packet is held.
    fraction: Annotated[Real, Range(ge=0, le=1)]

    #: How long a held packet is held.
    delay: RandomVar

    #: Only data packets (true) or every packet (false).
    data_only: Bool = False


class BurstLossImpairment(Model):
    """Drop episodes: each packet outside an episode starts one with probability `q`; an
    episode drops every packet (itself included) for a `duration` drawn in seconds (rr-tcp
    Table 4).
    """

    kind: Literal["burst_loss"] = "burst_loss"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Probability that a packet starts an episode.
    q: Annotated[Real, Range(ge=0, lt=1)]

    #: Length of an episode.
    duration: RandomVar

    #: Only data packets (true) or every packet (false).
    data_only: Bool = True


class GilbertElliottImpairment(Model):
    """Gilbert-Elliott two-state loss: per packet, move Good -> Bad with probability `p_gb` and
    Bad -> Good with `p_bg`, then drop with `loss_good` or `loss_bad` (the tail-loss paper).
    """

    kind: Literal["gilbert_elliott"] = "gilbert_elliott"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Probability of moving from Good to Bad, per packet.
    p_gb: Annotated[Real, Range(ge=0, le=1)]

    #: Probability of moving from Bad to Good, per packet.
    p_bg: Annotated[Real, Range(ge=0, le=1)]

    #: Drop probability in the Good state.
    loss_good: Annotated[Real, Range(ge=0, le=1)] = 0.0

    #: Drop probability in the Bad state.
    loss_bad: Annotated[Real, Range(ge=0, le=1)] = 1.0

    #: Only data packets (true) or every packet (false).
    data_only: Bool = True


class PositionedImpairment(Model):
    """Drop given data segments (0-based segment numbers) of flow `flow`, e.g. the last n of a
    10-segment flow (tail-loss Figs. 1, 2).
    """

    kind: Literal["positioned"] = "positioned"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Index of the flow in `flows`.
    flow: Annotated[U32, Range(ge=0)]

    #: Segment numbers to drop, 0-based.
    segments: list[Annotated[U32, Range(ge=0)]]

    #: Drop only the first transmission, or every copy.
    copies: CopiesDropped = "original"


class SwapImpairment(Model):
    """Every `period` seconds, `swaps` times pick two waiting packets of the link's queue at
    random and exchange their places (tcp-pr Fig. 13).
    """

    kind: Literal["swap"] = "swap"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Time between two rounds of swaps.
    period: Annotated[Real, Range(gt=0, le=1000000000, unit="s")]

    #: Swaps per round.
    swaps: Annotated[Int, Range(ge=1, le=1000000)]


class ReorderImpairment(Model):
    """The reordering generator of high-speed Sec. III: a reordering event every `interval`
    seconds holds the next `block` packets and releases them once `delay` seconds have
    passed since the first later packet was forwarded (or, with `delay_packets`, once that
    many later packets have been forwarded); with `anchor = "block-arrival"`, `delay`
    seconds after the block's last packet arrived. A block still held `max_hold` seconds
    after its first packet arrived is released then, complete or not.
    """

    kind: Literal["reorder"] = "reorder"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Time between reordering events.
    interval: RandomVar

    #: Hold time after the first later packet (give this or delay_packets).
    delay: RandomVar | None = None

    #: Later packets to let pass before the release (give this or delay).
    delay_packets: RandomVar | None = None

    #: Packets held per event.
    block: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))

    #: Longest hold of a block, from its first packet's arrival.
    max_hold: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] = 0.01

    #: Only data packets (true) or every packet (false).
    data_only: Bool = True

    #: What the delay time counts from (none: later-packet).
    anchor: ReorderAnchor | None = None


class NetemImpairment(Model):
    """Linux netem's `delay D reorder P% C%` (`sch_netem.c`): each packet leaves at once with
    probability `reorder` (correlated by `correlation` as netem's `get_crandom`), else after
    `delay`; those that leave at once overtake the delayed ones.
    """

    kind: Literal["netem"] = "netem"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: netem's `delay D`.
    delay: Annotated[Real, Range(gt=0, le=1000000000, unit="s")]

    #: netem's `reorder P%`, as a fraction.
    reorder: Annotated[Real, Range(ge=0, le=1)]

    #: netem's reorder correlation `C%`, as a fraction.
    correlation: Annotated[Real, Range(ge=0, lt=1)] = 0.0

    #: Only data packets (true) or every packet (false, as netem).
    data_only: Bool = False


class ArqImpairment(Model):
    """Link-layer ARQ (the wwan paper): each attempt fails with probability `frame_error`; a
    failed frame is retransmitted one `link_rtt` later until it gets through (or
    `max_attempts` is reached: then dropped). `in_order` holds frames behind a gap until it
    is filled; otherwise each frame is passed on as soon as it gets through.
    """

    kind: Literal["arq"] = "arq"

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Before the link's queue (`ingress`) or after transmission and propagation (`egress`);
    #: none: `egress` for `arq` (as ns-2's link-layer error modules), `ingress` otherwise.
    position: Position | None = None

    #: Probability that an attempt fails.
    frame_error: Annotated[Real, Range(ge=0, lt=1)]

    #: Time from a failed attempt to the next.
    link_rtt: Annotated[Real, Range(ge=0, le=1000000000, unit="s")]

    #: Deliver frames in order (hold them behind a gap) or as they get through.
    in_order: Bool = False

    #: Attempts before a frame is dropped (none: until it gets through).
    max_attempts: Annotated[U32, Range(ge=1)] | None = None


Impairment = Annotated[
    LossImpairment
    | DelayImpairment
    | BurstLossImpairment
    | GilbertElliottImpairment
    | PositionedImpairment
    | SwapImpairment
    | ReorderImpairment
    | NetemImpairment
    | ArqImpairment,
    Field(discriminator="kind"),
]


class MultipathSpec(Model):
    """Per-packet multipath routing (tcp-pr Sec. VI-B): packets reaching node `at` for
    destination `dst` follow one of `paths`, chosen independently per packet, with
    probabilities from `weights` or from `epsilon`: p_i proportional to exp(-epsilon *
    (hops_i - min_hops) / scale).
    """

    #: Node where packets are split.
    at: Name

    #: Destination node of the packets split.
    dst: Name

    #: Each path a list of link names, from `at` to `dst`.
    paths: list[list[Name]]

    #: Preference for short paths (none: weights, or equal shares).
    epsilon: Annotated[Real, Range(ge=0)] | None = None

    #: Hop difference that epsilon is measured in.
    scale: Annotated[Real, Range(gt=0)] = 1.0

    #: Share of each path, one per path, with a positive sum (instead of epsilon).
    weights: list[Real] | None = None

    #: Split only data packets (true) or every packet (false).
    data_only: Bool = True


#: How often the sender measures the RTT.
RttTimingSpec = Literal["per_rtt", "per_ack"]


#: An ns-2 release's RTT estimator and timer ([`crate::tcp::timers::ns2`]).
RtoEstimatorSpec = Literal["ns2-2.1b8", "ns2-2.26", "ns2-2.27", "ns2-2.31"]


#: How an undo restores the window ([`crate::tcp::policy::UndoResponse`]).
UndoResponseSpec = Literal["restore", "slow-start"]


#: RR-TCP's reordering lengths above the histogram's largest bin
#: ([`crate::tcp::detection::reordering::LongSamples`]).
LongSamplesSpec = Literal["clamp", "discard"]


class TcpSpec(Model):
    """Sender parameters common to all variants. `None` = the variant's default."""

    #: Data packet size, headers included.
    mss: Annotated[Int, Range(ge=1, le=65535, unit="bytes")] | None = None

    #: Pure ACK size.
    ack_size: Annotated[Int, Range(ge=1, le=65535, unit="bytes")] | None = None

    #: Maximum window (receiver-advertised limit).
    max_window: Annotated[U32, Range(ge=1, unit="segments")] | None = None

    #: Congestion window at the start.
    initial_window: Annotated[U32, Range(ge=1, unit="segments")] | None = None

    #: Slow-start threshold at the start.
    initial_ssthresh: Annotated[U32, Range(ge=2, unit="segments")] | None = None

    #: Lower bound of the retransmission timeout.
    min_rto: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] | None = None

    #: Upper bound of the retransmission timeout; >= min_rto.
    max_rto: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] | None = None

    #: Retransmission timeout before the first RTT sample.
    initial_rto: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] | None = None

    #: Clock granularity G of RFC 6298.
    granularity: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] | None = None

    #: Duplicate ACKs that trigger a fast retransmit (fixes an adaptive variant's).
    dupthresh: Annotated[U32, Range(ge=1)] | None = None

    #: RFC 3042 limited transmit.
    limited_transmit: Bool | None = None

    #: Limited transmit up to this many congestion windows (RR-TCP's k).
    limited_transmit_bound: Annotated[Real, Range(ge=0)] | None = None

    #: Initial (DSACK-TA) or fixed (DSACK-FA) FA ratio.
    fa_ratio: Annotated[Real, Range(ge=0, le=1)] | None = None

    #: RTT measurement: one timed segment per RTT (`per_rtt`, BSD / ns-2, the default) or every
    #: ACK (`per_ack`, Linux / timestamps).
    rtt_timing: RttTimingSpec | None = None

    #: TCP-PR srtt decay per RTT.
    alpha: Annotated[Real, Range(gt=0, lt=1)] | None = None

    #: TCP-PR mxrtt = beta * srtt.
    beta: Annotated[Real, Range(ge=1)] | None = None

    #: Congestion Window Validation, RFC 2861 (the variant's default: on for SACK-CWV only).
    cwv: Literal["none", "rfc2861"] | None = None

    #: Linux's HyStart in CUBIC's slow start (the variant's default: on for Linux and the Linux
    #: 3.17 family of the tail-loss paper).
    hystart: Bool | None = None

    #: The RTT estimator and retransmission timer of an ns-2 release (`docs/variants.md`);
    #: min/max/initial RTO above still override it.
    rto_estimator: RtoEstimatorSpec | None = None

    #: How an undo restores the window: `restore` (cwnd and ssthresh back at once, rr-tcp Sec.
    #: 2.1) or `slow-start` (ssthresh = the earlier cwnd, slow start back: Blanton-Allman); none:
    #: the variant's (`slow-start` for the DSACK-BL-* schemes, `restore` for the others); only
    #: variants that undo use it.
    undo_response: UndoResponseSpec | None = None

    #: RR-TCP's dupthresh = the FA-ratio percentile of the reordering lengths plus this (rr-tcp
    #: Sec. 4.2: "90 % ... of 8 packets or fewer, a dupthresh of 9": 1, the default); 0 is the
    #: other reading.
    rr_percentile_offset: Annotated[Int, Range(ge=0, le=1)] | None = None

    #: At most this many segments limited transmit may send past the maximum window
    #: (`max_window`); none: as many as its own bound allows (RR-TCP: k x cwnd past it).
    limited_transmit_past_window: Annotated[U32, Range(ge=0, unit="segments")] | None = None

    #: How RR-TCP enters a reordering length above its histogram's largest bin (64, Table 2's
    #: maximum dupthresh): `clamp` (counted in it, the default) or `discard`.
    rr_long_samples: LongSamplesSpec | None = None

    #: Pace the sending as Linux's TCP does by itself (a next departure time per flow;
    #: `tcp_update_pacing_rate`: 2 x cwnd / srtt while cwnd < ssthresh / 2, 1.2 x after); none:
    #: off. BBR always paces at its own rate.
    pacing: Bool | None = None

    #: Open the connection with SYN / SYN-ACK before data.
    syn: Bool = False


#: Delayed-ACK mode of the receiver.
DelayedAck = Literal["none", "rfc1122", "quickack"]


class ReceiverSpec(Model):
    """Receiver ACK policy."""

    #: When to ACK: every segment, or delayed.
    delayed_ack: DelayedAck = "none"

    #: Delayed-ACK timer.
    delack_timeout: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] = 0.2

    #: ACK at least every this many full segments.
    delack_every: Annotated[U32, Range(ge=1)] = 2

    #: Send SACK blocks (RFC 2018).
    sack: Bool = True

    #: Report duplicate segments with D-SACK (RFC 2883).
    dsack: Bool = True

    #: SACK blocks per ACK (RFC 2018: 4, or 3 with timestamps).
    max_sack_blocks: Annotated[Int, Range(ge=1, le=4)] = 4


class QuicSpec(Model):
    """QUIC loss detection and ACK settings. `None` = the variant's default."""

    #: kPacketThreshold (RFC 9002 Sec. 6.1.1: 3); a very large value (e.g. 4294967295) turns
    #: packet-threshold detection off.
    packet_threshold: Annotated[U64, Range(ge=1, unit="packets")] | None = None

    #: kTimeThreshold as a multiple of max(smoothed_rtt, latest_rtt) (RFC 9002 Sec. 6.1.2:
    #: 1.125).
    time_threshold: Annotated[Real, Range(ge=1)] | None = None

    #: The receiver's max_ack_delay (RFC 9000 Sec. 18.2: 0.025).
    max_ack_delay: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] | None = None

    #: The receiver ACKs at least every this many ack-eliciting packets (RFC 9000 Sec. 13.2.2:
    #: 2).
    ack_eliciting_threshold: Annotated[Int, Range(ge=1, le=1000000)] | None = None

    #: ACK ranges the receiver keeps and sends per ACK frame (64).
    max_ack_ranges: Annotated[Int, Range(ge=1, le=4096)] | None = None

    #: The receiver discards packets this many or more below the largest received as possible
    #: duplicates (quinn issue 2710: 129); none: no window.
    dedup_window: Annotated[U64, Range(ge=1, unit="packets")] | None = None

    #: Flow control as a window: the receiver's credit (MAX_DATA, RFC 9000 Sec. 4.1) is the
    #: stream data it has in order plus this many packets' worth, so the sender sends new data
    #: only below the in-order acknowledged point plus this many packets (the QUIC counterpart of
    #: tcp.max_window); none: unlimited.
    max_window: Annotated[U64, Range(ge=1, unit="packets")] | None = None

    #: Undo the window reduction of a recovery period whose first lost packet is acknowledged
    #: later (the variant's default).
    undo: Bool | None = None

    #: Pace at 1.25 cwnd / smoothed_rtt (RFC 9002 Sec. 7.7), or BBR's rate; none: the variant's
    #: (off, BBR always paces).
    pacing: Bool | None = None


class FlowSpec(Model):
    """The transport and application of one flow."""

    #: Name shown in results (none: the flow's index).
    name: Name | None = None

    #: Sending node.
    src: Name

    #: Receiving node.
    dst: Name

    #: Sender variant name from the registry (`reorderlab variants`).
    variant: Annotated[Name, Registry("variants")] = "SACK"

    #: Congestion control name.
    cc: Annotated[Name, Registry("congestion_controls")] = "reno"

    #: Start time.
    start: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.0

    #: Segments to send; 0 = unlimited (bulk).
    segments: Annotated[U64, Range(ge=0)] = 0

    #: Sender parameters.
    tcp: TcpSpec = Field(default_factory=TcpSpec)

    #: Receiver ACK policy.
    receiver: ReceiverSpec = Field(default_factory=ReceiverSpec)

    #: QUIC settings, for a flow with a QUIC variant (`reorderlab variants`); none: the
    #: variant's.
    quic: QuicSpec | None = None


#: Kind of traffic generator.
TrafficKind = Literal["http", "page"]


class TrafficSpec(Model):
    """A traffic generator (`docs/traffic.md`): sessions that open a finite flow per object,
    from `server` to `client`.
    """

    #: Name shown in results.
    name: Name | None = None

    #: The kind of sessions.
    kind: TrafficKind = "http"

    #: Node that sends the objects (the web server).
    server: Name

    #: Node that receives them (the web client).
    client: Name

    #: Concurrent sessions, each an independent page process.
    sessions: Annotated[U32, Range(ge=1)] = 1

    #: Time of the first page (each session starts one page gap later).
    start: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.0

    #: No page starts at or after this time (none: the end of the run); > start.
    stop: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] | None = None

    #: false: pages start as a renewal process, page_interarrival apart (ns-2); true:
    #: page_interarrival after the previous page's last object arrived (think time).
    closed_loop: Bool = False

    #: Time between page starts (or think time, see closed_loop).
    page_interarrival: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=1.0))

    #: Objects per page (rounded to the nearest integer, at least 1).
    objects_per_page: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))

    #: Time between the starts of a page's objects.
    inter_object: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=0.01))

    #: Object size (sent as ceil(size / mss) segments, at least 1).
    object_size: RandomVar = Field(
        default_factory=lambda: ParetoVar(scale=6666.666666666665, shape=1.2)
    )

    #: `kind = "page"` only: parallel persistent connections per page (none: 6, tail-loss Sec.
    #: 3.3).
    connections: Annotated[Int, Range(ge=1, le=64)] | None = None

    #: `kind = "page"` only: the page as a fixed list of object sizes, the HTML first (a recorded
    #: site); none: objects_per_page objects of object_size.
    object_sizes: list[Annotated[Real, Range(gt=0, unit="bytes")]] | None = None

    #: Sender variant of the generated flows.
    variant: Annotated[Name, Registry("variants")] = "SACK"

    #: Congestion control of the generated flows.
    cc: Annotated[Name, Registry("congestion_controls")] = "reno"

    #: Sender parameters of the generated flows.
    tcp: TcpSpec = Field(default_factory=TcpSpec)

    #: Receiver ACK policy of the generated flows.
    receiver: ReceiverSpec = Field(default_factory=ReceiverSpec)


#: Who sends to whom among the fabric's hosts.
Pattern = Literal["permutation", "incast", "all_to_all"]


#: A measured data-center flow-size distribution.
SizeDistribution = Literal["web_search", "data_mining"]


class WorkloadSpec(Model):
    """A pattern of finite flows between the hosts of a fat-tree."""

    #: Prefix of its flows' names (none: `w{index}`); flow j is `{name}.{j}`.
    name: Name | None = None

    #: Who sends to whom.
    pattern: Pattern

    #: `pattern = "incast"` only: the hosts sending at once to `target` (N to 1; none: every
    #: other host).
    fan_in: Annotated[U32, Range(ge=1)] | None = None

    #: `pattern = "incast"` only: the receiving host (none: `h0`).
    target: Name | None = None

    #: Bytes of each flow (sent as ceil(size / mss) segments, at least 1; none and no
    #: distribution: 1 MB each).
    flow_size: RandomVar | None = None

    #: A measured flow-size distribution instead of flow_size: `web_search` (DCTCP, SIGCOMM 2010)
    #: or `data_mining` (VL2, SIGCOMM 2009).
    distribution: SizeDistribution | None = None

    #: Time of the earliest start.
    start: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.0

    #: Each flow starts at start + a uniform draw in [0, jitter).
    jitter: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.0

    #: Sender variant of the workload's flows.
    variant: Annotated[Name, Registry("variants")] = "SACK"

    #: Congestion control of the workload's flows.
    cc: Annotated[Name, Registry("congestion_controls")] = "reno"

    #: Sender parameters of the workload's flows.
    tcp: TcpSpec = Field(default_factory=TcpSpec)

    #: Receiver ACK policy of the workload's flows.
    receiver: ReceiverSpec = Field(default_factory=ReceiverSpec)


class PcapTap(Model):
    """A capture point: one end of a link, seen as `tcpdump` on that interface would see it
    (both directions). `ingress`: the end at the link's `from` node (its packets as they are
    offered to the link, before its ingress impairments and queue; the reverse link's as
    they are delivered); `egress`: the end at its `to` node.
    """

    #: Link name, e.g. `"R1->R2"`.
    link: Name

    #: Which end of the link.
    position: Position = "egress"


class RecordSpec(Model):
    """What to record besides the per-flow counters."""

    #: Sender variables sampled every interval (`delivered`: segments delivered in order; `sent`:
    #: data packets sent, retransmissions included; `reorder_p10` / `p50` / `p90`: percentiles of
    #: RR-TCP's reordering-length histogram; `pacing_rate`, `delivery_rate` (Linux's
    #: `tcpi_delivery_rate`), `bbr_bw` (BBR's bandwidth estimate): segments per second;
    #: `bbr_min_rtt`: BBR's min RTT, seconds).
    series: list[Name] = Field(default_factory=list)

    #: Time between two samples of the series.
    interval: Annotated[Real, Range(gt=0, le=1000000000, unit="s")] = 0.1

    #: Flow indices to sample and trace; empty = all.
    flows: list[Annotated[U32, Range(ge=0)]] = Field(default_factory=list)

    #: List every object of the traffic generators (start, size, completion).
    objects: Bool = False

    #: `[from, until]`: trace every data packet sent and every ACK received by the recorded flows
    #: in that window (wwan Fig. 2); empty = no trace.
    trace_window: list[Annotated[Real, Range(ge=0, le=1000000000, unit="s")]] = Field(
        default_factory=list
    )

    #: With a `trace_window`: also record each ACK's SACK blocks, each retransmission's cause and
    #: whether the ground truth calls it spurious, the copies dropped, the receiver window, and
    #: every link's queue at each sample of `series` (what `reorderlab plot` draws); unset = none
    #: of this (left out of the serialised spec).
    trace_details: Bool | None = None

    #: Packet captures (`docs/pcap.md`), written only by a run given an output folder; a capture
    #: never changes the run, so it is no part of its identity (left out of the serialised spec
    #: when empty).
    pcap: list[PcapTap] | None = None


class ScenarioFields(Model):
    """One simulation run."""

    #: Free text, used in messages and results.
    name: Name = "scenario"

    #: Simulated time.
    duration: Annotated[Real, Range(gt=0, le=1000000000, unit="s")]

    #: Default seed; `run(scenario, seed)` overrides it.
    seed: Annotated[U64, Range(ge=0)] = 1

    #: Throughput and other rate metrics are measured from this time on; < duration.
    warmup: Annotated[Real, Range(ge=0, le=1000000000, unit="s")] = 0.0

    #: The network: a builder (`chain`, `dumbbell`, `parking_lot`, `fat_tree`) or explicit links.
    topology: Topology

    #: Impairment elements on links (`docs/impairments.md`).
    impairments: list[Impairment] = Field(default_factory=list)

    #: Per-packet multipath splitters.
    multipath: list[MultipathSpec] = Field(default_factory=list)

    #: Long-lived or finite flows; may be empty when there is a traffic generator.
    flows: list[FlowSpec] = Field(default_factory=list)

    #: Generated traffic: flows that start and end during the run (`docs/traffic.md`).
    traffic: list[TrafficSpec] = Field(default_factory=list)

    #: Fabric workloads: permutation, incast or all-to-all flows between a fat-tree's hosts
    #: (`docs/fabrics.md`).
    workloads: list[WorkloadSpec] | None = None

    #: What to record besides the per-flow counters.
    record: RecordSpec = Field(default_factory=RecordSpec)
