"""Seed 004: link-layer in-order vs out-of-order delivery, TCP-Aix (Figs. 2-4).

Paper key ``wwan``; one recipe per row of ``EXPERIMENTS.md`` (Seed 004).

Setting (Sec. III, Fig. 1), one user
    ``S -(100 Mb/s, 2 ms)- N1 -(100 Mb/s, 8 ms)- N2 -(10 Mb/s, 20 ms)- R``:
    N1 holds the shared buffer, N2 the user's own buffer (the queue of the
    last hop, 10 Mb/s, the bottleneck), and the last hop runs link-layer
    ARQ (``arq`` element at its egress): every attempt fails with the frame
    error rate (0, 3 or 10 %), a failed frame is retried one link RTT
    (40 ms) later until it gets through; the link layer delivers in order
    (holds frames behind a gap) or out of order. End-to-end propagation RTT
    60 ms, bdp = 75 segments of 1000 bytes. Senders: no delayed ACK,
    timestamps (an RTT sample from every ACK), min RTO 200 ms, limited
    transmit, unlimited advertised window. RED: thresholds at 1/10 and 1/2
    of the buffer, on the instantaneous queue.

Variants
    ``SACK-CWV`` (standards compliant: SACK, limited transmit, RFC 2861
    congestion window validation), ``TCP-NCR`` (RFC 4653, careful),
    ``TCP-Aix``; and ``RACK-TLP`` (RFC 8985) as an extra curve.

Full fidelity: 200 s runs; Fig. 3 CoV over the last 150 s with 10
repetitions and 95 % confidence intervals (Student t); Fig. 4 throughput
over the 200 s, 3 repetitions. Quick (``--quick``): 60 s runs (CoV over
the last 45 s), 3 repetitions (Fig. 4: 1), fewer buffer sizes.

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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import reorderlab
from reorderlab.claims import Claim
from reorderlab.papers import recipe
from reorderlab.papers.common import (
    Point,
    full_results,
    make_claim,
    run_points,
    series_str,
    write_table,
)
from reorderlab.plot import line_plot
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
from reorderlab.store import Store

PAPER = "wwan"

MSS = 1000
RATE = 10e6
LINK_RTT = 0.04
BDP = 75
SAMPLE = 0.05  # the finest CoV time scale
TIME_SCALES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
PAPER_VARIANTS = ("SACK-CWV", "TCP-NCR", "TCP-Aix")
#: Plus RACK-TLP (RFC 8985), which the paper predates.
VARIANTS = (*PAPER_VARIANTS, "RACK-TLP")
ERRORS = (0.0, 0.03, 0.10)

FULL_DURATION, QUICK_DURATION = 200.0, 60.0
FULL_COV_REPS, QUICK_COV_REPS = 10, 3


def _mode(quick: bool) -> float:
    return QUICK_DURATION if quick else FULL_DURATION


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
) -> Scenario:
    """One user over Fig. 1's path."""

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
                link="N2->R", frame_error=frame_error, link_rtt=LINK_RTT, in_order=in_order
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


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


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


def _claim(
    figure: str, claim: str, expected: str, measured: str, holds: bool, /, **v: Any
) -> Claim:
    return make_claim(PAPER, figure, claim, expected, measured, holds, **v)


def _label(variant: str, in_order: bool) -> str:
    return f"{variant} {'in' if in_order else 'out'}"


# --------------------------------------------------------------------------
# Fig. 2: time-sequence traces
# --------------------------------------------------------------------------

FIG2_WINDOW = (100.0, 101.0)


@recipe(PAPER, "fig2", "Time-sequence of segments and ACKs at 10 % frame errors")
def fig2(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    duration = _mode(quick)
    window = (duration / 2, duration / 2 + 1.0) if quick else FIG2_WINDOW
    cases = {"SACK-CWV in": ("SACK-CWV", True), "TCP-Aix out": ("TCP-Aix", False)}
    idle: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    for label, (variant, in_order) in cases.items():
        sc = scenario(variant, in_order=in_order, frame_error=0.10, duration=duration, trace=window)
        tr = reorderlab.run(sc, seed=1).trace(0)
        sent, acks = tr["sent"], tr["acks"]
        idle[label] = idle_share(sent["t"].to_numpy())
        series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {
            "segments": (list(sent["t"]), list(sent["seq"]), None),
            "ACKs": (list(acks["t"]), list(acks["ack"]), None),
        }
        stem = "fig2-" + label.replace(" ", "-").lower()
        line_plot(
            out,
            stem,
            series,
            xlabel="time (s)",
            ylabel="segment number",
            title=f"Fig. 2 {label}, 10 % errors",
            styles={"segments": "s", "ACKs": "."},
        )
        rows.append({"case": label, "idle_share": idle[label], "segments": len(sent)})
    write_table(out, "fig2", rows)
    a, b = idle["SACK-CWV in"], idle["TCP-Aix out"]
    return [
        _claim(
            "fig2",
            "in-order delivery: bursts after each link retransmission; TCP-Aix with "
            "out-of-order delivery sends evenly",
            "share of time in sending gaps >= 20 ms: SACK in-order >= 2 x TCP-Aix out-of-order",
            f"SACK in-order {100 * a:.1f} %, TCP-Aix out-of-order {100 * b:.1f} % "
            f"(trace {window[0]:g}-{window[1]:g} s)",
            a >= 2 * b,
            idle=idle,
        )
    ]


# --------------------------------------------------------------------------
# Fig. 3: CoV of the sending rate vs time scale
# --------------------------------------------------------------------------


def fig3_table(quick: bool, store: Store | None) -> pd.DataFrame:
    """Per run and time scale: the CoV of the sending rate, and throughput."""
    duration = _mode(quick)
    reps = QUICK_COV_REPS if quick else FULL_COV_REPS
    start = duration - 150.0 * duration / FULL_DURATION
    configs = [(v, io, e) for e in ERRORS for io in (True, False) for v in VARIANTS]
    points: list[Point] = [
        (
            {"variant": v, "in_order": io, "error": e},
            scenario(v, in_order=io, frame_error=e, duration=duration),
        )
        for v, io, e in configs
    ]
    df = run_points(points, reps, store)
    rows = []

    def rebuild(rec: dict[str, Any]) -> Scenario:
        return scenario(
            str(rec["variant"]),
            in_order=bool(rec["in_order"]),
            frame_error=float(rec["error"]),
            duration=duration,
        )

    for rec, raw in full_results(df, store, rebuild):
        s = raw["series"]["0"]
        covs = cov_by_scale(np.asarray(s["t"], float), np.asarray(s["sent"], float), start)
        for scale, c in covs.items():
            rows.append(
                {
                    "variant": rec["variant"],
                    "in_order": bool(rec["in_order"]),
                    "error": float(rec["error"]),
                    "seed": int(rec["seed"]),
                    "scale": scale,
                    "cov": c,
                    "throughput_bps": float(rec["throughput_bps"]),
                }
            )
    return pd.DataFrame(rows)


@recipe(PAPER, "fig3", "Coefficient of variation of the sending rate vs time scale")
def fig3(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    rows = fig3_table(quick, store)
    table = (
        rows.groupby(["error", "in_order", "variant", "scale"], sort=False)["cov"]
        .agg(["mean", ci95, "count"])
        .reset_index()
    )
    write_table(out, "fig3", table)
    for i, io in enumerate((True, False)):
        series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
        sub = table[table["in_order"] == io]
        for (v, e), g in sub.groupby(["variant", "error"], sort=False):
            label = f"{v} {100 * float(str(e)):g} %"
            series[label] = (list(g["scale"]), list(g["mean"]), list(g["ci95"]))
        line_plot(
            out,
            f"fig3-{i + 1}",
            series,
            xlabel="time scale (s)",
            ylabel="CoV of the sending rate",
            title=f"Fig. 3 ({'in-order' if io else 'out-of-order'} delivery)",
            logx=True,
        )

    def cov(v: str, io: bool, e: float, scale: float = 0.05) -> float:
        m = table[
            (table["variant"] == v)
            & (table["in_order"] == io)
            & (table["error"] == e)
            & (table["scale"] == scale)
        ]
        return float(m["mean"].iloc[0])

    claims = []
    zero = table[(table["error"] == 0.0) & table["variant"].isin(PAPER_VARIANTS)]
    worst = float(zero["mean"].max())
    claims.append(
        _claim(
            "fig3",
            "without errors every TCP of the paper yields a CoV below 0.1 at all time scales",
            "max mean CoV over variants, delivery modes and time scales < 0.1",
            f"max {worst:.3f}",
            worst < 0.1,
        )
    )
    a, b = cov("SACK-CWV", True, 0.10), cov("TCP-Aix", False, 0.10)
    claims.append(
        _claim(
            "fig3",
            "at 50 ms in-order delivery is burstier than out-of-order delivery (TCP-Aix)",
            "CoV at 50 ms, 10 % errors: SACK in-order > TCP-Aix out-of-order",
            f"SACK in-order {a:.3f}, TCP-Aix out-of-order {b:.3f}",
            a > b,
        )
    )
    thr = rows[(rows["scale"] == 0.05) & (rows["error"] == 0.10)]
    mean_thr = thr.groupby(["variant", "in_order"])["throughput_bps"].mean()
    s_out, s_in = float(mean_thr[("SACK-CWV", False)]), float(mean_thr[("SACK-CWV", True)])
    c_out = cov("SACK-CWV", False, 0.10)
    claims.append(
        _claim(
            "fig3",
            "standard TCP does poorly with out-of-order delivery (cannot use the capacity, bursty)",
            "10 % errors: SACK out-of-order throughput < 0.5 x in-order and its 50 ms CoV "
            "> TCP-Aix out-of-order",
            f"throughput out {s_out / 1e6:.2f} vs in {s_in / 1e6:.2f} Mb/s; CoV {c_out:.3f} "
            f"vs Aix {b:.3f}",
            s_out < 0.5 * s_in and c_out > b,
        )
    )
    n3, n10 = cov("TCP-NCR", False, 0.03), cov("TCP-NCR", False, 0.10)
    x3, x10 = cov("TCP-Aix", False, 0.03), cov("TCP-Aix", False, 0.10)
    claims.append(
        _claim(
            "fig3",
            "TCP-NCR copes with out-of-order delivery at 3 % errors but not at 10 %",
            "NCR out-of-order CoV at 50 ms <= 1.5 x Aix's at 3 % and > 1.5 x Aix's at 10 %",
            f"NCR {n3:.3f} / Aix {x3:.3f} at 3 %; NCR {n10:.3f} / Aix {x10:.3f} at 10 %",
            n3 <= 1.5 * x3 and n10 > 1.5 * x10,
        )
    )
    aix = {e: cov("TCP-Aix", False, e) for e in ERRORS}
    spread = max(aix.values()) - min(aix.values())
    claims.append(
        _claim(
            "fig3",
            "TCP-Aix with out-of-order delivery has about the same CoV at 0, 3 and 10 % errors",
            "TCP-Aix out-of-order CoV at 50 ms: max - min over error rates <= 0.05",
            f"{series_str({100 * k: v for k, v in aix.items()}, '{:.3f}')} (by error %)",
            spread <= 0.05,
            cov=aix,
        )
    )
    return claims


# --------------------------------------------------------------------------
# Fig. 4: throughput vs N2 buffer size
# --------------------------------------------------------------------------

FIG4_BUFFERS = (25, 50, 75, 100, 125, 150, 175, 200, 250)
QUICK_BUFFERS = (50, 100, 150, 200)
FIG4_PANELS = (("droptail", 0.03), ("droptail", 0.10), ("red", 0.10))


def _enough(by_buffer: dict[float, float], share: float = 0.95) -> float:
    """The smallest buffer reaching ``share`` of the curve's best throughput."""
    best = max(by_buffer.values())
    return min(b for b, t in by_buffer.items() if t >= share * best)


@recipe(PAPER, "fig4", "Throughput vs buffer size at N2 (DropTail 3 %, 10 %; RED 10 %)")
def fig4(quick: bool, out: Path, store: Store | None) -> list[Claim]:
    duration = _mode(quick)
    reps = 1 if quick else 3
    buffers = QUICK_BUFFERS if quick else FIG4_BUFFERS
    points: list[Point] = [
        (
            {"qdisc": q, "error": e, "variant": v, "in_order": io, "buffer": b},
            scenario(v, in_order=io, frame_error=e, duration=duration, buffer=b, qdisc=q),
        )
        for q, e in FIG4_PANELS
        for v in VARIANTS
        for io in (True, False)
        for b in buffers
    ]
    df = run_points(points, reps, store)
    df["mbps"] = df["throughput_bps"].astype(float) / 1e6
    table = (
        df.groupby(["qdisc", "error", "variant", "in_order", "buffer"], sort=False)["mbps"]
        .mean()
        .reset_index()
    )
    write_table(out, "fig4", table)
    curves: dict[tuple[str, float], dict[str, dict[float, float]]] = {}
    for i, (q, e) in enumerate(FIG4_PANELS):
        sub = table[(table["qdisc"] == q) & (table["error"] == e)]
        panel: dict[str, dict[float, float]] = {}
        for (v, io), g in sub.groupby(["variant", "in_order"], sort=False):
            panel[_label(str(v), bool(io))] = dict(
                zip(g["buffer"].astype(float), g["mbps"].astype(float), strict=True)
            )
        curves[(q, e)] = panel
        line_plot(
            out,
            f"fig4-{i + 1}",
            {k: (list(c), list(c.values()), None) for k, c in panel.items()},
            xlabel="N2 buffer (segments)",
            ylabel="throughput (Mb/s)",
            title=f"Fig. 4 {q} {100 * e:g} %",
        )
    claims = []
    for e, need, text in ((0.03, BDP + 50, "75 + 50"), (0.10, BDP + 100, "75 + 100")):
        panel = curves[("droptail", e)]
        ins = {
            k: _enough(c)
            for k, c in panel.items()
            if k.endswith(" in") and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
        }
        near = all(abs(b - need) <= 50 for b in ins.values())
        claims.append(
            _claim(
                "fig4",
                f"DropTail {100 * e:g} %: in-order delivery needs about {text} segments of buffer",
                f"smallest buffer reaching 95 % of each in-order curve's best within "
                f"{need} +- 50 segments",
                series_str(ins, "{:.0f}", "{}"),
                near,
                need=ins,
            )
        )
    for q, e in FIG4_PANELS[:2]:
        panel = curves[(q, e)]
        aix = panel["TCP-Aix out"]
        in_curves = {
            k: c
            for k, c in panel.items()
            if k.endswith(" in") and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
        }
        # "needs the least": the smallest buffer does best for Aix out-of-order
        small = min(aix)
        rel = {k: c[small] for k, c in in_curves.items()}
        claims.append(
            _claim(
                "fig4",
                f"{q} {100 * e:g} %: out-of-order delivery with TCP-Aix needs the least buffer",
                f"at the smallest buffer ({small:g}), TCP-Aix out-of-order >= every in-order curve",
                f"TCP-Aix out {aix[small]:.2f} Mb/s; in-order {series_str(rel, '{:.2f}', '{}')}",
                all(aix[small] >= t for t in rel.values()),
            )
        )
    red, dt = curves[("red", 0.10)], curves[("droptail", 0.10)]
    diffs = {
        k: float(np.mean([red[k][b] - dt[k][b] for b in red[k]]))
        for k in red
        if k in dt and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
    }
    claims.append(
        _claim(
            "fig4",
            "RED performs worse than DropTail for one flow (10 % errors)",
            "mean over buffers of RED - DropTail throughput < 0 for most curves",
            series_str(diffs, "{:+.2f}", "{}") + " Mb/s",
            sum(d < 0 for d in diffs.values()) > len(diffs) / 2,
            diffs=diffs,
        )
    )
    return claims


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig2", "fig3", "fig4")
