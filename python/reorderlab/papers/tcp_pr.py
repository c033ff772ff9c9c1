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
give (``<figure>_sensitivity``, :mod:`reorderlab.papers.tcp_pr_sensitivity`).

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    at_least,
    at_least_n,
    at_most,
    each_above,
    each_at_least,
    each_at_most,
    each_below,
    each_within,
    pct,
    within,
)
from reorderlab.claims import Claim
from reorderlab.papers import Derived, FigureRecipe, recipe
from reorderlab.papers.common import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    frame_records,
    make_claim,
    series_str,
)
from reorderlab.papers.tcp_pr_sensitivity import Sensitivity, draw, mean_by, series_of
from reorderlab.papers.tcp_pr_sensitivity import plan as sensitivity_plan
from reorderlab.papers.tcp_pr_sensitivity import rows as sensitivity_rows
from reorderlab.plot import line_plot
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


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------


def _mode(quick: bool) -> tuple[float, int, tuple[int, ...]]:
    if quick:
        return QUICK_DURATION, QUICK_SEEDS, QUICK_FLOWS
    return FULL_DURATION, FULL_SEEDS, FULL_FLOWS


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


def _tcp(
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


def _flows(
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
            tcp=_tcp(**tcp, limited_transmit=lt.get(variants[i % 2])),
        )
        for i in range(n)
    ]


#: Web sessions of the dumbbell's HTTP background (Fig. 9), calibrated to
#: the paper's "around 10% of the total traffic" (see the module docstring).
WEB_SESSIONS = 8


def web(name: str, server: str, client: str, sessions: int) -> TrafficSpec:
    """The paper's web sessions (TrafficSpec defaults), closed loop."""
    return TrafficSpec(
        name=name, server=server, client=client, sessions=sessions, closed_loop=True, tcp=_tcp()
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
        flows=_flows(n, variants, None, None, seed, sack_lt, alpha=alpha, beta=beta),
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
        flows=_flows(n, (PR, SACK), "S", "D", seed, alpha=alpha, beta=beta),
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
        flows=[FlowSpec(name=variant, src="S", dst="D", variant=variant, tcp=_tcp())],
    )


# --------------------------------------------------------------------------
# Registration, with a sensitivity sweep
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class WithSensitivity:
    """A figure's data and its sensitivity table."""

    data: Any
    sensitivity: pd.DataFrame


def register(
    figure: str,
    title: str,
    points: Callable[[bool], Plan],
    table: Callable[[Runs, bool], Derived[Any]],
    plot: Callable[[Any, Path, bool], None],
    claims: Callable[[Any, bool], list[Claim]],
    sensitivity: Sensitivity | None = None,
) -> FigureRecipe:
    """Register a figure; with ``sensitivity``, its sweep's runs join the
    plan and its plot is drawn beside the figure's, the claims unchanged."""
    if sensitivity is None:
        return recipe(PAPER, figure, title, points=points, table=table, plot=plot, claims=claims)
    sens = sensitivity

    def points_s(quick: bool) -> Plan:
        return {**points(quick), **sensitivity_plan(sens, quick)}

    def table_s(runs: Runs, quick: bool) -> Derived[WithSensitivity]:
        main = table(runs, quick)
        return Derived(WithSensitivity(main.data, sens.table(sensitivity_rows(runs))), main.csv)

    def plot_s(data: WithSensitivity, out: Path, quick: bool) -> None:
        plot(data.data, out, quick)
        sens.plot(data.sensitivity, out, figure)

    def claims_s(data: WithSensitivity, quick: bool) -> list[Claim]:
        return claims(data.data, quick)

    return recipe(
        PAPER, figure, title, points=points_s, table=table_s, plot=plot_s, claims=claims_s
    )


# --------------------------------------------------------------------------
# Fairness tables and plots
# --------------------------------------------------------------------------


#: One run's row of a sweep's table, column by column (``frame_records``:
#: the wide per-flow tables are read row by row much faster as dicts than
#: as ``iterrows``' Series).
Row = Mapping[str, Any]


def _num(row: Row, col: str) -> float:
    v = row.get(col)
    return float(v) if v is not None and not pd.isna(v) else float("nan")


def fairness_table(df: pd.DataFrame, variants: tuple[str, str]) -> pd.DataFrame:
    """Per (panel, n): seed means of each protocol's mean normalized
    throughput and CoV, Jain's index, and the studied flows' drop rate."""
    rows = []
    for (panel, n), g in df.groupby(["panel", "n"], sort=False):
        row: dict[str, Any] = {"panel": panel, "n": int(str(n)), "seeds": len(g)}
        for v in variants:
            row[f"norm.{v}"] = float(g[f"norm.{v}"].astype(float).mean())
            row[f"cov.{v}"] = float(g[f"cov.{v}"].astype(float).mean())
        row["jain_index"] = float(g["jain_index"].astype(float).mean())
        records = frame_records(g)
        row["drop_rate"] = float(np.mean([_drop_rate(r) for r in records]))
        row["background_share"] = float(np.mean([_background_share(r) for r in records]))
        rows.append(row)
    return pd.DataFrame(rows)


def _flow_columns(row: Row, metric: str) -> list[float]:
    cols = [c for c in row if c.startswith("f") and c.endswith(f".{metric}")]
    values = [_num(row, c) for c in cols]
    return [v for v in values if not np.isnan(v)]  # runs with fewer flows: NaN columns


def _drop_rate(row: Row) -> float:
    drops = sum(_flow_columns(row, "data_drops"))
    sent = sum(_flow_columns(row, "data_packets_sent"))
    return drops / sent if sent else 0.0


def _background_share(row: Row) -> float:
    """Share of the delivered bytes (measurement window) that is HTTP."""
    bg = sum(_num(row, c) for c in row if c.endswith(".bytes_delivered_measured"))
    fg = sum(_flow_columns(row, "throughput_bps")) * MEASURE / 8
    bg = 0.0 if np.isnan(bg) else bg
    return bg / (bg + fg) if bg + fg > 0 else 0.0


def _per_flow_points(df: pd.DataFrame, panel: str, variant: str) -> tuple[list[float], list[float]]:
    """(n, T_i) of every flow of ``variant`` in every run of ``panel``."""
    xs: list[float] = []
    ys: list[float] = []
    for row in frame_records(df[df["panel"] == panel]):
        for col in row:
            if col.startswith("f") and col.endswith(".variant") and row[col] == variant:
                t = _num(row, col.replace(".variant", ".normalized_throughput"))
                xs.append(float(row["n"]))
                ys.append(t)
    return xs, ys


def _fairness_plot(
    out: Path,
    stem: str,
    df: pd.DataFrame,
    table: pd.DataFrame,
    panel: str,
    variants: tuple[str, str],
) -> list[Path]:
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    styles: dict[str, str] = {}
    sub = table[table["panel"] == panel]
    for v, (dot, line) in zip(variants, (("x", "o-"), ("+", "s--")), strict=True):
        xs, ys = _per_flow_points(df, panel, v)
        series[f"{v} flows"] = (xs, ys, None)
        styles[f"{v} flows"] = dot
        series[f"{v} mean"] = (list(sub["n"].astype(float)), list(sub[f"norm.{v}"]), None)
        styles[f"{v} mean"] = line
    return line_plot(
        out,
        stem,
        series,
        xlabel="number of flows",
        ylabel="normalized throughput (last 60 s)",
        title=panel,
        logx=True,
        styles=styles,
    )


def _fair_claims(
    figure: str, table: pd.DataFrame, variants: tuple[str, str], what: str
) -> list[Claim]:
    """For each panel: every protocol's mean normalized throughput ~1."""
    lo, hi = FAIR_BAND
    claims = []
    for panel, sub in table.groupby("panel", sort=False):
        values = {v: dict(zip(sub["n"], sub[f"norm.{v}"], strict=True)) for v in variants}
        flat = {(v, n): x for v, vals in values.items() for n, x in vals.items()}
        measured = "; ".join(f"{v}: {series_str(vals, '{:.2f}')}" for v, vals in values.items())
        claims.append(
            make_claim(
                PAPER,
                figure,
                f"{panel}: {what} get mean normalized throughput ~1 for every number of flows",
                each_within(
                    flat, lo, hi, "each protocol's mean normalized throughput", "at every n"
                ),
                f"by n: {measured}",
                panel=panel,
                values=values,
            )
        )
    return claims


#: A panel of a fairness figure: its run for n flows, a duration and a seed.
Panel = Callable[[int, float, int], Scenario]
Panels = dict[str, Panel]


def _dumbbell_panel(**settings: Any) -> Panel:
    """A dumbbell panel: n flows for a duration, with ``settings``."""
    return lambda n, d, seed: dumbbell(n, duration=d, seed=seed, **settings)


def _parking_lot_panel(qdisc: str) -> Panel:
    """A parking-lot panel: n flows for a duration through ``qdisc``."""
    return lambda n, d, seed: parking_lot(n, qdisc=qdisc, duration=d, seed=seed)


def seeded(points: Callable[[int], list[Point]], seeds: int, name: str = RUNS) -> dict[str, Sweep]:
    """One sweep per seed s of the points built for s (whose flows start as
    :func:`flow_starts` says for s): ``name`` for seed 1, ``name@s`` after."""
    return {name if s == 1 else f"{name}@{s}": Sweep(points(s), [s]) for s in range(1, seeds + 1)}


def seeded_table(runs: Runs, name: str = RUNS) -> pd.DataFrame:
    """The rows of every seed's sweep of :func:`seeded`, seed 1 first."""
    names = [k for k in runs.plan if k == name or k.startswith(f"{name}@")]
    # copy(): one block per dtype (the columns of a run's table come one by one)
    return pd.concat([runs.table(k) for k in names], ignore_index=True).copy()


def _fairness_sweep(panels: Panels, quick: bool, name: str = RUNS) -> dict[str, Sweep]:
    """Every panel at every n, for every seed."""
    duration, seeds, counts = _mode(quick)
    return seeded(
        lambda seed: [
            ({"panel": panel, "n": n}, build(n, duration, seed))
            for panel, build in panels.items()
            for n in counts
        ],
        seeds,
        name,
    )


@dataclass(frozen=True)
class Fairness:
    """A fairness figure's runs and their :func:`fairness_table`; Figs. 6-8:
    also the table of the TCP-PR vs SACK panels of the same settings."""

    runs: pd.DataFrame
    table: pd.DataFrame
    reference: pd.DataFrame | None = None


def _fairness_recipe(
    figure: str,
    title: str,
    panels: Panels,
    variants: tuple[str, str],
    what: str,
    *,
    reference: Panels | None = None,
    more_claims: Callable[[Fairness], list[Claim]] | None = None,
    sensitivity: Sensitivity | None = None,
) -> FigureRecipe:
    """Register a fairness figure: every panel at every n; its table
    (``<figure>.csv``); one plot per panel; each protocol ~1 per panel,
    and ``more_claims``. ``reference``: TCP-PR vs SACK panels run too;
    ``sensitivity``: its sweep (:func:`register`)."""

    def points(quick: bool) -> Plan:
        plan = _fairness_sweep(panels, quick)
        if reference is not None:
            plan |= _fairness_sweep(reference, quick, "reference")
        return plan

    def table(runs: Runs, quick: bool) -> Derived[Fairness]:
        df = seeded_table(runs)
        t = fairness_table(df, variants)
        ref = fairness_table(seeded_table(runs, "reference"), (PR, SACK)) if reference else None
        return Derived(Fairness(df, t, ref), {figure: t})

    def plot(data: Fairness, out: Path, quick: bool) -> None:
        for i, name in enumerate(panels):
            _fairness_plot(out, f"{figure}-{i + 1}", data.runs, data.table, name, variants)

    def claims(data: Fairness, quick: bool) -> list[Claim]:
        extra = more_claims(data) if more_claims is not None else []
        return _fair_claims(figure, data.table, variants, what) + extra

    return register(figure, title, points, table, plot, claims, sensitivity)


# --------------------------------------------------------------------------
# Figs. 4, 5, 7: TCP-PR vs SACK on the dumbbell
# --------------------------------------------------------------------------


#: The TCP-PR vs SACK dumbbell panels of Figs. 4, 5 and 7 (n, duration -> scenario).
PR_PANELS: Panels = {
    "Fig. 4 RED, 15 Mb/s, 200 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.2, limit=250, qdisc="red", duration=d, seed=seed
    ),
    "Fig. 4 RED, 15 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.02, limit=25, qdisc="red", duration=d, seed=seed
    ),
    "Fig. 5 DropTail, 15 Mb/s, 200 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.2, limit=250, duration=d, seed=seed
    ),
    "Fig. 5 DropTail, 15 Mb/s, 20 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.02, limit=250, duration=d, seed=seed
    ),
    "Fig. 7 DropTail, 1.5 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rate=1.5e6, limit=25, duration=d, seed=seed
    ),
    "Fig. 7 RED, 1.5 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rate=1.5e6, limit=25, qdisc="red", duration=d, seed=seed
    ),
}

#: The sensitivity runs' flow count (where the small-window panels fail most).
SENS_FLOWS = 16
#: RED min_th swept (max_th = 3 min_th, ns-2's ratio), packets.
SENS_RED_MIN_TH = (2.0, 5.0, 10.0)
#: The small-window settings of the RED sweep: name -> dumbbell settings.
SENS_RED_SETTINGS: dict[str, tuple[float, str]] = {
    "Fig. 4 RED 15 Mb/s 25 pkts": (15e6, "red"),
    "Fig. 7 RED 1.5 Mb/s 25 pkts": (1.5e6, "red"),
}
SENS_DROPTAIL = "Fig. 7 DropTail 1.5 Mb/s 25 pkts"


def _small_window_points(quick: bool, seed: int) -> list[Point]:
    """RED thresholds x SACK's limited transmit at 16 flows, 20 ms, 25
    packets; Fig. 7's DropTail with and without limited transmit (its
    ``min_th`` 0: no thresholds)."""
    duration = _mode(quick)[0]

    def run(rate: float, qdisc: str, red: tuple[float, float], lt: bool) -> Scenario:
        return dumbbell(
            SENS_FLOWS,
            rate=rate,
            limit=25,
            qdisc=qdisc,
            red=red,
            sack_lt=None if lt else False,  # None: as the figure's own runs
            duration=duration,
            seed=seed,
        )

    points: list[Point] = []
    for lt in (True, False):
        for name, (rate, qdisc) in SENS_RED_SETTINGS.items():
            points += [
                ({"setting": name, "min_th": m, "sack_lt": lt}, run(rate, qdisc, (m, 3 * m), lt))
                for m in SENS_RED_MIN_TH
            ]
        point = {"setting": SENS_DROPTAIL, "min_th": 0.0, "sack_lt": lt}
        points.append((point, run(1.5e6, "droptail", RED_THRESHOLDS, lt)))
    return points


def _small_window_table(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["setting", "sack_lt", "min_th"]
    return mean_by(df, keys, {"pr": f"norm.{PR}", "sack": f"norm.{SACK}"})


def _small_window_plot(table: pd.DataFrame, out: Path, figure: str) -> None:
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for (name, lt), g in table.groupby(["setting", "sack_lt"], sort=False):
        label = f"{name}, SACK limited transmit {'on' if lt else 'off'}"
        if name == SENS_DROPTAIL:  # no thresholds: a flat reference line
            series[label] = (list(SENS_RED_MIN_TH), [float(g["pr"].iloc[0])] * 3, None)
        else:
            series[label] = (list(g["min_th"].astype(float)), list(g["pr"].astype(float)), None)
    draw(
        out,
        figure,
        series,
        xlabel="RED min_th (packets; max_th = 3 min_th)",
        ylabel=f"TCP-PR mean normalized throughput ({SENS_FLOWS} flows)",
        title="Figs. 4 / 7: RED thresholds and SACK's limited transmit",
    )


fig4_5_7 = _fairness_recipe(
    "fig4-5-7",
    "TCP-PR vs SACK normalized throughput on the dumbbell",
    PR_PANELS,
    (PR, SACK),
    "TCP-PR and SACK",
    sensitivity=Sensitivity(_small_window_points, _small_window_table, _small_window_plot),
)


# --------------------------------------------------------------------------
# Figs. 6, 8: SACK vs Reno reference
# --------------------------------------------------------------------------


#: Figs. 6 / 8 panels -> the TCP-PR vs SACK panel of the same setting.
FIG6_8_MATCH = {
    "Fig. 6 DropTail, 15 Mb/s, 20 ms, 250 pkts": "Fig. 5 DropTail, 15 Mb/s, 20 ms, 250 pkts",
    "Fig. 8 DropTail, 1.5 Mb/s, 20 ms, 25 pkts": "Fig. 7 DropTail, 1.5 Mb/s, 20 ms, 25 pkts",
    "Fig. 8 RED, 1.5 Mb/s, 20 ms, 25 pkts": "Fig. 7 RED, 1.5 Mb/s, 20 ms, 25 pkts",
}

RENO_PANELS: Panels = {
    f"Fig. {fig} {q}, {rate / 1e6:g} Mb/s, 20 ms, {limit} pkts": _dumbbell_panel(
        rate=rate, limit=limit, qdisc=q.lower(), variants=(SACK, RENO)
    )
    for fig, rate, limit in ((6, 15e6, 250), (8, 1.5e6, 25))
    for q in ("DropTail", "RED")
}


def _reference_spread(data: Fairness) -> list[Claim]:
    """The reference spread: TCP-PR vs SACK (Figs. 5 right, 7) should stray
    from 1 no more than SACK vs Reno does in the same setting (Figs. 6, 8)."""
    assert data.reference is not None

    def spread(t: pd.DataFrame, panel: str, pair: tuple[str, str]) -> float:
        sub = t[t["panel"] == panel][[f"norm.{v}" for v in pair]].to_numpy(dtype=float)
        return float(np.nanmax(np.abs(sub - 1)))

    pairs = {
        reno_panel: (
            spread(data.reference, pr_panel, (PR, SACK)),
            spread(data.table, reno_panel, (SACK, RENO)),
        )
        for reno_panel, pr_panel in FIG6_8_MATCH.items()
    }
    check = each_at_most(
        {k: a for k, (a, _) in pairs.items()},
        Ref({k: b for k, (_, b) in pairs.items()}, "that of SACK/Reno", plus=0.05),
        "max |mean normalized throughput - 1| of TCP-PR/SACK",
        "in each matched setting",
    )
    return [
        make_claim(
            PAPER,
            "fig6-8",
            "TCP-PR and SACK share no less fairly than the SACK vs Reno reference "
            "(Figs. 5 right and 7 against Figs. 6 and 8)",
            check,
            "; ".join(f"{k}: PR/SACK {a:.2f} vs SACK/Reno {b:.2f}" for k, (a, b) in pairs.items()),
            spreads=pairs,
        )
    ]


fig6_8 = _fairness_recipe(
    "fig6-8",
    "SACK vs Reno normalized throughput (reference spread)",
    RENO_PANELS,
    (SACK, RENO),
    "SACK and Reno",
    reference={ref: PR_PANELS[ref] for ref in FIG6_8_MATCH.values()},
    more_claims=_reference_spread,
)


# --------------------------------------------------------------------------
# Fig. 9: with HTTP background traffic
# --------------------------------------------------------------------------


def _background_claim(data: Fairness) -> list[Claim]:
    table = data.table
    labels = table["panel"] + " n=" + table["n"].astype(str)
    share = {str(k): float(v) for k, v in zip(labels, table["background_share"], strict=True)}
    mean_share = float(np.mean(list(share.values())))
    return [
        make_claim(
            PAPER,
            "fig9",
            "HTTP background traffic is around 10 % of the total traffic",
            within(mean_share, 0.05, 0.20, "mean share of delivered bytes", "{:.2f}".format),
            f"mean {100 * mean_share:.1f} % (per panel and n: "
            f"{', '.join(f'{k}: {100 * v:.0f} %' for k, v in share.items())})",
            share=share,
        )
    ]


#: Web session counts of the Fig. 9 calibration sweep (quick: fewer).
SENS_WEB_SESSIONS = {True: (2, 8, 50), False: (2, 4, 8, 16, 32, 50)}


def _web_points(quick: bool, seed: int) -> list[Point]:
    """The HTTP background's session count, DropTail and RED, 16 flows."""
    duration = _mode(quick)[0]
    return [
        (
            {"qdisc": q, "sessions": k},
            dumbbell(SENS_FLOWS, qdisc=q, http=True, web_sessions=k, duration=duration, seed=seed),
        )
        for q in ("droptail", "red")
        for k in SENS_WEB_SESSIONS[quick]
    ]


def _web_table(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(share=[_background_share(r) for r in frame_records(df)])
    return mean_by(df, ["qdisc", "sessions"], {"share": "share", "pr": f"norm.{PR}"})


def _web_plot(table: pd.DataFrame, out: Path, figure: str) -> None:
    table = table.assign(
        share_label="HTTP share of the delivered bytes, " + table["qdisc"],
        pr_label="TCP-PR mean normalized throughput, " + table["qdisc"],
    )
    draw(
        out,
        figure,
        {
            **series_of(table, "share_label", "sessions", "share"),
            **series_of(table, "pr_label", "sessions", "pr"),
        },
        xlabel=f"web sessions (calibrated: {WEB_SESSIONS}; the paper: 50)",
        ylabel=f"share / normalized throughput ({SENS_FLOWS} flows)",
        title="Fig. 9: the HTTP background's session count",
        logx=True,
    )


fig9 = _fairness_recipe(
    "fig9",
    "TCP-PR vs SACK with HTTP background traffic (dumbbell)",
    {
        f"Fig. 9 {q}, 15 Mb/s, 20 ms, 250 pkts, HTTP": _dumbbell_panel(qdisc=q.lower(), http=True)
        for q in ("DropTail", "RED")
    },
    (PR, SACK),
    "TCP-PR and SACK with HTTP background",
    more_claims=_background_claim,
    sensitivity=Sensitivity(_web_points, _web_table, _web_plot),
)


# --------------------------------------------------------------------------
# Fig. 10: parking lot with HTTP cross traffic
# --------------------------------------------------------------------------

fig10 = _fairness_recipe(
    "fig10",
    "TCP-PR vs SACK on the parking lot with HTTP cross traffic",
    {
        f"Fig. 10 {q}, parking lot, 15 Mb/s, 20 ms, 250 pkts": _parking_lot_panel(q.lower())
        for q in ("DropTail", "RED")
    },
    (PR, SACK),
    "TCP-PR and SACK on the parking lot",
)


# --------------------------------------------------------------------------
# Fig. 11: coefficient of variation vs loss rate
# --------------------------------------------------------------------------

FIG11_RATES = (15e6, 7.5e6, 4e6, 2e6, 1e6)
FIG11_FLOWS = 32


def _fig11_points(quick: bool) -> Plan:
    duration, _, _ = _mode(quick)
    rates = FIG11_RATES[::2] if quick else FIG11_RATES

    def points(seed: int) -> list[Point]:
        return [
            point
            for rate in rates
            for point in (
                (
                    {"panel": "dumbbell", "n": rate},
                    dumbbell(FIG11_FLOWS, rate=rate, duration=duration, seed=seed),
                ),
                (
                    {"panel": "parking lot", "n": rate},
                    parking_lot(FIG11_FLOWS, rate=rate, duration=duration, seed=seed),
                ),
            )
        ]

    return seeded(points, 3 if quick else 10)


def _fig11_table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    """Per run: the studied flows' drop rate and each protocol's CoV."""
    df = seeded_table(runs)
    df["drop_rate"] = [_drop_rate(r) for r in frame_records(df)]
    rows = df[["panel", "n", "seed", "drop_rate", f"cov.{PR}", f"cov.{SACK}"]].rename(
        columns={"n": "rate_bps"}
    )
    return Derived(rows, {"fig11": rows})


def _fig11_plot(rows: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, (panel, g) in enumerate(rows.groupby("panel", sort=False)):
        series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {
            v: (list(100 * g["drop_rate"]), list(g[f"cov.{v}"].astype(float)), None)
            for v in (PR, SACK)
        }
        line_plot(
            out,
            f"fig11-{i + 1}",
            series,
            xlabel="percent of packets dropped",
            ylabel="coefficient of variation",
            title=f"Fig. 11 {panel}",
            styles={PR: "x", SACK: "o"},
        )


def _fig11_claims(rows: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for panel, g in rows.groupby("panel", sort=False):
        pr, sack = float(g[f"cov.{PR}"].mean()), float(g[f"cov.{SACK}"].mean())
        ratio = pr / sack if sack > 0 else float("inf")
        claims.append(
            make_claim(
                PAPER,
                "fig11",
                f"{panel}: TCP-PR and SACK have similar coefficients of variation "
                "across loss rates",
                within(ratio, 0.5, 2, "mean CoV of TCP-PR / mean CoV of SACK"),
                f"mean CoV TCP-PR {pr:.4f}, SACK {sack:.4f} (ratio {ratio:.2f}) over drop rates "
                f"{100 * g['drop_rate'].min():.1f}-{100 * g['drop_rate'].max():.1f} %",
                cov_pr=pr,
                cov_sack=sack,
            )
        )
    return claims


fig11 = recipe(
    PAPER,
    "fig11",
    "Coefficient of variation vs packet loss rate",
    points=_fig11_points,
    table=_fig11_table,
    plot=_fig11_plot,
    claims=_fig11_claims,
)


# --------------------------------------------------------------------------
# Fig. 12: SACK's share vs TCP-PR's (alpha, beta)
# --------------------------------------------------------------------------

FIG12_ALPHAS = (0.99, 0.995, 0.999, 0.9999)
FIG12_BETAS = (1.0, 1.5, 2.0, 3.0, 5.0, 10.0)


def _fig12_axes(quick: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The alphas and betas swept."""
    if quick:
        return (0.99, 0.999), (1.0, 3.0, 10.0)
    return FIG12_ALPHAS, FIG12_BETAS


def _fig12_points(quick: bool) -> Plan:
    duration, seeds, _ = _mode(quick)
    alphas, betas = _fig12_axes(quick)
    builders = {"dumbbell": dumbbell, "parking lot": parking_lot}
    return seeded(
        lambda seed: [
            (
                {"panel": panel, "alpha": a, "beta": b},
                build(64, duration=duration, alpha=a, beta=b, seed=seed),
            )
            for panel, build in builders.items()
            for a in alphas
            for b in betas
        ],
        seeds,
    )


def _fig12_table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    """SACK's mean normalized throughput per (panel, alpha, beta)."""
    df = seeded_table(runs)
    df["sack"] = df[f"norm.{SACK}"].astype(float)
    table = df.groupby(["panel", "alpha", "beta"], sort=False)["sack"].mean().reset_index()
    return Derived(table, {"fig12": table})


def _fig12_plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, (panel, g) in enumerate(table.groupby("panel", sort=False)):
        series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {
            f"alpha={a:g}": (list(ga["beta"]), list(ga["sack"]), None)
            for a, ga in g.groupby("alpha", sort=False)
        }
        line_plot(
            out,
            f"fig12-{i + 1}",
            series,
            xlabel="beta",
            ylabel="SACK mean normalized throughput",
            title=f"Fig. 12 {panel}",
            logx=True,
        )


def _fig12_claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    top_beta = max(_fig12_axes(quick)[1])
    lo, hi = FAIR_BAND
    what = "SACK mean normalized throughput"
    claims = []
    for panel, g in table.groupby("panel", sort=False):
        mid = g[(g["beta"] > 1.0) & (g["beta"] <= 5.0)]
        fair = {f"a={a:g},b={b:g}": s for a, b, s in mid[["alpha", "beta", "sack"]].to_numpy()}
        top = g[g["beta"] == top_beta]
        at10 = dict(zip(top["alpha"], top["sack"], strict=True))
        at1 = dict(zip(g[g["beta"] == 1.0]["alpha"], g[g["beta"] == 1.0]["sack"], strict=True))
        claims += [
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: for 1 < beta < 5 both get essentially the same throughput, "
                "over the range of alpha",
                each_within(fair, lo, hi, what, "for every 1 < beta <= 5"),
                series_str(fair, "{:.2f}", "{}"),
                values=fair,
            ),
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: at beta = {top_beta:g} TCP-SACK gets at most ~20 % more throughput",
                each_at_most(at10, hi, what, f"at beta = {top_beta:g} for every alpha"),
                f"by alpha: {series_str(at10, '{:.2f}')}",
                values=at10,
            ),
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: at beta = 1 TCP-SACK gets more than its share",
                each_above(at1, 1.1, what, "at beta = 1 for every alpha"),
                f"by alpha: {series_str(at1, '{:.2f}')}",
                values=at1,
            ),
        ]
    return claims


fig12 = recipe(
    PAPER,
    "fig12",
    "SACK normalized throughput vs TCP-PR's alpha and beta (32 + 32 flows)",
    points=_fig12_points,
    table=_fig12_table,
    plot=_fig12_plot,
    claims=_fig12_claims,
)


# --------------------------------------------------------------------------
# Fig. 13: queue swaps
# --------------------------------------------------------------------------

FIG13_SWAPS = (0, 2, 5, 10, 20, 50)
FIG13_DELAYS = (0.03, 0.18)


def _throughput_table(df: pd.DataFrame, x: str) -> pd.DataFrame:
    return df.groupby(["delay", "variant", x], sort=False)["throughput_bps"].mean().reset_index()


def _by_variant_plot(
    out: Path, stem: str, table: pd.DataFrame, x: str, xlabel: str, title: str
) -> None:
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {
        str(v): (list(g[x].astype(float)), list(g["throughput_bps"] / 1e6), None)
        for v, g in table.groupby("variant", sort=False)
    }
    line_plot(out, stem, series, xlabel=xlabel, ylabel="throughput (Mb/s)", title=title)


def _throughput_of(x: str, figure: str) -> Callable[[Runs, bool], Derived[pd.DataFrame]]:
    """The table step of Figs. 13, 15-16: mean throughput per (delay,
    variant, ``x``), written as ``<figure>.csv``."""

    def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
        df = runs.table()
        df["throughput_bps"] = df["throughput_bps"].astype(float)
        t = _throughput_table(df, x)
        return Derived(t, {figure: t})

    return table


def _fig13_points(quick: bool) -> Plan:
    duration, seeds, _ = _mode(quick)
    swaps = (0, 5, 20, 50) if quick else FIG13_SWAPS
    points: list[Point] = [
        ({"delay": d, "variant": v, "swaps": k}, swap_scenario(v, d, k, duration))
        for d in FIG13_DELAYS
        for v in REORDER_VARIANTS
        for k in swaps
    ]
    return {RUNS: Sweep(points, seeds)}


def _fig13_plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, d in enumerate(FIG13_DELAYS):
        _by_variant_plot(
            out,
            f"fig13-{i + 1}",
            table[table["delay"] == d],
            "swaps",
            "packet swaps per swap event",
            f"Fig. 13, {d * 1e3:g} ms",
        )


def _fig13_shortfall(mean: pd.Series, short_delay: bool) -> Claim:
    """30 ms: SACK close to the others; 180 ms: most dupack methods well below."""
    if short_delay:
        others = mean.drop(SACK)
        gap = 1 - mean[SACK] / float(others.mean())
        return make_claim(
            PAPER,
            "fig13",
            "30 ms: even SACK is only ~1.5 % below the other algorithms",
            at_most(gap, 0.05, "SACK's mean throughput over K > 0 below the others' mean", pct),
            f"SACK {mean[SACK] / 1e6:.2f} Mb/s vs others {others.mean() / 1e6:.2f} Mb/s "
            f"({100 * gap:.1f} % below)",
            gap=gap,
        )
    best = min(float(mean[PR]), float(mean["TD-FR"]))
    below = {v: 1 - float(mean[v]) / best for v in DUPACK_VARIANTS}
    return make_claim(
        PAPER,
        "fig13",
        "180 ms: most methods get ~25 % less throughput than TCP-PR and TD-FR",
        at_least_n(
            below.values(),
            ">=",
            0.15,
            3,
            "shortfall below min(TCP-PR, TD-FR) (mean over K > 0)",
            "dupack-based variants (SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA)",
            pct,
        ),
        f"shortfall: {series_str(below, '{:.0%}', '{}')}",
        shortfall=below,
    )


def _fig13_claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for d in FIG13_DELAYS:
        sub = table[table["delay"] == d]
        swapped = sub[sub["swaps"] > 0]
        mean = swapped.groupby("variant", sort=False)["throughput_bps"].mean()
        claims.append(_fig13_shortfall(mean, d == FIG13_DELAYS[0]))
        pr = sub[sub["variant"] == PR]
        spread = float(pr["throughput_bps"].max() / pr["throughput_bps"].min())
        by_k = dict(zip(pr["swaps"], pr["throughput_bps"] / 1e6, strict=True))
        claims.append(
            make_claim(
                PAPER,
                "fig13",
                f"{d * 1e3:g} ms: TCP-PR's throughput is nearly independent of K",
                at_most(spread, 1.05, "max / min of TCP-PR's throughput over K"),
                f"by K: {series_str(by_k, '{:.2f}')} Mb/s (max/min {spread:.3f})",
                spread=spread,
            )
        )
    return claims


#: Bottleneck rates of the Fig. 13 sensitivity sweep (the paper gives none;
#: quick: fewer).
SENS_SWAP_RATES = {True: (1.5e6, 10e6), False: (1.5e6, 5e6, 10e6)}
#: The "30 ms propagation delay" read two ways: the bottleneck link's
#: one-way delay (assumed), or the round trip.
SENS_SWAP_DELAYS = {
    "30 ms one-way (assumed)": 0.03,
    "30 ms round trip": 0.015 - 2 * ACCESS_DELAY,
}
SENS_SWAPS = 5


def _swap_points(quick: bool, seed: int) -> list[Point]:
    """Every variant at K = 5 swaps by bottleneck rate and delay reading."""
    duration = _mode(quick)[0]
    points: list[Point] = []
    for meaning, delay in SENS_SWAP_DELAYS.items():
        for rate in SENS_SWAP_RATES[quick]:
            for v in REORDER_VARIANTS:
                sc = swap_scenario(v, delay, SENS_SWAPS, duration)
                assert isinstance(sc.topology, DumbbellTopology)
                sc.topology.bottleneck_rate = rate
                points.append(({"delay": meaning, "rate": rate, "variant": v}, sc))
    return points


def _swap_table(df: pd.DataFrame) -> pd.DataFrame:
    """SACK's shortfall below the other variants' mean (the claim's measure)."""
    t = mean_by(df, ["delay", "rate", "variant"], {"tput": "throughput_bps"})
    rows = []
    for (meaning, rate), g in t.groupby(["delay", "rate"], sort=False):
        by = dict(zip(g["variant"], g["tput"], strict=True))
        others = float(np.mean([x for v, x in by.items() if v != SACK]))
        rows.append({"delay": meaning, "rate": rate, "shortfall": 1 - by[SACK] / others})
    return pd.DataFrame(rows)


def _swap_plot(table: pd.DataFrame, out: Path, figure: str) -> None:
    series = series_of(table.assign(mbps=table["rate"] / 1e6), "delay", "mbps", "shortfall", 100)
    rates = sorted(table["rate"].unique() / 1e6)
    series["the paper (1.5 %)"] = (rates, [1.5] * len(rates), None)
    draw(
        out,
        figure,
        series,
        xlabel="bottleneck rate (Mb/s)",
        ylabel=f"SACK below the others' mean (%), K = {SENS_SWAPS}",
        title="Fig. 13, 30 ms: bottleneck rate and delay reading",
    )


fig13 = register(
    "fig13",
    "Throughput vs packet swaps per swap event",
    _fig13_points,
    _throughput_of("swaps", "fig13"),
    _fig13_plot,
    _fig13_claims,
    Sensitivity(_swap_points, _swap_table, _swap_plot),
)


# --------------------------------------------------------------------------
# Figs. 15-16: multipath routing
# --------------------------------------------------------------------------

FIG15_EPSILONS = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0, 500.0)
FIG15_DELAYS = (0.01, 0.06)
FIG15_VARIANTS = (*REORDER_VARIANTS, "TCP-DCR")


def _fig15_points(quick: bool) -> Plan:
    duration, seeds, _ = _mode(quick)
    epsilons = (0.0, 1.0, 500.0) if quick else FIG15_EPSILONS
    points: list[Point] = [
        ({"delay": d, "variant": v, "epsilon": e}, mesh_scenario(v, d, e, duration))
        for d in FIG15_DELAYS
        for v in FIG15_VARIANTS
        for e in epsilons
    ]
    return {RUNS: Sweep(points, seeds)}


def _fig15_plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, d in enumerate(FIG15_DELAYS):
        _by_variant_plot(
            out,
            f"fig15-16-{i + 1}",
            table[table["delay"] == d],
            "epsilon",
            "epsilon",
            f"Figs. 15-16, {d * 1e3:g} ms per link",
        )


def _fig15_claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for d in FIG15_DELAYS:
        sub = table[table["delay"] == d]
        at: dict[float, dict[str, float]] = {
            float(str(e)): {
                str(v): float(t) for v, t in zip(g["variant"], g["throughput_bps"], strict=True)
            }
            for e, g in sub.groupby("epsilon")
        }
        claims += _multipath_claims(d, at)
    return claims


def _multipath_claims(d: float, at: dict[float, dict[str, float]]) -> list[Claim]:
    """The claims at one link delay ``d``; ``at``: throughput by epsilon and variant."""
    ms = f"{d * 1e3:g} ms"
    single = at[max(at)]
    spread = max(single.values()) / min(single.values())
    full = at[0.0]
    pr = full[PR]
    rel = {v: full[v] / pr for v in FIG15_VARIANTS if v != PR}
    timers = {v: rel[v] for v in ("TD-FR", "TCP-DCR")}
    keeps = all_of(
        at_least(
            pr, Ref(single[PR], "its epsilon-500 throughput", times=0.8), "TCP-PR at epsilon 0"
        ),
        each_at_most(
            {v: rel[v] for v in DUPACK_VARIANTS},
            0.7,
            "SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA / TCP-PR",
            "each",
        ),
        sep=", and ",
    )
    what = "TD-FR and TCP-DCR / TCP-PR at epsilon 0"
    if d == FIG15_DELAYS[0]:
        claim = "10 ms: TD-FR and TCP-DCR still achieve reasonable throughput at small epsilon"
        timer_check = each_at_least(timers, 0.7, what, "each")
    else:
        claim = "60 ms: TD-FR and TCP-DCR suffer a large decrease"
        timer_check = each_below(timers, 0.7, what, "each")
    return [
        make_claim(
            PAPER,
            "fig15-16",
            f"{ms}: with single-path routing (epsilon = 500) all methods are equal",
            at_most(spread, 1.1, "max / min throughput across variants"),
            f"{series_str({k: v / 1e6 for k, v in single.items()}, '{:.2f}', '{}')} Mb/s "
            f"(max/min {spread:.2f})",
            spread=spread,
        ),
        make_claim(
            PAPER,
            "fig15-16",
            f"{ms}: at epsilon = 0 only TCP-PR keeps its throughput; "
            "dupack-based methods drop drastically",
            keeps,
            f"TCP-PR {pr / 1e6:.2f} Mb/s ({pr / single[PR]:.2f} x single path); "
            f"others / TCP-PR: {series_str(rel, '{:.2f}', '{}')}",
            relative=rel,
        ),
        make_claim(
            PAPER,
            "fig15-16",
            claim,
            timer_check,
            f"relative to TCP-PR: {series_str(timers, '{:.2f}', '{}')}",
        ),
    ]


#: Run durations of the start-up sweep (s); the paper gives none.
SENS_DURATIONS = {True: (90.0, 200.0), False: (90.0, 200.0, 600.0, 1000.0)}
#: label -> (scenario for a duration) of the long-RTT cases.
SENS_LONG_RTT: dict[str, Callable[[float], Scenario]] = {
    "60 ms single path, TCP-PR": lambda d: mesh_scenario(PR, 0.06, 500.0, d),
    "60 ms single path, SACK": lambda d: mesh_scenario(SACK, 0.06, 500.0, d),
    "60 ms epsilon 0, TCP-PR": lambda d: mesh_scenario(PR, 0.06, 0.0, d),
    "60 ms epsilon 0, TD-FR": lambda d: mesh_scenario("TD-FR", 0.06, 0.0, d),
    "60 ms epsilon 0, TCP-DCR": lambda d: mesh_scenario("TCP-DCR", 0.06, 0.0, d),
    "Fig. 13 180 ms K=5, TCP-PR": lambda d: swap_scenario(PR, 0.18, SENS_SWAPS, d),
    "Fig. 13 180 ms K=5, SACK": lambda d: swap_scenario(SACK, 0.18, SENS_SWAPS, d),
}


def _duration_points(quick: bool, seed: int) -> list[Point]:
    """The long-RTT cases by run duration."""
    return [
        ({"case": case, "duration": d}, build(d))
        for case, build in SENS_LONG_RTT.items()
        for d in SENS_DURATIONS[quick]
    ]


def _duration_table(df: pd.DataFrame) -> pd.DataFrame:
    return mean_by(df, ["case", "duration"], {"tput": "throughput_bps"})


def _duration_plot(table: pd.DataFrame, out: Path, figure: str) -> None:
    draw(
        out,
        figure,
        series_of(table, "case", "duration", "tput", 1e-6),
        xlabel="run duration (s)",
        ylabel="throughput over the whole run (Mb/s)",
        title="Long RTTs: TCP-PR's start-up by run duration",
        logx=True,
    )


fig15_16 = register(
    "fig15-16",
    "Throughput vs multipath routing parameter epsilon",
    _fig15_points,
    _throughput_of("epsilon", "fig15-16"),
    _fig15_plot,
    _fig15_claims,
    Sensitivity(_duration_points, _duration_table, _duration_plot),
)


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig4-5-7", "fig6-8", "fig9", "fig10", "fig11", "fig12", "fig13", "fig15-16")
