"""``gigabit``: BBR, CUBIC and Reno (``Linux`` loss recovery) through the
high-speed paper's reordering generator at 1 Gb/s, against its delay time
(as its Fig. 10). Simulated only: 1 Gb/s is beyond the emulator, and issue
37 states no outcome for it, so the figure has no claim. The setting:
:mod:`.setting`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from reorderlab.claims import Claim
from reorderlab.papers.bbr_reordering.setting import (
    CURVES,
    GIGABIT_DELAYS,
    GIGABIT_MODE,
    PAPER,
    gigabit,
)
from reorderlab.papers.kit.figure import LineFigure, Lines
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Point, Runs, Sweep, flow_column

FIGURE = "gigabit"


def points(quick: bool) -> Plan:
    mode = GIGABIT_MODE(quick)
    grid: list[Point] = [
        ({"curve": c, "x": float(d)}, gigabit(cc, d, mode.duration))
        for c, cc in CURVES.items()
        for d in GIGABIT_DELAYS(quick)
    ]
    return {RUNS: Sweep(grid, mode.seeds)}


def table(runs: Runs, quick: bool) -> Derived[list[dict[str, Any]]]:
    """One row per (curve, delay time): the studied flow's Mb/s after the
    warm-up, retransmissions and spurious ones (means of the seeds)."""
    df = runs.table()
    rows = []
    for key, g in df.groupby(["curve", "x"], sort=False):
        curve, x = cast(tuple[str, float], key)

        def mean(metric: str, g: Any = g) -> float:
            return float(g[flow_column(g, 0, metric)].astype(float).mean())

        rows.append(
            {
                "curve": str(curve),
                "delay_us": float(x) * 1e6,
                "mbps": mean("throughput_bps") / 1e6,
                "mbps_min": float(g[flow_column(g, 0, "throughput_bps")].astype(float).min()) / 1e6,
                "retransmits": mean("retransmits"),
                "spurious": mean("spurious_retransmits"),
                "seeds": len(g),
            }
        )
    return Derived(rows, {"gigabit": rows})


def _figure(what: str, ylabel: str) -> LineFigure:
    return LineFigure(
        f"gigabit-{what}",
        "mean reordering delay time (us)",
        ylabel,
        f"high-speed generator at 1 Gb/s, Linux loss recovery: {what} "
        "({duration:g} s, {seeds} seeds)",
    )


def plot(rows: list[dict[str, Any]], out: Path, quick: bool) -> None:
    mode = GIGABIT_MODE(quick)
    goodput: Lines = {}
    rexmit: Lines = {}
    for curve in CURVES:
        mine = [r for r in rows if r["curve"] == curve]
        xs = [r["delay_us"] for r in mine]
        goodput[curve] = (xs, [r["mbps"] for r in mine], None)
        rexmit[curve] = (xs, [r["retransmits"] for r in mine], None)
    fields = {"duration": mode.duration, "seeds": mode.seeds}
    _figure("goodput", "studied flow (Mb/s)").draw(out, goodput, **fields)
    _figure("retransmissions", "retransmissions per run").draw(out, rexmit, **fields)


def claims(rows: list[dict[str, Any]], quick: bool) -> list[Claim]:
    """None: issue 37 states no outcome at 1 Gb/s (see the module docstring)."""
    return []


FIGURES = (
    recipe(
        PAPER,
        FIGURE,
        "BBR, CUBIC and Reno through the high-speed generator at 1 Gb/s (simulated)",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
        in_all=False,
    ),
)
