"""``fig16``: throughput vs a fixed delay d of 50 % of the packets
(two-path-like).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    Ref,
    below,
    each_at_least,
    within,
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
)
from reorderlab.papers.kit.summary import (
    Table,
    by_x,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_P,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    delayed,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    summary,
)
from reorderlab.scenario import (
    ConstantVar,
)

FIG16_D = (0.0, 0.025, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.25)
FIG16_D_QUICK = (0.0, 0.05, 0.10, 0.20, 0.25)
FIG16_FRACTION = 0.5


def _fig16_points(quick: bool) -> Plan:
    mode = MODE(quick)
    ds = FIG16_D_QUICK if quick else FIG16_D
    s = capacity_bps(FIG4_P)
    points = [
        point(
            v,
            d,
            s,
            chain_scenario(
                CHAIN,
                FIG4_P,
                v,
                mode.duration,
                [delayed(FIG16_FRACTION, ConstantVar(value=d))],
            ),
        )
        for v in ("SACK", "DSACK-TA")
        for d in ds
    ]
    return plan_of(points, quick)


THROUGHPUT = LineFigure(
    "fig16_throughput",
    xlabel="delay d of 50 % of packets (ms)",
    ylabel="throughput / S",
    title=f"Fig. 16: P = {FIG4_P:g} s, no loss ({{seeds}} seeds x {{duration:g}} s)",
)


def _fig16_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, ["SACK", "DSACK-TA"], "norm", xscale=1000)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _fig16_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig16"
    ds = FIG16_D_QUICK if quick else FIG16_D
    ta, sack = by_x(tab, "DSACK-TA"), by_x(tab, "SACK")
    ratio = {d: ta[d] / sack[d] if sack[d] > 0 else float("inf") for d in ds}
    pos = [d for d in ds if d > 0]
    d200 = min(ds, key=lambda d: abs(d - 0.2))
    early = [d for d in pos if d <= 0.1]
    adv = {d: ta[d] - sack[d] for d in ds}
    best_early = max(adv[d] for d in early) if early else float("nan")
    d_max = max(ds)
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA >> SACK under two-path-like delays",
            each_at_least({d: ratio[d] for d in pos}, 2, "TA / SACK", "at every d > 0"),
            "TA / SACK: " + series_str({d * 1000: r for d, r in ratio.items()}, "{:.2f}"),
            ratio=ratio,
            ta=ta,
            sack=sack,
        ),
        make_claim(
            PAPER,
            fig,
            "about a seven-fold improvement at d = 200 ms",
            within(ratio[d200], 3.5, 10.5, "TA / SACK at 200 ms").noted("(7x +- 50 %)"),
            f"{ratio[d200]:.2f} (TA {ta[d200]:.3f} S, SACK {sack[d200]:.3f} S)",
            ratio_200ms=ratio[d200],
        ),
        make_claim(
            PAPER,
            fig,
            "the advantage shrinks past ~100 ms (limited transmit of one window)",
            below(
                adv[d_max],
                Ref(best_early, "its maximum over 0 < d <= 100 ms"),
                f"(TA - SACK) at d = {1000 * d_max:g} ms",
            ),
            "TA - SACK: " + series_str({d * 1000: a for d, a in adv.items()}, "{:+.3f}"),
            advantage=adv,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig16",
        "throughput vs fixed delay d of 50 % of packets (two-path-like)",
        points=_fig16_points,
        table=summary,
        plot=_fig16_plot,
        claims=_fig16_claims,
    ),
)
