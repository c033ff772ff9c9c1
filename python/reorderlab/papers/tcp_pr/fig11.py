"""``fig11``: coefficient of variation vs packet loss rate (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    band,
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
    Point,
    Runs,
    frame_records,
)
from reorderlab.papers.tcp_pr.setting import (
    MODE,
    PAPER,
    PR,
    SACK,
    dumbbell,
    parking_lot,
)
from reorderlab.papers.tcp_pr.tables import (
    drop_rate,
    seeded,
    seeded_table,
)

FIG11_RATES = (15e6, 7.5e6, 4e6, 2e6, 1e6)
FIG11_FLOWS = 32
#: The paper's "ten simulations" (quick mode: the mode's seeds).
FIG11_SEEDS = 10


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    rates = FIG11_RATES[::2] if quick else FIG11_RATES

    def points(seed: int) -> list[Point]:
        return [
            point
            for rate in rates
            for point in (
                (
                    {"panel": "dumbbell", "n": rate},
                    dumbbell(FIG11_FLOWS, rate=rate, duration=mode.duration, seed=seed),
                ),
                (
                    {"panel": "parking lot", "n": rate},
                    parking_lot(FIG11_FLOWS, rate=rate, duration=mode.duration, seed=seed),
                ),
            )
        ]

    return seeded(points, mode.seeds if quick else FIG11_SEEDS)


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    """Per run: the studied flows' drop rate and each protocol's CoV
    (``fig11.csv``); per panel and seed, the ratio the claim tests
    (``fig11-seeds.csv``)."""
    df = seeded_table(runs)
    df["drop_rate"] = [drop_rate(r) for r in frame_records(df)]
    rows = df[["panel", "n", "seed", "drop_rate", f"cov.{PR}", f"cov.{SACK}"]].rename(
        columns={"n": "rate_bps"}
    )
    seeds = pd.DataFrame(
        [
            {"panel": panel, "seed": seed, "ratio": r}
            for panel in rows["panel"].unique()
            for seed, r in cov_ratio(rows, str(panel)).items()
        ]
    )
    return Derived(rows, {"fig11": rows, "fig11-seeds": seeds})


#: One panel per topology (``{panel}``: 1 dumbbell, 2 parking lot).
COV = LineFigure(
    "fig11-{panel}",
    xlabel="percent of packets dropped",
    ylabel="coefficient of variation",
    title="Fig. 11 {name}",
    styles={PR: "x", SACK: "o"},
)


def plot(rows: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, (panel, g) in enumerate(rows.groupby("panel", sort=False)):
        series: Lines = {
            v: (list(100 * g["drop_rate"]), list(g[f"cov.{v}"].astype(float)), None)
            for v in (PR, SACK)
        }
        COV.draw(out, series, panel=i + 1, name=panel)


#: Sec. V's sentence Fig. 11 encodes, and the band "similar" is read as.
COV_QUOTE = (
    "From Figures 4\u201311, we conclude that the mean and variance of the throughput for TCP-PR "
    "and TCP-SACK are similar."
)
COV_BAND = (0.5, 2.0)
COV_SOURCE = "'similar' (Sec. V): within a factor of 2 either way"


def cov_ratio(rows: pd.DataFrame, panel: str) -> dict[int, float]:
    """Per seed: TCP-PR's mean CoV over the loss rates / SACK's."""
    g = rows[rows["panel"] == panel]
    pr, sack = per_seed(g, f"cov.{PR}"), per_seed(g, f"cov.{SACK}")
    return {s: pr[s] / sack[s] if sack[s] > 0 else float("inf") for s in pr}


def claims(rows: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    lo, hi = COV_BAND
    for panel, g in rows.groupby("panel", sort=False):
        check = band(
            cov_ratio(rows, str(panel)),
            lo,
            hi,
            "mean CoV of TCP-PR / mean CoV of SACK over the loss rates",
            source=COV_SOURCE,
        )
        pr, sack = float(g[f"cov.{PR}"].mean()), float(g[f"cov.{SACK}"].mean())
        (rec,) = check.tests
        claims.append(
            paper_claim(
                PAPER,
                "fig11",
                f"{panel}: TCP-PR and SACK have similar coefficients of variation "
                "across loss rates",
                check,
                quote=COV_QUOTE,
                where=f"Sec. V, Fig. 11 ({panel})",
                measured=(
                    f"ratio {rec['estimate']:.2f} [{rec['lo']:.2f}, {rec['hi']:.2f}] over "
                    f"{g['seed'].nunique()} seeds (mean CoV TCP-PR {pr:.4f}, SACK {sack:.4f}; "
                    f"drop rates {100 * g['drop_rate'].min():.1f}-"
                    f"{100 * g['drop_rate'].max():.1f} %)"
                ),
            )
        )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig11",
        "Coefficient of variation vs packet loss rate",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
