"""``fig7``: throughput vs link delay P (1.4 % delayed U[0, 4P], 0.6 % dropped).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    each_at_least,
    falls,
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
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_CURVES,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    fig7_impairments,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    summary,
)

FIG7_P = (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
FIG7_P_QUICK = (0.04, 0.10, 0.20)


def _fig7_points(quick: bool) -> Plan:
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


def _fig7_plot(tab: Table, out: Path, quick: bool) -> None:
    THROUGHPUT.draw(out, stat_series(tab, list(FIG4_CURVES), "norm"), **MODE(quick).fields())


def _fig7_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig7"
    ps = FIG7_P_QUICK if quick else FIG7_P
    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {
        p: tab[("DSACK-TA-MEAN", p)]["norm"] - max(tab[(c, p)]["norm"] for c in others) for p in ps
    }
    ta_fa = {p: tab[("DSACK-TA-MEAN", p)]["norm"] - tab[("DSACK-FA-MEAN", p)]["norm"] for p in ps}
    lo, hi = min(ps), max(ps)
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA performs best",
            each_at_least(
                gaps, -0.01, "DSACK-TA(-MEAN) - the best non-TA curve", "at every P", unit("S")
            ),
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            ta_minus_best_other=gaps,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-FA approaches DSACK-TA as P grows",
            falls(ta_fa[lo], ta_fa[hi], "TA - FA", f"P = {lo:g} s", f"P = {hi:g} s"),
            "TA - FA: " + series_str(ta_fa, "{:+.3f}"),
            ta_minus_fa=ta_fa,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig7",
        "throughput vs link delay (1.4 % delayed U[0, 4P], 0.6 % dropped)",
        points=_fig7_points,
        table=summary,
        plot=_fig7_plot,
        claims=_fig7_claims,
    ),
)
