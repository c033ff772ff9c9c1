"""``fig9``: throughput of BIC and HSTCP vs the mean reordering interval,
with its sensitivity (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import difference, every, ratio, trend
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.measures import (
    curve,
    mbps,
    mean_over_x,
)
from reorderlab.papers.high_speed.setting import (
    DELAYED_ACK,
    INTERVALS,
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

#: The settings of ``fig9_sensitivity``, by the name their lines carry.
SETTINGS: dict[str, Setting] = {
    "delayed ACK": DELAYED_ACK,
    "later-packet anchor": LATER_PACKET,
}


def plan(quick: bool) -> Plan:
    xs = INTERVALS(quick)
    return {
        **figure_plan("interval", xs, quick),
        SENSITIVITY: setting_sweep("interval", xs, SACK_CURVES, SETTINGS, quick),
    }


def table(runs: Runs, quick: bool) -> Derived[FigureData]:
    return figure_table("fig9", runs, quick, claims)


INTERVAL_LABEL = "mean reordering interval (s)"
# Both axes logarithmic: the claims are about 1, 5 and 0 Mb/s, which a
# linear 0-1000 Mb/s axis flattens onto zero (issue 41).
THROUGHPUT = throughput_figure("fig9", INTERVAL_LABEL, "Fig. 9", logx=True, symlogy=True)
SENSITIVITY_PLOT = sensitivity_throughput(
    "fig9", INTERVAL_LABEL, "Fig. 9 under other settings", logx=True, symlogy=True
)


def plot(data: FigureData, out: Path, quick: bool) -> None:
    THROUGHPUT.draw(out, curves(data.runs) | curves(data.extra))
    names = [label for label, _, _ in SACK_CURVES]
    SENSITIVITY_PLOT.draw(out, setting_curves(data.runs, data.sensitivity, names))


WHERE = "Sec. V-B, Fig. 9"
LOWER = "First, as we expected, a smaller reordering interval does lead to lower throughput."
SHARP = (
    "Second, the throughput of BIC drops sharply when the reordering interval is less "
    "than 0.02 seconds."
)
MORE = "Third, HSTCP suffers more than BIC from packet reordering."
NUMBERS = (
    "For example, with a 0.5-second reordering interval, BIC can achieve as high as 400Mbps "
    "throughput, however, HSTCP can achieve only 10Mbps throughput."
)
#: "drops sharply": at 0.01 s at most half of its throughput at 0.02 s.
SHARP_LIMIT = 0.5
#: "400 vs 10 Mb/s" is a ratio of 0.025; HSTCP at most a quarter of BIC
#: keeps "far below" with an order of magnitude of room for the setting.
FAR_BELOW = 0.25


def claims(data: FigureData, quick: bool) -> list[Claim]:
    runs = data.runs
    xs = sorted(set(runs["x"]))
    lo, mid, top = min(xs), 0.02, max(xs)
    bic, hs = curve(runs, "BIC-SACK"), curve(runs, "HSTCP-SACK")
    return [
        paper_claim(
            PAPER,
            "fig9",
            "a smaller reordering interval gives lower throughput (BIC and HSTCP)",
            every(
                {
                    label: trend(
                        c, f"{label} Mb/s", direction="rises", logx=True, x="mean interval (s)"
                    )
                    for label, c in (("BIC-SACK", bic), ("HSTCP-SACK", hs))
                },
                "both curves",
            ),
            quote=LOWER,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig9",
            "BIC's throughput drops sharply when the interval is below 0.02 s",
            ratio(
                mbps(runs, "BIC-SACK", lo),
                mbps(runs, "BIC-SACK", mid),
                f"BIC-SACK Mb/s at {lo:g} s / at {mid:g} s",
                op="<",
                limit=SHARP_LIMIT,
            ),
            quote=SHARP,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig9",
            "HSTCP suffers more than BIC from reordering",
            difference(
                mean_over_x(bic),
                mean_over_x(hs),
                "BIC-SACK - HSTCP-SACK, Mb/s averaged over the intervals",
            ),
            quote=MORE,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig9",
            "HSTCP is far below BIC at a 0.5-s interval (paper: 10 vs 400 Mb/s)",
            ratio(
                mbps(runs, "HSTCP-SACK", top),
                mbps(runs, "BIC-SACK", top),
                f"HSTCP-SACK / BIC-SACK Mb/s at {top:g} s",
                op="<",
                limit=FAR_BELOW,
            ),
            quote=NUMBERS,
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig9",
        "Throughput of BIC and HSTCP vs mean reordering interval",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
