"""``fig11``: throughput of BIC and HSTCP vs the reordering block size (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    at_least,
    each_at_most,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.setting import (
    EXTRA_CURVES,
    FIG11_BLOCKS,
    FLOOR_MBPS,
    MBPS,
    PAPER,
    QUICK_BLOCKS,
    SACK_CURVES,
    curves,
    mbps_by_x,
    sweep_parameter,
    throughput_figure,
    throughput_table,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Runs,
)


def plan(quick: bool) -> Plan:
    xs = QUICK_BLOCKS if quick else FIG11_BLOCKS
    return {
        RUNS: sweep_parameter("block", xs, SACK_CURVES + EXTRA_CURVES, quick),
        "no reordering": sweep_parameter("delay", (0.0,), SACK_CURVES, quick),
    }


def table(runs: Runs, quick: bool) -> Derived[tuple[pd.DataFrame, pd.DataFrame]]:
    """The block-size sweep's table and the no-reordering reference."""
    table = throughput_table(runs.table())
    none = throughput_table(runs.table("no reordering"))
    return Derived((table, none), {"fig11": table})


THROUGHPUT = throughput_figure("fig11", "reordering block size (packets)", "Fig. 11")


def plot(data: tuple[pd.DataFrame, pd.DataFrame], out: Path, quick: bool) -> None:
    THROUGHPUT.draw(out, curves(data[0]))


def claims(data: tuple[pd.DataFrame, pd.DataFrame], quick: bool) -> list[Claim]:
    table, none = data
    claims = []
    for label in ("BIC-SACK", "HSTCP-SACK"):
        t = mbps_by_x(table, label)
        ref = mbps_by_x(none, label)[0.0]
        claims.append(
            make_claim(
                PAPER,
                "fig11",
                f"{label}: like Fig. 10, every block size degrades throughput well below "
                "the reordering-free value",
                each_at_most(
                    t,
                    Ref(ref, "the no-reordering throughput", times=0.5),
                    "throughput",
                    "at every block size",
                ),
                f"{series_str(t, '{:.0f}')} Mb/s vs {ref:.0f} Mb/s without reordering",
            )
        )
        small, big = t[min(t)], t[max(t)]
        little_worse = all_of(
            at_least(small, FLOOR_MBPS, f"throughput at block {min(t):g}", MBPS),
            at_least(big, Ref(small, "that", times=0.6), f"at block {max(t):g}"),
            sep=" and ",
        )
        claims.append(
            make_claim(
                PAPER,
                "fig11",
                f"{label}: larger blocks are only a little worse than one packet",
                little_worse,
                f"{big:.0f} vs {small:.0f} Mb/s",
            )
        )
    return claims


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
