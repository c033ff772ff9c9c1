"""``fig6``: throughput vs drop rate, 5 % of the packets delayed.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    each_falls,
    falls,
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
    NODELAY,
    PAPER,
    capacity_bps,
    chain_scenario,
    delayed,
    dropped,
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

FIG6_DROPS = (0.0, 0.0025, 0.005, 0.01, 0.015, 0.02)
FIG6_DROPS_QUICK = (0.0, 0.01, 0.02)
FIG6_FRACTION = 0.05


def _fig6_points(quick: bool) -> Plan:
    mode = MODE(quick)
    drops = FIG6_DROPS_QUICK if quick else FIG6_DROPS
    s = capacity_bps(FIG4_P)
    points: list[Point] = []
    for p in drops:
        points.append(
            point(NODELAY, p, s, chain_scenario(CHAIN, FIG4_P, "SACK", mode.duration, dropped(p)))
        )
        for label, variant in FIG6_CURVES.items():
            imps: list[Impairment] = [delayed(FIG6_FRACTION, FIG4_DELAY), *dropped(p)]
            points.append(
                point(label, p, s, chain_scenario(CHAIN, FIG4_P, variant, mode.duration, imps))
            )
    return plan_of(points, quick)


THROUGHPUT = LineFigure(
    "fig6_throughput",
    xlabel="drop rate (%)",
    ylabel="throughput / S",
    title=f"Fig. 6: {percent(FIG6_FRACTION)} delayed N(25, 8) ms "
    "({seeds} seeds x {duration:g} s)",
    styles={NODELAY: "k*-"},
)


def _fig6_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, [NODELAY, *FIG6_CURVES], "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _fig6_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig6"
    drops = FIG6_DROPS_QUICK if quick else FIG6_DROPS
    lo, hi = min(drops), max(drops)
    gains = {
        c: (
            tab[(c, lo)]["norm"] - tab[("SACK", lo)]["norm"],
            tab[(c, hi)]["norm"] - tab[("SACK", hi)]["norm"],
        )
        for c in ("DSACK-R", "DSACK-FA", "DSACK-TA")
    }
    falls_ = {c: (tab[(c, lo)]["norm"], tab[(c, hi)]["norm"]) for c in [NODELAY, *FIG6_CURVES]}
    ffr = {x: tab[("DSACK-TA", x)]["false_fr_detected"] for x in drops}
    start, end = f"{percent(lo)} drops", f"{percent(hi)} drops"
    return [
        make_claim(
            PAPER,
            fig,
            "the DSACK variants' advantage over SACK shrinks as drops grow",
            each_falls(gains, "variant - SACK", start, end, "for DSACK-R, -FA and -TA"),
            "; ".join(f"{c}: {a:+.3f} -> {b:+.3f} S" for c, (a, b) in gains.items()),
            gains=gains,
        ),
        make_claim(
            PAPER,
            fig,
            "all variants lose throughput as the drop rate grows",
            each_falls(falls_, "throughput", start, end, "for every curve"),
            "; ".join(f"{c}: {a:.3f} -> {b:.3f}" for c, (a, b) in falls_.items()),
            throughput=falls_,
        ),
        make_claim(
            PAPER,
            fig,
            "the share of fast retransmits found false falls as drops grow (DSACK-TA)",
            falls(ffr[lo], ffr[hi], "DSACK-detected false FR ratio of DSACK-TA", start, end),
            series_str(ffr, "{:.3f}"),
            false_fr_detected=ffr,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig6",
        "throughput vs drop rate (5 % delayed)",
        points=_fig6_points,
        table=summary,
        plot=_fig6_plot,
        claims=_fig6_claims,
    ),
)
