"""Seed 000: RR-TCP (Zhang, Karp, Floyd, Peterson), Sec. 5, Figs. 1, 4-19, Tables 3-4.

Paper key ``rr-tcp``; one recipe per row of ``EXPERIMENTS.md`` (Seed 000).

Setting (Fig. 3, Table 2)
    ``S1 -(10 Mb/s, 1 ms)- R1 -(bottleneck)- R2 -(10 Mb/s, 1 ms)- D``, one
    long-lived flow S1 -> D, 1000-byte data packets, 40-byte ACKs, no delayed
    ACK, SACK + DSACK receiver, min RTO 1 s, maximum window M = 50, a
    100-packet DropTail bottleneck queue. Delays and drops are applied to data
    packets on R1->R2 (ACK reordering, Fig. 14: on R2->R1). The bottleneck
    capacity is S = M / R packets/s, R the unqueued path RTT including the
    serialisation of the data packet and of its ACK on each of the 3 hops
    (the fixed point of ``baseline.py``), so an undisturbed flow runs at S
    with window 50 ("SACK-NODELAY"). Throughput is reported normalised by S
    (by the S of its own P where P varies); it is measured over the whole run
    (no warm-up), as the paper counts the packets of the whole 1000 s.
    The variants' defaults are the paper's Table 2 (initial FA ratio 90 %,
    dupthresh in [3, 64], limited transmit 1 x cwnd, sample lifetime 80 s,
    HG at the 99.8th percentile, FA step 0.01); "-MEAN" is the plain
    ``DSACK-FA`` / ``DSACK-TA``.

Full fidelity: 1000 s, 5 seeds, the x values listed per figure. Quick mode
(``--quick``): 100 s, 2 seeds, 3-5 x values per figure; the claims are checked
on those runs as they come out (a claim that fails there is reported as not
holding; nothing is tuned to make a claim hold).

Assumptions (where the text is silent or garbled)
    * P is the one-way propagation delay of link (R1, R2), as the paper's
      text reads it ("the delay of link (R1, R2) is 50 ms"; "[0, 4P] (up
      to 2 RTTs)"; "mean kP ... (mean k/2 RTTs)"; the Fig. 16 path of
      "100 ms RTT" at "50 ms propagation delay"; S = 4 Mb/s ~ M/R at a
      50 ms link in Sec. 5.7). EXPERIMENTS.md does not say which; an earlier
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
from typing import Any, cast

import numpy as np
import pandas as pd

from reorderlab.claims import Claim
from reorderlab.papers import recipe
from reorderlab.papers.common import (
    Point,
    make_claim,
    run_points,
    series_str,
    spearman,
    write_table,
)
from reorderlab.plot import line_plot
from reorderlab.runner import run
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
from reorderlab.store import Store

PAPER = "rr-tcp"

MSS = 1000
ACK = 40
ACCESS_RATE = 10e6
ACCESS_DELAY = 0.001
M = 50
QUEUE = 100
MIN_RTO = 1.0

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
) -> Scenario:
    """One flow S1 -> D on the seed-000 chain."""
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
                    fa_ratio=fa_ratio,
                ),
            )
        ],
        record=record if record is not None else RecordSpec(),
    )


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
        table[(str(curve), float(x))] = st
    return table


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


def _claim(
    figure: str, claim: str, expected: str, measured: str, holds: bool, /, **values: Any
) -> Claim:
    return make_claim(PAPER, figure, claim, expected, measured, holds, **values)


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _fmt_x(x: float) -> str:
    return f"{x:g}"


def _by_x(table: Table, curve: str, metric: str = "norm") -> dict[float, float]:
    return {x: table[(curve, x)][metric] for x in _xs(table, curve)}


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
                tcp=TcpSpec(mss=MSS, ack_size=ACK, max_window=FIG1_WINDOW, min_rto=MIN_RTO),
            )
        ],
        record=RecordSpec(series=["cwnd"], interval=0.01),
    )


@recipe(PAPER, "fig1", "one false fast retransmit and its DSACK undo (cwnd vs time)")
def fig1(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig1"
    res = {v: run(fig1_scenario(v), seed=1, store=store) for v in ("DSACK-R", "SACK")}
    series = {v: r.series(0) for v, r in res.items()}
    line_plot(
        out,
        "fig1_cwnd",
        {
            v: (s["t"].tolist(), s["cwnd"].tolist(), None)
            for v, s in series.items()
            if "t" in s and "cwnd" in s
        },
        xlabel="time (s)",
        ylabel="cwnd (segments)",
        title=f"one packet held {FIG1_HOLD} s at t = {FIG1_EVENT:g} s, window {FIG1_WINDOW}",
        styles={"DSACK-R": "-", "SACK": "--"},
    )
    s = series["DSACK-R"]
    t, cwnd = s.get("t", np.array([])), s.get("cwnd", np.array([]))
    flow = res["DSACK-R"].flow(0)
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
    sack_flow = res["SACK"].flow(0)
    st, sc = series["SACK"].get("t", np.array([])), series["SACK"].get("cwnd", np.array([]))
    sack_back_idx = (
        np.flatnonzero((st > t_halve) & (sc >= FIG1_WINDOW)) if st.size else np.array([], int)
    )
    sack_back = float(st[sack_back_idx[0]]) if len(sack_back_idx) else float("nan")
    return [
        _claim(
            fig,
            "the window halves at the false fast retransmit",
            f"cwnd {FIG1_WINDOW} before the event, {FIG1_WINDOW // 2} after the fast "
            "retransmit; exactly one fast retransmit, and it is false (ground truth)",
            f"cwnd {w_before:g} before, minimum {w_min:g} after (at t = {t_halve:.2f} s); "
            f"{flow['fast_retransmits']} fast retransmit(s), "
            f"{flow['spurious_fast_retransmits']} false",
            w_before == FIG1_WINDOW
            and w_min == FIG1_WINDOW / 2
            and flow["fast_retransmits"] == 1
            and flow["spurious_fast_retransmits"] == 1,
            cwnd_before=w_before,
            cwnd_min=w_min,
            t_halve=t_halve,
            fast_retransmits=flow["fast_retransmits"],
            spurious_fast_retransmits=flow["spurious_fast_retransmits"],
        ),
        _claim(
            fig,
            "the window returns to 16 when the DSACK arrives (DSACK-R)",
            f"one undo; cwnd jumps back to {FIG1_WINDOW} in one step (10 ms sample), "
            f"{FIG1_HOLD} s +- 0.1 s after the halving (the DSACK comes back when the "
            "held original reaches the receiver), and stays there",
            f"{flow['undos']} undo(s); cwnd {jump_from:.2f} -> {FIG1_WINDOW} at "
            f"t = {t_back:.2f} s, {gap:.3f} s after the halving; final cwnd {w_end:g} "
            f"(SACK without undo regrows to {FIG1_WINDOW} only at t = {sack_back:.2f} s)",
            flow["undos"] == 1
            and jump_from <= 0.75 * FIG1_WINDOW
            and abs(gap - FIG1_HOLD) <= 0.1
            and w_end == FIG1_WINDOW,
            undos=flow["undos"],
            t_restore=t_back,
            restore_after_s=gap,
            cwnd_before_restore=jump_from,
            cwnd_end=w_end,
            sack_undos=sack_flow["undos"],
            sack_regrown_at=sack_back,
        ),
    ]


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


def _fig4_table(quick: bool, store: Store | None) -> tuple[Table, float, int]:
    duration, seeds = _mode(quick)
    fractions = FIG4_FRACTIONS_QUICK if quick else FIG4_FRACTIONS
    s = capacity_bps(FIG4_P)
    points = [_point(NODELAY, 0.0, s, chain_scenario(CHAIN, FIG4_P, "SACK", duration))]
    for label, variant in FIG4_CURVES.items():
        for f in fractions:
            sc = chain_scenario(CHAIN, FIG4_P, variant, duration, [delayed(f, FIG4_DELAY)])
            points.append(_point(label, f, s, sc))
    return summarise(run_points(points, seeds, store)), duration, seeds


@recipe(PAPER, "fig4", "throughput vs fraction of delayed packets (P = 50 ms, N(25, 8) ms)")
def fig4(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig4"
    tab, duration, seeds = _fig4_table(quick, store)
    curves = [NODELAY, *FIG4_CURVES]
    _plot(
        out,
        "fig4_throughput",
        tab,
        curves,
        "norm",
        xlabel="fraction of packets delayed (%)",
        ylabel="throughput / S",
        title=f"Fig. 4: P = {FIG4_P * 1000:g} ms, delay N(25 ms, 8 ms) "
        f"({seeds} seeds x {duration:g} s)",
        xscale=100,
        styles={NODELAY: "k*", "DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
    )
    nodelay = tab[(NODELAY, 0.0)]["norm"]
    xs = _xs(tab, "SACK")
    th = {c: _by_x(tab, c) for c in FIG4_CURVES}
    claims: list[Claim] = []

    x10 = min(xs, key=lambda x: abs(x - 0.10))
    sack10 = th["SACK"][x10] / nodelay
    sack_lowest = all(th["SACK"][x] <= min(th[c][x] for c in FIG4_CURVES) + 1e-12 for x in xs)
    claims.append(
        _claim(
            fig,
            "SACK's throughput falls fast as more packets are delayed",
            f"SACK below 50 % of SACK-NODELAY at {_pct(x10)} delayed, and the lowest "
            "curve at every fraction",
            f"SACK / SACK-NODELAY at {_pct(x10)}: {sack10:.3f}; SACK vs fraction: "
            f"{series_str(th['SACK'])}; lowest everywhere: {sack_lowest}",
            sack10 < 0.5 and sack_lowest,
            sack_over_nodelay_at_10pct=sack10,
            sack=th["SACK"],
            nodelay=nodelay,
        )
    )

    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {x: th["DSACK-TA-MEAN"][x] - max(th[c][x] for c in others) for x in xs}
    claims.append(
        _claim(
            fig,
            "DSACK-TA performs best",
            "DSACK-TA(-MEAN) >= every non-TA curve (SACK, DSACK-R, FA-MEAN, FA-RTX) "
            "- 0.01 S at every fraction",
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            all(g >= -0.01 for g in gaps.values()),
            ta_minus_best_other=gaps,
        )
    )

    x30 = max(xs)
    ta30 = th["DSACK-TA-MEAN"][x30] / nodelay
    claims.append(
        _claim(
            fig,
            f"DSACK-TA keeps over 71 % of SACK-NODELAY's throughput at {_pct(x30)} delayed",
            "DSACK-TA / SACK-NODELAY > 0.71",
            f"{ta30:.3f} (TA {th['DSACK-TA-MEAN'][x30]:.3f} S, SACK-NODELAY {nodelay:.3f} S)",
            ta30 > 0.71,
            ta_over_nodelay=ta30,
        )
    )

    diff_ta = {x: th["DSACK-TA-MEAN"][x] - th["DSACK-TA-RTX"][x] for x in xs}
    worst = max(abs(v) for v in diff_ta.values())
    claims.append(
        _claim(
            fig,
            "DSACK-TA-MEAN ~ DSACK-TA-RTX (plotted atop one another)",
            "|TA-MEAN - TA-RTX| <= 0.03 S at every fraction",
            "TA-MEAN - TA-RTX: " + series_str(diff_ta, "{:+.3f}"),
            worst <= 0.03,
            diff=diff_ta,
            max_abs_diff=worst,
        )
    )

    diff_fa = {x: th["DSACK-FA-MEAN"][x] - th["DSACK-FA-RTX"][x] for x in xs}
    mean_fa = float(np.mean(list(diff_fa.values())))
    claims.append(
        _claim(
            fig,
            "DSACK-FA-MEAN performs slightly better than DSACK-FA-RTX",
            "mean over the fractions of FA-MEAN - FA-RTX in (0, 0.10] S",
            f"mean {mean_fa:+.4f} S; per fraction: " + series_str(diff_fa, "{:+.3f}"),
            0 < mean_fa <= 0.10,
            diff=diff_fa,
            mean_diff=mean_fa,
        )
    )
    return claims


@recipe(PAPER, "fig5", "false fast retransmit ratio vs fraction of delayed packets")
def fig5(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig5"
    tab, duration, seeds = _fig4_table(quick, store)
    curves = ["DSACK-R", "DSACK-FA-MEAN", "DSACK-FA-RTX", "DSACK-TA-MEAN", "DSACK-TA-RTX"]
    metric = "false_fr_per_reorder"
    _plot(
        out,
        "fig5_false_fr_ratio",
        tab,
        curves,
        metric,
        xlabel="fraction of packets delayed (%)",
        ylabel="false fast retransmits / reordered packets (%)",
        title=f"Fig. 5: as Fig. 4 ({seeds} seeds x {duration:g} s)",
        xscale=100,
        yscale=100,
        styles={"DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
    )
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
    return [
        _claim(
            fig,
            "DSACK-FA's false fast retransmit ratio stays below 10 %",
            "false fast retransmits (ground truth) / reordered packets of DSACK-FA(-MEAN) "
            "< 10 % at every fraction",
            "FA (%): " + series_str({x: 100 * v for x, v in fa.items()}, "{:.2f}"),
            all(v < 0.10 for v in fa.values()),
            fa=fa,
            fa_rtx=_by_x(tab, "DSACK-FA-RTX", metric),
            dsack_detected_share_of_frs=share,
        ),
        _claim(
            fig,
            "DSACK-TA prevents still more false fast retransmits",
            "TA's ratio pooled over all fractions < FA's, and TA <= FA + 1 point at every fraction",
            f"pooled TA {100 * ta_all:.2f} % vs FA {100 * fa_all:.2f} %; TA (%): "
            + series_str({x: 100 * v for x, v in ta.items()}, "{:.2f}"),
            ta_all < fa_all and all(ta[x] <= fa[x] + 0.01 for x in xs),
            ta=ta,
            ta_pooled=ta_all,
            fa_pooled=fa_all,
            ta_rtx=_by_x(tab, "DSACK-TA-RTX", metric),
        ),
    ]


# --------------------------------------------------------------------------
# Fig. 6: drop rate
# --------------------------------------------------------------------------

FIG6_DROPS = (0.0, 0.0025, 0.005, 0.01, 0.015, 0.02)
FIG6_DROPS_QUICK = (0.0, 0.01, 0.02)
FIG6_FRACTION = 0.05
FIG6_CURVES = {"SACK": "SACK", "DSACK-R": "DSACK-R", "DSACK-FA": "DSACK-FA", "DSACK-TA": "DSACK-TA"}


@recipe(PAPER, "fig6", "throughput vs drop rate (5 % delayed)")
def fig6(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig6"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    lo, hi = min(drops), max(drops)
    gains = {
        c: (
            tab[(c, lo)]["norm"] - tab[("SACK", lo)]["norm"],
            tab[(c, hi)]["norm"] - tab[("SACK", hi)]["norm"],
        )
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    falls = {c: (tab[(c, lo)]["norm"], tab[(c, hi)]["norm"]) for c in [NODELAY, *FIG6_CURVES]}
    ffr = {x: tab[("DSACK-TA", x)]["false_fr_detected"] for x in drops}
    return [
        _claim(
            fig,
            "the DSACK variants' advantage over SACK shrinks as drops grow",
            f"(variant - SACK) at {_pct(hi)} drops < at {_pct(lo)} drops, for DSACK-R, -FA and -TA",
            "; ".join(f"{c}: {a:+.3f} -> {b:+.3f} S" for c, (a, b) in gains.items()),
            all(b < a for a, b in gains.values()),
            gains=gains,
        ),
        _claim(
            fig,
            "all variants lose throughput as the drop rate grows",
            f"throughput at {_pct(hi)} drops < at {_pct(lo)} drops for every curve",
            "; ".join(f"{c}: {a:.3f} -> {b:.3f}" for c, (a, b) in falls.items()),
            all(b < a for a, b in falls.values()),
            throughput=falls,
        ),
        _claim(
            fig,
            "the share of fast retransmits found false falls as drops grow (DSACK-TA)",
            f"DSACK-detected false FR ratio of DSACK-TA lower at {_pct(hi)} drops than at "
            f"{_pct(lo)}",
            series_str(ffr, "{:.3f}"),
            ffr[hi] < ffr[lo],
            false_fr_detected=ffr,
        ),
    ]


# --------------------------------------------------------------------------
# Figs. 7-9: timeout avoidance
# --------------------------------------------------------------------------

FIG7_P = (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
FIG7_P_QUICK = (0.04, 0.10, 0.20)
FIG7_FRACTION = 0.014
FIG7_DROP = 0.006


def _fig7_impairments(p: float) -> list[Impairment]:
    return [delayed(FIG7_FRACTION, UniformVar(low=0.0, high=4 * p)), *dropped(FIG7_DROP)]


@recipe(PAPER, "fig7", "throughput vs link delay (1.4 % delayed U[0, 4P], 0.6 % dropped)")
def fig7(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig7"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {
        p: tab[("DSACK-TA-MEAN", p)]["norm"] - max(tab[(c, p)]["norm"] for c in others) for p in ps
    }
    ta_fa = {p: tab[("DSACK-TA-MEAN", p)]["norm"] - tab[("DSACK-FA-MEAN", p)]["norm"] for p in ps}
    lo, hi = min(ps), max(ps)
    return [
        _claim(
            fig,
            "DSACK-TA performs best",
            "DSACK-TA(-MEAN) >= every non-TA curve - 0.01 S at every P",
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            all(g >= -0.01 for g in gaps.values()),
            ta_minus_best_other=gaps,
        ),
        _claim(
            fig,
            "DSACK-FA approaches DSACK-TA as P grows",
            f"(TA - FA) at P = {hi:g} s < (TA - FA) at P = {lo:g} s",
            "TA - FA: " + series_str(ta_fa, "{:+.3f}"),
            ta_fa[hi] < ta_fa[lo],
            ta_minus_fa=ta_fa,
        ),
    ]


FIG8_P = 0.10
FIG8_RATIOS = (0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
FIG8_RATIOS_QUICK = (0.95, 0.9, 0.6, 0.3, 0.05)


@recipe(PAPER, "fig8", "timeouts, fast retransmits and throughput vs fixed FA ratio (P = 100 ms)")
def fig8(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig8"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    to = _by_x(tab, "DSACK-FA", "to_frac")
    fr = _by_x(tab, "DSACK-FA", "fr_frac")
    thr = _by_x(tab, "DSACK-FA", "norm")
    mid = min(ratios, key=lambda r: abs(r - 0.6))
    slope_hi = (to[hi_r] - to[mid]) / (hi_r - mid)
    slope_lo = (to[mid] - to[lo_r]) / (mid - lo_r)
    rho = spearman(list(fr), list(fr.values()))
    ta = tab[("DSACK-TA", 0.0)]
    best_r = max(thr, key=lambda r: thr[r])
    fa90 = thr.get(0.9, float("nan"))
    r_thr = tab[("DSACK-R", 0.0)]["norm"]
    return [
        _claim(
            fig,
            "timeouts fall steeply from a 95 % to a 60 % FA ratio, then flatten",
            f"timeout fraction at {_pct(hi_r)} > at {_pct(mid)}, and the drop per FA-ratio "
            f"point is larger over {_pct(hi_r)} -> {_pct(mid)} than over {_pct(mid)} -> "
            f"{_pct(lo_r)}",
            "packets meeting a timeout (%) by FA ratio: "
            + ", ".join(f"{r:.2f}: {100 * v:.4f}" for r, v in to.items())
            + f"; slopes {100 * slope_hi:.4f} vs {100 * slope_lo:.4f} % per FA point",
            to[hi_r] > to[mid] and slope_hi > slope_lo,
            timeout_fraction=to,
            slope_95_60=slope_hi,
            slope_60_5=slope_lo,
        ),
        _claim(
            fig,
            "fast retransmits rise as the FA ratio falls",
            f"FR fraction at {_pct(lo_r)} > at {_pct(hi_r)}; Spearman rank correlation of "
            "FA ratio and FR fraction < 0",
            "FR / packets (%): "
            + ", ".join(f"{r:.2f}: {100 * v:.3f}" for r, v in fr.items())
            + f"; Spearman {rho:+.2f}",
            fr[lo_r] > fr[hi_r] and rho < 0,
            fr_fraction=fr,
            spearman=rho,
        ),
        _claim(
            fig,
            "DSACK-TA gets about the best throughput of all fixed FA ratios",
            "DSACK-TA >= 0.95 x the best fixed-FA-ratio throughput",
            f"TA {ta['norm']:.3f} S (final FA ratio {ta['fa_ratio']:.2f}) vs best fixed "
            f"{thr[best_r]:.3f} S at {_pct(best_r)} (ratio {ta['norm'] / thr[best_r]:.3f})",
            ta["norm"] >= 0.95 * thr[best_r],
            ta=ta["norm"],
            best_fixed=thr[best_r],
            best_ratio=best_r,
            throughput=thr,
            ta_final_fa_ratio=ta["fa_ratio"],
        ),
        _claim(
            fig,
            "DSACK-TA beats DSACK-R (dupthresh 3) and DSACK-FA (90 %)",
            "TA > DSACK-R and TA > DSACK-FA at 90 %",
            f"TA {ta['norm']:.3f}, DSACK-R {r_thr:.3f}, FA 90 % {fa90:.3f} (of S)",
            ta["norm"] > r_thr and ta["norm"] > fa90,
            ta=ta["norm"],
            dsack_r=r_thr,
            fa90=fa90,
        ),
    ]


@recipe(PAPER, "fig9", "FA ratio and dupthresh vs time, one DSACK-TA run (as Fig. 8)")
def fig9(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig9"
    duration, _ = _mode(quick)
    sc = chain_scenario(
        CHAIN,
        FIG8_P,
        "DSACK-TA",
        duration,
        _fig7_impairments(FIG8_P),
        record=RecordSpec(series=["fa_ratio", "dupthresh"], interval=1.0),
    )
    res = run(sc, seed=1, store=store)
    s = res.series(0)
    t = s.get("t", np.array([]))
    fa = s.get("fa_ratio", np.full(t.shape, np.nan))
    dt = s.get("dupthresh", np.full(t.shape, np.nan))
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
    settled = t >= 0.1 * duration
    fa_mean = float(np.nanmean(fa[settled])) if settled.any() else float("nan")
    fa_sd = float(np.nanstd(fa[settled])) if settled.any() else float("nan")
    dt_mean = float(np.nanmean(dt[settled])) if settled.any() else float("nan")
    dt_sd = float(np.nanstd(dt[settled])) if settled.any() else float("nan")
    return [
        _claim(
            fig,
            "the FA ratio oscillates around 60-70 %",
            f"time mean of the FA ratio after the first {0.1 * duration:g} s in "
            "[55 %, 75 %] (60-70 % +- 5 points)",
            f"mean {_pct(fa_mean)}, sd {_pct(fa_sd)}",
            0.55 <= fa_mean <= 0.75,
            fa_ratio_mean=fa_mean,
            fa_ratio_sd=fa_sd,
        ),
        _claim(
            fig,
            "dupthresh oscillates around 25",
            f"time mean of dupthresh after the first {0.1 * duration:g} s in [18, 32] "
            "(25 +- 7 packets, i.e. +- 30 %)",
            f"mean {dt_mean:.1f}, sd {dt_sd:.1f} packets",
            18 <= dt_mean <= 32,
            dupthresh_mean=dt_mean,
            dupthresh_sd=dt_sd,
        ),
    ]


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


@recipe(PAPER, "fig10-11", "throughput and timeouts vs mean delay kP (P = 200 ms, 4 % delayed)")
def fig10_11(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig10-11"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    return [
        _claim(
            fig,
            "DSACK-TA collapses past k = 5.5 (mean delay 1.1 s), below DSACK-FA",
            "DSACK-TA < DSACK-FA at every k > 5.5",
            "TA: "
            + series_str(thr["DSACK-TA"])
            + "; FA: "
            + series_str(thr["DSACK-FA"])
            + f"; TA mean k > 5.5 / mean k <= 5.5: {drop:.2f}",
            bool(late) and all(thr["DSACK-TA"][k] < thr["DSACK-FA"][k] for k in late),
            ta=thr["DSACK-TA"],
            fa=thr["DSACK-FA"],
            ta_late_over_early=drop,
        ),
        _claim(
            fig,
            "DSACK-TA's timeouts exceed DSACK-FA's past k = 5.5",
            "timeout fraction of TA > FA at every k > 5.5",
            "TA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-TA"].items()}, "{:.3f}")
            + "; FA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-FA"].items()}, "{:.3f}"),
            bool(late) and all(to["DSACK-TA"][k] > to["DSACK-FA"][k] for k in late),
            ta=to["DSACK-TA"],
            fa=to["DSACK-FA"],
        ),
        _claim(
            fig,
            "DSACK-TAES keeps a high throughput",
            "TAES >= max(TA, FA) - 0.02 S at every k",
            "TAES: " + series_str(thr["DSACK-TAES"]) + "; HG: " + series_str(thr["DSACK-HG"]),
            all(
                thr["DSACK-TAES"][k] >= max(thr["DSACK-TA"][k], thr["DSACK-FA"][k]) - 0.02
                for k in ks
            ),
            taes=thr["DSACK-TAES"],
            hg=thr["DSACK-HG"],
        ),
        _claim(
            fig,
            "DSACK-TAES has few timeouts",
            "timeout fraction of TAES <= TA's at every k > 5.5",
            "TAES (%): " + series_str({k: 100 * v for k, v in to["DSACK-TAES"].items()}, "{:.3f}"),
            bool(late) and all(to["DSACK-TAES"][k] <= to["DSACK-TA"][k] for k in late),
            taes=to["DSACK-TAES"],
            hg=to["DSACK-HG"],
        ),
    ]


FIG12_K = 6.0
FIG12_REFS = ("SACK", "DSACK-R", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
TABLE3_PAPER = {
    "SACK": 1.0,
    "DSACK-R": 1.0,
    "DSACK-FA": 3.1,
    "DSACK-TA": 1.6,
    "DSACK-TAES": 3.1,
    "DSACK-HG": 2.3,
}


@recipe(
    PAPER,
    "fig12-13-table3",
    "timeouts and throughput vs FA ratio at k = 6 (N(1.2 s, 0.4 s)); mean RTO (Table 3)",
)
def fig12_13_table3(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig12-13-table3"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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

    rto = {v: tab[(v, 0.0)]["rto_mean"] for v in FIG12_REFS}
    rto["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_mean"]
    rows = [
        {
            "variant": v,
            "mean_rto_s": rto[v],
            "paper_s": TABLE3_PAPER[v],
            "note": f"FA ratio {_pct(hi_r)}" if v == "DSACK-FA" else "",
        }
        for v in TABLE3_PAPER
    ]
    write_table(out, "table3_mean_rto", rows)

    to_fa = _by_x(tab, "DSACK-FA", "to_frac")
    to_faes = _by_x(tab, "DSACK-FAES", "to_frac")
    thr_faes = _by_x(tab, "DSACK-FAES")
    ta_to = tab[("DSACK-TA", 0.0)]["to_frac"]
    taes = tab[("DSACK-TAES", 0.0)]["norm"]
    hg = tab[("DSACK-HG", 0.0)]["norm"]
    best_faes = max(thr_faes.values())
    rto_str = ", ".join(f"{v} {rto[v]:.2f} (paper {TABLE3_PAPER[v]:.1f})" for v in TABLE3_PAPER)

    def pct_map(m: Mapping[float, float]) -> str:
        return ", ".join(f"{100 * r:g}: {100 * v:.3f}" for r, v in m.items())

    return [
        _claim(
            fig,
            "DSACK-FAES has few timeouts at every FA ratio",
            "FAES timeout fraction <= FA's + 0.01 points at every FA ratio, and below "
            "DSACK-TA's at every FA ratio",
            f"FAES (%): {pct_map(to_faes)}; FA (%): {pct_map(to_fa)}; TA {100 * ta_to:.3f} %",
            all(to_faes[r] <= to_fa[r] + 1e-4 for r in ratios)
            and all(v < ta_to for v in to_faes.values()),
            faes=to_faes,
            fa=to_fa,
            ta=ta_to,
        ),
        _claim(
            fig,
            "DSACK-TA meets far more timeouts than DSACK-FA at 95 %; FA's timeouts grow as "
            "its FA ratio falls",
            f"TA's timeout fraction > FA's at {_pct(hi_r)}, and FA's at {_pct(lo_r)} > at "
            f"{_pct(hi_r)}",
            f"TA {100 * ta_to:.3f} %, FA at {_pct(hi_r)} {100 * to_fa[hi_r]:.3f} %, "
            f"FA at {_pct(lo_r)} {100 * to_fa[lo_r]:.3f} %",
            ta_to > to_fa[hi_r] and to_fa[lo_r] > to_fa[hi_r],
            ta=ta_to,
            fa=to_fa,
        ),
        _claim(
            fig,
            "DSACK-TAES matches the best DSACK-FAES and DSACK-HG",
            "TAES >= 0.95 x max over FA ratios of FAES, and >= 0.95 x HG",
            f"TAES {taes:.3f} S, best FAES {best_faes:.3f} S, HG {hg:.3f} S",
            taes >= 0.95 * best_faes and taes >= 0.95 * hg,
            taes=taes,
            best_faes=best_faes,
            hg=hg,
            faes=thr_faes,
        ),
        _claim(
            fig,
            "Table 3: without enhanced sampling TA's RTO is short; FA (95 %) and TAES are "
            "more conservative",
            "mean RTO of DSACK-FA (95 %) > TA and of TAES > TA",
            rto_str,
            rto["DSACK-FA"] > rto["DSACK-TA"] and rto["DSACK-TAES"] > rto["DSACK-TA"],
            mean_rto=rto,
            paper=TABLE3_PAPER,
        ),
        _claim(
            fig,
            "Table 3: TA's mean RTO is above SACK's, and SACK / DSACK-R stay near the 1 s minimum",
            "TA > SACK; SACK and DSACK-R <= 1.1 s",
            rto_str,
            rto["DSACK-TA"] > rto["SACK"] and rto["SACK"] <= 1.1 and rto["DSACK-R"] <= 1.1,
            mean_rto=rto,
        ),
        _claim(
            fig,
            "Table 3: DSACK-FA and DSACK-TAES are more conservative than DSACK-HG",
            "mean RTO of FA (95 %) and of TAES > HG's",
            rto_str,
            rto["DSACK-FA"] > rto["DSACK-HG"] and rto["DSACK-TAES"] > rto["DSACK-HG"],
            mean_rto=rto,
        ),
    ]


# --------------------------------------------------------------------------
# Fig. 14: ACK reordering
# --------------------------------------------------------------------------

FIG14_ACK_FRACTIONS = (0.0, 0.01, 0.02, 0.05, 0.10, 0.20, 0.30)
FIG14_ACK_FRACTIONS_QUICK = (0.0, 0.10, 0.30)
FIG14_DATA_FRACTION = 0.05


@recipe(PAPER, "fig14", "throughput vs fraction of ACKs reordered (reverse path)")
def fig14(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig14"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    rel = {
        c: {f: tab[(c, f)]["norm"] / tab[(c, 0.0)]["norm"] for f in fractions}
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    worst = {c: min(v.values()) for c, v in rel.items()}
    return [
        _claim(
            fig,
            "reordered ACKs have no significant effect on the DSACK variants",
            "throughput of DSACK-R, -FA and -TA at every ACK-reordering fraction >= 0.9 x "
            "their throughput without ACK reordering",
            "; ".join(f"{c}: {series_str(v, '{:.3f}')}" for c, v in rel.items()),
            all(w >= 0.9 for w in worst.values()),
            relative=rel,
            worst=worst,
        )
    ]


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


@recipe(PAPER, "fig15", "DSACK-TA's gain over SACK under other delay distributions")
def fig15(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig15"
    duration, seeds = _mode(quick)
    fractions = FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS
    s = capacity_bps(FIG4_P)
    dists = fig15_distributions()
    points = [
        _point(
            f"{v} {name}",
            f,
            s,
            chain_scenario(CHAIN, FIG4_P, v, duration, [delayed(f, law)]),
        )
        for name, law in dists.items()
        for v in ("SACK", "DSACK-TA")
        for f in fractions
    ]
    tab = summarise(run_points(points, seeds, store))
    curves = [f"{v} {name}" for name in dists for v in ("DSACK-TA", "SACK")]
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
    x10 = min(fractions, key=lambda f: abs(f - 0.10))
    gain = {
        name: tab[(f"DSACK-TA {name}", x10)]["norm"] - tab[(f"SACK {name}", x10)]["norm"]
        for name in dists
    }
    lo, hi = min(gain.values()), max(gain.values())
    return [
        _claim(
            fig,
            "DSACK-TA gains over SACK under every delay distribution",
            f"TA - SACK > 0.1 S at {_pct(x10)} delayed for every law",
            series_str(gain, "{:+.3f}", "{}"),
            lo > 0.1,
            gain=gain,
        ),
        _claim(
            fig,
            "the gains are similar across distributions",
            f"smallest gain >= 0.5 x largest gain at {_pct(x10)} delayed",
            f"smallest {lo:+.3f} S, largest {hi:+.3f} S (ratio {lo / hi if hi else math.nan:.2f})",
            hi > 0 and lo >= 0.5 * hi,
            gain=gain,
        ),
    ]


# --------------------------------------------------------------------------
# Fig. 16: multipath-like fixed delay
# --------------------------------------------------------------------------

FIG16_D = (0.0, 0.025, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.25)
FIG16_D_QUICK = (0.0, 0.05, 0.10, 0.20, 0.25)
FIG16_FRACTION = 0.5


@recipe(PAPER, "fig16", "throughput vs fixed delay d of 50 % of packets (two-path-like)")
def fig16(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig16"
    duration, seeds = _mode(quick)
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
    tab = summarise(run_points(points, seeds, store))
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
    ta, sack = _by_x(tab, "DSACK-TA"), _by_x(tab, "SACK")
    ratio = {d: ta[d] / sack[d] if sack[d] > 0 else float("inf") for d in ds}
    pos = [d for d in ds if d > 0]
    d200 = min(ds, key=lambda d: abs(d - 0.2))
    early = [d for d in pos if d <= 0.1]
    adv = {d: ta[d] - sack[d] for d in ds}
    best_early = max(adv[d] for d in early) if early else float("nan")
    d_max = max(ds)
    return [
        _claim(
            fig,
            "DSACK-TA >> SACK under two-path-like delays",
            "TA >= 2 x SACK at every d > 0",
            "TA / SACK: " + series_str({d * 1000: r for d, r in ratio.items()}, "{:.2f}"),
            all(ratio[d] >= 2 for d in pos),
            ratio=ratio,
            ta=ta,
            sack=sack,
        ),
        _claim(
            fig,
            "about a seven-fold improvement at d = 200 ms",
            "TA / SACK at 200 ms in [3.5, 10.5] (7x +- 50 %)",
            f"{ratio[d200]:.2f} (TA {ta[d200]:.3f} S, SACK {sack[d200]:.3f} S)",
            3.5 <= ratio[d200] <= 10.5,
            ratio_200ms=ratio[d200],
        ),
        _claim(
            fig,
            "the advantage shrinks past ~100 ms (limited transmit of one window)",
            f"(TA - SACK) at d = {1000 * d_max:g} ms < its maximum over 0 < d <= 100 ms",
            "TA - SACK: " + series_str({d * 1000: a for d, a in adv.items()}, "{:+.3f}"),
            adv[d_max] < best_early,
            advantage=adv,
        ),
    ]


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


@recipe(PAPER, "fig17-18", "vs Blanton-Allman: throughput and FR fraction vs mean delay kP")
def fig17_18(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "fig17-18"
    duration, seeds = _mode(quick)
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
            ),
        )
        for v in FIG17_CURVES
        for k in ks
    ]
    tab = summarise(run_points(points, seeds, store))
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
    thr = {v: _by_x(tab, v) for v in FIG17_CURVES}
    fr = {v: _by_x(tab, v, "fr_frac") for v in FIG17_CURVES}
    lo, hi = min(ks), max(ks)
    dsack = ("DSACK-TA", *BL_VARIANTS)
    small = [thr[v][lo] for v in dsack]
    spread = max(small) - min(small)
    lead = {k: thr["DSACK-TA"][k] - max(thr[v][k] for v in BL_VARIANTS) for k in ks}
    bl_rise = {v: (fr[v][lo], fr[v][hi]) for v in BL_VARIANTS}
    return [
        _claim(
            fig,
            "all schemes perform similarly (and no worse than SACK) at small k",
            f"at k = {lo:g}: DSACK-TA and the BL schemes within 0.05 S of each other, each "
            ">= SACK - 0.01 S",
            f"spread {spread:.3f} S; " + ", ".join(f"{v} {thr[v][lo]:.3f}" for v in FIG17_CURVES),
            spread <= 0.05 and min(small) >= thr["SACK"][lo] - 0.01,
            at_small_k={v: thr[v][lo] for v in FIG17_CURVES},
            spread=spread,
        ),
        _claim(
            fig,
            "DSACK-TA pulls increasingly ahead of the Blanton-Allman schemes as k grows",
            f"TA - best BL scheme at k = {hi:g} > 0 and > at k = {lo:g}",
            "TA - best BL: " + series_str(lead, "{:+.3f}"),
            lead[hi] > 0 and lead[hi] > lead[lo],
            lead=lead,
        ),
        _claim(
            fig,
            "DSACK-TA's fast-retransmit fraction hovers around 0 %",
            "TA's fast retransmits <= 0.05 % of packets sent at every k",
            "TA (%): " + series_str({k: 100 * v for k, v in fr["DSACK-TA"].items()}, "{:.4f}"),
            all(v <= 0.0005 for v in fr["DSACK-TA"].values()),
            ta=fr["DSACK-TA"],
        ),
        _claim(
            fig,
            "the Blanton-Allman schemes suffer increasingly from fast retransmits",
            f"every BL scheme's FR fraction higher at k = {hi:g} than at k = {lo:g}, and "
            f"above TA's at k = {hi:g}",
            "; ".join(f"{v}: {100 * a:.4f} -> {100 * b:.4f} %" for v, (a, b) in bl_rise.items()),
            all(b > a and b > fr["DSACK-TA"][hi] for a, b in bl_rise.values()),
            bl=bl_rise,
        ),
    ]


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


def _t4_impairments(drops: bool) -> list[Impairment]:
    imps: list[Impairment] = [delayed(T4_FRACTION, T4_DELAY)]
    if drops:
        imps.append(
            BurstLossImpairment(link=BOTTLENECK, q=T4_Q, duration=UniformVar(low=0.3, high=0.4))
        )
    return imps


def _resets_to_three(dt: np.ndarray) -> int:
    """Times the dupthresh series falls from above 3 to 3."""
    if dt.size < 2:
        return 0
    return int(np.sum((dt[1:] <= 3) & (dt[:-1] > 3)))


@recipe(PAPER, "table4-fig19", "bursty drops: DSACK-BL-INC vs DSACK-TA; dupthresh vs time")
def table4_fig19(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    fig = "table4-fig19"
    duration, seeds = _mode(quick)
    s = capacity_bps(T4_P)
    conditions = {"no drops": False, "drops": True}
    points = [
        _point(
            f"{v} | {cond}",
            0.0,
            s,
            chain_scenario(CHAIN, T4_P, v, duration, _t4_impairments(drops)),
        )
        for v in T4_VARIANTS
        for cond, drops in conditions.items()
    ]
    tab = summarise(run_points(points, seeds, store))
    scale = 1000.0 / duration

    def get(v: str, cond: str) -> Stat:
        return tab[(f"{v} | {cond}", 0.0)]

    rows = []
    for v in T4_VARIANTS:
        for cond in conditions:
            st = get(v, cond)
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
    write_table(out, "table4", rows)

    # Fig. 19: dupthresh vs time, one run of each with the drops
    rec = RecordSpec(series=["dupthresh"], interval=0.1)
    dts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    timeouts: dict[str, int] = {}
    for v in T4_VARIANTS:
        sc = chain_scenario(CHAIN, T4_P, v, duration, _t4_impairments(True), record=rec)
        r = run(sc, seed=1, store=store)
        ser = r.series(0)
        dts[v] = (ser.get("t", np.array([])), ser.get("dupthresh", np.array([])))
        timeouts[v] = int(r.flow(0)["timeouts"])
    line_plot(
        out,
        "fig19_dupthresh",
        {v: (t.tolist(), d.tolist(), None) for v, (t, d) in dts.items()},
        xlabel="time (s)",
        ylabel="dupthresh (packets)",
        title=f"Fig. 19: bursty drops, P = {T4_P:g} s, one run ({duration:g} s)",
        styles={"DSACK-BL-INC": "-", "DSACK-TA": "-"},
    )

    thr = {(v, c): get(v, c)["norm"] for v in T4_VARIANTS for c in conditions}
    frr = {(v, c): get(v, c)["fr_frac"] for v in T4_VARIANTS for c in conditions}
    bl_nd, ta_nd = thr[("DSACK-BL-INC", "no drops")], thr[("DSACK-TA", "no drops")]
    rel_nd = bl_nd / ta_nd - 1 if ta_nd else float("nan")
    loss = {v: 1 - thr[(v, "drops")] / thr[(v, "no drops")] for v in T4_VARIANTS}
    settled = {v: d[t >= 0.1 * duration] if t.size else np.array([]) for v, (t, d) in dts.items()}
    bl_resets = _resets_to_three(dts["DSACK-BL-INC"][1])
    ta_set = settled["DSACK-TA"]
    ta_med = float(np.median(ta_set)) if ta_set.size else float("nan")
    ta_p5 = float(np.percentile(ta_set, 5)) if ta_set.size else float("nan")
    bl_set = settled["DSACK-BL-INC"]
    bl_med = float(np.median(bl_set)) if bl_set.size else float("nan")
    bl_p5 = float(np.percentile(bl_set, 5)) if bl_set.size else float("nan")

    def frs(c: str) -> str:
        return (
            f"BL-INC {100 * frr[('DSACK-BL-INC', c)]:.3f} %, TA {100 * frr[('DSACK-TA', c)]:.3f} %"
        )

    return [
        _claim(
            fig,
            "without drops DSACK-BL-INC is comparable to DSACK-TA",
            "|BL-INC / TA - 1| <= 10 % (paper: 97184 vs 103770 packets, -6.3 %)",
            f"BL-INC {bl_nd:.3f} S, TA {ta_nd:.3f} S ({100 * rel_nd:+.1f} %)",
            abs(rel_nd) <= 0.10,
            bl_inc=bl_nd,
            ta=ta_nd,
            relative=rel_nd,
        ),
        _claim(
            fig,
            "with bursty drops DSACK-BL-INC loses much more throughput than DSACK-TA",
            "BL-INC's relative loss >= 1.5 x TA's (paper: 37.5 % vs 21.1 %, 1.78 x)",
            f"BL-INC loses {_pct(loss['DSACK-BL-INC'])}, TA {_pct(loss['DSACK-TA'])} "
            f"(BL-INC {thr[('DSACK-BL-INC', 'drops')]:.3f} S, "
            f"TA {thr[('DSACK-TA', 'drops')]:.3f} S with drops)",
            loss["DSACK-TA"] >= 0
            and loss["DSACK-BL-INC"] >= 1.5 * loss["DSACK-TA"]
            and loss["DSACK-BL-INC"] > 0,
            loss=loss,
        ),
        _claim(
            fig,
            "DSACK-BL-INC has a higher fast-retransmit ratio than DSACK-TA, with and without drops",
            "BL-INC FR ratio > TA's in both conditions (paper 0.13 vs 0.03 %, 0.48 vs 0.19 %)",
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
            all(frr[("DSACK-BL-INC", c)] > frr[("DSACK-TA", c)] for c in conditions),
            fr_ratio={f"{v} | {c}": x for (v, c), x in frr.items()},
        ),
        _claim(
            fig,
            "bursty drops raise both schemes' fast-retransmit ratios",
            "FR ratio with drops > without, for BL-INC and TA",
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
            all(frr[(v, "drops")] > frr[(v, "no drops")] for v in T4_VARIANTS),
        ),
        _claim(
            fig,
            "Fig. 19: DSACK-BL-INC's dupthresh resets to 3 at timeouts",
            "BL-INC's dupthresh falls from above 3 back to 3 at least once in the run with "
            "drops (sampled every 0.1 s)",
            f"{bl_resets} resets to 3, {timeouts['DSACK-BL-INC']} timeouts; "
            f"median {bl_med:g}, 5th percentile {bl_p5:g}",
            bl_resets >= 1,
            resets=bl_resets,
            timeouts=timeouts["DSACK-BL-INC"],
            median=bl_med,
            p5=bl_p5,
        ),
        _claim(
            fig,
            "Fig. 19: DSACK-TA's dupthresh stays near its level across the drop bursts",
            f"TA's 5th percentile of dupthresh after the first {0.1 * duration:g} s >= "
            "0.5 x its median",
            f"TA median {ta_med:g}, 5th percentile {ta_p5:g} ({timeouts['DSACK-TA']} "
            f"timeouts, {_resets_to_three(dts['DSACK-TA'][1])} resets to 3)",
            ta_p5 >= 0.5 * ta_med,
            median=ta_med,
            p5=ta_p5,
            timeouts=timeouts["DSACK-TA"],
        ),
    ]


def figures() -> Iterable[str]:
    """The figure keys of this paper, in EXPERIMENTS.md order."""
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
