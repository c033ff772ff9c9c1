"""``fig7``: throughput vs the propagation delay P of link (R1, R2), 1.4 %
of the packets delayed U[0, 4P] and 0.6 % dropped.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    difference,
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
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_CURVES,
    MODE,
    capacity_bps,
    chain_scenario,
    fig7_impairments,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    best_of,
    points_table,
    rr_claim,
)

FIG7_P = (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
FIG7_P_QUICK = (0.04, 0.10, 0.20)
#: The schemes DSACK-TA(-MEAN) is compared with.
OTHERS = ("SACK", "DSACK-R", "DSACK-FA-MEAN", "DSACK-FA-RTX")
WHERE = "Sec. 5.2, Fig. 7"


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    ps = FIG7_P_QUICK if quick else FIG7_P
    points = [
        point(
            label,
            p,
            capacity_bps(p),
            chain_scenario(CHAIN, p, variant, mode.duration, fig7_impairments(p)),
        )
        for label, variant in FIG4_CURVES.items()
        for p in ps
    ]
    return plan_of(points, quick)


THROUGHPUT = LineFigure(
    "fig7_throughput",
    xlabel="P (s)",
    ylabel="throughput / S(P)",
    title="Fig. 7: 1.4 % delayed U[0, 4P], 0.6 % dropped ({seeds} seeds x {duration:g} s)",
    styles={"DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
)


def plot(data: Points, out: Path, quick: bool) -> None:
    THROUGHPUT.draw(out, stat_series(data.tab, list(FIG4_CURVES), "norm"), **MODE(quick).fields())


def claims(data: Points, quick: bool) -> list[Claim]:
    ps = list(FIG7_P_QUICK if quick else FIG7_P)
    best = {s: 0.0 for s in data.seeds("SACK", ps[0])}
    for p in ps:
        for s, v in best_of({c: data.seeds(c, p) for c in OTHERS}).items():
            best[s] += v / len(ps)
    ta, fa = data.curves("DSACK-TA-MEAN"), data.curves("DSACK-FA-MEAN")
    metric = "false_fr_per_reorder"
    return [
        rr_claim(
            "fig7",
            "DSACK-TA performs best",
            difference(
                data.mean_over("DSACK-TA-MEAN", ps),
                best,
                "TA(-MEAN) - the best of SACK, DSACK-R, FA-MEAN, FA-RTX, mean over P (S)",
            ),
            quote="As shown in Figure 7, DSACK-TA performs best.",
            where=WHERE,
        ),
        rr_claim(
            "fig7",
            "DSACK-FA causes a smaller share of false fast retransmits than DSACK-TA",
            difference(
                data.mean_over("DSACK-FA-MEAN", ps, metric),
                data.mean_over("DSACK-TA-MEAN", ps, metric),
                "FA - TA false fast retransmits / reordered packets, mean over P",
                op="<",
            ),
            quote="But this is not because DSACK-TA causes the lowest percentage of false fast "
            "retransmits; DSACK-FA actually causes an even smaller percentage.",
            where=WHERE,
        ),
        rr_claim(
            "fig7",
            "DSACK-FA approaches DSACK-TA as P grows",
            trend(
                {s: {p: ta[s][p] - fa[s][p] for p in ps} for s in ta},
                "TA - FA throughput",
                direction="falls",
                x="P",
            ),
            quote="Thus, the performance of DSACK-FA approaches that of DSACK-TA as the link "
            "delay increases.",
            where="Sec. 5.2, Fig. 7",
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig7",
        "throughput vs link delay (1.4 % delayed U[0, 4P], 0.6 % dropped)",
        points=plan,
        table=points_table("fig7_points"),
        plot=plot,
        claims=claims,
    ),
)
