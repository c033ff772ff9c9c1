"""``fig10``: throughput of BIC and HSTCP vs the mean reordering delay time,
with its sensitivity (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    at_least,
    at_most,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.setting import (
    DELAYED_ACK,
    EXTRA_CURVES,
    FIG10_DELAYS,
    FLOOR_MBPS,
    FULL_SENSITIVITY_DELAYS,
    GIGABIT_ACCESS,
    MBPS,
    PAPER,
    QUICK_DELAYS,
    QUICK_SENSITIVITY_DELAYS,
    SACK_CURVES,
    curves,
    mbps_by_x,
    sensitivity_throughput,
    setting_curves,
    setting_sweep,
    sweep_parameter,
    throughput_and_sensitivity,
    throughput_figure,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)


def plan(quick: bool) -> Plan:
    xs = QUICK_DELAYS if quick else FIG10_DELAYS
    settings = {"delayed ACK": DELAYED_ACK, "after a 1 Gb/s access link": GIGABIT_ACCESS}
    delays = QUICK_SENSITIVITY_DELAYS if quick else FULL_SENSITIVITY_DELAYS
    return {
        RUNS: sweep_parameter("delay", xs, SACK_CURVES + EXTRA_CURVES, quick),
        SENSITIVITY: setting_sweep("delay", delays, SACK_CURVES, settings, quick),
    }


DELAY_LABEL = "mean reordering delay time (us)"
THROUGHPUT = throughput_figure("fig10", DELAY_LABEL, "Fig. 10")
SENSITIVITY_PLOT = sensitivity_throughput(
    "fig10", DELAY_LABEL, "Fig. 10 under other settings", logx=False
)


def plot(data: tuple[pd.DataFrame, pd.DataFrame], out: Path, quick: bool) -> None:
    table, sensitivity = data
    THROUGHPUT.draw(out, curves(table, xscale=1e6))
    reordered = sensitivity[sensitivity["x"] > 0]
    SENSITIVITY_PLOT.draw(out, setting_curves(reordered, xscale=1e6))


def claims(data: tuple[pd.DataFrame, pd.DataFrame], quick: bool) -> list[Claim]:
    table = data[0]
    claims = []
    for label in ("BIC-SACK", "HSTCP-SACK"):
        t = mbps_by_x(table, label)
        none, d20, top = t[0.0], t[20e-6], t[max(t)]
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: very high throughput without reordering",
                at_least(none, 800, "throughput at delay time 0", MBPS),
                f"{none:.0f} Mb/s",
            )
        )
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: a 20 us reordering delay time already degrades throughput",
                at_most(d20, Ref(none, "at 0", times=0.5), "throughput at 20 us"),
                f"{d20:.0f} vs {none:.0f} Mb/s",
            )
        )
        little_worse = all_of(
            at_least(d20, FLOOR_MBPS, "throughput at 20 us", MBPS).noted(
                "(so the comparison means something)"
            ),
            at_least(top, Ref(d20, "that", times=0.6), f"at {max(t) * 1e6:g} us"),
            sep=" and ",
        )
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: longer delay times are only a little worse than 20 us",
                little_worse,
                f"{top:.0f} vs {d20:.0f} Mb/s",
            )
        )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig10",
        "Throughput of BIC and HSTCP vs mean reordering delay time",
        points=plan,
        table=throughput_and_sensitivity("fig10"),
        plot=plot,
        claims=claims,
    ),
)
