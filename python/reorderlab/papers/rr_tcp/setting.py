"""The rr-tcp paper: RR-TCP (Zhang, Karp, Floyd, Peterson), Sec. 5, Figs. 1, 4-19, Tables 3-4.

Paper key ``rr-tcp``; one recipe per row of ``docs/papers.md`` (The rr-tcp paper).

Setting (Fig. 3, Table 2)
    ``S1 -(10 Mb/s, 1 ms)- R1 -(bottleneck)- R2 -(10 Mb/s, 1 ms)- D``, one
    long-lived flow S1 -> D, 1000-byte data packets, 40-byte ACKs, no delayed
    ACK, SACK + DSACK receiver, min RTO 1 s, maximum window M = 50, a
    100-packet DropTail bottleneck queue. Delays and drops are applied to data
    packets on R1->R2 (ACK reordering, Fig. 14: on R2->R1). The bottleneck
    capacity is S = M / R packets/s, R the unqueued path RTT including the
    serialisation of the data packet and of its ACK on each of the 3 hops
    (the fixed point of ``baseline/setting.py``), so an undisturbed flow runs at S
    with window 50 ("SACK-NODELAY"): calibrated from Sec. 5's condition
    alone ("when we don't introduce a controlled packet delay or dropping
    process at the link, a TCP flow achieves throughput S"), which Fig. 4
    checks as a claim of its own. The RTT estimator and retransmission
    timer are ns-2.1b8's, the release the paper names (footnote 4; tcp.cc
    and tcp-sack1.cc of that release, ``docs/variants.md``): 100-ms ticks,
    integer srtt x 8 / rttvar x 4, RTO floored to whole ticks, minimum 1 s,
    initial 6 s, backoff then clamp; timing cancelled at every fast
    retransmit and timeout, no sample in SACK fast recovery, the timer
    restarted at a fast retransmit. Table 3 lists both readings of "mean
    RTO": over every arming of the timer (the claims' value) and over the
    timers that expired. Throughput is reported normalised by S
    (by the S of its own P where P varies); it is measured over the whole run
    (no warm-up), as the paper counts the packets of the whole 1000 s.
    The variants' defaults are the paper's Table 2 (initial FA ratio 90 %,
    dupthresh in [3, 64], limited transmit 1 x cwnd, sample lifetime 80 s,
    HG at the 99.8th percentile, FA step 0.01); "-MEAN" is the plain
    ``DSACK-FA`` / ``DSACK-TA``.

Full fidelity: 1000 s, 5 seeds, the x values listed per figure. Quick mode
(``--quick``): 100 s, 5 seeds (the claims' confidence intervals come from the
seed spread), 2-5 x values per figure (Figs. 10-11: 300 s, a timeout being
rare; Fig. 19's traced runs: 400 s, enough for drop bursts to cause
timeouts); the claims are checked on those runs as they come out (a claim
that fails there is reported as not holding; nothing is tuned to make a
claim hold). Each claim quotes the sentence it encodes (``coverage.toml``
lists every outcome sentence of the results and the claims encoding it).

Assumptions (where the text is silent or garbled)
    * P is the one-way propagation delay of link (R1, R2), as the paper's
      text reads it ("the delay of link (R1, R2) is 50 ms"; "[0, 4P] (up
      to 2 RTTs)"; "mean kP ... (mean k/2 RTTs)"; the Fig. 16 path of
      "100 ms RTT" at "50 ms propagation delay"; S = 4 Mb/s ~ M/R at a
      50 ms link in Sec. 5.7). docs/papers.md does not say which; an earlier
      draft of this module read P as the path's propagation RTT
      (``P_IS_LINK_DELAY = True`` restores that reading: 32 of the 46 quick
      claims held then, 36 with this one).
    * Fraction of packets meeting a timeout (Figs. 8a, 11, 12) = RTO
      expiries / data packets sent. Fast-retransmit fraction (Figs. 8b, 18,
      Table 4 "FR ratio") = fast retransmits / data packets sent. False-FR
      ratio (Fig. 5) = false fast retransmits (ground truth: the original
      was not lost) / reordered packets (RFC 4737 count at the receiver),
      pooled over the seeds. Fig. 5 has no drops, so every fast retransmit
      is false and false / all fast retransmits would be 100 % for every
      variant; the paper's "< 10 %" for DSACK-FA matches its 90 % FA ratio
      (the share of reorderings left to trigger a fast retransmit), hence
      this denominator. Fig. 6 uses the share of fast retransmits found
      false by DSACK.
    * Fig. 1: the core's ``reorder`` element on a 10 Mb/s, 100 ms bottleneck
      with a maximum window of 16 holds the first data packet after t = 3 s
      until 0.45 s after the next one passed (as ``tests/rrtcp.rs``).
    * Fig. 7/8/9: the delay element is first on the link, the loss element
      second (each element has its own random stream, so the delay draws are
      the same with and without drops); drops are i.i.d. data drops.
    * Fig. 8: DSACK-TA and DSACK-R are drawn as horizontal reference lines.
    * Table 3: "FA" is DSACK-FA with a 95 % FA ratio (the text compares TA
      with "DSACK-FA with an FA ratio of 95 %").
    * Fig. 14 (not parameterised in the text): the Fig. 4 setting with 5 %
      of data packets delayed ~ Normal(25 ms, 8 ms) plus a fraction
      0..30 % of ACKs delayed ~ Normal(25 ms, 8 ms) on R2->R1.
    * Fig. 15 (not parameterised in the text): the Fig. 4 setting, 1..20 %
      delayed, every distribution with mean 25 ms: normal(25, 8 ms),
      exponential, hyperexponential (10 ms w.p. 5/6, 100 ms w.p. 1/6),
      Pareto (shape 2.5, scale 15 ms), Pareto II (shape 2.5, scale
      37.5 ms), uniform [0, 50 ms].
    * Fig. 17/18: S = 4 Mb/s as given (not M/R).
    * Figs. 17-19, Table 4: the Blanton-Allman schemes are the core's
      model of them (DSACK detection, the undo by slow start back to the
      earlier window, RFC 3042 limited transmit; docs/variants.md), run
      with Table 2's limited-transmit bound of 1 x cwnd ("In all
      simulations ...", Sec. 5; Sec. 5.7 runs their code "with our delay
      and loss models"); their own default is RFC 3042's two segments
      (tcp-pr Sec. VI).
    * Limited transmit may send up to 1 x cwnd past the maximum window M
      (the core's reading of Sec. 2.3; Table 2 does not say whether maxwnd
      bounds it). Figs. 17-18 have a sensitivity step over it
      (``fig18_sensitivity``: M a hard limit plus 0 or 2 segments, and
      1 x cwnd); Figs. 12-13 a knife-edge sweep over it and RR-TCP's other
      +/-1 choices (:mod:`.knife_edge`, :class:`Knobs`).
    * Table 4: ``table4_sensitivity`` repeats the runs with drops at drop-
      episode rates of 0.01 % and 0.05 % per data packet, and draws
      DSACK-BL-INC with RR-TCP's immediate undo (``tcp.undo_response =
      "restore"``, the model before issue 34) at every rate.
    * Table 4 / Fig. 19: burst episodes start with probability 0.02 % per
      data packet and drop every data packet for Uniform[0.3, 0.4] s;
      "total packets" = segments delivered, scaled to 1000 s.

Tolerances of the claims are stated in each claim's ``expected`` text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from reorderlab.papers.kit.mode import (
    Mode,
    Modes,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Sweep,
)
from reorderlab.scenario import (
    ChainTopology,
    DelayImpairment,
    DroptailQueue,
    FlowSpec,
    Impairment,
    LossImpairment,
    NormalVar,
    RandomVar,
    RecordSpec,
    Scenario,
    TcpSpec,
    UniformVar,
)

PAPER = "rr-tcp"

MSS = 1000
ACK = 40
ACCESS_RATE = 10e6
ACCESS_DELAY = 0.001
M = 50
QUEUE = 100
MIN_RTO = 1.0
#: The RTT estimator and timer of the ns-2 release the paper ran (footnote 4).
RTO_ESTIMATOR = "ns2-2.1b8"

#: Read P as the one-way delay of link (R1, R2) instead of the path's
#: propagation RTT (see the module docstring).
P_IS_LINK_DELAY = True

FULL_DURATION, FULL_SEEDS = 1000.0, 5
QUICK_DURATION, QUICK_SEEDS = 100.0, 5

#: Name of every chain scenario: runs that two figures share (e.g. Fig. 4 at
#: 5 % delayed is Fig. 6 without drops and Fig. 14 without ACK delay) have
#: the same store key and are simulated once.
CHAIN = "rr-tcp"

BOTTLENECK = "R1->R2"
REVERSE = "R2->R1"


#: Run length and seeds of every figure's runs (Fig. 19's traced runs: ``FIG19_DURATION``).
MODE = Modes(full=Mode(FULL_DURATION, FULL_SEEDS), quick=Mode(QUICK_DURATION, QUICK_SEEDS))


@dataclass(frozen=True)
class Knobs:
    """The readings of RR-TCP's knife-edge choices (Figs. 10-13): how many
    segments limited transmit may send past the maximum window M (None: as
    its bound allows, 1 x cwnd, the core's reading of Table 2), dupthresh =
    the FA-ratio percentile + ``offset`` (None: + 1, Sec. 4.2's example),
    and whether a reordering length above the histogram's top bin (64) is
    counted in it (None: "clamp") or "discard"ed. None everywhere is the
    core's default, so those runs keep their store keys."""

    past_m: int | None = None
    offset: int | None = None
    long_samples: Literal["clamp", "discard"] | None = None

    def label(self) -> str:
        """``"LT +0 past M, percentile + 0, discard"``."""
        lt = "LT 1 cwnd past M" if self.past_m is None else f"LT +{self.past_m} past M"
        off = 1 if self.offset is None else self.offset
        return f"{lt}, percentile + {off}, {self.long_samples or 'clamp'}"


def bottleneck_delay(p: float) -> float:
    """Delay of R1->R2 for the paper's P."""
    if P_IS_LINK_DELAY:
        return p
    return p / 2 - 2 * ACCESS_DELAY


def unqueued_rtt(p: float, rate: float | None = None) -> float:
    """R: propagation RTT plus the serialisation of data and ACK on 3 hops.

    With ``rate`` None the bottleneck rate is S = M / R itself (fixed point).
    """
    prop = 2 * (2 * ACCESS_DELAY + bottleneck_delay(p))
    bits = 8 * (MSS + ACK)
    if rate is not None:
        return prop + 2 * bits / ACCESS_RATE + bits / rate
    return (prop + 2 * bits / ACCESS_RATE) / (1 - (MSS + ACK) / (MSS * M))


def capacity_bps(p: float) -> float:
    """C = 8 mss M / R bit/s, i.e. S = M / R packets/s."""
    return 8 * MSS * M / unqueued_rtt(p)


def chain_scenario(
    name: str,
    p: float,
    variant: str,
    duration: float,
    impairments: Sequence[Impairment] = (),
    *,
    rate: float | None = None,
    fa_ratio: float | None = None,
    record: RecordSpec | None = None,
    max_window: int = M,
    lt_bound: float | None = None,
    undo_response: Literal["restore", "slow-start"] | None = None,
    knobs: Knobs | None = None,
    limited_transmit: bool | None = None,
) -> Scenario:
    """One flow S1 -> D on the rr-tcp chain (Fig. 3) (``lt_bound``: limited
    transmit's bound in congestion windows; None, the variant's, Table 2's
    1 x cwnd; ``undo_response``: the sender's, None the variant's;
    ``knobs``: the readings of RR-TCP's thresholds, None the core's;
    ``limited_transmit``: on or off, None the variant's)."""
    k = knobs or Knobs()
    return Scenario(
        name=name,
        duration=duration,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=capacity_bps(p) if rate is None else rate,
            bottleneck_delay=bottleneck_delay(p),
            queue=DroptailQueue(limit_packets=QUEUE),
        ),
        impairments=list(impairments),
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant=variant,
                tcp=TcpSpec(
                    mss=MSS,
                    ack_size=ACK,
                    max_window=max_window,
                    min_rto=MIN_RTO,
                    rto_estimator=RTO_ESTIMATOR,
                    fa_ratio=fa_ratio,
                    limited_transmit=limited_transmit,
                    limited_transmit_bound=lt_bound,
                    undo_response=undo_response,
                    limited_transmit_past_window=k.past_m,
                    rr_percentile_offset=k.offset,
                    rr_long_samples=k.long_samples,
                ),
            )
        ],
        record=record if record is not None else RecordSpec(),
    )


#: Table 2's limited-transmit bound, 1 x cwnd ("In all simulations ... we
#: bound the number of packets TCP may send with limited transmit to be one
#: current congestion window value", Sec. 5).
RR_LT_BOUND = 1.0


def lt_bound_of(variant: str) -> float | None:
    """The limited-transmit bound a variant runs with here: Table 2's for the
    Blanton-Allman schemes, whose own default is RFC 3042's two segments
    (tcp-pr Sec. VI); None (the variant's own, already 1 x cwnd) for the
    rest, so their runs keep their store keys."""
    return RR_LT_BOUND if variant.startswith("DSACK-BL-") else None


def delayed(fraction: float, delay: RandomVar, link: str = BOTTLENECK) -> DelayImpairment:
    """A fraction of the packets on ``link`` held for a drawn delay."""
    return DelayImpairment(link=link, fraction=fraction, delay=delay)


def normal(mean: float, sd: float) -> NormalVar:
    return NormalVar(mean=mean, sd=sd)


def dropped(p: float) -> list[Impairment]:
    """I.i.d. data drops on the bottleneck (nothing when p = 0)."""
    return [LossImpairment(link=BOTTLENECK, p=p)] if p > 0 else []


FIG4_DELAY = normal(0.025, 0.008)


def point(curve: str, x: float, s_bps: float, sc: Scenario) -> Point:
    return ({"curve": curve, "x": float(x), "S_bps": float(s_bps)}, sc)


def plan_of(points: Sequence[Point], quick: bool) -> Plan:
    """Every point with the mode's seeds."""
    return {RUNS: Sweep(points, MODE(quick).seeds)}


# Settings several figures share

FIG4_P = 0.05
#: curve label -> variant
FIG4_CURVES = {
    "SACK": "SACK",
    "DSACK-R": "DSACK-R",
    "DSACK-FA-MEAN": "DSACK-FA",
    "DSACK-FA-RTX": "DSACK-FA-RTX",
    "DSACK-TA-MEAN": "DSACK-TA",
    "DSACK-TA-RTX": "DSACK-TA-RTX",
}
NODELAY = "SACK-NODELAY"


FIG6_CURVES = {"SACK": "SACK", "DSACK-R": "DSACK-R", "DSACK-FA": "DSACK-FA", "DSACK-TA": "DSACK-TA"}


FIG7_FRACTION = 0.014
FIG7_DROP = 0.006


def fig7_impairments(p: float) -> list[Impairment]:
    return [delayed(FIG7_FRACTION, UniformVar(low=0.0, high=4 * p)), *dropped(FIG7_DROP)]


FIG8_P = 0.10
FIG8_RATIOS = (0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
FIG8_RATIOS_QUICK = (0.95, 0.9, 0.6, 0.3, 0.05)


FIG10_P = 0.20
FIG10_FRACTION = 0.04


def kp_delay(fraction: float, k: float, p: float) -> DelayImpairment:
    """``fraction`` of the packets delayed ~ Normal(kP, kP/3)."""
    return delayed(fraction, normal(k * p, k * p / 3))


def figures() -> Iterable[str]:
    """The figure keys of this paper, in docs/papers.md order."""
    return (
        "fig1",
        "fig4",
        "fig5",
        "fig6",
        "fig7",
        "fig8",
        "fig9",
        "fig10-11",
        "fig12-13-table3",
        "fig14",
        "fig15",
        "fig16",
        "fig17-18",
        "table4-fig19",
    )
