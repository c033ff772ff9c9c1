"""``fig6``: throughput vs drop rate, 5 % of the packets delayed.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    Check,
    every,
    trend,
)
from reorderlab.claims import (
    Claim,
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
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_DELAY,
    FIG4_P,
    FIG6_CURVES,
    MODE,
    NODELAY,
    capacity_bps,
    chain_scenario,
    delayed,
    dropped,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    percent,
    points_table,
    rr_claim,
)
from reorderlab.scenario import (
    Impairment,
)

FIG6_DROPS = (0.0, 0.0025, 0.005, 0.01, 0.015, 0.02)
FIG6_DROPS_QUICK = (0.0, 0.01, 0.02)
FIG6_FRACTION = 0.05


def plan(quick: bool) -> Plan:
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
WHERE = "Sec. 5.1.2, Fig. 6"
DSACK = ("DSACK-R", "DSACK-FA", "DSACK-TA")


def plot(data: Points, out: Path, quick: bool) -> None:
    lines = stat_series(data.tab, [NODELAY, *FIG6_CURVES], "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _falls(
    data: Points, curves: tuple[str, ...], metric: str = "norm", xs: list[float] | None = None
) -> Check:
    """Each curve's ``metric`` falls with the drop rate (over ``xs``)."""
    return every(
        {
            c: trend(
                data.curves(c, metric, xs),
                f"{c}'s {'throughput' if metric == 'norm' else metric}",
                direction="falls",
                x="drop rate",
            )
            for c in curves
        },
        f"falls with the drop rate for {', '.join(curves)}",
    )


def claims(data: Points, quick: bool) -> list[Claim]:
    drops = FIG6_DROPS_QUICK if quick else FIG6_DROPS
    lossy = [p for p in drops if p > 0]
    leads = {
        c: trend(
            {
                s: {p: data.seeds(c, p)[s] - data.seeds("SACK", p)[s] for p in drops}
                for s in data.seeds(c, drops[0])
            },
            f"{c} - SACK",
            direction="falls",
            x="drop rate",
        )
        for c in DSACK
    }
    diminish = (
        "As a result, the percentage of false fast retransmits decreases rapidly, and the "
        "performance difference between DSACK and SACK diminishes."
    )
    return [
        rr_claim(
            "fig6",
            "DSACK-TA's and DSACK-FA's throughput decreases as the loss rate increases",
            _falls(data, ("DSACK-FA", "DSACK-TA")),
            quote="As shown in Figure 6, the throughput achieved by DSACK-TA and DSACK-FA "
            "decreases sharply as the loss rate increases.",
            where=WHERE,
        ),
        rr_claim(
            "fig6",
            "all variants lose throughput as the drop rate grows",
            _falls(data, (NODELAY, *FIG6_CURVES)),
            quote="As one expects, all TCP variants suffer reduced throughput under loss.",
            where=WHERE,
        ),
        rr_claim(
            "fig6",
            "the share of fast retransmits found false falls as drops grow",
            _falls(data, DSACK, "false_fr_detected", xs=lossy),
            quote=diminish,
            where=WHERE,
        ),
        rr_claim(
            "fig6",
            "the DSACK variants' advantage over SACK shrinks as drops grow",
            every(leads, "each DSACK variant's lead over SACK falls with the drop rate"),
            quote=diminish,
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig6",
        "throughput vs drop rate (5 % delayed)",
        points=plan,
        table=points_table("fig6_points"),
        plot=plot,
        claims=claims,
    ),
)
