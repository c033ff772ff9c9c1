"""``fig13``: throughput vs packet swaps per swap event, and the sensitivity
to the bottleneck rate and the delay reading (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    at_least_n,
    at_most,
    pct,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.figure import (
    series_of,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    Sensitivity,
    sensitivity_figure,
    with_sensitivity,
)
from reorderlab.papers.kit.summary import (
    mean_by,
)
from reorderlab.papers.tcp_pr.setting import (
    ACCESS_DELAY,
    DUPACK_VARIANTS,
    MODE,
    PAPER,
    PR,
    REORDER_VARIANTS,
    SACK,
    SENS_SWAPS,
    swap_scenario,
)
from reorderlab.papers.tcp_pr.tables import (
    by_variant_plot,
    throughput_of,
)
from reorderlab.scenario import (
    DumbbellTopology,
)

FIG13_SWAPS = (0, 2, 5, 10, 20, 50)
FIG13_DELAYS = (0.03, 0.18)


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    swaps = (0, 5, 20, 50) if quick else FIG13_SWAPS
    points: list[Point] = [
        ({"delay": d, "variant": v, "swaps": k}, swap_scenario(v, d, k, mode.duration))
        for d in FIG13_DELAYS
        for v in REORDER_VARIANTS
        for k in swaps
    ]
    return {RUNS: Sweep(points, mode.seeds)}


def plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, d in enumerate(FIG13_DELAYS):
        by_variant_plot(
            out,
            f"fig13-{i + 1}",
            table[table["delay"] == d],
            "swaps",
            "packet swaps per swap event",
            f"Fig. 13, {d * 1e3:g} ms",
        )


def _fig13_shortfall(mean: pd.Series, short_delay: bool) -> Claim:
    """30 ms: SACK close to the others; 180 ms: most dupack methods well below."""
    if short_delay:
        others = mean.drop(SACK)
        gap = 1 - mean[SACK] / float(others.mean())
        return make_claim(
            PAPER,
            "fig13",
            "30 ms: even SACK is only ~1.5 % below the other algorithms",
            at_most(gap, 0.05, "SACK's mean throughput over K > 0 below the others' mean", pct),
            f"SACK {mean[SACK] / 1e6:.2f} Mb/s vs others {others.mean() / 1e6:.2f} Mb/s "
            f"({100 * gap:.1f} % below)",
            gap=gap,
        )
    best = min(float(mean[PR]), float(mean["TD-FR"]))
    below = {v: 1 - float(mean[v]) / best for v in DUPACK_VARIANTS}
    return make_claim(
        PAPER,
        "fig13",
        "180 ms: most methods get ~25 % less throughput than TCP-PR and TD-FR",
        at_least_n(
            below.values(),
            ">=",
            0.15,
            3,
            "shortfall below min(TCP-PR, TD-FR) (mean over K > 0)",
            "dupack-based variants (SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA)",
            pct,
        ),
        f"shortfall: {series_str(below, '{:.0%}', '{}')}",
        shortfall=below,
    )


def claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for d in FIG13_DELAYS:
        sub = table[table["delay"] == d]
        swapped = sub[sub["swaps"] > 0]
        mean = swapped.groupby("variant", sort=False)["throughput_bps"].mean()
        claims.append(_fig13_shortfall(mean, d == FIG13_DELAYS[0]))
        pr = sub[sub["variant"] == PR]
        spread = float(pr["throughput_bps"].max() / pr["throughput_bps"].min())
        by_k = dict(zip(pr["swaps"], pr["throughput_bps"] / 1e6, strict=True))
        claims.append(
            make_claim(
                PAPER,
                "fig13",
                f"{d * 1e3:g} ms: TCP-PR's throughput is nearly independent of K",
                at_most(spread, 1.05, "max / min of TCP-PR's throughput over K"),
                f"by K: {series_str(by_k, '{:.2f}')} Mb/s (max/min {spread:.3f})",
                spread=spread,
            )
        )
    return claims


#: Bottleneck rates of the Fig. 13 sensitivity sweep (the paper gives none;
#: quick: fewer).
SENS_SWAP_RATES = {True: (1.5e6, 10e6), False: (1.5e6, 5e6, 10e6)}
#: The "30 ms propagation delay" read two ways: the bottleneck link's
#: one-way delay (assumed), or the round trip.
SENS_SWAP_DELAYS = {
    "30 ms one-way (assumed)": 0.03,
    "30 ms round trip": 0.015 - 2 * ACCESS_DELAY,
}


def _swap_points(quick: bool, seed: int) -> list[Point]:
    """Every variant at K = 5 swaps by bottleneck rate and delay reading."""
    mode = MODE(quick)
    points: list[Point] = []
    for meaning, delay in SENS_SWAP_DELAYS.items():
        for rate in SENS_SWAP_RATES[quick]:
            for v in REORDER_VARIANTS:
                sc = swap_scenario(v, delay, SENS_SWAPS, mode.duration)
                assert isinstance(sc.topology, DumbbellTopology)
                sc.topology.bottleneck_rate = rate
                points.append(({"delay": meaning, "rate": rate, "variant": v}, sc))
    return points


def _swap_table(df: pd.DataFrame) -> pd.DataFrame:
    """SACK's shortfall below the other variants' mean (the claim's measure)."""
    t = mean_by(df, ["delay", "rate", "variant"], {"tput": "throughput_bps"})
    rows = []
    for (meaning, rate), g in t.groupby(["delay", "rate"], sort=False):
        by = dict(zip(g["variant"], g["tput"], strict=True))
        others = float(np.mean([x for v, x in by.items() if v != SACK]))
        rows.append({"delay": meaning, "rate": rate, "shortfall": 1 - by[SACK] / others})
    return pd.DataFrame(rows)


SWAP_PLOT = sensitivity_figure(
    "fig13",
    xlabel="bottleneck rate (Mb/s)",
    ylabel=f"SACK below the others' mean (%), K = {SENS_SWAPS}",
    title="Fig. 13, 30 ms: bottleneck rate and delay reading",
)


def _swap_plot(table: pd.DataFrame, out: Path) -> None:
    mbps = table.assign(mbps=table["rate"] / 1e6)
    series = series_of(mbps, "delay", "mbps", "shortfall", yscale=100)
    rates = sorted(table["rate"].unique() / 1e6)
    series["the paper (1.5 %)"] = (rates, [1.5] * len(rates), None)
    SWAP_PLOT.draw(out, series)


FIGURES = (
    with_sensitivity(
        recipe(
            PAPER,
            "fig13",
            "Throughput vs packet swaps per swap event",
            points=plan,
            table=throughput_of("swaps", "fig13"),
            plot=plot,
            claims=claims,
        ),
        Sensitivity(_swap_points, _swap_table, _swap_plot),
    ),
)
