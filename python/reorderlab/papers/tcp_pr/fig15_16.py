"""``fig15-16``: throughput vs the multipath routing parameter epsilon, and
the sensitivity to the run's duration (:mod:`.setting`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    at_least,
    at_most,
    each_at_least,
    each_at_most,
    each_below,
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
    DUPACK_VARIANTS,
    MODE,
    PAPER,
    PR,
    REORDER_VARIANTS,
    SACK,
    SENS_SWAPS,
    mesh_scenario,
    swap_scenario,
)
from reorderlab.papers.tcp_pr.tables import (
    by_variant_plot,
    throughput_of,
)
from reorderlab.scenario import (
    Scenario,
)

FIG15_EPSILONS = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0, 500.0)
FIG15_DELAYS = (0.01, 0.06)
FIG15_VARIANTS = (*REORDER_VARIANTS, "TCP-DCR")


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    epsilons = (0.0, 1.0, 500.0) if quick else FIG15_EPSILONS
    points: list[Point] = [
        ({"delay": d, "variant": v, "epsilon": e}, mesh_scenario(v, d, e, mode.duration))
        for d in FIG15_DELAYS
        for v in FIG15_VARIANTS
        for e in epsilons
    ]
    return {RUNS: Sweep(points, mode.seeds)}


def plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, d in enumerate(FIG15_DELAYS):
        by_variant_plot(
            out,
            f"fig15-16-{i + 1}",
            table[table["delay"] == d],
            "epsilon",
            "epsilon",
            f"Figs. 15-16, {d * 1e3:g} ms per link",
        )


def claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    claims = []
    for d in FIG15_DELAYS:
        sub = table[table["delay"] == d]
        at: dict[float, dict[str, float]] = {
            float(str(e)): {
                str(v): float(t) for v, t in zip(g["variant"], g["throughput_bps"], strict=True)
            }
            for e, g in sub.groupby("epsilon")
        }
        claims += _multipath_claims(d, at)
    return claims


def _multipath_claims(d: float, at: dict[float, dict[str, float]]) -> list[Claim]:
    """The claims at one link delay ``d``; ``at``: throughput by epsilon and variant."""
    ms = f"{d * 1e3:g} ms"
    single = at[max(at)]
    spread = max(single.values()) / min(single.values())
    full = at[0.0]
    pr = full[PR]
    rel = {v: full[v] / pr for v in FIG15_VARIANTS if v != PR}
    timers = {v: rel[v] for v in ("TD-FR", "TCP-DCR")}
    keeps = all_of(
        at_least(
            pr, Ref(single[PR], "its epsilon-500 throughput", times=0.8), "TCP-PR at epsilon 0"
        ),
        each_at_most(
            {v: rel[v] for v in DUPACK_VARIANTS},
            0.7,
            "SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA / TCP-PR",
            "each",
        ),
        sep=", and ",
    )
    what = "TD-FR and TCP-DCR / TCP-PR at epsilon 0"
    if d == FIG15_DELAYS[0]:
        claim = "10 ms: TD-FR and TCP-DCR still achieve reasonable throughput at small epsilon"
        timer_check = each_at_least(timers, 0.7, what, "each")
    else:
        claim = "60 ms: TD-FR and TCP-DCR suffer a large decrease"
        timer_check = each_below(timers, 0.7, what, "each")
    return [
        make_claim(
            PAPER,
            "fig15-16",
            f"{ms}: with single-path routing (epsilon = 500) all methods are equal",
            at_most(spread, 1.1, "max / min throughput across variants"),
            f"{series_str({k: v / 1e6 for k, v in single.items()}, '{:.2f}', '{}')} Mb/s "
            f"(max/min {spread:.2f})",
            spread=spread,
        ),
        make_claim(
            PAPER,
            "fig15-16",
            f"{ms}: at epsilon = 0 only TCP-PR keeps its throughput; "
            "dupack-based methods drop drastically",
            keeps,
            f"TCP-PR {pr / 1e6:.2f} Mb/s ({pr / single[PR]:.2f} x single path); "
            f"others / TCP-PR: {series_str(rel, '{:.2f}', '{}')}",
            relative=rel,
        ),
        make_claim(
            PAPER,
            "fig15-16",
            claim,
            timer_check,
            f"relative to TCP-PR: {series_str(timers, '{:.2f}', '{}')}",
        ),
    ]


#: Run durations of the start-up sweep (s); the paper gives none.
SENS_DURATIONS = {True: (90.0, 200.0), False: (90.0, 200.0, 600.0, 1000.0)}
#: label -> (scenario for a duration) of the long-RTT cases.
SENS_LONG_RTT: dict[str, Callable[[float], Scenario]] = {
    "60 ms single path, TCP-PR": lambda d: mesh_scenario(PR, 0.06, 500.0, d),
    "60 ms single path, SACK": lambda d: mesh_scenario(SACK, 0.06, 500.0, d),
    "60 ms epsilon 0, TCP-PR": lambda d: mesh_scenario(PR, 0.06, 0.0, d),
    "60 ms epsilon 0, TD-FR": lambda d: mesh_scenario("TD-FR", 0.06, 0.0, d),
    "60 ms epsilon 0, TCP-DCR": lambda d: mesh_scenario("TCP-DCR", 0.06, 0.0, d),
    "Fig. 13 180 ms K=5, TCP-PR": lambda d: swap_scenario(PR, 0.18, SENS_SWAPS, d),
    "Fig. 13 180 ms K=5, SACK": lambda d: swap_scenario(SACK, 0.18, SENS_SWAPS, d),
}


def _duration_points(quick: bool, seed: int) -> list[Point]:
    """The long-RTT cases by run duration."""
    return [
        ({"case": case, "duration": d}, build(d))
        for case, build in SENS_LONG_RTT.items()
        for d in SENS_DURATIONS[quick]
    ]


def _duration_table(df: pd.DataFrame) -> pd.DataFrame:
    return mean_by(df, ["case", "duration"], {"tput": "throughput_bps"})


DURATION_PLOT = sensitivity_figure(
    "fig15-16",
    xlabel="run duration (s)",
    ylabel="throughput over the whole run (Mb/s)",
    title="Long RTTs: TCP-PR's start-up by run duration",
    logx=True,
)


def _duration_plot(table: pd.DataFrame, out: Path) -> None:
    DURATION_PLOT.draw(out, series_of(table, "case", "duration", "tput", yscale=1e-6))


FIGURES = (
    with_sensitivity(
        recipe(
            PAPER,
            "fig15-16",
            "Throughput vs multipath routing parameter epsilon",
            points=plan,
            table=throughput_of("epsilon", "fig15-16"),
            plot=plot,
            claims=claims,
        ),
        Sensitivity(_duration_points, _duration_table, _duration_plot),
    ),
)
