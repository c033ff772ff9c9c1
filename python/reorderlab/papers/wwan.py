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

Sensitivity (drawn and tabulated, not judged; issue 20)
    ``fig3_sensitivity`` (PNG + CSV of its points; per-case numbers in
    ``fig3_sensitivity_runs.csv``): TCP-NCR out-of-order at 3 % errors for
    N2 buffers of 50, 100 and 200 segments (the one setting of Fig. 3 the
    paper does not give) with the paper's link layer, and, as diagnostics
    of why NCR does not cope there, with at most one link retry and with a
    20-ms link RTT; TCP-Aix with the paper's link for reference. 3 runs per
    point (quick: 1). ``papers/deviations/wwan.toml`` cites it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    at_most,
    below,
    each_at_most,
    each_near,
    most,
)
from reorderlab.claims import Claim
from reorderlab.papers import Derived, recipe
from reorderlab.papers.common import RUNS, Plan, Point, Runs, Sweep, make_claim, series_str
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


def _label(variant: str, in_order: bool) -> str:
    return f"{variant} {'in' if in_order else 'out'}"


# --------------------------------------------------------------------------
# Fig. 2: time-sequence traces
# --------------------------------------------------------------------------

FIG2_WINDOW = (100.0, 101.0)
FIG2_CASES = {"SACK-CWV in": ("SACK-CWV", True), "TCP-Aix out": ("TCP-Aix", False)}


def _fig2_window(quick: bool) -> tuple[float, float]:
    duration = _mode(quick)
    return (duration / 2, duration / 2 + 1.0) if quick else FIG2_WINDOW


def _fig2_points(quick: bool) -> Plan:
    duration, window = _mode(quick), _fig2_window(quick)
    points: list[Point] = [
        (
            {"case": label},
            scenario(variant, in_order=io, frame_error=0.10, duration=duration, trace=window),
        )
        for label, (variant, io) in FIG2_CASES.items()
    ]
    return {RUNS: Sweep(points, 1)}


#: Per case: the traced segments sent and ACKs received.
Traces = dict[str, dict[str, pd.DataFrame]]


def _fig2_table(runs: Runs, quick: bool) -> Derived[Traces]:
    traces = {label: runs.result(RUNS, i).trace(0) for i, label in enumerate(FIG2_CASES)}
    rows = [
        {
            "case": label,
            "idle_share": idle_share(tr["sent"]["t"].to_numpy()),
            "segments": len(tr["sent"]),
        }
        for label, tr in traces.items()
    ]
    return Derived(traces, {"fig2": rows})


def _fig2_plot(traces: Traces, out: Path, quick: bool) -> None:
    for label, tr in traces.items():
        sent, acks = tr["sent"], tr["acks"]
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


def _fig2_claims(traces: Traces, quick: bool) -> list[Claim]:
    window = _fig2_window(quick)
    idle = {label: idle_share(tr["sent"]["t"].to_numpy()) for label, tr in traces.items()}
    a, b = idle["SACK-CWV in"], idle["TCP-Aix out"]
    return [
        make_claim(
            PAPER,
            "fig2",
            "in-order delivery: bursts after each link retransmission; TCP-Aix with "
            "out-of-order delivery sends evenly",
            at_least(
                a,
                Ref(b, "TCP-Aix out-of-order", times=2),
                "share of time in sending gaps >= 20 ms: SACK in-order",
            ),
            f"SACK in-order {100 * a:.1f} %, TCP-Aix out-of-order {100 * b:.1f} % "
            f"(trace {window[0]:g}-{window[1]:g} s)",
            idle=idle,
        )
    ]


recipe(
    PAPER,
    "fig2",
    "Time-sequence of segments and ACKs at 10 % frame errors",
    points=_fig2_points,
    table=_fig2_table,
    plot=_fig2_plot,
    claims=_fig2_claims,
)


# --------------------------------------------------------------------------
# Fig. 3: CoV of the sending rate vs time scale
# --------------------------------------------------------------------------


def _fig3_points(quick: bool) -> Plan:
    duration = _mode(quick)
    reps = QUICK_COV_REPS if quick else FULL_COV_REPS
    configs = [(v, io, e) for e in ERRORS for io in (True, False) for v in VARIANTS]
    points: list[Point] = [
        (
            {"variant": v, "in_order": io, "error": e},
            scenario(v, in_order=io, frame_error=e, duration=duration),
        )
        for v, io, e in configs
    ]
    return {RUNS: Sweep(points, reps), SENSITIVITY: _fig3_sensitivity_sweep(quick)}


# -- fig3_sensitivity: why NCR does not cope at 3 % (issue 20) --------------

#: The plan's sweep of ``fig3_sensitivity``.
SENSITIVITY = "sensitivity"
#: N2 buffers (segments) of ``fig3_sensitivity``: the one setting of Fig. 3
#: the paper does not give.
SENSITIVITY_BUFFERS = (50, 100, 200)
#: Link-layer cases of ``fig3_sensitivity``: (name, link RTT, attempts); the
#: last two are diagnostics (the paper gives 40 ms and unlimited retries).
LINK_CASES = (
    ("paper's link", LINK_RTT, None),
    ("at most one link retry", LINK_RTT, 2),
    ("20-ms link RTT", LINK_RTT / 2, None),
)


def _fig3_sensitivity_sweep(quick: bool) -> Sweep:
    """TCP-NCR out-of-order at 3 % errors over N2 buffers and link cases;
    TCP-Aix with the paper's link for reference."""
    cases = [("TCP-NCR-aggressive", *link) for link in LINK_CASES]
    cases.append(("TCP-Aix", *LINK_CASES[0]))
    points: list[Point] = [
        (
            {"variant": v, "link": name, "buffer": b},
            scenario(
                v,
                in_order=False,
                frame_error=0.03,
                duration=_mode(quick),
                buffer=b,
                link_rtt=rtt,
                max_attempts=attempts,
            ),
        )
        for v, name, rtt, attempts in cases
        for b in SENSITIVITY_BUFFERS
    ]
    return Sweep(points, 1 if quick else 3)


def fig3_sensitivity_table(runs: Runs, quick: bool) -> pd.DataFrame:
    """Per variant, link case and buffer: the mean 50-ms CoV over the same
    window as Fig. 3, throughput (Mb/s), fast retransmits and spurious ones."""
    duration = _mode(quick)
    start = duration - 150.0 * duration / FULL_DURATION
    rows = []
    for rec, raw in runs.results(SENSITIVITY):
        s = raw["series"]["0"]
        t, sent = np.asarray(s["t"], float), np.asarray(s["sent"], float)
        rows.append(
            {
                "variant": rec["variant"],
                "link": rec["link"],
                "buffer": int(rec["buffer"]),
                "cov_50ms": cov_by_scale(t, sent, start, (SAMPLE,))[SAMPLE],
                "mbps": float(rec["throughput_bps"]) / 1e6,
                "fast_retransmits": float(rec["fast_retransmits"]),
                "spurious": float(rec["spurious_fast_retransmits"]),
            }
        )
    by = ["variant", "link", "buffer"]
    return pd.DataFrame(rows).groupby(by, sort=False).mean().reset_index()


def _plot_fig3_sensitivity(table: pd.DataFrame, out: Path) -> None:
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for (v, link), g in table.groupby(["variant", "link"], sort=False):
        series[f"{v}, {link}"] = (list(g["buffer"]), list(g["cov_50ms"]), None)
    line_plot(
        out,
        "fig3_sensitivity",
        series,
        xlabel="N2 buffer (segments)",
        ylabel="CoV of the sending rate at 50 ms",
        title="Fig. 3, out-of-order, 3 % errors: N2 buffer and link layer",
    )


def fig3_rows(runs: Runs, quick: bool) -> pd.DataFrame:
    """Per run and time scale: the CoV of the sending rate, and throughput."""
    duration = _mode(quick)
    start = duration - 150.0 * duration / FULL_DURATION
    rows = []
    for rec, raw in runs.results():
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


@dataclass(frozen=True)
class Fig3:
    """Per run and scale (``rows``); their mean, 95 % CI and count (``table``)."""

    rows: pd.DataFrame
    table: pd.DataFrame
    #: ``fig3_sensitivity``'s table (:func:`fig3_sensitivity_table`); not judged.
    sensitivity: pd.DataFrame

    def cov(self, v: str, io: bool, e: float, scale: float = 0.05) -> float:
        t = self.table
        m = t[
            (t["variant"] == v) & (t["in_order"] == io) & (t["error"] == e) & (t["scale"] == scale)
        ]
        return float(m["mean"].iloc[0])


def _fig3_table(runs: Runs, quick: bool) -> Derived[Fig3]:
    rows = fig3_rows(runs, quick)
    table = (
        rows.groupby(["error", "in_order", "variant", "scale"], sort=False)["cov"]
        .agg(["mean", ci95, "count"])
        .reset_index()
    )
    sensitivity = fig3_sensitivity_table(runs, quick)
    return Derived(
        Fig3(rows, table, sensitivity), {"fig3": table, "fig3_sensitivity_runs": sensitivity}
    )


def _fig3_plot(data: Fig3, out: Path, quick: bool) -> None:
    _plot_fig3_sensitivity(data.sensitivity, out)
    for i, io in enumerate((True, False)):
        series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
        sub = data.table[data.table["in_order"] == io]
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


def _fig3_claims(data: Fig3, quick: bool) -> list[Claim]:
    table, rows, cov = data.table, data.rows, data.cov
    zero = table[(table["error"] == 0.0) & table["variant"].isin(PAPER_VARIANTS)]
    worst = float(zero["mean"].max())
    a, b = cov("SACK-CWV", True, 0.10), cov("TCP-Aix", False, 0.10)
    aix_out = Ref(b, "TCP-Aix out-of-order")
    thr = rows[(rows["scale"] == 0.05) & (rows["error"] == 0.10)]
    mean_thr = thr.groupby(["variant", "in_order"])["throughput_bps"].mean()
    s_out, s_in = float(mean_thr[("SACK-CWV", False)]), float(mean_thr[("SACK-CWV", True)])
    c_out = cov("SACK-CWV", False, 0.10)
    n3, n10 = cov("TCP-NCR-aggressive", False, 0.03), cov("TCP-NCR-aggressive", False, 0.10)
    x3, x10 = cov("TCP-Aix", False, 0.03), cov("TCP-Aix", False, 0.10)
    aix = {e: cov("TCP-Aix", False, e) for e in ERRORS}
    spread = max(aix.values()) - min(aix.values())
    return [
        make_claim(
            PAPER,
            "fig3",
            "without errors every TCP of the paper yields a CoV below 0.1 at all time scales",
            below(worst, 0.1, "max mean CoV over variants, delivery modes and time scales"),
            f"max {worst:.3f}",
        ),
        make_claim(
            PAPER,
            "fig3",
            "at 50 ms in-order delivery is burstier than out-of-order delivery (TCP-Aix)",
            above(a, aix_out, "CoV at 50 ms, 10 % errors: SACK in-order"),
            f"SACK in-order {a:.3f}, TCP-Aix out-of-order {b:.3f}",
        ),
        make_claim(
            PAPER,
            "fig3",
            "standard TCP does poorly with out-of-order delivery (cannot use the capacity, bursty)",
            all_of(
                below(
                    s_out,
                    Ref(s_in, "in-order", times=0.5),
                    "10 % errors: SACK out-of-order throughput",
                ),
                above(c_out, aix_out, "its 50 ms CoV"),
                sep=" and ",
            ),
            f"throughput out {s_out / 1e6:.2f} vs in {s_in / 1e6:.2f} Mb/s; CoV {c_out:.3f} "
            f"vs Aix {b:.3f}",
        ),
        make_claim(
            PAPER,
            "fig3",
            "TCP-NCR copes with out-of-order delivery at 3 % errors but not at 10 %",
            all_of(
                at_most(n3, Ref(x3, "Aix's", times=1.5), "NCR out-of-order CoV at 50 ms at 3 %"),
                above(n10, Ref(x10, "Aix's", times=1.5), "at 10 %"),
                sep=" and ",
            ),
            f"NCR {n3:.3f} / Aix {x3:.3f} at 3 %; NCR {n10:.3f} / Aix {x10:.3f} at 10 %",
        ),
        make_claim(
            PAPER,
            "fig3",
            "TCP-Aix with out-of-order delivery has about the same CoV at 0, 3 and 10 % errors",
            at_most(spread, 0.05, "TCP-Aix out-of-order CoV at 50 ms: max - min over error rates"),
            f"{series_str({100 * k: v for k, v in aix.items()}, '{:.3f}')} (by error %)",
            cov=aix,
        ),
    ]


recipe(
    PAPER,
    "fig3",
    "Coefficient of variation of the sending rate vs time scale",
    points=_fig3_points,
    table=_fig3_table,
    plot=_fig3_plot,
    claims=_fig3_claims,
)


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


def _fig4_points(quick: bool) -> Plan:
    duration = _mode(quick)
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
    return {RUNS: Sweep(points, 1 if quick else 3)}


def _fig4_table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    df = runs.table()
    df["mbps"] = df["throughput_bps"].astype(float) / 1e6
    table = (
        df.groupby(["qdisc", "error", "variant", "in_order", "buffer"], sort=False)["mbps"]
        .mean()
        .reset_index()
    )
    return Derived(table, {"fig4": table})


#: Per panel (qdisc, error rate): each curve's throughput (Mb/s) by buffer.
Curves = dict[tuple[str, float], dict[str, dict[float, float]]]


def _curves(table: pd.DataFrame) -> Curves:
    curves: Curves = {}
    for q, e in FIG4_PANELS:
        sub = table[(table["qdisc"] == q) & (table["error"] == e)]
        panel: dict[str, dict[float, float]] = {}
        for (v, io), g in sub.groupby(["variant", "in_order"], sort=False):
            panel[_label(str(v), bool(io))] = dict(
                zip(g["buffer"].astype(float), g["mbps"].astype(float), strict=True)
            )
        curves[(q, e)] = panel
    return curves


def _fig4_plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, ((q, e), panel) in enumerate(_curves(table).items()):
        line_plot(
            out,
            f"fig4-{i + 1}",
            {k: (list(c), list(c.values()), None) for k, c in panel.items()},
            xlabel="N2 buffer (segments)",
            ylabel="throughput (Mb/s)",
            title=f"Fig. 4 {q} {100 * e:g} %",
        )


def _in_order(panel: dict[str, dict[float, float]]) -> dict[str, dict[float, float]]:
    """The paper's variants' in-order curves."""
    return {
        k: c
        for k, c in panel.items()
        if k.endswith(" in") and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
    }


def _fig4_claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    curves = _curves(table)
    claims = []
    for e, need, text in ((0.03, BDP + 50, "75 + 50"), (0.10, BDP + 100, "75 + 100")):
        ins = {k: _enough(c) for k, c in _in_order(curves[("droptail", e)]).items()}
        claims.append(
            make_claim(
                PAPER,
                "fig4",
                f"DropTail {100 * e:g} %: in-order delivery needs about {text} segments of buffer",
                each_near(
                    {k: (b, need) for k, b in ins.items()},
                    50,
                    "smallest buffer reaching 95 % of each in-order curve's best",
                    f"{need} segments",
                    "",
                ),
                series_str(ins, "{:.0f}", "{}"),
                need=ins,
            )
        )
    for q, e in FIG4_PANELS[:2]:
        panel = curves[(q, e)]
        aix = panel["TCP-Aix out"]
        # "needs the least": the smallest buffer does best for Aix out-of-order
        small = min(aix)
        rel = {k: c[small] for k, c in _in_order(panel).items()}
        claims.append(
            make_claim(
                PAPER,
                "fig4",
                f"{q} {100 * e:g} %: out-of-order delivery with TCP-Aix needs the least buffer",
                each_at_most(
                    rel,
                    Ref(aix[small], "TCP-Aix out-of-order"),
                    f"at the smallest buffer ({small:g}), every in-order curve",
                    "",
                ),
                f"TCP-Aix out {aix[small]:.2f} Mb/s; in-order {series_str(rel, '{:.2f}', '{}')}",
            )
        )
    red, dt = curves[("red", 0.10)], curves[("droptail", 0.10)]
    diffs = {
        k: float(np.mean([red[k][b] - dt[k][b] for b in red[k]]))
        for k in red
        if k in dt and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
    }
    claims.append(
        make_claim(
            PAPER,
            "fig4",
            "RED performs worse than DropTail for one flow (10 % errors)",
            most(
                diffs.values(), "<", 0, "mean over buffers of RED - DropTail throughput", "curves"
            ),
            series_str(diffs, "{:+.2f}", "{}") + " Mb/s",
            diffs=diffs,
        )
    )
    return claims


recipe(
    PAPER,
    "fig4",
    "Throughput vs buffer size at N2 (DropTail 3 %, 10 %; RED 10 %)",
    points=_fig4_points,
    table=_fig4_table,
    plot=_fig4_plot,
    claims=_fig4_claims,
)


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig2", "fig3", "fig4")
