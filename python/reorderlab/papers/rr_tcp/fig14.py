"""``fig14``: throughput vs the fraction of ACKs reordered (reverse path).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    each_at_least,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    stat_series,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Point,
)
from reorderlab.papers.kit.summary import (
    Table,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_DELAY,
    FIG4_P,
    FIG6_CURVES,
    MODE,
    PAPER,
    REVERSE,
    capacity_bps,
    chain_scenario,
    delayed,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
    summary,
)
from reorderlab.scenario import (
    Impairment,
)

FIG14_ACK_FRACTIONS = (0.0, 0.01, 0.02, 0.05, 0.10, 0.20, 0.30)
FIG14_ACK_FRACTIONS_QUICK = (0.0, 0.10, 0.30)
FIG14_DATA_FRACTION = 0.05


def _fig14_points(quick: bool) -> Plan:
    mode = MODE(quick)
    fractions = FIG14_ACK_FRACTIONS_QUICK if quick else FIG14_ACK_FRACTIONS
    s = capacity_bps(FIG4_P)
    points: list[Point] = []
    for label, variant in FIG6_CURVES.items():
        for f in fractions:
            imps: list[Impairment] = [delayed(FIG14_DATA_FRACTION, FIG4_DELAY)]
            if f > 0:
                imps.append(delayed(f, FIG4_DELAY, link=REVERSE))
            points.append(
                point(label, f, s, chain_scenario(CHAIN, FIG4_P, variant, mode.duration, imps))
            )
    return plan_of(points, quick)


THROUGHPUT = LineFigure(
    "fig14_throughput",
    xlabel="fraction of ACKs delayed N(25, 8) ms (%)",
    ylabel="throughput / S",
    title=f"Fig. 14: {percent(FIG14_DATA_FRACTION)} of data delayed, P = {FIG4_P:g} s "
    "({seeds} seeds x {duration:g} s)",
)


def _fig14_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, list(FIG6_CURVES), "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _fig14_claims(tab: Table, quick: bool) -> list[Claim]:
    fractions = FIG14_ACK_FRACTIONS_QUICK if quick else FIG14_ACK_FRACTIONS
    rel = {
        c: {f: tab[(c, f)]["norm"] / tab[(c, 0.0)]["norm"] for f in fractions}
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    worst = {c: min(v.values()) for c, v in rel.items()}
    return [
        make_claim(
            PAPER,
            "fig14",
            "reordered ACKs have no significant effect on the DSACK variants",
            each_at_least(
                worst,
                0.9,
                "throughput at the worst ACK-reordering fraction / without ACK reordering",
                "for DSACK-R, -FA and -TA",
            ),
            "; ".join(f"{c}: {series_str(v, '{:.3f}')}" for c, v in rel.items()),
            relative=rel,
            worst=worst,
        )
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig14",
        "throughput vs fraction of ACKs reordered (reverse path)",
        points=_fig14_points,
        table=summary,
        plot=_fig14_plot,
        claims=_fig14_claims,
    ),
)
