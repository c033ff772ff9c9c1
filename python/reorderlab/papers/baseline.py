"""Baseline checks of the engine: an undisturbed chain and random loss vs PFTK.

Paper key ``baseline``. Two figures:

``undisturbed``
    The rr-tcp chain (RR-TCP Fig. 3): ``S1 -(10 Mb/s, 1 ms)- R1
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

    Claim: throughput (measured after a warm-up that excludes slow start)
    within 1 % of S; zero retransmissions.

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

    Claims, per p: Reno / PFTK full model in [0.7, 1.3]; SACK / square-root
    law in [0.7, 1.3]; SACK at least as fast as Reno. At p = 0.1 %, where
    timeouts are rare, SACK / PFTK full model in [0.7, 1.3].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import Ref, each_at_least, equals, near_rel, within
from reorderlab.claims import Claim
from reorderlab.papers import Derived, recipe
from reorderlab.papers.common import RUNS, Plan, Runs, Sweep, make_claim
from reorderlab.plot import line_plot
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


# --------------------------------------------------------------------------
# undisturbed
# --------------------------------------------------------------------------


def _undisturbed_points(quick: bool) -> Plan:
    duration, warmup = (30.0, 5.0) if quick else (300.0, 10.0)
    # deterministic, no randomness: one seed
    return {RUNS: Sweep([({}, undisturbed_scenario(duration, warmup))], seeds=1)}


@dataclass(frozen=True)
class Undisturbed:
    throughput_bps: float
    retransmits: int
    series: dict[str, np.ndarray]


def _undisturbed_table(runs: Runs, quick: bool) -> Derived[Undisturbed]:
    res = runs.result()
    row = res.flow(0)
    return Derived(
        Undisturbed(float(row["throughput_bps"]), int(row["retransmits"]), res.series(0))
    )


def _undisturbed_plot(data: Undisturbed, out: Path, quick: bool) -> None:
    series = data.series
    if "t" in series and "cwnd" in series:
        line_plot(
            out,
            "undisturbed_cwnd",
            {"cwnd": (series["t"].tolist(), series["cwnd"].tolist(), None)},
            xlabel="time (s)",
            ylabel="cwnd (segments)",
            title=f"undisturbed SACK flow, M = {M}, S = {bottleneck_rate() / 1e6:.3f} Mb/s",
            styles={"cwnd": "-"},
        )


def _undisturbed_claims(data: Undisturbed, quick: bool) -> list[Claim]:
    s_bps = bottleneck_rate()
    thr, rtx = data.throughput_bps, data.retransmits
    err = abs(thr - s_bps) / s_bps
    return [
        make_claim(
            PAPER,
            "undisturbed",
            "an undisturbed flow with window M = 50 runs at S = M/R",
            near_rel(thr, s_bps, 0.01, "throughput", f"S = {s_bps / 1e6:.4f} Mb/s"),
            f"{thr / 1e6:.4f} Mb/s ({100 * err:.3f} % off)",
            throughput_bps=thr,
            S_bps=s_bps,
            R_s=unqueued_rtt(),
            error=err,
        ),
        make_claim(
            PAPER,
            "undisturbed",
            "no retransmissions without loss or reordering",
            equals(rtx, 0, "retransmissions"),
            f"{rtx} retransmissions",
            retransmits=rtx,
        ),
    ]


recipe(
    PAPER,
    "undisturbed",
    "undisturbed SACK flow on the rr-tcp chain runs at S = M/R",
    points=_undisturbed_points,
    table=_undisturbed_table,
    plot=_undisturbed_plot,
    claims=_undisturbed_claims,
)


# --------------------------------------------------------------------------
# random-loss
# --------------------------------------------------------------------------


def sqrt_law(p: float, rtt: float) -> float:
    """Square-root law (Mathis et al. 1997), C = sqrt(3/2): packets/s."""
    return math.sqrt(1.5) / (rtt * math.sqrt(p))


def _random_loss_mode(quick: bool) -> tuple[float, float, int]:
    return (100.0, 10.0, 3) if quick else (1000.0, 20.0, 5)


def _random_loss_points(quick: bool) -> Plan:
    duration, warmup, seeds = _random_loss_mode(quick)
    points = [
        ({"variant": v, "p": p}, random_loss_scenario(p, duration, warmup, variant=v))
        for v in VARIANTS
        for p in LOSS_RATES
    ]
    return {RUNS: Sweep(points, seeds)}


#: Per (variant, p): goodput and the models' rates (packets/s), their
#: ratios, the mean srtt and T0, and the share of loss indications that
#: were timeouts.
RandomLoss = dict[tuple[str, float], dict[str, float]]


def _random_loss_table(runs: Runs, quick: bool) -> Derived[RandomLoss]:
    df = runs.table()
    rows: RandomLoss = {}
    for v in VARIANTS:
        for p in LOSS_RATES:
            g = df[(df["variant"] == v) & (df["p"] == p)]
            goodput = g["throughput_bps"].to_numpy(dtype=float) / (8 * MSS)  # packets/s
            rtt = g["srtt"].to_numpy(dtype=float)
            t0 = g["rto_mean"].to_numpy(dtype=float)
            pftk = np.array(
                [pftk_full(p, r, t, w_max=10_000) * (1 - p) for r, t in zip(rtt, t0, strict=True)]
            )
            sqrt = np.array([sqrt_law(p, r) * (1 - p) for r in rtt])
            indications = float((g["fast_recoveries"] + g["timeouts"]).sum())
            rows[(v, p)] = {
                "sim_pps": float(goodput.mean()),
                "sim_std": float(goodput.std(ddof=1)) if len(goodput) > 1 else 0.0,
                "pftk_pps": float(pftk.mean()),
                "sqrt_pps": float(sqrt.mean()),
                "ratio_pftk": float(goodput.mean() / pftk.mean()),
                "ratio_sqrt": float(goodput.mean() / sqrt.mean()),
                "srtt": float(rtt.mean()),
                "rto_mean": float(t0.mean()),
                "timeouts_per_loss_indication": float(g["timeouts"].sum()) / max(1.0, indications),
            }
    return Derived(rows)


TO_MBPS = 8 * MSS / 1e6


def _random_loss_plot(rows: RandomLoss, out: Path, quick: bool) -> None:
    duration, _, seeds = _random_loss_mode(quick)
    xs = [100 * p for p in LOSS_RATES]
    series: dict[str, tuple[list[float], list[float], list[float] | None]] = {}
    for v in VARIANTS:
        series[f"simulated {v}"] = (
            xs,
            [rows[(v, p)]["sim_pps"] * TO_MBPS for p in LOSS_RATES],
            [rows[(v, p)]["sim_std"] * TO_MBPS for p in LOSS_RATES],
        )
    series["PFTK full model (Reno's RTT, T0)"] = (
        xs,
        [rows[("Reno", p)]["pftk_pps"] * TO_MBPS for p in LOSS_RATES],
        None,
    )
    series["square-root law"] = (
        xs,
        [rows[("SACK", p)]["sqrt_pps"] * TO_MBPS for p in LOSS_RATES],
        None,
    )
    line_plot(
        out,
        "random_loss_throughput",
        series,
        xlabel="loss probability p (%)",
        ylabel="goodput (Mb/s)",
        title=f"i.i.d. loss, not window-limited ({seeds} seeds x {duration:g} s)",
        logx=True,
        logy=True,
        styles={
            "simulated Reno": "o-",
            "simulated SACK": "D-",
            "PFTK full model (Reno's RTT, T0)": "s--",
            "square-root law": "^:",
        },
    )


def _measured(r: dict[str, float], ratio: str) -> str:
    return (
        f"ratio {r[ratio]:.3f} (sim {r['sim_pps'] * TO_MBPS:.3f} Mb/s; "
        f"srtt {1000 * r['srtt']:.1f} ms, T0 {r['rto_mean']:.2f} s; "
        f"{100 * r['timeouts_per_loss_indication']:.1f} % of loss indications "
        "were timeouts)"
    )


def _model_claim(variant: str, p: float, r: dict[str, float], model: str, ratio: str) -> Claim:
    return make_claim(
        PAPER,
        "random-loss",
        f"{variant} goodput matches the {model} at p = {100 * p:g} %"
        + (" (timeouts rare)" if variant == "SACK" and ratio == "ratio_pftk" else ""),
        within(r[ratio], 0.7, 1.3, "simulated / model"),
        _measured(r, ratio),
        variant=variant,
        p=p,
        **r,
    )


def _random_loss_claims(rows: RandomLoss, quick: bool) -> list[Claim]:
    claims: list[Claim] = []
    for p in LOSS_RATES:
        reno, sack = rows[("Reno", p)], rows[("SACK", p)]
        claims.append(_model_claim("Reno", p, reno, "PFTK full model", "ratio_pftk"))
        claims.append(_model_claim("SACK", p, sack, "square-root law", "ratio_sqrt"))
        if p <= 0.001:
            claims.append(_model_claim("SACK", p, sack, "PFTK full model", "ratio_pftk"))
    sack_pps = {p: rows[("SACK", p)]["sim_pps"] for p in LOSS_RATES}
    reno_pps = {p: rows[("Reno", p)]["sim_pps"] for p in LOSS_RATES}
    check = each_at_least(sack_pps, Ref(reno_pps, "Reno goodput"), "SACK goodput", "for each p")
    claims.append(
        make_claim(
            PAPER,
            "random-loss",
            "SACK is at least as fast as Reno at every loss rate",
            check,
            ", ".join(
                f"p = {100 * p:g} %: SACK/Reno {sack_pps[p] / reno_pps[p]:.3f}" for p in LOSS_RATES
            ),
            **{str(p): p not in check.failed for p in LOSS_RATES},
        )
    )
    return claims


recipe(
    PAPER,
    "random-loss",
    "Reno and SACK under i.i.d. loss vs PFTK and the square-root law",
    points=_random_loss_points,
    table=_random_loss_table,
    plot=_random_loss_plot,
    claims=_random_loss_claims,
)
