"""``fig2``: time-sequence traces of segments and ACKs (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Ref,
    at_least,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.wwan.setting import (
    DURATION,
    PAPER,
    idle_share,
    scenario,
)

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
    return {RUNS: Sweep(points, 1)}


#: Per case: the traced segments sent and ACKs received.
Traces = dict[str, dict[str, pd.DataFrame]]


def table(runs: Runs, quick: bool) -> Derived[Traces]:
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


#: One plot per case (``{case}``: its label, ``{name}``: as a file name).
TRACE = LineFigure(
    "fig2-{name}",
    xlabel="time (s)",
    ylabel="segment number",
    title="Fig. 2 {case}, 10 % errors",
    styles={"segments": "s", "ACKs": "."},
)


def plot(traces: Traces, out: Path, quick: bool) -> None:
    for label, tr in traces.items():
        sent, acks = tr["sent"], tr["acks"]
        series: Lines = {
            "segments": (list(sent["t"]), list(sent["seq"]), None),
            "ACKs": (list(acks["t"]), list(acks["ack"]), None),
        }
        TRACE.draw(out, series, case=label, name=label.replace(" ", "-").lower())


def claims(traces: Traces, quick: bool) -> list[Claim]:
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
