"""``fig2``: time-sequence traces of segments and ACKs (:mod:`.setting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reorderlab.checks import difference
from reorderlab.claims import Claim
from reorderlab.papers.kit.claims import paper_claim
from reorderlab.papers.kit.figure import LineFigure, Lines
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Point, Runs, Sweep
from reorderlab.papers.wwan.setting import DURATION, PAPER, SEEDS, idle_share, scenario

FIG2_WINDOW = (100.0, 101.0)
FIG2_CASES = {"SACK-CWV in": ("SACK-CWV", True), "TCP-Aix out": ("TCP-Aix", False)}


def _fig2_window(quick: bool) -> tuple[float, float]:
    duration = DURATION(quick)
    return (duration / 2, duration / 2 + 1.0) if quick else FIG2_WINDOW


def plan(quick: bool) -> Plan:
    duration, window = DURATION(quick), _fig2_window(quick)
    points: list[Point] = [
        (
            {"case": label},
            scenario(variant, in_order=io, frame_error=0.10, duration=duration, trace=window),
        )
        for label, (variant, io) in FIG2_CASES.items()
    ]
    return {RUNS: Sweep(points, SEEDS(quick))}


@dataclass(frozen=True)
class Fig2:
    """The first seed's traced segments sent and ACKs received per case
    (drawn), and the idle share of every seed's trace per case."""

    traces: dict[str, dict[str, pd.DataFrame]]
    idle: dict[str, dict[int, float]]


def table(runs: Runs, quick: bool) -> Derived[Fig2]:
    seeds = runs.plan[RUNS].seed_list()
    traces: dict[str, dict[str, pd.DataFrame]] = {}
    idle: dict[str, dict[int, float]] = {}
    rows: list[dict[str, object]] = []
    for i, label in enumerate(FIG2_CASES):
        idle[label] = {}
        for seed in seeds:
            tr = runs.result(RUNS, i, seed).trace(0)
            if seed == seeds[0]:
                traces[label] = tr
            idle[label][seed] = idle_share(tr["sent"]["t"].to_numpy())
            rows.append(
                {"case": label, "seed": seed, "idle_share": idle[label][seed],
                 "segments": len(tr["sent"])}
            )  # fmt: skip
    return Derived(Fig2(traces, idle), {"fig2": rows})


#: One plot per case (``{case}``: its label, ``{name}``: as a file name).
TRACE = LineFigure(
    "fig2-{name}",
    xlabel="time (s)",
    ylabel="segment number",
    title="Fig. 2 {case}, 10 % errors",
    styles={"segments": "s", "ACKs": "."},
)


def plot(data: Fig2, out: Path, quick: bool) -> None:
    for label, tr in data.traces.items():
        sent, acks = tr["sent"], tr["acks"]
        series: Lines = {
            "segments": (list(sent["t"]), list(sent["seq"]), None),
            "ACKs": (list(acks["t"]), list(acks["ack"]), None),
        }
        TRACE.draw(out, series, case=label, name=label.replace(" ", "-").lower())


def claims(data: Fig2, quick: bool) -> list[Claim]:
    window = _fig2_window(quick)
    sack, aix = data.idle["SACK-CWV in"], data.idle["TCP-Aix out"]
    return [
        paper_claim(
            PAPER,
            "fig2",
            "in-order delivery: bursts after each link retransmission; TCP-Aix with "
            "out-of-order delivery sends evenly",
            difference(
                sack,
                aix,
                f"share of the trace ({window[0]:g}-{window[1]:g} s) in sending gaps >= 20 ms: "
                "SACK in-order - TCP-Aix out-of-order",
                op=">",
            ),
            quote="For TCP-Aix with out-of-order delivery the graphs are clearer because "
            "segments are sent more evenly. As segments and acknowledgments arrive close "
            "together periods of inactivity separate groups of arriving packets as in the "
            "figure for standard TCP.",
            where="Sec. IV-A, Fig. 2",
        )
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig2",
        "Time-sequence of segments and ACKs at 10 % frame errors",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
