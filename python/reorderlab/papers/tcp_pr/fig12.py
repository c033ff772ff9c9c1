"""``fig12``: SACK's share vs TCP-PR's alpha and beta (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Check,
    band,
    difference,
    every,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
    per_seed,
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
    frame_records,
)
from reorderlab.papers.tcp_pr.setting import (
    FAIR_BAND,
    FAIR_SOURCE,
    MODE,
    PAPER,
    PR,
    SACK,
    dumbbell,
    parking_lot,
)
from reorderlab.papers.tcp_pr.tables import (
    drop_rate,
    per_flow,
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


#: Per run, besides the shares: the studied flows' drop rate, TCP-PR's
#: emulated timeouts (Table III) and halvings per flow, SACK's timeouts.
MECHANISM = ("drop_rate", "pr_timeouts", "pr_halvings", "sack_timeouts")


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    """Per run: SACK's and TCP-PR's mean normalized throughput and
    :data:`MECHANISM`; written as their seed means per (panel, alpha, beta)."""
    df = seeded_table(runs)
    records = frame_records(df)
    rows = df[["panel", "alpha", "beta", "seed"]].assign(
        sack=df[f"norm.{SACK}"].astype(float),
        pr=df[f"norm.{PR}"].astype(float),
        drop_rate=[drop_rate(r) for r in records],
        pr_timeouts=[per_flow(r, PR, "timeouts") for r in records],
        pr_halvings=[per_flow(r, PR, "fast_recoveries") for r in records],
        sack_timeouts=[per_flow(r, SACK, "timeouts") for r in records],
    )
    return Derived(rows, {"fig12": means(rows)})


def means(rows: pd.DataFrame) -> pd.DataFrame:
    """SACK's mean normalized throughput and :data:`MECHANISM` per (panel,
    alpha, beta), over the seeds."""
    cols = ["sack", *MECHANISM]
    return rows.groupby(["panel", "alpha", "beta"], sort=False)[cols].mean().reset_index()


#: One panel per topology (``{panel}``: 1 dumbbell, 2 parking lot).
SHARE = LineFigure(
    "fig12-{panel}",
    xlabel="beta",
    ylabel="SACK mean normalized throughput",
    title="Fig. 12 {name}",
    logx=True,
)


def plot(rows: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, (panel, g) in enumerate(means(rows).groupby("panel", sort=False)):
        series: Lines = {
            f"alpha={a:g}": (list(ga["beta"]), list(ga["sack"]), None)
            for a, ga in g.groupby("alpha", sort=False)
        }
        SHARE.draw(out, series, panel=i + 1, name=panel)


#: Sec. V's sentences on Fig. 12.
WIDE_QUOTE = (
    "However, for β larger than 1, both implementations achieve nearly identical performance."
)
BETA1_QUOTE = "Note that for β = 1, TCP-SACK exhibits higher throughput."


def _identical(g: pd.DataFrame) -> Check:
    """SACK's mean normalized throughput in the band at every (alpha, beta > 1)."""
    lo, hi = FAIR_BAND
    keys = g[g["beta"] > 1.0][["alpha", "beta"]].drop_duplicates().to_numpy()
    return every(
        {
            f"a={a:g},b={b:g}": band(
                per_seed(g, "sack", alpha=a, beta=b),
                lo,
                hi,
                f"SACK mean normalized throughput, alpha {a:g}, beta {b:g}",
                source=FAIR_SOURCE,
            )
            for a, b in keys
        },
        f"for every alpha and beta > 1: SACK's mean normalized throughput in [{lo:g}, {hi:g}] "
        "(95 % CI over the seeds)",
    )


def _beta1(g: pd.DataFrame) -> Check:
    """At beta = 1, SACK's mean normalized throughput above TCP-PR's, every alpha."""
    at1 = g[g["beta"] == 1.0]
    return every(
        {
            f"a={a:g}": difference(
                per_seed(at1, "sack", alpha=a),
                per_seed(at1, "pr", alpha=a),
                f"SACK - TCP-PR mean normalized throughput, alpha {a:g}, beta 1",
            )
            for a in at1["alpha"].unique()
        },
        "at beta = 1, for every alpha: SACK's mean normalized throughput above TCP-PR's "
        "(95 % CI of the paired difference > 0)",
    )


def _ci(check: Check) -> str:
    return ", ".join(
        f"{k}: {r['estimate']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]"
        for k, r in zip(_keys(check), check.tests, strict=True)
    )


def _keys(check: Check) -> list[str]:
    """The parameters each record of ``check`` tested, as the ``what`` says."""
    return [str(r["what"]).split(", ", 1)[1] for r in check.tests]


def claims(rows: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for panel, g in rows.groupby("panel", sort=False):
        wide, at1 = _identical(g), _beta1(g)
        claims += [
            paper_claim(
                PAPER,
                "fig12",
                f"{panel}: for beta > 1 both get nearly identical throughput, "
                "over the range of alpha",
                wide,
                quote=WIDE_QUOTE,
                where=f"Sec. V, Fig. 12 ({panel})",
                measured=f"SACK mean normalized throughput, 95 % CI: {_ci(wide)}",
            ),
            paper_claim(
                PAPER,
                "fig12",
                f"{panel}: at beta = 1 TCP-SACK gets more than TCP-PR",
                at1,
                quote=BETA1_QUOTE,
                where=f"Sec. V, Fig. 12 ({panel})",
                measured=f"SACK - TCP-PR, 95 % CI: {_ci(at1)}",
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
