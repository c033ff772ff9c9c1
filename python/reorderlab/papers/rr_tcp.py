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
    (the fixed point of ``baseline.py``), so an undisturbed flow runs at S
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
(``--quick``): 100 s, 2 seeds, 3-5 x values per figure (Fig. 19's two traced
runs: 400 s, enough for drop bursts to cause timeouts); the claims are checked
on those runs as they come out (a claim that fails there is reported as not
holding; nothing is tuned to make a claim hold).

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
    * Figs. 17-19, Table 4: the Blanton-Allman schemes run with Table 2's
      limited-transmit bound of 1 x cwnd ("In all simulations ...", Sec. 5;
      Sec. 5.7 runs their code "with our delay and loss models"); their own
      default is RFC 3042's two segments (tcp-pr Sec. VI).
    * Limited transmit may send up to 1 x cwnd past the maximum window M
      (the core's reading of Sec. 2.3; Table 2 does not say whether maxwnd
      bounds it). Figs. 12-13 and 17-18 have a sensitivity step over that
      bound (``fig12_sensitivity``, ``fig12_sensitivity_timeouts``,
      ``fig18_sensitivity``: 0, 0.5 and 1 x cwnd; 0 and 1 in quick mode).
    * Table 4: ``table4_sensitivity`` repeats the runs with drops at drop-
      episode rates of 0.01 % and 0.05 % per data packet, and draws
      DSACK-BL-INC with Blanton-Allman's slow-start undo
      (``tcp.undo_response``) at every rate.
    * Table 4 / Fig. 19: burst episodes start with probability 0.02 % per
      data packet and drop every data packet for Uniform[0.3, 0.4] s;
      "total packets" = segments delivered, scaled to 1000 s.

Tolerances of the claims are stated in each claim's ``expected`` text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    at_most,
    below,
    each_above,
    each_at_least,
    each_at_most,
    each_below,
    each_falls,
    each_rises,
    equals,
    falls,
    near,
    pct,
    points,
    rises,
    that,
    unit,
    within,
)
from reorderlab.claims import Claim
from reorderlab.papers import Derived, recipe
from reorderlab.papers.common import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    make_claim,
    series_str,
    spearman,
)
from reorderlab.plot import line_plot
from reorderlab.scenario import (
    BurstLossImpairment,
    ChainTopology,
    ConstantVar,
    DelayImpairment,
    DroptailQueue,
    ExponentialVar,
    FlowSpec,
    HyperexponentialVar,
    Impairment,
    LossImpairment,
    NormalVar,
    Pareto2Var,
    ParetoVar,
    RandomVar,
    RecordSpec,
    ReorderImpairment,
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
QUICK_DURATION, QUICK_SEEDS = 100.0, 2

#: Name of every chain scenario: runs that two figures share (e.g. Fig. 4 at
#: 5 % delayed is Fig. 6 without drops and Fig. 14 without ACK delay) have
#: the same store key and are simulated once.
CHAIN = "rr-tcp"

BOTTLENECK = "R1->R2"
REVERSE = "R2->R1"


# --------------------------------------------------------------------------
# Topology and scenarios
# --------------------------------------------------------------------------


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
) -> Scenario:
    """One flow S1 -> D on the rr-tcp chain (``lt_bound``: limited
    transmit's bound in congestion windows; None, the variant's, Table 2's
    1 x cwnd; ``undo_response``: the sender's, None the variant's)."""
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
                    limited_transmit_bound=lt_bound,
                    undo_response=undo_response,
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


# --------------------------------------------------------------------------
# Running and summarising
# --------------------------------------------------------------------------


def _mode(quick: bool) -> tuple[float, int]:
    return (QUICK_DURATION, QUICK_SEEDS) if quick else (FULL_DURATION, FULL_SEEDS)


def _point(curve: str, x: float, s_bps: float, sc: Scenario) -> Point:
    return ({"curve": curve, "x": float(x), "S_bps": float(s_bps)}, sc)


def _plan(points: Sequence[Point], quick: bool) -> Plan:
    """Every point with the mode's seeds."""
    return {RUNS: Sweep(points, _mode(quick)[1])}


_MEAN_METRICS = (
    "norm",
    "to_frac",
    "fr_frac",
    "rto_mean",
    "fa_ratio",
    "dupthresh",
    "segments_delivered",
    "timeouts",
    "fast_retransmits",
    "spurious_fast_retransmits",
    "reordered",
)


@dataclass
class Stat:
    """Means (and sample standard deviations) over the seeds of one point."""

    mean: dict[str, float] = field(default_factory=dict)
    sd: dict[str, float] = field(default_factory=dict)
    seeds: int = 0

    def __getitem__(self, metric: str) -> float:
        return self.mean[metric]


Table = dict[tuple[str, float], Stat]


def summarise(df: pd.DataFrame) -> Table:
    """Per (curve, x): seed means of the metrics; pooled false-FR ratios."""
    d = df.copy()
    for col in (
        "throughput_bps",
        "S_bps",
        "timeouts",
        "fast_retransmits",
        "spurious_fast_retransmits",
        "false_fast_retransmits_detected",
        "data_packets_sent",
        "rto_mean",
        "fa_ratio",
        "dupthresh",
        "segments_delivered",
        "reordered_ratio",
    ):
        d[col] = pd.to_numeric(d[col], errors="coerce")
    # segments that arrived out of order (RFC 4737 reordered ratio x first copies)
    d["reordered"] = d["reordered_ratio"].fillna(0.0) * d["segments_delivered"]
    sent = d["data_packets_sent"].clip(lower=1)
    d["norm"] = d["throughput_bps"] / d["S_bps"]
    d["to_frac"] = d["timeouts"] / sent
    d["fr_frac"] = d["fast_retransmits"] / sent
    table: Table = {}
    for key, g in d.groupby(["curve", "x"], sort=False):
        curve, x = cast(tuple[str, float], key)
        st = Stat(seeds=len(g))
        for m in _MEAN_METRICS:
            vals = g[m].astype(float)
            st.mean[m] = float(vals.mean())
            st.sd[m] = float(vals.std(ddof=1)) if len(vals) > 1 else 0.0
        frs = float(g["fast_retransmits"].sum())
        st.mean["false_fr"] = float(g["spurious_fast_retransmits"].sum()) / frs if frs else 0.0
        det = float(g["false_fast_retransmits_detected"].sum())
        st.mean["false_fr_detected"] = det / frs if frs else 0.0
        reord = float(g["reordered"].sum())
        false = float(g["spurious_fast_retransmits"].sum())
        st.mean["false_fr_per_reorder"] = false / reord if reord else 0.0
        st.mean["rto_at_timeout"] = _rto_at_timeout(g)
        table[(str(curve), float(x))] = st
    return table


def _rto_at_timeout(g: pd.DataFrame) -> float:
    """The mean RTO that expired, pooled over the seeds' timeouts (NaN
    without a timeout): the other reading of Table 3's "mean RTO"."""
    if "rto_expired_mean" not in g.columns:
        return math.nan
    n = g["timeouts"].astype(float)
    waits = pd.to_numeric(g["rto_expired_mean"], errors="coerce").fillna(0.0) * n
    return float(waits.sum() / n.sum()) if n.sum() > 0 else math.nan


def _summary(runs: Runs, quick: bool) -> Derived[Table]:
    """The table step of most figures: :func:`summarise` of the runs."""
    return Derived(summarise(runs.table()))


def _xs(table: Table, curve: str) -> list[float]:
    return sorted(x for c, x in table if c == curve)


def _plot(
    out: Path,
    stem: str,
    table: Table,
    curves: Sequence[str],
    metric: str,
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    xscale: float = 1.0,
    yscale: float = 1.0,
    styles: Mapping[str, str] | None = None,
    extra: Mapping[str, tuple[list[float], list[float]]] | None = None,
) -> list[Path]:
    """One line per curve of ``metric`` vs x (error bars: sd over seeds)."""
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for curve in curves:
        xs = _xs(table, curve)
        if not xs:
            continue
        stats = [table[(curve, x)] for x in xs]
        ys = [s[metric] * yscale for s in stats]
        err: list[float] | None = None
        if metric in stats[0].sd and all(s.seeds > 1 for s in stats):
            err = [s.sd[metric] * yscale for s in stats]
        series[curve] = ([x * xscale for x in xs], ys, err)
    for label, (xs_e, ys_e) in (extra or {}).items():
        series[label] = (xs_e, ys_e, None)
    return line_plot(out, stem, series, xlabel=xlabel, ylabel=ylabel, title=title, styles=styles)


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _fmt_x(x: float) -> str:
    return f"{x:g}"


def _by_x(table: Table, curve: str, metric: str = "norm") -> dict[float, float]:
    return {x: table[(curve, x)][metric] for x in _xs(table, curve)}


# --------------------------------------------------------------------------
# Sensitivity: how far limited transmit may run past the maximum window
# --------------------------------------------------------------------------
#
# Table 2 gives both "Maximum sending window (maxwnd) 50 pkts" and "Limited
# transmit bound 1 x cwnd", but not whether limited transmit may send beyond
# maxwnd. The core lets it (up to k x cwnd past the receiver window, k = 1):
# a packet held 2-4 RTTs then collects up to ~2M duplicate ACKs, more than
# the maximum dupthresh of 64. The sensitivity steps of Figs. 12-13 and
# 17-18 rerun their variants with k = 0 (no limited transmit: the same as
# maxwnd a hard limit while cwnd = M, stricter below) and 0.5; k = 1 is the
# figure's own runs.

#: Limited-transmit bounds (congestion windows) of the sensitivity sweeps.
LT_SWEEP = (0.0, 0.5, RR_LT_BOUND)
LT_SWEEP_QUICK = (0.0, RR_LT_BOUND)
#: Name of the sensitivity sweep in a recipe's plan.
SENSITIVITY = "sensitivity"


def _lt_sweep(quick: bool) -> tuple[float, ...]:
    return LT_SWEEP_QUICK if quick else LT_SWEEP


def _lt_override(bound: float) -> float | None:
    """The ``lt_bound`` argument for a bound of the sweep: None for Table 2's
    (the variants' own), so that point is the figure's own run (same key)."""
    return None if bound == RR_LT_BOUND else bound


def _sens_curve(label: str) -> str:
    """Table key of a sensitivity curve (kept apart from the figure's)."""
    return f"lt:{label}"


def _with_sensitivity(runs: Runs) -> Table:
    """The figure's table plus its sensitivity sweep's."""
    tab = summarise(runs.table())
    tab.update(summarise(runs.table(SENSITIVITY)))
    return tab


def _sens_plot(
    out: Path,
    stem: str,
    tab: Table,
    labels: Sequence[str],
    metric: str,
    *,
    ylabel: str,
    title: str,
    yscale: float = 1.0,
) -> list[Path]:
    """``metric`` vs the limited-transmit bound, one line per label."""
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for label in labels:
        curve = _sens_curve(label)
        xs = _xs(tab, curve)
        stats = [tab[(curve, x)] for x in xs]
        err: list[float] | None = None
        if all(st.seeds > 1 for st in stats):
            err = [st.sd[metric] * yscale for st in stats]
        series[label] = (xs, [st[metric] * yscale for st in stats], err)
    return line_plot(
        out,
        stem,
        series,
        xlabel="limited transmit past the maximum window M (congestion windows; Table 2: 1)",
        ylabel=ylabel,
        title=title,
    )


# --------------------------------------------------------------------------
# Fig. 1: one false fast retransmit and its DSACK undo
# --------------------------------------------------------------------------

FIG1_EVENT = 3.0
FIG1_HOLD = 0.45
FIG1_WINDOW = 16


def fig1_scenario(variant: str) -> Scenario:
    """Window 16 on a 10 Mb/s, 100 ms bottleneck; one packet held 0.45 s at t = 3 s."""
    return Scenario(
        name="rr-tcp-fig1",
        duration=6.0,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=10e6,
            bottleneck_delay=0.1,
            queue=DroptailQueue(limit_packets=QUEUE),
        ),
        impairments=[
            ReorderImpairment(
                link=BOTTLENECK,
                interval=ConstantVar(value=FIG1_EVENT),
                delay=ConstantVar(value=FIG1_HOLD),
                block=ConstantVar(value=1.0),
                max_hold=1.0,
            )
        ],
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant=variant,
                tcp=TcpSpec(
                    mss=MSS,
                    ack_size=ACK,
                    max_window=FIG1_WINDOW,
                    min_rto=MIN_RTO,
                    rto_estimator=RTO_ESTIMATOR,
                ),
            )
        ],
        record=RecordSpec(series=["cwnd"], interval=0.01),
    )


FIG1_VARIANTS = ("DSACK-R", "SACK")


def _fig1_points(quick: bool) -> Plan:
    return {RUNS: Sweep([({"variant": v}, fig1_scenario(v)) for v in FIG1_VARIANTS], seeds=1)}


@dataclass(frozen=True)
class Fig1:
    """Each variant's cwnd series and flow metrics."""

    series: dict[str, dict[str, np.ndarray]]
    flows: dict[str, dict[str, Any]]


def _fig1_table(runs: Runs, quick: bool) -> Derived[Fig1]:
    res = {v: runs.result(RUNS, i) for i, v in enumerate(FIG1_VARIANTS)}
    return Derived(
        Fig1({v: r.series(0) for v, r in res.items()}, {v: r.flow(0) for v, r in res.items()})
    )


def _fig1_plot(data: Fig1, out: Path, quick: bool) -> None:
    line_plot(
        out,
        "fig1_cwnd",
        {
            v: (s["t"].tolist(), s["cwnd"].tolist(), None)
            for v, s in data.series.items()
            if "t" in s and "cwnd" in s
        },
        xlabel="time (s)",
        ylabel="cwnd (segments)",
        title=f"one packet held {FIG1_HOLD} s at t = {FIG1_EVENT:g} s, window {FIG1_WINDOW}",
        styles={"DSACK-R": "-", "SACK": "--"},
    )


def _first(t: np.ndarray, where: np.ndarray) -> float:
    """The first time where ``where`` holds (NaN: never)."""
    idx = np.flatnonzero(where)
    return float(t[idx[0]]) if idx.size else float("nan")


def _fig1_claims(data: Fig1, quick: bool) -> list[Claim]:
    s = data.series["DSACK-R"]
    t, cwnd = s.get("t", np.array([])), s.get("cwnd", np.array([]))
    flow = data.flows["DSACK-R"]
    before = cwnd[(t > FIG1_EVENT - 0.5) & (t < FIG1_EVENT)]
    w_before = float(before.min()) if before.size else float("nan")
    after_event = t >= FIG1_EVENT
    drop_idx = np.flatnonzero(after_event & (cwnd < w_before))
    t_halve = float(t[drop_idx[0]]) if drop_idx.size else float("nan")
    w_min = float(cwnd[after_event].min()) if after_event.any() else float("nan")
    back_idx = (
        np.flatnonzero((t > t_halve) & (cwnd >= FIG1_WINDOW)) if drop_idx.size else np.array([])
    )
    t_back = float(t[back_idx[0]]) if back_idx.size else float("nan")
    jump_from = float(cwnd[back_idx[0] - 1]) if back_idx.size else float("nan")
    w_end = float(cwnd[-1]) if cwnd.size else float("nan")
    gap = t_back - t_halve
    st, sc = (
        data.series["SACK"].get("t", np.array([])),
        data.series["SACK"].get("cwnd", np.array([])),
    )
    sack_back = _first(st, (st > t_halve) & (sc >= FIG1_WINDOW)) if st.size else float("nan")
    halves = all_of(
        equals(w_before, FIG1_WINDOW, "cwnd before the event"),
        equals(w_min, FIG1_WINDOW / 2, "minimum cwnd after it"),
        equals(flow["fast_retransmits"], 1, "fast retransmits"),
        equals(flow["spurious_fast_retransmits"], 1, "false ones (ground truth)"),
    )
    restores = all_of(
        equals(flow["undos"], 1, "undos"),
        at_most(
            jump_from,
            0.75 * FIG1_WINDOW,
            f"cwnd in the 10 ms sample before it is back at {FIG1_WINDOW} (one step)",
        ),
        near(gap, FIG1_HOLD, 0.1, "seconds from the halving to the restore").noted(
            "(the DSACK comes back when the held original reaches the receiver)"
        ),
        equals(w_end, FIG1_WINDOW, "final cwnd"),
    )
    return [
        make_claim(
            PAPER,
            "fig1",
            "the window halves at the false fast retransmit",
            halves,
            f"cwnd {w_before:g} before, minimum {w_min:g} after (at t = {t_halve:.2f} s); "
            f"{flow['fast_retransmits']} fast retransmit(s), "
            f"{flow['spurious_fast_retransmits']} false",
            cwnd_before=w_before,
            cwnd_min=w_min,
            t_halve=t_halve,
            fast_retransmits=flow["fast_retransmits"],
            spurious_fast_retransmits=flow["spurious_fast_retransmits"],
        ),
        make_claim(
            PAPER,
            "fig1",
            "the window returns to 16 when the DSACK arrives (DSACK-R)",
            restores,
            f"{flow['undos']} undo(s); cwnd {jump_from:.2f} -> {FIG1_WINDOW} at "
            f"t = {t_back:.2f} s, {gap:.3f} s after the halving; final cwnd {w_end:g} "
            f"(SACK without undo regrows to {FIG1_WINDOW} only at t = {sack_back:.2f} s)",
            undos=flow["undos"],
            t_restore=t_back,
            restore_after_s=gap,
            cwnd_before_restore=jump_from,
            cwnd_end=w_end,
            sack_undos=data.flows["SACK"]["undos"],
            sack_regrown_at=sack_back,
        ),
    ]


recipe(
    PAPER,
    "fig1",
    "one false fast retransmit and its DSACK undo (cwnd vs time)",
    points=_fig1_points,
    table=_fig1_table,
    plot=_fig1_plot,
    claims=_fig1_claims,
)


# --------------------------------------------------------------------------
# Figs. 4-5: fraction of delayed packets
# --------------------------------------------------------------------------

FIG4_FRACTIONS = (0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
FIG4_FRACTIONS_QUICK = (0.01, 0.10, 0.30)
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


def _fig4_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    fractions = FIG4_FRACTIONS_QUICK if quick else FIG4_FRACTIONS
    s = capacity_bps(FIG4_P)
    points = [_point(NODELAY, 0.0, s, chain_scenario(CHAIN, FIG4_P, "SACK", duration))]
    for label, variant in FIG4_CURVES.items():
        for f in fractions:
            sc = chain_scenario(CHAIN, FIG4_P, variant, duration, [delayed(f, FIG4_DELAY)])
            points.append(_point(label, f, s, sc))
    return _plan(points, quick)


def _fig4_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig4_throughput",
        tab,
        [NODELAY, *FIG4_CURVES],
        "norm",
        xlabel="fraction of packets delayed (%)",
        ylabel="throughput / S",
        title=f"Fig. 4: P = {FIG4_P * 1000:g} ms, delay N(25 ms, 8 ms) "
        f"({seeds} seeds x {duration:g} s)",
        xscale=100,
        styles={NODELAY: "k*", "DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
    )


def _setting_claim(nodelay: Stat) -> Claim:
    """The condition Sec. 5 states of its setting, on which the capacity S
    = M / R was calibrated (from that sentence only): undisturbed, one flow
    runs at S with its window at M, without loss. Measured over the whole
    run, so slow start (~log2 M RTTs) costs a little of it."""
    retransmissions = nodelay["fast_retransmits"] + nodelay["timeouts"]
    return make_claim(
        PAPER,
        "fig4",
        "the setting: with no delay or drops the flow runs at S (SACK-NODELAY)",
        all_of(
            at_least(
                nodelay["norm"], 0.99, "SACK-NODELAY's throughput / S over the run", unit("S")
            ),
            equals(retransmissions, 0, "its fast retransmits and timeouts"),
        ).noted(
            "(Sec. 5: \"when we don't introduce a controlled packet delay or dropping process "
            'at the link, a TCP flow achieves throughput S")'
        ),
        f"SACK-NODELAY {nodelay['norm']:.4f} S, {retransmissions:g} retransmissions",
        nodelay_norm=nodelay["norm"],
        retransmissions=retransmissions,
    )


def _fig4_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig4"
    nodelay = tab[(NODELAY, 0.0)]["norm"]
    xs = _xs(tab, "SACK")
    th = {c: _by_x(tab, c) for c in FIG4_CURVES}
    claims: list[Claim] = [_setting_claim(tab[(NODELAY, 0.0)])]

    x10 = min(xs, key=lambda x: abs(x - 0.10))
    sack10 = th["SACK"][x10] / nodelay
    sack_lowest = all(th["SACK"][x] <= min(th[c][x] for c in FIG4_CURVES) + 1e-12 for x in xs)
    claims.append(
        make_claim(
            PAPER,
            fig,
            "SACK's throughput falls fast as more packets are delayed",
            all_of(
                below(sack10, 0.5, f"SACK / SACK-NODELAY at {_pct(x10)} delayed"),
                that(sack_lowest, "SACK the lowest curve at every fraction"),
            ),
            f"SACK / SACK-NODELAY at {_pct(x10)}: {sack10:.3f}; SACK vs fraction: "
            f"{series_str(th['SACK'])}; lowest everywhere: {sack_lowest}",
            sack_over_nodelay_at_10pct=sack10,
            sack=th["SACK"],
            nodelay=nodelay,
        )
    )

    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {x: th["DSACK-TA-MEAN"][x] - max(th[c][x] for c in others) for x in xs}
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-TA performs best",
            each_at_least(
                gaps,
                -0.01,
                "DSACK-TA(-MEAN) - the best non-TA curve (SACK, DSACK-R, FA-MEAN, FA-RTX)",
                "at every fraction",
                unit("S"),
            ),
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            ta_minus_best_other=gaps,
        )
    )

    x30 = max(xs)
    ta30 = th["DSACK-TA-MEAN"][x30] / nodelay
    claims.append(
        make_claim(
            PAPER,
            fig,
            f"DSACK-TA keeps over 71 % of SACK-NODELAY's throughput at {_pct(x30)} delayed",
            above(ta30, 0.71, "DSACK-TA / SACK-NODELAY"),
            f"{ta30:.3f} (TA {th['DSACK-TA-MEAN'][x30]:.3f} S, SACK-NODELAY {nodelay:.3f} S)",
            ta_over_nodelay=ta30,
        )
    )

    return claims + _rtx_claims(th, xs)


def _rtx_claims(th: dict[str, dict[float, float]], xs: list[float]) -> list[Claim]:
    """Fig. 4: the -MEAN and -RTX pairings of FA and TA."""
    fig = "fig4"
    claims: list[Claim] = []
    diff_ta = {x: th["DSACK-TA-MEAN"][x] - th["DSACK-TA-RTX"][x] for x in xs}
    worst = max(abs(v) for v in diff_ta.values())
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-TA-MEAN ~ DSACK-TA-RTX (plotted atop one another)",
            at_most(worst, 0.03, "|TA-MEAN - TA-RTX|, largest over the fractions", unit("S")),
            "TA-MEAN - TA-RTX: " + series_str(diff_ta, "{:+.3f}"),
            diff=diff_ta,
            max_abs_diff=worst,
        )
    )

    diff_fa = {x: th["DSACK-FA-MEAN"][x] - th["DSACK-FA-RTX"][x] for x in xs}
    mean_fa = float(np.mean(list(diff_fa.values())))
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-FA-MEAN performs slightly better than DSACK-FA-RTX",
            within(
                mean_fa,
                0,
                0.10,
                "mean over the fractions of FA-MEAN - FA-RTX",
                unit("S"),
                low_open=True,
            ),
            f"mean {mean_fa:+.4f} S; per fraction: " + series_str(diff_fa, "{:+.3f}"),
            diff=diff_fa,
            mean_diff=mean_fa,
        )
    )
    return claims


recipe(
    PAPER,
    "fig4",
    "throughput vs fraction of delayed packets (P = 50 ms, N(25, 8) ms)",
    points=_fig4_points,
    table=_summary,
    plot=_fig4_plot,
    claims=_fig4_claims,
)


def _fig5_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig5_false_fr_ratio",
        tab,
        ["DSACK-R", "DSACK-FA-MEAN", "DSACK-FA-RTX", "DSACK-TA-MEAN", "DSACK-TA-RTX"],
        "false_fr_per_reorder",
        xlabel="fraction of packets delayed (%)",
        ylabel="false fast retransmits / reordered packets (%)",
        title=f"Fig. 5: as Fig. 4 ({seeds} seeds x {duration:g} s)",
        xscale=100,
        yscale=100,
        styles={"DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
    )


def _fig5_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig5"
    metric = "false_fr_per_reorder"
    fa = _by_x(tab, "DSACK-FA-MEAN", metric)
    ta = _by_x(tab, "DSACK-TA-MEAN", metric)
    xs = list(fa)

    def pooled(curve: str) -> float:
        reord = sum(tab[(curve, x)]["reordered"] for x in xs)
        false = sum(tab[(curve, x)]["spurious_fast_retransmits"] for x in xs)
        return false / reord if reord else 0.0

    fa_all, ta_all = pooled("DSACK-FA-MEAN"), pooled("DSACK-TA-MEAN")
    share = {
        c: {x: tab[(c, x)]["false_fr_detected"] for x in xs}
        for c in ("DSACK-FA-MEAN", "DSACK-TA-MEAN")
    }
    ta_check = all_of(
        below(ta_all, Ref(fa_all, "FA's"), "TA's ratio pooled over all fractions"),
        each_at_most(ta, Ref(fa, "FA", plus=0.01, fmt=points), "TA", "at every fraction"),
        sep=", and ",
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-FA's false fast retransmit ratio stays below 10 %",
            each_below(
                fa,
                0.10,
                "false fast retransmits (ground truth) / reordered packets of DSACK-FA(-MEAN)",
                "at every fraction",
                pct,
            ),
            "FA (%): " + series_str({x: 100 * v for x, v in fa.items()}, "{:.2f}"),
            fa=fa,
            fa_rtx=_by_x(tab, "DSACK-FA-RTX", metric),
            dsack_detected_share_of_frs=share,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA prevents still more false fast retransmits",
            ta_check,
            f"pooled TA {100 * ta_all:.2f} % vs FA {100 * fa_all:.2f} %; TA (%): "
            + series_str({x: 100 * v for x, v in ta.items()}, "{:.2f}"),
            ta=ta,
            ta_pooled=ta_all,
            fa_pooled=fa_all,
            ta_rtx=_by_x(tab, "DSACK-TA-RTX", metric),
        ),
    ]


recipe(
    PAPER,
    "fig5",
    "false fast retransmit ratio vs fraction of delayed packets",
    points=_fig4_points,
    table=_summary,
    plot=_fig5_plot,
    claims=_fig5_claims,
)


# --------------------------------------------------------------------------
# Fig. 6: drop rate
# --------------------------------------------------------------------------

FIG6_DROPS = (0.0, 0.0025, 0.005, 0.01, 0.015, 0.02)
FIG6_DROPS_QUICK = (0.0, 0.01, 0.02)
FIG6_FRACTION = 0.05
FIG6_CURVES = {"SACK": "SACK", "DSACK-R": "DSACK-R", "DSACK-FA": "DSACK-FA", "DSACK-TA": "DSACK-TA"}


def _fig6_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    drops = FIG6_DROPS_QUICK if quick else FIG6_DROPS
    s = capacity_bps(FIG4_P)
    points: list[Point] = []
    for p in drops:
        points.append(
            _point(NODELAY, p, s, chain_scenario(CHAIN, FIG4_P, "SACK", duration, dropped(p)))
        )
        for label, variant in FIG6_CURVES.items():
            imps: list[Impairment] = [delayed(FIG6_FRACTION, FIG4_DELAY), *dropped(p)]
            points.append(
                _point(label, p, s, chain_scenario(CHAIN, FIG4_P, variant, duration, imps))
            )
    return _plan(points, quick)


def _fig6_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig6_throughput",
        tab,
        [NODELAY, *FIG6_CURVES],
        "norm",
        xlabel="drop rate (%)",
        ylabel="throughput / S",
        title=f"Fig. 6: {_pct(FIG6_FRACTION)} delayed N(25, 8) ms ({seeds} seeds x {duration:g} s)",
        xscale=100,
        styles={NODELAY: "k*-"},
    )


def _fig6_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig6"
    drops = FIG6_DROPS_QUICK if quick else FIG6_DROPS
    lo, hi = min(drops), max(drops)
    gains = {
        c: (
            tab[(c, lo)]["norm"] - tab[("SACK", lo)]["norm"],
            tab[(c, hi)]["norm"] - tab[("SACK", hi)]["norm"],
        )
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    falls_ = {c: (tab[(c, lo)]["norm"], tab[(c, hi)]["norm"]) for c in [NODELAY, *FIG6_CURVES]}
    ffr = {x: tab[("DSACK-TA", x)]["false_fr_detected"] for x in drops}
    start, end = f"{_pct(lo)} drops", f"{_pct(hi)} drops"
    return [
        make_claim(
            PAPER,
            fig,
            "the DSACK variants' advantage over SACK shrinks as drops grow",
            each_falls(gains, "variant - SACK", start, end, "for DSACK-R, -FA and -TA"),
            "; ".join(f"{c}: {a:+.3f} -> {b:+.3f} S" for c, (a, b) in gains.items()),
            gains=gains,
        ),
        make_claim(
            PAPER,
            fig,
            "all variants lose throughput as the drop rate grows",
            each_falls(falls_, "throughput", start, end, "for every curve"),
            "; ".join(f"{c}: {a:.3f} -> {b:.3f}" for c, (a, b) in falls_.items()),
            throughput=falls_,
        ),
        make_claim(
            PAPER,
            fig,
            "the share of fast retransmits found false falls as drops grow (DSACK-TA)",
            falls(ffr[lo], ffr[hi], "DSACK-detected false FR ratio of DSACK-TA", start, end),
            series_str(ffr, "{:.3f}"),
            false_fr_detected=ffr,
        ),
    ]


recipe(
    PAPER,
    "fig6",
    "throughput vs drop rate (5 % delayed)",
    points=_fig6_points,
    table=_summary,
    plot=_fig6_plot,
    claims=_fig6_claims,
)


# --------------------------------------------------------------------------
# Figs. 7-9: timeout avoidance
# --------------------------------------------------------------------------

FIG7_P = (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
FIG7_P_QUICK = (0.04, 0.10, 0.20)
FIG7_FRACTION = 0.014
FIG7_DROP = 0.006


def _fig7_impairments(p: float) -> list[Impairment]:
    return [delayed(FIG7_FRACTION, UniformVar(low=0.0, high=4 * p)), *dropped(FIG7_DROP)]


def _fig7_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ps = FIG7_P_QUICK if quick else FIG7_P
    points = [
        _point(
            label,
            p,
            capacity_bps(p),
            chain_scenario(CHAIN, p, variant, duration, _fig7_impairments(p)),
        )
        for label, variant in FIG4_CURVES.items()
        for p in ps
    ]
    return _plan(points, quick)


def _fig7_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig7_throughput",
        tab,
        list(FIG4_CURVES),
        "norm",
        xlabel="P (s)",
        ylabel="throughput / S(P)",
        title=f"Fig. 7: 1.4 % delayed U[0, 4P], 0.6 % dropped ({seeds} seeds x {duration:g} s)",
        styles={"DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
    )


def _fig7_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig7"
    ps = FIG7_P_QUICK if quick else FIG7_P
    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {
        p: tab[("DSACK-TA-MEAN", p)]["norm"] - max(tab[(c, p)]["norm"] for c in others) for p in ps
    }
    ta_fa = {p: tab[("DSACK-TA-MEAN", p)]["norm"] - tab[("DSACK-FA-MEAN", p)]["norm"] for p in ps}
    lo, hi = min(ps), max(ps)
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA performs best",
            each_at_least(
                gaps, -0.01, "DSACK-TA(-MEAN) - the best non-TA curve", "at every P", unit("S")
            ),
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            ta_minus_best_other=gaps,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-FA approaches DSACK-TA as P grows",
            falls(ta_fa[lo], ta_fa[hi], "TA - FA", f"P = {lo:g} s", f"P = {hi:g} s"),
            "TA - FA: " + series_str(ta_fa, "{:+.3f}"),
            ta_minus_fa=ta_fa,
        ),
    ]


recipe(
    PAPER,
    "fig7",
    "throughput vs link delay (1.4 % delayed U[0, 4P], 0.6 % dropped)",
    points=_fig7_points,
    table=_summary,
    plot=_fig7_plot,
    claims=_fig7_claims,
)


FIG8_P = 0.10
FIG8_RATIOS = (0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
FIG8_RATIOS_QUICK = (0.95, 0.9, 0.6, 0.3, 0.05)


def _fig8_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    s = capacity_bps(FIG8_P)
    imps = _fig7_impairments(FIG8_P)
    points = [
        _point(
            "DSACK-FA",
            r,
            s,
            chain_scenario(CHAIN, FIG8_P, "DSACK-FA", duration, imps, fa_ratio=r),
        )
        for r in ratios
    ]
    for v in ("DSACK-TA", "DSACK-R"):
        points.append(_point(v, 0.0, s, chain_scenario(CHAIN, FIG8_P, v, duration, imps)))
    return _plan(points, quick)


def _fig8_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    title = f"Fig. 8: P = {FIG8_P:g} s, as Fig. 7 ({seeds} seeds x {duration:g} s)"
    panels = (
        ("a", "to_frac", "packets meeting a timeout (%)", 100.0),
        ("b", "fr_frac", "fast retransmits / packets sent (%)", 100.0),
        ("c", "norm", "throughput / S", 1.0),
    )
    for letter, metric, ylabel, scale in panels:
        extra = {
            v: ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2)
            for v in ("DSACK-TA", "DSACK-R")
        }
        _plot(
            out,
            f"fig8{letter}_{metric}",
            tab,
            ["DSACK-FA"],
            metric,
            xlabel="FA ratio (%)",
            ylabel=ylabel,
            title=title,
            xscale=100,
            yscale=scale,
            extra=extra,
            styles={"DSACK-TA": "--", "DSACK-R": ":"},
        )


def _fig8_timeouts(to: dict[float, float], lo_r: float, mid: float, hi_r: float) -> Claim:
    slope_hi = (to[hi_r] - to[mid]) / (hi_r - mid)
    slope_lo = (to[mid] - to[lo_r]) / (mid - lo_r)
    check = all_of(
        falls(to[hi_r], to[mid], "timeout fraction", f"FA ratio {_pct(hi_r)}", _pct(mid)),
        above(
            slope_hi,
            Ref(slope_lo, f"the drop over {_pct(mid)} -> {_pct(lo_r)}"),
            f"its drop per FA-ratio point over {_pct(hi_r)} -> {_pct(mid)}",
        ),
    )
    return make_claim(
        PAPER,
        "fig8",
        "timeouts fall steeply from a 95 % to a 60 % FA ratio, then flatten",
        check,
        "packets meeting a timeout (%) by FA ratio: "
        + ", ".join(f"{r:.2f}: {100 * v:.4f}" for r, v in to.items())
        + f"; slopes {100 * slope_hi:.4f} vs {100 * slope_lo:.4f} % per FA point",
        timeout_fraction=to,
        slope_95_60=slope_hi,
        slope_60_5=slope_lo,
    )


def _fig8_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig8"
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    to = _by_x(tab, "DSACK-FA", "to_frac")
    fr = _by_x(tab, "DSACK-FA", "fr_frac")
    thr = _by_x(tab, "DSACK-FA", "norm")
    mid = min(ratios, key=lambda r: abs(r - 0.6))
    rho = spearman(list(fr), list(fr.values()))
    ta = tab[("DSACK-TA", 0.0)]
    best_r = max(thr, key=lambda r: thr[r])
    fa90 = thr.get(0.9, float("nan"))
    r_thr = tab[("DSACK-R", 0.0)]["norm"]
    fr_rise = all_of(
        rises(fr[hi_r], fr[lo_r], "FR fraction", f"FA ratio {_pct(hi_r)}", _pct(lo_r)),
        below(rho, 0, "Spearman rank correlation of FA ratio and FR fraction"),
    )
    best = Ref(thr[best_r], "the best fixed-FA-ratio throughput", times=0.95)
    beats = all_of(
        above(ta["norm"], Ref(r_thr, "DSACK-R"), "TA"),
        above(ta["norm"], Ref(fa90, "DSACK-FA at 90 %"), "TA"),
        sep=" and ",
    )
    return [
        _fig8_timeouts(to, lo_r, mid, hi_r),
        make_claim(
            PAPER,
            fig,
            "fast retransmits rise as the FA ratio falls",
            fr_rise,
            "FR / packets (%): "
            + ", ".join(f"{r:.2f}: {100 * v:.3f}" for r, v in fr.items())
            + f"; Spearman {rho:+.2f}",
            fr_fraction=fr,
            spearman=rho,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA gets about the best throughput of all fixed FA ratios",
            at_least(ta["norm"], best, "DSACK-TA"),
            f"TA {ta['norm']:.3f} S (final FA ratio {ta['fa_ratio']:.2f}) vs best fixed "
            f"{thr[best_r]:.3f} S at {_pct(best_r)} (ratio {ta['norm'] / thr[best_r]:.3f})",
            ta=ta["norm"],
            best_fixed=thr[best_r],
            best_ratio=best_r,
            throughput=thr,
            ta_final_fa_ratio=ta["fa_ratio"],
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA beats DSACK-R (dupthresh 3) and DSACK-FA (90 %)",
            beats,
            f"TA {ta['norm']:.3f}, DSACK-R {r_thr:.3f}, FA 90 % {fa90:.3f} (of S)",
            ta=ta["norm"],
            dsack_r=r_thr,
            fa90=fa90,
        ),
    ]


recipe(
    PAPER,
    "fig8",
    "timeouts, fast retransmits and throughput vs fixed FA ratio (P = 100 ms)",
    points=_fig8_points,
    table=_summary,
    plot=_fig8_plot,
    claims=_fig8_claims,
)


def _fig9_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    sc = chain_scenario(
        CHAIN,
        FIG8_P,
        "DSACK-TA",
        duration,
        _fig7_impairments(FIG8_P),
        record=RecordSpec(series=["fa_ratio", "dupthresh"], interval=1.0),
    )
    return {RUNS: Sweep([({}, sc)], seeds=1)}


def _fig9_table(runs: Runs, quick: bool) -> Derived[dict[str, np.ndarray]]:
    """The run's series: time, FA ratio and dupthresh."""
    s = runs.result().series(0)
    t = s.get("t", np.array([]))
    fa = s.get("fa_ratio", np.full(t.shape, np.nan))
    dt = s.get("dupthresh", np.full(t.shape, np.nan))
    return Derived({"t": t, "fa_ratio": fa, "dupthresh": dt})


def _fig9_plot(s: dict[str, np.ndarray], out: Path, quick: bool) -> None:
    duration, _ = _mode(quick)
    t, fa, dt = s["t"], s["fa_ratio"], s["dupthresh"]
    line_plot(
        out,
        "fig9_fa_ratio_dupthresh",
        {
            "FA ratio (%)": (t.tolist(), (100 * fa).tolist(), None),
            "dupthresh (packets)": (t.tolist(), dt.tolist(), None),
        },
        xlabel="time (s)",
        ylabel="FA ratio (%) / dupthresh (packets)",
        title=f"Fig. 9: one DSACK-TA run, P = {FIG8_P:g} s ({duration:g} s)",
        styles={"FA ratio (%)": "-", "dupthresh (packets)": "-"},
    )


def _fig9_claims(s: dict[str, np.ndarray], quick: bool) -> list[Claim]:
    duration, _ = _mode(quick)
    t, fa, dt = s["t"], s["fa_ratio"], s["dupthresh"]
    settled = t >= 0.1 * duration
    fa_mean = float(np.nanmean(fa[settled])) if settled.any() else float("nan")
    fa_sd = float(np.nanstd(fa[settled])) if settled.any() else float("nan")
    dt_mean = float(np.nanmean(dt[settled])) if settled.any() else float("nan")
    dt_sd = float(np.nanstd(dt[settled])) if settled.any() else float("nan")
    after = f"after the first {0.1 * duration:g} s"
    return [
        make_claim(
            PAPER,
            "fig9",
            "the FA ratio oscillates around 60-70 %",
            within(fa_mean, 0.55, 0.75, f"time mean of the FA ratio {after}", pct).noted(
                "(60-70 % +- 5 points)"
            ),
            f"mean {_pct(fa_mean)}, sd {_pct(fa_sd)}",
            fa_ratio_mean=fa_mean,
            fa_ratio_sd=fa_sd,
        ),
        make_claim(
            PAPER,
            "fig9",
            "dupthresh oscillates around 25",
            within(dt_mean, 18, 32, f"time mean of dupthresh {after}").noted(
                "(25 +- 7 packets, i.e. +- 30 %)"
            ),
            f"mean {dt_mean:.1f}, sd {dt_sd:.1f} packets",
            dupthresh_mean=dt_mean,
            dupthresh_sd=dt_sd,
        ),
    ]


recipe(
    PAPER,
    "fig9",
    "FA ratio and dupthresh vs time, one DSACK-TA run (as Fig. 8)",
    points=_fig9_points,
    table=_fig9_table,
    plot=_fig9_plot,
    claims=_fig9_claims,
)


# --------------------------------------------------------------------------
# Figs. 10-13, Table 3: long delays and the RTO estimator
# --------------------------------------------------------------------------

FIG10_P = 0.20
FIG10_FRACTION = 0.04
FIG10_K = (4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0)
FIG10_K_QUICK = (4.5, 5.5, 6.5, 8.0)
FIG10_CURVES = ("SACK", "DSACK-R", "DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")


def _kp_delay(fraction: float, k: float, p: float) -> DelayImpairment:
    """``fraction`` of the packets delayed ~ Normal(kP, kP/3)."""
    return delayed(fraction, normal(k * p, k * p / 3))


def _fig10_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ks = FIG10_K_QUICK if quick else FIG10_K
    s = capacity_bps(FIG10_P)
    points = [
        _point(
            v,
            k,
            s,
            chain_scenario(CHAIN, FIG10_P, v, duration, [_kp_delay(FIG10_FRACTION, k, FIG10_P)]),
        )
        for v in FIG10_CURVES
        for k in ks
    ]
    return _plan(points, quick)


def _fig10_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    title = (
        f"Figs. 10-11: P = {FIG10_P:g} s, 4 % delayed N(kP, kP/3) ({seeds} seeds x {duration:g} s)"
    )
    for stem, metric, ylabel, scale in (
        ("fig10_throughput", "norm", "throughput / S", 1.0),
        ("fig11_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
    ):
        _plot(
            out,
            stem,
            tab,
            FIG10_CURVES,
            metric,
            xlabel="mean packet delay kP (s)",
            ylabel=ylabel,
            title=title,
            xscale=FIG10_P,
            yscale=scale,
        )


def _fig10_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig10-11"
    ks = FIG10_K_QUICK if quick else FIG10_K
    late = [k for k in ks if k > 5.5]
    early = [k for k in ks if k <= 5.5]
    thr = {v: _by_x(tab, v) for v in FIG10_CURVES}
    to = {v: _by_x(tab, v, "to_frac") for v in FIG10_CURVES}
    drop = (
        float(np.mean([thr["DSACK-TA"][k] for k in late]))
        / float(np.mean([thr["DSACK-TA"][k] for k in early]))
        if late and early
        else float("nan")
    )
    where = "at every k > 5.5"
    best = {k: max(thr["DSACK-TA"][k], thr["DSACK-FA"][k]) for k in ks}
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA collapses past k = 5.5 (mean delay 1.1 s), below DSACK-FA",
            each_below(
                {k: thr["DSACK-TA"][k] for k in late},
                Ref(thr["DSACK-FA"], "DSACK-FA"),
                "DSACK-TA",
                where,
            ),
            "TA: "
            + series_str(thr["DSACK-TA"])
            + "; FA: "
            + series_str(thr["DSACK-FA"])
            + f"; TA mean k > 5.5 / mean k <= 5.5: {drop:.2f}",
            ta=thr["DSACK-TA"],
            fa=thr["DSACK-FA"],
            ta_late_over_early=drop,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA's timeouts exceed DSACK-FA's past k = 5.5",
            each_above(
                {k: to["DSACK-TA"][k] for k in late},
                Ref(to["DSACK-FA"], "FA's"),
                "timeout fraction of TA",
                where,
            ),
            "TA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-TA"].items()}, "{:.3f}")
            + "; FA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-FA"].items()}, "{:.3f}"),
            ta=to["DSACK-TA"],
            fa=to["DSACK-FA"],
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES keeps a high throughput",
            each_at_least(
                thr["DSACK-TAES"],
                Ref(best, "max(TA, FA)", plus=-0.02, fmt=unit("S")),
                "TAES",
                "at every k",
            ),
            "TAES: " + series_str(thr["DSACK-TAES"]) + "; HG: " + series_str(thr["DSACK-HG"]),
            taes=thr["DSACK-TAES"],
            hg=thr["DSACK-HG"],
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES has few timeouts",
            each_at_most(
                {k: to["DSACK-TAES"][k] for k in late},
                Ref(to["DSACK-TA"], "TA's"),
                "timeout fraction of TAES",
                where,
            ),
            "TAES (%): " + series_str({k: 100 * v for k, v in to["DSACK-TAES"].items()}, "{:.3f}"),
            taes=to["DSACK-TAES"],
            hg=to["DSACK-HG"],
        ),
    ]


recipe(
    PAPER,
    "fig10-11",
    "throughput and timeouts vs mean delay kP (P = 200 ms, 4 % delayed)",
    points=_fig10_points,
    table=_summary,
    plot=_fig10_plot,
    claims=_fig10_claims,
)


FIG12_K = 6.0
FIG12_REFS = ("SACK", "DSACK-R", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
#: Table 3's variants whose mean RTO depends on the limited-transmit bound
#: (DSACK-FA at the highest FA ratio).
FIG12_LT_VARIANTS = ("DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
TABLE3_PAPER = {
    "SACK": 1.0,
    "DSACK-R": 1.0,
    "DSACK-FA": 3.1,
    "DSACK-TA": 1.6,
    "DSACK-TAES": 3.1,
    "DSACK-HG": 2.3,
}


def _fig12_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    s = capacity_bps(FIG10_P)
    imps = [_kp_delay(FIG10_FRACTION, FIG12_K, FIG10_P)]
    points = [
        _point(v, r, s, chain_scenario(CHAIN, FIG10_P, v, duration, imps, fa_ratio=r))
        for v in ("DSACK-FA", "DSACK-FAES")
        for r in ratios
    ]
    points += [
        _point(v, 0.0, s, chain_scenario(CHAIN, FIG10_P, v, duration, imps)) for v in FIG12_REFS
    ]
    hi_r = max(ratios)
    sens = [
        _point(
            _sens_curve(v),
            b,
            s,
            chain_scenario(
                CHAIN,
                FIG10_P,
                v,
                duration,
                imps,
                fa_ratio=hi_r if v == "DSACK-FA" else None,
                lt_bound=_lt_override(b),
            ),
        )
        for v in FIG12_LT_VARIANTS
        for b in _lt_sweep(quick)
    ]
    return {**_plan(points, quick), SENSITIVITY: Sweep(sens, _mode(quick)[1])}


def _mean_rto(tab: Table, quick: bool) -> dict[str, float]:
    """Table 3's mean RTO by variant (DSACK-FA at the highest FA ratio)."""
    hi_r = max(FIG8_RATIOS_QUICK if quick else FIG8_RATIOS)
    rto = {v: tab[(v, 0.0)]["rto_mean"] for v in FIG12_REFS}
    rto["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_mean"]
    return rto


def _fig12_table(runs: Runs, quick: bool) -> Derived[Table]:
    tab = _with_sensitivity(runs)
    hi_r = max(FIG8_RATIOS_QUICK if quick else FIG8_RATIOS)
    rto = _mean_rto(tab, quick)
    at_timeout = {v: tab[(v, 0.0)]["rto_at_timeout"] for v in FIG12_REFS}
    at_timeout["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_at_timeout"]
    rows = [
        {
            "variant": v,
            "mean_rto_s": rto[v],
            "mean_rto_at_timeout_s": None if math.isnan(at_timeout[v]) else at_timeout[v],
            "paper_s": TABLE3_PAPER[v],
            "note": f"FA ratio {_pct(hi_r)}" if v == "DSACK-FA" else "",
        }
        for v in TABLE3_PAPER
    ]
    return Derived(tab, {"table3_mean_rto": rows})


def _fig12_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    title = (
        f"Figs. 12-13: P = {FIG10_P:g} s, 4 % delayed N(1.2 s, 0.4 s) "
        f"({seeds} seeds x {duration:g} s)"
    )
    for stem, metric, ylabel, scale in (
        ("fig12_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
        ("fig13_throughput", "norm", "throughput / S", 1.0),
    ):
        extra = {
            v: ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2)
            for v in ("DSACK-TA", "DSACK-TAES", "DSACK-HG")
        }
        _plot(
            out,
            stem,
            tab,
            ["DSACK-FA", "DSACK-FAES"],
            metric,
            xlabel="FA ratio (%)",
            ylabel=ylabel,
            title=title,
            xscale=100,
            yscale=scale,
            extra=extra,
            styles={"DSACK-TA": "--", "DSACK-TAES": "-.", "DSACK-HG": ":"},
        )
    paper = ", ".join(f"{v[6:]} {TABLE3_PAPER[v]:g}" for v in FIG12_LT_VARIANTS)
    sens_title = (
        f"k = 6, FA at {_pct(hi_r)} ({seeds} seeds x {duration:g} s)\npaper's Table 3 (s): {paper}"
    )
    for stem, metric, ylabel, scale in (
        ("fig12_sensitivity", "rto_mean", "mean RTO (s)", 1.0),
        ("fig12_sensitivity_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
    ):
        _sens_plot(
            out,
            stem,
            tab,
            FIG12_LT_VARIANTS,
            metric,
            ylabel=ylabel,
            title=sens_title,
            yscale=scale,
        )


def _pct_map(m: Mapping[float, float]) -> str:
    return ", ".join(f"{100 * r:g}: {100 * v:.3f}" for r, v in m.items())


def _fig12_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig12-13-table3"
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    to_fa = _by_x(tab, "DSACK-FA", "to_frac")
    to_faes = _by_x(tab, "DSACK-FAES", "to_frac")
    thr_faes = _by_x(tab, "DSACK-FAES")
    ta_to = tab[("DSACK-TA", 0.0)]["to_frac"]
    taes = tab[("DSACK-TAES", 0.0)]["norm"]
    hg = tab[("DSACK-HG", 0.0)]["norm"]
    best_faes = max(thr_faes.values())
    every = "at every FA ratio"
    faes_few = all_of(
        each_at_most(
            to_faes, Ref(to_fa, "FA's", plus=1e-4, fmt=points), "FAES timeout fraction", every
        ),
        each_below(to_faes, Ref(ta_to, "DSACK-TA's"), "FAES timeout fraction", every),
    )
    ta_many = all_of(
        above(ta_to, Ref(to_fa[hi_r], f"FA's at {_pct(hi_r)}"), "TA's timeout fraction"),
        rises(
            to_fa[hi_r], to_fa[lo_r], "FA's timeout fraction", f"FA ratio {_pct(hi_r)}", _pct(lo_r)
        ),
    )
    taes_best = all_of(
        at_least(taes, Ref(best_faes, "the best FAES over the FA ratios", times=0.95), "TAES"),
        at_least(taes, Ref(hg, "HG", times=0.95), "TAES"),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-FAES has few timeouts at every FA ratio",
            faes_few,
            f"FAES (%): {_pct_map(to_faes)}; FA (%): {_pct_map(to_fa)}; TA {100 * ta_to:.3f} %",
            faes=to_faes,
            fa=to_fa,
            ta=ta_to,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA meets far more timeouts than DSACK-FA at 95 %; FA's timeouts grow as "
            "its FA ratio falls",
            ta_many,
            f"TA {100 * ta_to:.3f} %, FA at {_pct(hi_r)} {100 * to_fa[hi_r]:.3f} %, "
            f"FA at {_pct(lo_r)} {100 * to_fa[lo_r]:.3f} %",
            ta=ta_to,
            fa=to_fa,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES matches the best DSACK-FAES and DSACK-HG",
            taes_best,
            f"TAES {taes:.3f} S, best FAES {best_faes:.3f} S, HG {hg:.3f} S",
            taes=taes,
            best_faes=best_faes,
            hg=hg,
            faes=thr_faes,
        ),
        *_table3_claims(_mean_rto(tab, quick)),
    ]


def _table3_claims(rto: dict[str, float]) -> list[Claim]:
    fig = "fig12-13-table3"
    rto_str = ", ".join(f"{v} {rto[v]:.2f} (paper {TABLE3_PAPER[v]:.1f})" for v in TABLE3_PAPER)
    return [
        make_claim(
            PAPER,
            fig,
            "Table 3: without enhanced sampling TA's RTO is short; FA (95 %) and TAES are "
            "more conservative",
            each_above(
                {"DSACK-FA (95 %)": rto["DSACK-FA"], "DSACK-TAES": rto["DSACK-TAES"]},
                Ref(rto["DSACK-TA"], "TA's"),
                "mean RTO of DSACK-FA (95 %) and of TAES",
                "",
            ),
            rto_str,
            mean_rto=rto,
            paper=TABLE3_PAPER,
        ),
        make_claim(
            PAPER,
            fig,
            "Table 3: TA's mean RTO is above SACK's, and SACK / DSACK-R stay near the 1 s minimum",
            all_of(
                above(rto["DSACK-TA"], Ref(rto["SACK"], "SACK's"), "TA's mean RTO"),
                each_at_most(
                    {"SACK": rto["SACK"], "DSACK-R": rto["DSACK-R"]},
                    1.1,
                    "mean RTO of SACK and of DSACK-R",
                    "",
                    unit("s"),
                ),
            ),
            rto_str,
            mean_rto=rto,
        ),
        make_claim(
            PAPER,
            fig,
            "Table 3: DSACK-FA and DSACK-TAES are more conservative than DSACK-HG",
            each_above(
                {"DSACK-FA (95 %)": rto["DSACK-FA"], "DSACK-TAES": rto["DSACK-TAES"]},
                Ref(rto["DSACK-HG"], "HG's"),
                "mean RTO of FA (95 %) and of TAES",
                "",
            ),
            rto_str,
            mean_rto=rto,
        ),
    ]


recipe(
    PAPER,
    "fig12-13-table3",
    "timeouts and throughput vs FA ratio at k = 6 (N(1.2 s, 0.4 s)); mean RTO (Table 3)",
    points=_fig12_points,
    table=_fig12_table,
    plot=_fig12_plot,
    claims=_fig12_claims,
)


# --------------------------------------------------------------------------
# Fig. 14: ACK reordering
# --------------------------------------------------------------------------

FIG14_ACK_FRACTIONS = (0.0, 0.01, 0.02, 0.05, 0.10, 0.20, 0.30)
FIG14_ACK_FRACTIONS_QUICK = (0.0, 0.10, 0.30)
FIG14_DATA_FRACTION = 0.05


def _fig14_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    fractions = FIG14_ACK_FRACTIONS_QUICK if quick else FIG14_ACK_FRACTIONS
    s = capacity_bps(FIG4_P)
    points: list[Point] = []
    for label, variant in FIG6_CURVES.items():
        for f in fractions:
            imps: list[Impairment] = [delayed(FIG14_DATA_FRACTION, FIG4_DELAY)]
            if f > 0:
                imps.append(delayed(f, FIG4_DELAY, link=REVERSE))
            points.append(
                _point(label, f, s, chain_scenario(CHAIN, FIG4_P, variant, duration, imps))
            )
    return _plan(points, quick)


def _fig14_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig14_throughput",
        tab,
        list(FIG6_CURVES),
        "norm",
        xlabel="fraction of ACKs delayed N(25, 8) ms (%)",
        ylabel="throughput / S",
        title=f"Fig. 14: {_pct(FIG14_DATA_FRACTION)} of data delayed, P = {FIG4_P:g} s "
        f"({seeds} seeds x {duration:g} s)",
        xscale=100,
    )


def _fig14_claims(tab: Table, quick: bool) -> list[Claim]:
    fractions = FIG14_ACK_FRACTIONS_QUICK if quick else FIG14_ACK_FRACTIONS
    rel = {
        c: {f: tab[(c, f)]["norm"] / tab[(c, 0.0)]["norm"] for f in fractions}
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    worst = {c: min(v.values()) for c, v in rel.items()}
    return [
        make_claim(
            PAPER,
            "fig14",
            "reordered ACKs have no significant effect on the DSACK variants",
            each_at_least(
                worst,
                0.9,
                "throughput at the worst ACK-reordering fraction / without ACK reordering",
                "for DSACK-R, -FA and -TA",
            ),
            "; ".join(f"{c}: {series_str(v, '{:.3f}')}" for c, v in rel.items()),
            relative=rel,
            worst=worst,
        )
    ]


recipe(
    PAPER,
    "fig14",
    "throughput vs fraction of ACKs reordered (reverse path)",
    points=_fig14_points,
    table=_summary,
    plot=_fig14_plot,
    claims=_fig14_claims,
)


# --------------------------------------------------------------------------
# Fig. 15: other delay distributions
# --------------------------------------------------------------------------

FIG15_FRACTIONS = (0.01, 0.02, 0.05, 0.10, 0.20)
FIG15_FRACTIONS_QUICK = (0.02, 0.10)


def fig15_distributions() -> dict[str, RandomVar]:
    """Every delay law with mean 25 ms (module docstring)."""
    return {
        "normal": normal(0.025, 0.008),
        "exponential": ExponentialVar(mean=0.025),
        "hyperexponential": HyperexponentialVar(means=[0.01, 0.1], probs=[5 / 6, 1 / 6]),
        "pareto": ParetoVar(scale=0.015, shape=2.5),
        "pareto2": Pareto2Var(scale=0.0375, shape=2.5),
        "uniform": UniformVar(low=0.0, high=0.05),
    }


def _fig15_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    fractions = FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS
    s = capacity_bps(FIG4_P)
    points = [
        _point(
            f"{v} {name}",
            f,
            s,
            chain_scenario(CHAIN, FIG4_P, v, duration, [delayed(f, law)]),
        )
        for name, law in fig15_distributions().items()
        for v in ("SACK", "DSACK-TA")
        for f in fractions
    ]
    return _plan(points, quick)


def _fig15_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    curves = [f"{v} {name}" for name in fig15_distributions() for v in ("DSACK-TA", "SACK")]
    _plot(
        out,
        "fig15_throughput",
        tab,
        curves,
        "norm",
        xlabel="fraction of packets delayed (%)",
        ylabel="throughput / S",
        title=f"Fig. 15: delay laws of mean 25 ms, P = {FIG4_P:g} s "
        f"({seeds} seeds x {duration:g} s)",
        xscale=100,
        styles={c: ("o-" if c.startswith("DSACK") else "x--") for c in curves},
    )


def _fig15_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig15"
    fractions = FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS
    x10 = min(fractions, key=lambda f: abs(f - 0.10))
    gain = {
        name: tab[(f"DSACK-TA {name}", x10)]["norm"] - tab[(f"SACK {name}", x10)]["norm"]
        for name in fig15_distributions()
    }
    lo, hi = min(gain.values()), max(gain.values())
    at = f"at {_pct(x10)} delayed"
    similar = all_of(
        above(hi, 0, f"largest gain {at}"),
        at_least(lo, Ref(hi, "the largest", times=0.5), "smallest gain"),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA gains over SACK under every delay distribution",
            each_above(gain, 0.1, f"TA - SACK {at}", "for every law", unit("S")),
            series_str(gain, "{:+.3f}", "{}"),
            gain=gain,
        ),
        make_claim(
            PAPER,
            fig,
            "the gains are similar across distributions",
            similar,
            f"smallest {lo:+.3f} S, largest {hi:+.3f} S (ratio {lo / hi if hi else math.nan:.2f})",
            gain=gain,
        ),
    ]


recipe(
    PAPER,
    "fig15",
    "DSACK-TA's gain over SACK under other delay distributions",
    points=_fig15_points,
    table=_summary,
    plot=_fig15_plot,
    claims=_fig15_claims,
)


# --------------------------------------------------------------------------
# Fig. 16: multipath-like fixed delay
# --------------------------------------------------------------------------

FIG16_D = (0.0, 0.025, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.25)
FIG16_D_QUICK = (0.0, 0.05, 0.10, 0.20, 0.25)
FIG16_FRACTION = 0.5


def _fig16_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ds = FIG16_D_QUICK if quick else FIG16_D
    s = capacity_bps(FIG4_P)
    points = [
        _point(
            v,
            d,
            s,
            chain_scenario(
                CHAIN,
                FIG4_P,
                v,
                duration,
                [delayed(FIG16_FRACTION, ConstantVar(value=d))],
            ),
        )
        for v in ("SACK", "DSACK-TA")
        for d in ds
    ]
    return _plan(points, quick)


def _fig16_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    _plot(
        out,
        "fig16_throughput",
        tab,
        ["SACK", "DSACK-TA"],
        "norm",
        xlabel="delay d of 50 % of packets (ms)",
        ylabel="throughput / S",
        title=f"Fig. 16: P = {FIG4_P:g} s, no loss ({seeds} seeds x {duration:g} s)",
        xscale=1000,
    )


def _fig16_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig16"
    ds = FIG16_D_QUICK if quick else FIG16_D
    ta, sack = _by_x(tab, "DSACK-TA"), _by_x(tab, "SACK")
    ratio = {d: ta[d] / sack[d] if sack[d] > 0 else float("inf") for d in ds}
    pos = [d for d in ds if d > 0]
    d200 = min(ds, key=lambda d: abs(d - 0.2))
    early = [d for d in pos if d <= 0.1]
    adv = {d: ta[d] - sack[d] for d in ds}
    best_early = max(adv[d] for d in early) if early else float("nan")
    d_max = max(ds)
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA >> SACK under two-path-like delays",
            each_at_least({d: ratio[d] for d in pos}, 2, "TA / SACK", "at every d > 0"),
            "TA / SACK: " + series_str({d * 1000: r for d, r in ratio.items()}, "{:.2f}"),
            ratio=ratio,
            ta=ta,
            sack=sack,
        ),
        make_claim(
            PAPER,
            fig,
            "about a seven-fold improvement at d = 200 ms",
            within(ratio[d200], 3.5, 10.5, "TA / SACK at 200 ms").noted("(7x +- 50 %)"),
            f"{ratio[d200]:.2f} (TA {ta[d200]:.3f} S, SACK {sack[d200]:.3f} S)",
            ratio_200ms=ratio[d200],
        ),
        make_claim(
            PAPER,
            fig,
            "the advantage shrinks past ~100 ms (limited transmit of one window)",
            below(
                adv[d_max],
                Ref(best_early, "its maximum over 0 < d <= 100 ms"),
                f"(TA - SACK) at d = {1000 * d_max:g} ms",
            ),
            "TA - SACK: " + series_str({d * 1000: a for d, a in adv.items()}, "{:+.3f}"),
            advantage=adv,
        ),
    ]


recipe(
    PAPER,
    "fig16",
    "throughput vs fixed delay d of 50 % of packets (two-path-like)",
    points=_fig16_points,
    table=_summary,
    plot=_fig16_plot,
    claims=_fig16_claims,
)


# --------------------------------------------------------------------------
# Figs. 17-18: Blanton-Allman
# --------------------------------------------------------------------------

FIG17_P = 0.05
FIG17_RATE = 4e6
FIG17_FRACTION = 0.01
FIG17_K = (0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
FIG17_K_QUICK = (0.1, 1.0, 2.0, 4.0)
BL_VARIANTS = (
    "DSACK-BL-R",
    "DSACK-BL-INC",
    "DSACK-BL-AVG",
    "DSACK-BL-EWMA",
    "DSACK-BL-TIMEDEL",
    "DSACK-BL-TIMEINC",
)
FIG17_CURVES = ("SACK", "DSACK-TA", *BL_VARIANTS)
#: k of the limited-transmit sensitivity of Fig. 18 (kP = 100, 200 ms: in
#: both modes' k lists, so k = 1 x cwnd is the figure's own run).
FIG18_LT_K = (2.0, 4.0)


def _fig17_points(quick: bool) -> Plan:
    duration, _ = _mode(quick)
    ks = FIG17_K_QUICK if quick else FIG17_K
    points = [
        _point(
            v,
            k,
            FIG17_RATE,  # S = 4 Mb/s
            chain_scenario(
                CHAIN,
                FIG17_P,
                v,
                duration,
                [_kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                lt_bound=lt_bound_of(v),
            ),
        )
        for v in FIG17_CURVES
        for k in ks
    ]
    sens = [
        _point(
            _sens_curve(_fig18_sens_label(k)),
            b,
            FIG17_RATE,
            chain_scenario(
                CHAIN,
                FIG17_P,
                "DSACK-TA",
                duration,
                [_kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                lt_bound=_lt_override(b),
            ),
        )
        for k in FIG18_LT_K
        for b in _lt_sweep(quick)
    ]
    return {**_plan(points, quick), SENSITIVITY: Sweep(sens, _mode(quick)[1])}


def _fig18_sens_label(k: float) -> str:
    return f"DSACK-TA, kP = {1000 * k * FIG17_P:g} ms"


def _fig17_table(runs: Runs, quick: bool) -> Derived[Table]:
    return Derived(_with_sensitivity(runs))


def _fig17_plot(tab: Table, out: Path, quick: bool) -> None:
    duration, seeds = _mode(quick)
    title = (
        f"Figs. 17-18: P = {FIG17_P:g} s, S = 4 Mb/s, 1 % delayed N(kP, kP/3) "
        f"({seeds} seeds x {duration:g} s)"
    )
    for stem, metric, ylabel, scale in (
        ("fig17_throughput", "norm", "throughput / S", 1.0),
        ("fig18_fast_retransmits", "fr_frac", "fast retransmits / packets sent (%)", 100.0),
    ):
        _plot(
            out,
            stem,
            tab,
            FIG17_CURVES,
            metric,
            xlabel="mean packet delay kP (ms)",
            ylabel=ylabel,
            title=title,
            xscale=FIG17_P * 1000,
            yscale=scale,
        )
    _sens_plot(
        out,
        "fig18_sensitivity",
        tab,
        [_fig18_sens_label(k) for k in FIG18_LT_K],
        "fr_frac",
        ylabel="fast retransmits / packets sent (%)",
        title=f"Fig. 18: DSACK-TA, P = {FIG17_P:g} s, 1 % delayed ({seeds} seeds x {duration:g} s)",
        yscale=100.0,
    )


def _fig17_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig17-18"
    ks = FIG17_K_QUICK if quick else FIG17_K
    thr = {v: _by_x(tab, v) for v in FIG17_CURVES}
    fr = {v: _by_x(tab, v, "fr_frac") for v in FIG17_CURVES}
    lo, hi = min(ks), max(ks)
    small = [thr[v][lo] for v in ("DSACK-TA", *BL_VARIANTS)]
    spread = max(small) - min(small)
    lead = {k: thr["DSACK-TA"][k] - max(thr[v][k] for v in BL_VARIANTS) for k in ks}
    bl_rise = {v: (fr[v][lo], fr[v][hi]) for v in BL_VARIANTS}
    similar = all_of(
        at_most(spread, 0.05, f"at k = {lo:g}: spread of DSACK-TA and the BL schemes", unit("S")),
        at_least(min(small), Ref(thr["SACK"][lo], "SACK", plus=-0.01, fmt=unit("S")), "each"),
    )
    ahead = all_of(
        above(lead[hi], 0, f"TA - best BL scheme at k = {hi:g}"),
        rises(lead[lo], lead[hi], "TA - best BL scheme", f"k = {lo:g}", f"k = {hi:g}"),
    )
    every_bl = "for every BL scheme"
    bl_worse = all_of(
        each_rises(bl_rise, "FR fraction", f"k = {lo:g}", f"k = {hi:g}", every_bl),
        each_above(
            {v: b for v, (_, b) in bl_rise.items()},
            Ref(fr["DSACK-TA"][hi], "TA's"),
            f"FR fraction at k = {hi:g}",
            every_bl,
        ),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "all schemes perform similarly (and no worse than SACK) at small k",
            similar,
            f"spread {spread:.3f} S; " + ", ".join(f"{v} {thr[v][lo]:.3f}" for v in FIG17_CURVES),
            at_small_k={v: thr[v][lo] for v in FIG17_CURVES},
            spread=spread,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA pulls increasingly ahead of the Blanton-Allman schemes as k grows",
            ahead,
            "TA - best BL: " + series_str(lead, "{:+.3f}"),
            lead=lead,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA's fast-retransmit fraction hovers around 0 %",
            each_at_most(
                fr["DSACK-TA"], 0.0005, "TA's fast retransmits / packets sent", "at every k", pct
            ),
            "TA (%): " + series_str({k: 100 * v for k, v in fr["DSACK-TA"].items()}, "{:.4f}"),
            ta=fr["DSACK-TA"],
        ),
        make_claim(
            PAPER,
            fig,
            "the Blanton-Allman schemes suffer increasingly from fast retransmits",
            bl_worse,
            "; ".join(f"{v}: {100 * a:.4f} -> {100 * b:.4f} %" for v, (a, b) in bl_rise.items()),
            bl=bl_rise,
        ),
    ]


recipe(
    PAPER,
    "fig17-18",
    "vs Blanton-Allman: throughput and FR fraction vs mean delay kP",
    points=_fig17_points,
    table=_fig17_table,
    plot=_fig17_plot,
    claims=_fig17_claims,
)


# --------------------------------------------------------------------------
# Table 4, Fig. 19: bursty drops
# --------------------------------------------------------------------------

T4_P = 0.20
T4_FRACTION = 0.02
T4_DELAY = normal(0.1, 0.033)
T4_Q = 0.0002
T4_VARIANTS = ("DSACK-BL-INC", "DSACK-TA")
T4_PAPER = {
    ("DSACK-BL-INC", "no drops"): (97184, 0.13),
    ("DSACK-BL-INC", "drops"): (60708, 0.48),
    ("DSACK-TA", "no drops"): (103770, 0.03),
    ("DSACK-TA", "drops"): (81916, 0.19),
}


#: Drop-episode rates of Table 4's sensitivity step (per data packet; the
#: paper's 0.02 % is the table's own runs).
T4_Q_SWEEP = (0.0001, T4_Q, 0.0005)
#: table4_sensitivity's curve of DSACK-BL-INC with the undo a secondary
#: source gives Blanton and Allman's code (ssthresh = the earlier cwnd, slow
#: start back; docs/variants.md) instead of RR-TCP's immediate restore.
T4_BA_UNDO = "DSACK-BL-INC, slow-start undo"


def _t4_impairments(drops: bool, q: float = T4_Q) -> list[Impairment]:
    imps: list[Impairment] = [delayed(T4_FRACTION, T4_DELAY)]
    if drops:
        imps.append(
            BurstLossImpairment(link=BOTTLENECK, q=q, duration=UniformVar(low=0.3, high=0.4))
        )
    return imps


def _resets_to_three(dt: np.ndarray) -> int:
    """Times the dupthresh series falls from above 3 to 3."""
    if dt.size < 2:
        return 0
    return int(np.sum((dt[1:] <= 3) & (dt[:-1] > 3)))


T4_CONDITIONS = {"no drops": False, "drops": True}
#: Fig. 19's traced runs in quick mode: a drop episode starts about every
#: 50 s (0.02 % of ~100 packets/s), and a 100-s run met no timeout at all
#: (so no reset to show); 400 s give ~5-6 timeouts (14 per 1000 s at full
#: fidelity), at ~2 s of CPU per run.
FIG19_QUICK_DURATION = 400.0


def _fig19_duration(quick: bool) -> float:
    return FIG19_QUICK_DURATION if quick else FULL_DURATION


def _t4_points(quick: bool) -> Plan:
    duration, seeds = _mode(quick)
    trace_duration = _fig19_duration(quick)
    s = capacity_bps(T4_P)
    points = [
        _point(
            f"{v} | {cond}",
            0.0,
            s,
            chain_scenario(
                CHAIN, T4_P, v, duration, _t4_impairments(drops), lt_bound=lt_bound_of(v)
            ),
        )
        for v in T4_VARIANTS
        for cond, drops in T4_CONDITIONS.items()
    ]
    # Fig. 19: dupthresh vs time, one run of each with the drops
    rec = RecordSpec(series=["dupthresh"], interval=0.1)
    traced = [
        (
            {"variant": v},
            chain_scenario(
                CHAIN,
                T4_P,
                v,
                trace_duration,
                _t4_impairments(True),
                record=rec,
                lt_bound=lt_bound_of(v),
            ),
        )
        for v in T4_VARIANTS
    ]
    # sensitivity: the drop-episode rate (the paper's is the table's own
    # runs), and DSACK-BL-INC with Blanton-Allman's slow-start undo at each
    # rate and without drops (x = 0)
    sens = [
        _point(
            _sens_curve(v),
            q,
            s,
            chain_scenario(
                CHAIN, T4_P, v, duration, _t4_impairments(True, q), lt_bound=lt_bound_of(v)
            ),
        )
        for v in T4_VARIANTS
        for q in T4_Q_SWEEP
    ]
    ba = T4_BA_UNDO
    sens += [
        _point(
            _sens_curve(ba),
            q,
            s,
            chain_scenario(
                CHAIN,
                T4_P,
                "DSACK-BL-INC",
                duration,
                _t4_impairments(drops=q > 0, q=q if q > 0 else T4_Q),
                lt_bound=lt_bound_of("DSACK-BL-INC"),
                undo_response="slow-start",
            ),
        )
        for q in (0.0, *T4_Q_SWEEP)
    ]
    return {
        RUNS: Sweep(points, seeds),
        "fig19": Sweep(traced, seeds=1),
        SENSITIVITY: Sweep(sens, seeds),
    }


@dataclass(frozen=True)
class Table4:
    """Table 4's statistics; Fig. 19's dupthresh series and timeouts by variant."""

    tab: Table
    dupthresh: dict[str, tuple[np.ndarray, np.ndarray]]
    timeouts: dict[str, int]

    def get(self, variant: str, cond: str) -> Stat:
        return self.tab[(f"{variant} | {cond}", 0.0)]


def _t4_table(runs: Runs, quick: bool) -> Derived[Table4]:
    duration, _ = _mode(quick)
    dts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    timeouts: dict[str, int] = {}
    for i, v in enumerate(T4_VARIANTS):
        r = runs.result("fig19", i)
        ser = r.series(0)
        dts[v] = (ser.get("t", np.array([])), ser.get("dupthresh", np.array([])))
        timeouts[v] = int(r.flow(0)["timeouts"])
    data = Table4(_with_sensitivity(runs), dts, timeouts)
    scale = 1000.0 / duration
    rows = []
    for v in T4_VARIANTS:
        for cond in T4_CONDITIONS:
            st = data.get(v, cond)
            rows.append(
                {
                    "variant": v,
                    "condition": cond,
                    "packets_per_1000s": st["segments_delivered"] * scale,
                    "throughput_over_S": st["norm"],
                    "fr_ratio_pct": 100 * st["fr_frac"],
                    "timeouts": st["timeouts"],
                    "paper_packets": T4_PAPER[(v, cond)][0],
                    "paper_fr_ratio_pct": T4_PAPER[(v, cond)][1],
                }
            )
    return Derived(data, {"table4": rows})


def _t4_plot(data: Table4, out: Path, quick: bool) -> None:
    duration = _fig19_duration(quick)
    line_plot(
        out,
        "fig19_dupthresh",
        {v: (t.tolist(), d.tolist(), None) for v, (t, d) in data.dupthresh.items()},
        xlabel="time (s)",
        ylabel="dupthresh (packets)",
        title=f"Fig. 19: bursty drops, P = {T4_P:g} s, one run ({duration:g} s)",
        styles={"DSACK-BL-INC": "-", "DSACK-TA": "-"},
    )
    _t4_sensitivity_plot(data, out, quick)


def _t4_sensitivity_plot(data: Table4, out: Path, quick: bool) -> None:
    """Each variant's throughput lost to the drop bursts vs their rate."""
    duration, seeds = _mode(quick)
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}

    def lost(curve: str, base: float) -> tuple[list[float], list[float], None]:
        """% of ``base`` lost at each drop-episode rate (x > 0) of ``curve``."""
        qs = [q for q in _xs(data.tab, curve) if q > 0]
        return (
            [100 * q for q in qs],
            [100 * (1 - data.tab[(curve, q)]["norm"] / base) for q in qs],
            None,
        )

    for v in T4_VARIANTS:
        series[v] = lost(_sens_curve(v), data.get(v, "no drops")["norm"])
    ba = _sens_curve(T4_BA_UNDO)
    series[T4_BA_UNDO] = lost(ba, data.tab[(ba, 0.0)]["norm"])
    line_plot(
        out,
        "table4_sensitivity",
        series,
        xlabel="drop episodes per data packet (%; paper: 0.02)",
        ylabel="throughput lost to the drop bursts (%)",
        title=f"Table 4 vs the drop-episode rate ({seeds} seeds x {duration:g} s)\n"
        "paper at 0.02 %: BL-INC 37.5 %, TA 21.1 %",
    )


def _t4_claims(data: Table4, quick: bool) -> list[Claim]:
    fig = "table4-fig19"
    thr = {(v, c): data.get(v, c)["norm"] for v in T4_VARIANTS for c in T4_CONDITIONS}
    frr = {(v, c): data.get(v, c)["fr_frac"] for v in T4_VARIANTS for c in T4_CONDITIONS}
    bl_nd, ta_nd = thr[("DSACK-BL-INC", "no drops")], thr[("DSACK-TA", "no drops")]
    rel_nd = bl_nd / ta_nd - 1 if ta_nd else float("nan")
    loss = {v: 1 - thr[(v, "drops")] / thr[(v, "no drops")] for v in T4_VARIANTS}

    def frs(c: str) -> str:
        return (
            f"BL-INC {100 * frr[('DSACK-BL-INC', c)]:.3f} %, TA {100 * frr[('DSACK-TA', c)]:.3f} %"
        )

    loses_more = all_of(
        at_least(loss["DSACK-TA"], 0, "TA's relative loss"),
        at_least(loss["DSACK-BL-INC"], Ref(loss["DSACK-TA"], "TA's", times=1.5), "BL-INC's"),
        above(loss["DSACK-BL-INC"], 0, "BL-INC's"),
    ).noted("(paper: 37.5 % vs 21.1 %, 1.78 x)")
    by_cond = {c: frr[("DSACK-BL-INC", c)] for c in T4_CONDITIONS}
    ta_by_cond = Ref({c: frr[("DSACK-TA", c)] for c in T4_CONDITIONS}, "TA's")
    with_drops = {v: frr[(v, "drops")] for v in T4_VARIANTS}
    without = Ref({v: frr[(v, "no drops")] for v in T4_VARIANTS}, "without")
    return [
        make_claim(
            PAPER,
            fig,
            "without drops DSACK-BL-INC is comparable to DSACK-TA",
            at_most(abs(rel_nd), 0.10, "|BL-INC / TA - 1|", pct).noted(
                "(paper: 97184 vs 103770 packets, -6.3 %)"
            ),
            f"BL-INC {bl_nd:.3f} S, TA {ta_nd:.3f} S ({100 * rel_nd:+.1f} %)",
            bl_inc=bl_nd,
            ta=ta_nd,
            relative=rel_nd,
        ),
        make_claim(
            PAPER,
            fig,
            "with bursty drops DSACK-BL-INC loses much more throughput than DSACK-TA",
            loses_more,
            f"BL-INC loses {_pct(loss['DSACK-BL-INC'])}, TA {_pct(loss['DSACK-TA'])} "
            f"(BL-INC {thr[('DSACK-BL-INC', 'drops')]:.3f} S, "
            f"TA {thr[('DSACK-TA', 'drops')]:.3f} S with drops)",
            loss=loss,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-BL-INC has a higher fast-retransmit ratio than DSACK-TA, with and without drops",
            each_above(by_cond, ta_by_cond, "BL-INC FR ratio", "in both conditions").noted(
                "(paper 0.13 vs 0.03 %, 0.48 vs 0.19 %)"
            ),
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
            fr_ratio={f"{v} | {c}": x for (v, c), x in frr.items()},
        ),
        make_claim(
            PAPER,
            fig,
            "bursty drops raise both schemes' fast-retransmit ratios",
            each_above(with_drops, without, "FR ratio with drops", "for BL-INC and TA"),
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
        ),
        *_fig19_claims(data, quick),
    ]


def _fig19_claims(data: Table4, quick: bool) -> list[Claim]:
    fig = "table4-fig19"
    duration = _fig19_duration(quick)
    dts, timeouts = data.dupthresh, data.timeouts
    settled = {v: d[t >= 0.1 * duration] if t.size else np.array([]) for v, (t, d) in dts.items()}
    bl_resets = _resets_to_three(dts["DSACK-BL-INC"][1])
    ta_set = settled["DSACK-TA"]
    ta_med = float(np.median(ta_set)) if ta_set.size else float("nan")
    ta_p5 = float(np.percentile(ta_set, 5)) if ta_set.size else float("nan")
    bl_set = settled["DSACK-BL-INC"]
    bl_med = float(np.median(bl_set)) if bl_set.size else float("nan")
    bl_p5 = float(np.percentile(bl_set, 5)) if bl_set.size else float("nan")
    return [
        make_claim(
            PAPER,
            fig,
            "Fig. 19: DSACK-BL-INC's dupthresh resets to 3 at timeouts",
            at_least(
                bl_resets,
                1,
                "times BL-INC's dupthresh falls from above 3 back to 3 in the run with drops "
                "(sampled every 0.1 s)",
            ),
            f"{bl_resets} resets to 3, {timeouts['DSACK-BL-INC']} timeouts; "
            f"median {bl_med:g}, 5th percentile {bl_p5:g}",
            resets=bl_resets,
            timeouts=timeouts["DSACK-BL-INC"],
            median=bl_med,
            p5=bl_p5,
        ),
        make_claim(
            PAPER,
            fig,
            "Fig. 19: DSACK-TA's dupthresh stays near its level across the drop bursts",
            at_least(
                ta_p5,
                Ref(ta_med, "its median", times=0.5),
                f"TA's 5th percentile of dupthresh after the first {0.1 * duration:g} s",
            ),
            f"TA median {ta_med:g}, 5th percentile {ta_p5:g} ({timeouts['DSACK-TA']} "
            f"timeouts, {_resets_to_three(dts['DSACK-TA'][1])} resets to 3)",
            median=ta_med,
            p5=ta_p5,
            timeouts=timeouts["DSACK-TA"],
        ),
    ]


recipe(
    PAPER,
    "table4-fig19",
    "bursty drops: DSACK-BL-INC vs DSACK-TA; dupthresh vs time",
    points=_t4_points,
    table=_t4_table,
    plot=_t4_plot,
    claims=_t4_claims,
)


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


__all__ = [
    "PAPER",
    "P_IS_LINK_DELAY",
    "bottleneck_delay",
    "capacity_bps",
    "chain_scenario",
    "fig1_scenario",
    "figures",
    "summarise",
    "unqueued_rtt",
]
