"""``fig10``: throughput of BIC and HSTCP vs the mean reordering delay time,
with its sensitivity (:mod:`.setting`)."""

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
    very_high,
)
from reorderlab.papers.high_speed.setting import (
    DELAYED_ACK,
    DELAYS,
    GIGABIT_ACCESS,
    LATER_PACKET,
    PAPER,
    SACK_CURVES,
    FigureData,
    Setting,
    curves,
    figure_plan,
    figure_table,
    sensitivity_throughput,
    setting_curves,
    setting_sweep,
    throughput_figure,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
)
from reorderlab.papers.kit.mode import (
    Modes,
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

#: The settings of ``fig10_sensitivity``, by the name their lines carry.
SETTINGS: dict[str, Setting] = {
    "delayed ACK": DELAYED_ACK,
    "after a 1 Gb/s access link": GIGABIT_ACCESS,
    "later-packet anchor": LATER_PACKET,
}
#: Delay times (s) of ``fig10_sensitivity``.
SENSITIVITY_DELAYS = Modes(full=(0.0, 20e-6, 60e-6, 100e-6), quick=(0.0, 20e-6, 100e-6))


def plan(quick: bool) -> Plan:
    delays = SENSITIVITY_DELAYS(quick)
    return {
        **figure_plan("delay", DELAYS(quick), quick),
        SENSITIVITY: setting_sweep("delay", delays, SACK_CURVES, SETTINGS, quick),
    }


def table(runs: Runs, quick: bool) -> Derived[FigureData]:
    return figure_table("fig10", runs, quick, claims)


DELAY_LABEL = "mean reordering delay time (us)"
THROUGHPUT = throughput_figure("fig10", DELAY_LABEL, "Fig. 10")
SENSITIVITY_PLOT = sensitivity_throughput(
    "fig10", DELAY_LABEL, "Fig. 10 under other settings", logx=False
)


def plot(data: FigureData, out: Path, quick: bool) -> None:
    THROUGHPUT.draw(out, curves(data.runs, xscale=1e6) | curves(data.extra, xscale=1e6))
    names = [label for label, _, _ in SACK_CURVES]
    reordered = data.runs[data.runs["x"] > 0]
    sens = data.sensitivity[data.sensitivity["x"] > 0]
    SENSITIVITY_PLOT.draw(out, setting_curves(reordered, sens, names, xscale=1e6))


WHERE = "Sec. V-B, Fig. 10"
VERY_HIGH = (
    "First, we note that both BIC and HSTCP achieve very high throughputs, when there is no "
    "packet reordering."
)
SMALL_DELAY = (
    "However, even a very small reordering delay time (such as 20 μ s) can significantly "
    "degrade their throughput."
)
SLIGHTLY = (
    "Second, we see that further increasing the reordering delay time only slightly reduces "
    "the throughput."
)
CURVES = ("BIC-SACK", "HSTCP-SACK")


def claims(data: FigureData, quick: bool) -> list[Claim]:
    runs = data.runs
    top = max(set(runs["x"]))
    free = {c: mbps(runs, c, 0.0) for c in CURVES}
    at20 = {c: mbps(runs, c, 20e-6) for c in CURVES}
    last = {c: mbps(runs, c, top) for c in CURVES}
    further = f"loss from 20 to {top * 1e6:g} us"
    return [
        paper_claim(
            PAPER,
            "fig10",
            "BIC and HSTCP: very high throughput without reordering",
            for_both(
                {c: very_high(free[c], f"{c} Mb/s at delay time 0") for c in CURVES},
                "both curves",
            ),
            quote=VERY_HIGH,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig10",
            "BIC and HSTCP: a 20 us reordering delay time already degrades throughput",
            for_both(
                {c: degraded(at20[c], free[c], f"{c} Mb/s at 20 us") for c in CURVES},
                "both curves",
            ),
            quote=SMALL_DELAY,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig10",
            "BIC and HSTCP: longer delay times reduce throughput only slightly more than 20 us",
            for_both(
                {c: slightly_more(at20[c], last[c], free[c], f"{c} {further}") for c in CURVES},
                "both curves",
            ),
            quote=SLIGHTLY,
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig10",
        "Throughput of BIC and HSTCP vs mean reordering delay time",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
