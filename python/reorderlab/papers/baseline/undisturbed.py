"""``undisturbed``: one SACK flow on the rr-tcp chain runs at S = M / R
without a retransmission (:mod:`.setting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import equals, near_rel
from reorderlab.claims import Claim
from reorderlab.papers.baseline.setting import (
    PAPER,
    UNDISTURBED,
    M,
    bottleneck_rate,
    undisturbed_scenario,
    unqueued_rtt,
)
from reorderlab.papers.kit.claims import make_claim
from reorderlab.papers.kit.figure import LineFigure
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Runs, Sweep

CWND = LineFigure(
    "undisturbed_cwnd",
    xlabel="time (s)",
    ylabel="cwnd (segments)",
    title=f"undisturbed SACK flow, M = {M}, S = {bottleneck_rate() / 1e6:.3f} Mb/s",
    styles={"cwnd": "-"},
)


def points(quick: bool) -> Plan:
    mode = UNDISTURBED(quick)
    return {RUNS: Sweep([({}, undisturbed_scenario(mode.duration, mode.warmup))], mode.seeds)}


@dataclass(frozen=True)
class Undisturbed:
    throughput_bps: float
    retransmits: int
    series: dict[str, np.ndarray]


def table(runs: Runs, quick: bool) -> Derived[Undisturbed]:
    res = runs.result()
    row = res.flow(0)
    return Derived(
        Undisturbed(float(row["throughput_bps"]), int(row["retransmits"]), res.series(0))
    )


def plot(data: Undisturbed, out: Path, quick: bool) -> None:
    series = data.series
    if "t" in series and "cwnd" in series:
        CWND.draw(out, {"cwnd": (series["t"].tolist(), series["cwnd"].tolist(), None)})


def claims(data: Undisturbed, quick: bool) -> list[Claim]:
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


FIGURES = (
    recipe(
        PAPER,
        "undisturbed",
        "undisturbed SACK flow on the rr-tcp chain runs at S = M/R",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
