"""``fig12``: SACK's share vs TCP-PR's alpha and beta (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    each_above,
    each_at_most,
    each_within,
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
    Lines,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Runs,
)
from reorderlab.papers.tcp_pr.setting import (
    FAIR_BAND,
    MODE,
    PAPER,
    SACK,
    dumbbell,
    parking_lot,
)
from reorderlab.papers.tcp_pr.tables import (
    seeded,
    seeded_table,
)

FIG12_ALPHAS = (0.99, 0.995, 0.999, 0.9999)
FIG12_BETAS = (1.0, 1.5, 2.0, 3.0, 5.0, 10.0)


def _fig12_axes(quick: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The alphas and betas swept."""
    if quick:
        return (0.99, 0.999), (1.0, 3.0, 10.0)
    return FIG12_ALPHAS, FIG12_BETAS


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    alphas, betas = _fig12_axes(quick)
    builders = {"dumbbell": dumbbell, "parking lot": parking_lot}
    return seeded(
        lambda seed: [
            (
                {"panel": panel, "alpha": a, "beta": b},
                build(64, duration=mode.duration, alpha=a, beta=b, seed=seed),
            )
            for panel, build in builders.items()
            for a in alphas
            for b in betas
        ],
        mode.seeds,
    )


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    """SACK's mean normalized throughput per (panel, alpha, beta)."""
    df = seeded_table(runs)
    df["sack"] = df[f"norm.{SACK}"].astype(float)
    table = df.groupby(["panel", "alpha", "beta"], sort=False)["sack"].mean().reset_index()
    return Derived(table, {"fig12": table})


#: One panel per topology (``{panel}``: 1 dumbbell, 2 parking lot).
SHARE = LineFigure(
    "fig12-{panel}",
    xlabel="beta",
    ylabel="SACK mean normalized throughput",
    title="Fig. 12 {name}",
    logx=True,
)


def plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, (panel, g) in enumerate(table.groupby("panel", sort=False)):
        series: Lines = {
            f"alpha={a:g}": (list(ga["beta"]), list(ga["sack"]), None)
            for a, ga in g.groupby("alpha", sort=False)
        }
        SHARE.draw(out, series, panel=i + 1, name=panel)


def claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    top_beta = max(_fig12_axes(quick)[1])
    lo, hi = FAIR_BAND
    what = "SACK mean normalized throughput"
    claims = []
    for panel, g in table.groupby("panel", sort=False):
        mid = g[(g["beta"] > 1.0) & (g["beta"] <= 5.0)]
        fair = {f"a={a:g},b={b:g}": s for a, b, s in mid[["alpha", "beta", "sack"]].to_numpy()}
        top = g[g["beta"] == top_beta]
        at10 = dict(zip(top["alpha"], top["sack"], strict=True))
        at1 = dict(zip(g[g["beta"] == 1.0]["alpha"], g[g["beta"] == 1.0]["sack"], strict=True))
        claims += [
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: for 1 < beta < 5 both get essentially the same throughput, "
                "over the range of alpha",
                each_within(fair, lo, hi, what, "for every 1 < beta <= 5"),
                series_str(fair, "{:.2f}", "{}"),
                values=fair,
            ),
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: at beta = {top_beta:g} TCP-SACK gets at most ~20 % more throughput",
                each_at_most(at10, hi, what, f"at beta = {top_beta:g} for every alpha"),
                f"by alpha: {series_str(at10, '{:.2f}')}",
                values=at10,
            ),
            make_claim(
                PAPER,
                "fig12",
                f"{panel}: at beta = 1 TCP-SACK gets more than its share",
                each_above(at1, 1.1, what, "at beta = 1 for every alpha"),
                f"by alpha: {series_str(at1, '{:.2f}')}",
                values=at1,
            ),
        ]
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig12",
        "SACK normalized throughput vs TCP-PR's alpha and beta (32 + 32 flows)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
