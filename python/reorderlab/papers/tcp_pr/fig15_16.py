"""``fig15-16``: throughput vs the multipath routing parameter epsilon, and
the sensitivity to the run's duration and to the mesh (:mod:`.setting`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    Check,
    all_of,
    band,
    every,
    ratio,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
    per_seed,
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
    MESH_HOPS,
    MODE,
    PAPER,
    PR,
    REORDER_VARIANTS,
    SACK,
    SENS_SEEDS,
    WINDOW,
    mesh_scenario,
)
from reorderlab.papers.tcp_pr.tables import (
    by_variant_plot,
    throughput_of,
    throughput_table,
)
from reorderlab.scenario import (
    Scenario,
)

FIG15_EPSILONS = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0, 500.0)
FIG15_DELAYS = (0.01, 0.06)
FIG15_VARIANTS = (*REORDER_VARIANTS, "TCP-DCR")
#: The methods that also use timers (Sec. VI-B's exception).
TIMER_VARIANTS = ("TD-FR", "TCP-DCR")
#: The Blanton-Allman schemes of Sec. VI (the rr-tcp paper's model, shared).
BL_VARIANTS = ("Inc-by-1", "Inc-by-N", "EWMA")


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


def plot(rows: pd.DataFrame, out: Path, quick: bool) -> None:
    table = throughput_table(rows, "epsilon")
    for i, d in enumerate(FIG15_DELAYS):
        by_variant_plot(
            out,
            f"fig15-16-{i + 1}",
            table[table["delay"] == d],
            "epsilon",
            "epsilon",
            f"Figs. 15-16, {d * 1e3:g} ms per link",
        )


#: Sec. VI-B's sentences on Figs. 15-16.
SINGLE_QUOTE = (
    "The simulations show that for ε = 500 (single-path routing), all methods achieve the "
    "same throughput."
)
DRASTIC_QUOTE = (
    "For ε = 0 (full multipath routing) most protocols other than TCP-PR suffer drastic "
    "decreases in throughput."
)
REASONABLE_QUOTE = (
    "The exception is time-delayed fastrecovery (TD-FR) and TCP-DCR, which still achieves a "
    "reasonable throughput for small values of ε when the propagation delay is small (the left "
    "plot in Figure 15)."
)
LARGE_QUOTE = (
    "However, as shown in Figure 15 and Figure 16, TD-FR and TCP-DCR still suffer a large "
    "decrease in throughput when the propagation delay is increased."
)
#: "Drastic", "large": below 0.7 of the reference; "reasonable": above it.
DECREASE = 0.7


def tput(rows: pd.DataFrame, variant: str, epsilon: float) -> dict[int, float]:
    """``variant``'s throughput per seed at ``epsilon``."""
    return per_seed(rows, "throughput_bps", variant=variant, epsilon=epsilon)


def _single(rows: pd.DataFrame) -> Check:
    at = rows[rows["epsilon"] == rows["epsilon"].max()]
    spread = {
        int(str(s)): float(g["throughput_bps"].max() / g["throughput_bps"].min())
        for s, g in at.groupby("seed")
    }
    return band(
        spread,
        None,
        1.1,
        "max / min throughput across the variants at epsilon 500",
        source="'the same throughput' (Sec. VI-B): within 10 %",
    )


def _drastic(rows: pd.DataFrame) -> Check:
    """At epsilon 0 TCP-PR keeps its single-path throughput; each dupack
    method falls below 0.7 of its own."""
    top = float(rows["epsilon"].max())

    def own(v: str, op: str, limit: float) -> Check:
        return ratio(
            tput(rows, v, 0.0),
            tput(rows, v, top),
            f"{v}: epsilon 0 / epsilon 500 throughput",
            op=op,
            limit=limit,
        )

    return all_of(
        own(PR, ">", 0.8),
        every(
            {v: own(v, "<", DECREASE) for v in DUPACK_VARIANTS},
            f"each of {', '.join(DUPACK_VARIANTS)}: epsilon 0 / epsilon 500 throughput < "
            f"{DECREASE:g} (95 % CI of the per-seed ratios)",
        ),
        sep=", and ",
    )


def _timers(rows: pd.DataFrame, op: str) -> Check:
    """TD-FR and TCP-DCR against TCP-PR at epsilon 0."""
    return every(
        {
            v: ratio(
                tput(rows, v, 0.0),
                tput(rows, PR, 0.0),
                f"{v} / TCP-PR throughput at epsilon 0",
                op=op,
                limit=DECREASE,
            )
            for v in TIMER_VARIANTS
        },
        f"TD-FR and TCP-DCR / TCP-PR at epsilon 0 {op} {DECREASE:g} each "
        "(95 % CI of the per-seed ratios)",
    )


def claims(rows: pd.DataFrame, quick: bool) -> list[Claim]:
    out = []
    for d in FIG15_DELAYS:
        sub = rows[rows["delay"] == d]
        ms = f"{d * 1e3:g} ms"
        where = "Sec. VI-B, Fig. 15 (left)" if d == FIG15_DELAYS[0] else "Sec. VI-B, Figs. 15-16"
        if d == FIG15_DELAYS[0]:
            name = f"{ms}: TD-FR and TCP-DCR still achieve reasonable throughput at small epsilon"
            timers, quote = _timers(sub, ">"), REASONABLE_QUOTE
        else:
            name = f"{ms}: TD-FR and TCP-DCR suffer a large decrease"
            timers, quote = _timers(sub, "<"), LARGE_QUOTE
        out += [
            paper_claim(
                PAPER,
                "fig15-16",
                f"{ms}: with single-path routing (epsilon = 500) all methods are equal",
                _single(sub),
                quote=SINGLE_QUOTE,
                where=where,
            ),
            paper_claim(
                PAPER,
                "fig15-16",
                f"{ms}: at epsilon = 0 TCP-PR keeps its throughput; "
                "dupack-based methods decrease drastically",
                _drastic(sub),
                quote=DRASTIC_QUOTE,
                where=where,
            ),
            paper_claim(PAPER, "fig15-16", name, timers, quote=quote, where=where),
        ]
    return out


#: Run durations of the start-up sweep (s); the paper gives none.
SENS_DURATIONS = {True: (90.0, 200.0), False: (90.0, 200.0, 600.0, 1000.0)}


def _at_epsilon_0(variant: str, duration: float) -> Scenario:
    return mesh_scenario(variant, 0.06, 0.0, duration)


#: label -> (scenario for a duration) of the 60 ms cases.
SENS_LONG_RTT: dict[str, Callable[[float], Scenario]] = {
    "60 ms single path, TCP-PR": lambda d: mesh_scenario(PR, 0.06, 500.0, d),
    "60 ms single path, SACK": lambda d: mesh_scenario(SACK, 0.06, 500.0, d),
    **{
        f"60 ms epsilon 0, {v}": functools.partial(_at_epsilon_0, v)
        for v in (PR, "Inc-by-N", *TIMER_VARIANTS)
    },
}
#: The meshes, window limits and undo responses of the mesh sweep (the paper
#: gives none of them): label -> (hops of the paths, window in packets, the
#: Blanton-Allman schemes' undo response given explicitly, whatever the
#: variants' default: the window restored at once, or slow start back to it
#: (tcp-pr footnote 2 on [1]); None: the variant's own).
SENS_MESHES: dict[str, tuple[tuple[int, ...], int, str | None]] = {
    "3/4/5 hops (assumed)": (MESH_HOPS, WINDOW, None),
    "3/4/5 hops, undo at once": (MESH_HOPS, WINDOW, "restore"),
    "3/4/5 hops, undo by slow start": (MESH_HOPS, WINDOW, "slow-start"),
    "3/5/7 hops": ((3, 5, 7), WINDOW, None),
    "3/6/9 hops": ((3, 6, 9), WINDOW, None),
    "2/4/6 hops": ((2, 4, 6), WINDOW, None),
    "3/4/5 hops, window 64": (MESH_HOPS, 64, None),
    "3/4/5 hops, window 20": (MESH_HOPS, 20, None),
}
#: The variants of the mesh sweep: TCP-PR and those whose claims fail.
SENS_MESH_VARIANTS = (PR, *BL_VARIANTS, *TIMER_VARIANTS)


def _sens_points(quick: bool, seed: int) -> list[Point]:
    """The 60 ms cases by run duration; epsilon 0 on other meshes, windows
    and undo responses (the figure's duration), at both delays."""
    mode = MODE(quick)
    points: list[Point] = [
        ({"sweep": "duration", "case": case, "duration": d, "mesh": "", "delay": 0.06}, build(d))
        for case, build in SENS_LONG_RTT.items()
        for d in SENS_DURATIONS[quick]
    ]
    meshes = dict(list(SENS_MESHES.items())[:4]) if quick else SENS_MESHES
    for mesh, (hops, window, undo) in meshes.items():
        for delay in (0.01, 0.06):
            for v in SENS_MESH_VARIANTS:
                if undo is not None and v not in BL_VARIANTS:
                    continue  # the others' runs are the mesh's own
                sc = mesh_scenario(v, delay, 0.0, mode.duration, hops=hops, window=window)
                if undo is not None:
                    sc.flows[0].tcp.undo_response = undo  # type: ignore[assignment]
                point = {"sweep": "mesh", "case": v, "duration": mode.duration, "mesh": mesh}
                points.append(({**point, "delay": delay}, sc))
    return points


def _sens_table(df: pd.DataFrame) -> pd.DataFrame:
    """Seed means of the throughput per case; the mesh sweep's also
    relative to TCP-PR on the same mesh and delay."""
    t = mean_by(df, ["sweep", "case", "duration", "mesh", "delay"], {"tput": "throughput_bps"})
    mesh = t["sweep"] == "mesh"
    pr_rows = t[mesh & (t["case"] == PR)]
    pr = {
        (str(m), float(d)): float(x)
        for m, d, x in pr_rows[["mesh", "delay", "tput"]].itertuples(index=False)
    }
    base = {m: m for m in SENS_MESHES} | {
        m: next(iter(SENS_MESHES)) for m, (_, _, undo) in SENS_MESHES.items() if undo
    }  # TCP-PR does not undo: the undo rows are against the assumed mesh's TCP-PR
    rel = [
        float(x) / pr[(base[str(m)], float(d))] if s == "mesh" else float("nan")
        for s, m, d, x in t[["sweep", "mesh", "delay", "tput"]].itertuples(index=False)
    ]
    return t.assign(mbps=t["tput"] / 1e6, relative=rel)


DURATION_PLOT = sensitivity_figure(
    "fig15-16",
    xlabel="run duration (s)",
    ylabel="throughput over the whole run (Mb/s)",
    title="60 ms per link: throughput by run duration",
    logx=True,
)
MESH_PLOT = sensitivity_figure(
    "fig15-16-mesh",
    xlabel="propagation delay per link (ms)",
    ylabel="throughput / TCP-PR's at epsilon 0",
    title="Epsilon 0 on other meshes and windows",
)


def _sens_plot(table: pd.DataFrame, out: Path) -> None:
    dur = table[table["sweep"] == "duration"]
    DURATION_PLOT.draw(out, series_of(dur, "case", "duration", "mbps"))
    mesh = table[(table["sweep"] == "mesh") & (table["case"] != PR)]
    mesh = mesh.assign(label=mesh["case"] + ", " + mesh["mesh"])
    MESH_PLOT.draw(out, series_of(mesh, "label", "delay", "relative", xscale=1e3))


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
        Sensitivity(_sens_points, _sens_table, _sens_plot, seeds=SENS_SEEDS),
    ),
)
