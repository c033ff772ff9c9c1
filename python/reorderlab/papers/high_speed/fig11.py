"""``fig11``: throughput of BIC and HSTCP vs the reordering block size (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.measures import (
    degraded,
    for_both,
    mbps,
    slightly_more,
)
from reorderlab.papers.high_speed.setting import (
    BLOCKS,
    LATER_PACKET,
    PAPER,
    SACK_CURVES,
    FigureData,
    curves,
    figure_plan,
    figure_table,
    run_table,
    sensitivity_throughput,
    setting_curves,
    setting_sweep,
    sweep_parameter,
    throughput_figure,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Runs,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)

#: The plan's sweep of the reference: the SACK curves without reordering
#: (Fig. 10's runs at delay time 0).
NO_REORDERING = "no reordering"


def plan(quick: bool) -> Plan:
    xs = BLOCKS(quick)
    return {
        **figure_plan("block", xs, quick),
        NO_REORDERING: sweep_parameter("delay", (0.0,), SACK_CURVES, quick),
        SENSITIVITY: setting_sweep(
            "block", xs, SACK_CURVES, {"later-packet anchor": LATER_PACKET}, quick
        ),
    }


def table(runs: Runs, quick: bool) -> Derived[FigureData]:
    """The block-size sweep's tables; the no-reordering runs join the
    runs at x = 0 (block size 0: nothing reordered)."""
    free = run_table(runs.table(NO_REORDERING)).assign(x=0.0)
    return figure_table("fig11", runs, quick, claims, free)


THROUGHPUT = throughput_figure("fig11", "reordering block size (packets)", "Fig. 11")
SENSITIVITY_PLOT = sensitivity_throughput(
    "fig11", "reordering block size (packets)", "Fig. 11, later-packet anchor", logx=False
)


def plot(data: FigureData, out: Path, quick: bool) -> None:
    reordered = data.runs[data.runs["x"] > 0]
    THROUGHPUT.draw(out, curves(reordered) | curves(data.extra))
    names = [label for label, _, _ in SACK_CURVES]
    SENSITIVITY_PLOT.draw(out, setting_curves(reordered, data.sensitivity, names))


WHERE = "Sec. V-B, Fig. 11"
SMALL_BLOCK = (
    "Even a small reordering block size (such as one packet) can significantly degrade the "
    "throughput of BIC and HSTCP."
)
SLIGHTLY = (
    "However, further increasing the reordering block size only slightly reduces the throughput."
)
CURVES = ("BIC-SACK", "HSTCP-SACK")


def claims(data: FigureData, quick: bool) -> list[Claim]:
    runs = data.runs
    top = max(set(runs["x"]))
    free = {c: mbps(runs, c, 0.0) for c in CURVES}
    one = {c: mbps(runs, c, 1.0) for c in CURVES}
    last = {c: mbps(runs, c, top) for c in CURVES}
    return [
        paper_claim(
            PAPER,
            "fig11",
            "BIC and HSTCP: a block of one packet already degrades throughput",
            for_both(
                {c: degraded(one[c], free[c], f"{c} Mb/s at block 1") for c in CURVES},
                "both curves",
            ),
            quote=SMALL_BLOCK,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig11",
            "BIC and HSTCP: larger blocks reduce throughput only slightly more than one packet",
            for_both(
                {
                    c: slightly_more(one[c], last[c], free[c], f"{c} loss from block 1 to {top:g}")
                    for c in CURVES
                },
                "both curves",
            ),
            quote=SLIGHTLY,
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig11",
        "Throughput of BIC and HSTCP vs reordering block size",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
