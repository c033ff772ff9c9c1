"""``fig10-11``: throughput and timeouts vs the mean delay kP (P = 200 ms,
4 % delayed).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reorderlab.checks import (
    Ref,
    each_above,
    each_at_least,
    each_at_most,
    each_below,
    unit,
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
    FIG10_FRACTION,
    FIG10_P,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    kp_delay,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    summary,
)

FIG10_K = (4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0)
FIG10_K_QUICK = (4.5, 5.5, 6.5, 8.0)
FIG10_CURVES = ("SACK", "DSACK-R", "DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")


def _fig10_points(quick: bool) -> Plan:
    mode = MODE(quick)
    ks = FIG10_K_QUICK if quick else FIG10_K
    s = capacity_bps(FIG10_P)
    points = [
        point(
            v,
            k,
            s,
            chain_scenario(
                CHAIN, FIG10_P, v, mode.duration, [kp_delay(FIG10_FRACTION, k, FIG10_P)]
            ),
        )
        for v in FIG10_CURVES
        for k in ks
    ]
    return plan_of(points, quick)


#: Fig. 10 (throughput) and Fig. 11 (timeouts): (figure, metric, y scale).
FIG10_11 = (
    (
        LineFigure(
            "fig10_throughput",
            "mean packet delay kP (s)",
            "throughput / S",
            f"Figs. 10-11: P = {FIG10_P:g} s, 4 % delayed N(kP, kP/3) "
            "({seeds} seeds x {duration:g} s)",
        ),
        "norm",
        1.0,
    ),
    (
        LineFigure(
            "fig11_timeouts",
            "mean packet delay kP (s)",
            "packets meeting a timeout (%)",
            f"Figs. 10-11: P = {FIG10_P:g} s, 4 % delayed N(kP, kP/3) "
            "({seeds} seeds x {duration:g} s)",
        ),
        "to_frac",
        100.0,
    ),
)


def _fig10_plot(tab: Table, out: Path, quick: bool) -> None:
    for line, metric, scale in FIG10_11:
        lines = stat_series(tab, FIG10_CURVES, metric, xscale=FIG10_P, yscale=scale)
        line.draw(out, lines, **MODE(quick).fields())


def _fig10_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig10-11"
    ks = FIG10_K_QUICK if quick else FIG10_K
    late = [k for k in ks if k > 5.5]
    early = [k for k in ks if k <= 5.5]
    thr = {v: by_x(tab, v) for v in FIG10_CURVES}
    to = {v: by_x(tab, v, "to_frac") for v in FIG10_CURVES}
    drop = (
        float(np.mean([thr["DSACK-TA"][k] for k in late]))
        / float(np.mean([thr["DSACK-TA"][k] for k in early]))
        if late and early
        else float("nan")
    )
    where = "at every k > 5.5"
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA collapses past k = 5.5 (mean delay 1.1 s), below DSACK-FA",
            each_below(
                {k: thr["DSACK-TA"][k] for k in late},
                Ref(thr["DSACK-FA"], "DSACK-FA"),
                "DSACK-TA",
                where,
            ),
            "TA: "
            + series_str(thr["DSACK-TA"])
            + "; FA: "
            + series_str(thr["DSACK-FA"])
            + f"; TA mean k > 5.5 / mean k <= 5.5: {drop:.2f}",
            ta=thr["DSACK-TA"],
            fa=thr["DSACK-FA"],
            ta_late_over_early=drop,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA's timeouts exceed DSACK-FA's past k = 5.5",
            each_above(
                {k: to["DSACK-TA"][k] for k in late},
                Ref(to["DSACK-FA"], "FA's"),
                "timeout fraction of TA",
                where,
            ),
            "TA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-TA"].items()}, "{:.3f}")
            + "; FA (%): "
            + series_str({k: 100 * v for k, v in to["DSACK-FA"].items()}, "{:.3f}"),
            ta=to["DSACK-TA"],
            fa=to["DSACK-FA"],
        ),
        *_taes_claims(thr, to, ks, late),
    ]


def _taes_claims(
    thr: dict[str, dict[float, float]],
    to: dict[str, dict[float, float]],
    ks: tuple[float, ...],
    late: list[float],
) -> list[Claim]:
    """DSACK-TAES (enhanced RTT sampling): its throughput and timeouts."""
    fig = "fig10-11"
    where = "at every k > 5.5"
    best = {k: max(thr["DSACK-TA"][k], thr["DSACK-FA"][k]) for k in ks}
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES keeps a high throughput",
            each_at_least(
                thr["DSACK-TAES"],
                Ref(best, "max(TA, FA)", plus=-0.02, fmt=unit("S")),
                "TAES",
                "at every k",
            ),
            "TAES: " + series_str(thr["DSACK-TAES"]) + "; HG: " + series_str(thr["DSACK-HG"]),
            taes=thr["DSACK-TAES"],
            hg=thr["DSACK-HG"],
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES has few timeouts",
            each_at_most(
                {k: to["DSACK-TAES"][k] for k in late},
                Ref(to["DSACK-TA"], "TA's"),
                "timeout fraction of TAES",
                where,
            ),
            "TAES (%): " + series_str({k: 100 * v for k, v in to["DSACK-TAES"].items()}, "{:.3f}"),
            taes=to["DSACK-TAES"],
            hg=to["DSACK-HG"],
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig10-11",
        "throughput and timeouts vs mean delay kP (P = 200 ms, 4 % delayed)",
        points=_fig10_points,
        table=summary,
        plot=_fig10_plot,
        claims=_fig10_claims,
    ),
)
