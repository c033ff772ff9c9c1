"""The tables, plots and claims several figures of the tcp-pr paper share: the
fairness figures' (Figs. 4-10: every panel at every flow count, seed by
seed) and the throughput-by-variant tables of Figs. 13 and 15-16."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Check,
    band,
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
    FigureRecipe,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    frame_records,
)
from reorderlab.papers.kit.sensitivity import (
    Sensitivity,
    with_sensitivity,
)
from reorderlab.papers.tcp_pr.setting import (
    FAIR_BAND,
    FAIR_SOURCE,
    FLOWS,
    MEASURE,
    MODE,
    PAPER,
    PR,
    dumbbell,
    parking_lot,
)
from reorderlab.scenario import (
    Scenario,
)

# --------------------------------------------------------------------------
# Fairness tables and plots
# --------------------------------------------------------------------------


#: One run's row of a sweep's table, column by column (``frame_records``:
#: the wide per-flow tables are read row by row much faster as dicts than
#: as ``iterrows``' Series).
Row = Mapping[str, Any]


def num(row: Row, col: str) -> float:
    v = row.get(col)
    return float(v) if v is not None and not pd.isna(v) else float("nan")


def fairness_table(df: pd.DataFrame, variants: tuple[str, str]) -> pd.DataFrame:
    """Per (panel, n): seed means of each protocol's mean normalized
    throughput and CoV, of its timeouts and loss recoveries per flow over
    the run (TCP-PR: emulated timeouts, Table III, and halvings), Jain's
    index, and the studied flows' drop rate."""
    rows = []
    for (panel, n), g in df.groupby(["panel", "n"], sort=False):
        row: dict[str, Any] = {"panel": panel, "n": int(str(n)), "seeds": len(g)}
        records = frame_records(g)
        for v in variants:
            row[f"norm.{v}"] = float(g[f"norm.{v}"].astype(float).mean())
            row[f"cov.{v}"] = float(g[f"cov.{v}"].astype(float).mean())
            for metric, col in (("timeouts", "timeouts"), ("fast_recoveries", "recoveries")):
                row[f"{col}.{v}"] = float(np.mean([per_flow(r, v, metric) for r in records]))
        row["jain_index"] = float(g["jain_index"].astype(float).mean())
        row["drop_rate"] = float(np.mean([drop_rate(r) for r in records]))
        row["background_share"] = float(np.mean([background_share(r) for r in records]))
        rows.append(row)
    return pd.DataFrame(rows)


def flow_columns(row: Row, metric: str) -> list[float]:
    cols = [c for c in row if c.startswith("f") and c.endswith(f".{metric}")]
    values = [num(row, c) for c in cols]
    return [v for v in values if not np.isnan(v)]  # runs with fewer flows: NaN columns


def per_flow(row: Row, variant: str, metric: str) -> float:
    """The mean of ``metric`` over the flows of ``variant`` in one run."""
    cols = [
        c.replace(".variant", f".{metric}")
        for c in row
        if c.startswith("f") and c.endswith(".variant") and row[c] == variant
    ]
    values = [num(row, c) for c in cols]
    return float(np.mean(values)) if values else float("nan")


def drop_rate(row: Row) -> float:
    drops = sum(flow_columns(row, "data_drops"))
    sent = sum(flow_columns(row, "data_packets_sent"))
    return drops / sent if sent else 0.0


def background_share(row: Row) -> float:
    """Share of the delivered bytes (measurement window) that is HTTP."""
    bg = float(np.nansum([num(row, c) for c in row if c.endswith(".bytes_delivered_measured")]))
    fg = sum(flow_columns(row, "throughput_bps")) * MEASURE / 8
    bg = 0.0 if np.isnan(bg) else bg
    return bg / (bg + fg) if bg + fg > 0 else 0.0


def per_flow_points(df: pd.DataFrame, panel: str, variant: str) -> tuple[list[float], list[float]]:
    """(n, T_i) of every flow of ``variant`` in every run of ``panel``."""
    xs: list[float] = []
    ys: list[float] = []
    for row in frame_records(df[df["panel"] == panel]):
        for col in row:
            if col.startswith("f") and col.endswith(".variant") and row[col] == variant:
                t = num(row, col.replace(".variant", ".normalized_throughput"))
                xs.append(float(row["n"]))
                ys.append(t)
    return xs, ys


#: A fairness panel's plot: every flow's normalized throughput and each
#: protocol's mean against the number of flows (``{stem}``, ``{panel}``).
FAIRNESS = LineFigure(
    "{stem}",
    xlabel="number of flows",
    ylabel="normalized throughput (last 60 s)",
    title="{panel}",
    logx=True,
)


def fairness_plot(
    out: Path,
    stem: str,
    df: pd.DataFrame,
    table: pd.DataFrame,
    panel: str,
    variants: tuple[str, str],
) -> list[Path]:
    series: Lines = {}
    styles: dict[str, str] = {}
    sub = table[table["panel"] == panel]
    for v, (dot, line) in zip(variants, (("x", "o-"), ("+", "s--")), strict=True):
        xs, ys = per_flow_points(df, panel, v)
        series[f"{v} flows"] = (xs, ys, None)
        styles[f"{v} flows"] = dot
        series[f"{v} mean"] = (list(sub["n"].astype(float)), list(sub[f"norm.{v}"]), None)
        styles[f"{v} mean"] = line
    return replace(FAIRNESS, styles=styles).draw(out, series, stem=stem, panel=panel)


#: Sec. V's sentence the fairness panels of Figs. 4, 5, 7, 9 and 10 encode.
FAIR_QUOTE = (
    "From the graphs, it is clear that the two versions of TCP-PR and TCP-SACK compete "
    "fairly over a wide range of traffic conditions and thus exhibit similar performance."
)


def fair_name(panel: str) -> str:
    """The short name of a fairness panel's claim."""
    return f"{panel}: TCP-PR and SACK compete fairly at every number of flows"


def fair_check(df: pd.DataFrame, panel: str) -> Check:
    """TCP-PR's mean normalized throughput in :data:`FAIR_BAND` at every n
    of ``panel`` (95 % CI over the seeds). With as many TCP-PR as SACK
    flows the two means add up to 2, so SACK's is in the band too."""
    lo, hi = FAIR_BAND
    rows = df[df["panel"] == panel]
    return every(
        {
            n: band(
                per_seed(rows, f"norm.{PR}", n=n),
                lo,
                hi,
                f"TCP-PR mean normalized throughput, {n} flows",
                source=FAIR_SOURCE,
            )
            for n in sorted(rows["n"].unique())
        },
        f"at every n: TCP-PR's mean normalized throughput in [{lo:g}, {hi:g}] "
        "(95 % CI over the seeds; SACK's is 2 minus it)",
    )


def fair_claims(figure: str, df: pd.DataFrame) -> list[Claim]:
    """For each panel of ``df`` (the fairness runs, one row per run):
    TCP-PR and SACK compete fairly at every n (:func:`fair_check`)."""
    claims = []
    for panel in df["panel"].unique():
        check = fair_check(df, str(panel))
        ns = sorted(df[df["panel"] == panel]["n"].unique())
        by_n = ", ".join(
            f"{n}: {r['estimate']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]"
            for n, r in zip(ns, check.tests, strict=True)
        )
        claims.append(
            paper_claim(
                PAPER,
                figure,
                fair_name(str(panel)),
                check,
                quote=FAIR_QUOTE,
                where=f"Sec. V, {panel}",
                measured=f"TCP-PR mean normalized throughput by n, 95 % CI: {by_n}",
            )
        )
    return claims


#: A panel of a fairness figure: its run for n flows, a duration and a seed.
Panel = Callable[[int, float, int], Scenario]
Panels = dict[str, Panel]


def dumbbell_panel(**settings: Any) -> Panel:
    """A dumbbell panel: n flows for a duration, with ``settings``."""
    return lambda n, d, seed: dumbbell(n, duration=d, seed=seed, **settings)


def parking_lot_panel(qdisc: str) -> Panel:
    """A parking-lot panel: n flows for a duration through ``qdisc``."""
    return lambda n, d, seed: parking_lot(n, qdisc=qdisc, duration=d, seed=seed)


def seeded(points: Callable[[int], list[Point]], seeds: int, name: str = RUNS) -> dict[str, Sweep]:
    """One sweep per seed s of the points built for s (whose flows start as
    :func:`flow_starts` says for s): ``name`` for seed 1, ``name@s`` after."""
    return {name if s == 1 else f"{name}@{s}": Sweep(points(s), [s]) for s in range(1, seeds + 1)}


def seeded_table(runs: Runs, name: str = RUNS) -> pd.DataFrame:
    """The rows of every seed's sweep of :func:`seeded`, seed 1 first."""
    names = [k for k in runs.plan if k == name or k.startswith(f"{name}@")]
    # copy(): one block per dtype (the columns of a run's table come one by one)
    return pd.concat([runs.table(k) for k in names], ignore_index=True).copy()


def fairness_sweep(panels: Panels, quick: bool, name: str = RUNS) -> dict[str, Sweep]:
    """Every panel at every n, for every seed."""
    mode = MODE(quick)
    return seeded(
        lambda seed: [
            ({"panel": panel, "n": n}, build(n, mode.duration, seed))
            for panel, build in panels.items()
            for n in FLOWS(quick)
        ],
        mode.seeds,
        name,
    )


@dataclass(frozen=True)
class Fairness:
    """A fairness figure's runs (one row per run) and their :func:`fairness_table`."""

    runs: pd.DataFrame
    table: pd.DataFrame


def fairness_recipe(
    figure: str,
    title: str,
    panels: Panels,
    variants: tuple[str, str],
    *,
    judged: bool = True,
    more_claims: Callable[[Fairness], list[Claim]] | None = None,
    sensitivity: Sensitivity | None = None,
) -> FigureRecipe:
    """Register a fairness figure: every panel at every n; its table
    (``<figure>.csv``); one plot per panel; for each panel TCP-PR and SACK
    compete fairly (``judged``: False for the SACK vs Reno reference of
    Figs. 6 and 8, which the paper shows "for comparison purposes"), and
    ``more_claims``. ``sensitivity``: its sweep
    (:func:`~reorderlab.papers.kit.sensitivity.with_sensitivity`)."""

    def points(quick: bool) -> Plan:
        return fairness_sweep(panels, quick)

    def table(runs: Runs, quick: bool) -> Derived[Fairness]:
        df = seeded_table(runs)
        t = fairness_table(df, variants)
        return Derived(Fairness(df, t), {figure: t})

    def plot(data: Fairness, out: Path, quick: bool) -> None:
        for i, name in enumerate(panels):
            fairness_plot(out, f"{figure}-{i + 1}", data.runs, data.table, name, variants)

    def claims(data: Fairness, quick: bool) -> list[Claim]:
        extra = more_claims(data) if more_claims is not None else []
        return (fair_claims(figure, data.runs) if judged else []) + extra

    rec = recipe(PAPER, figure, title, points=points, table=table, plot=plot, claims=claims)
    return rec if sensitivity is None else with_sensitivity(rec, sensitivity)


def throughput_table(df: pd.DataFrame, x: str) -> pd.DataFrame:
    return df.groupby(["delay", "variant", x], sort=False)["throughput_bps"].mean().reset_index()


#: Throughput by variant against ``x`` (Figs. 13, 15-16: ``{stem}``).
BY_VARIANT = LineFigure("{stem}", xlabel="{xlabel}", ylabel="throughput (Mb/s)", title="{title}")


def by_variant_plot(
    out: Path, stem: str, table: pd.DataFrame, x: str, xlabel: str, title: str
) -> None:
    series: Lines = {
        str(v): (list(g[x].astype(float)), list(g["throughput_bps"] / 1e6), None)
        for v, g in table.groupby("variant", sort=False)
    }
    BY_VARIANT.draw(out, series, stem=stem, xlabel=xlabel, title=title)


def throughput_of(x: str, figure: str) -> Callable[[Runs, bool], Derived[pd.DataFrame]]:
    """The table step of Figs. 13, 15-16: every run's throughput (delay,
    variant, ``x``, seed), written as its mean per (delay, variant, ``x``)
    in ``<figure>.csv``."""

    def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
        df = runs.table()
        df["throughput_bps"] = df["throughput_bps"].astype(float)
        rows = df[["delay", "variant", x, "seed", "throughput_bps"]]
        return Derived(rows, {figure: throughput_table(rows, x)})

    return table


#: The TCP-PR vs SACK dumbbell panels of Figs. 4, 5 and 7 (n, duration -> scenario).
PR_PANELS: Panels = {
    "Fig. 4 RED, 15 Mb/s, 200 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.2, limit=250, qdisc="red", duration=d, seed=seed
    ),
    "Fig. 4 RED, 15 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.02, limit=25, qdisc="red", duration=d, seed=seed
    ),
    "Fig. 5 DropTail, 15 Mb/s, 200 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.2, limit=250, duration=d, seed=seed
    ),
    "Fig. 5 DropTail, 15 Mb/s, 20 ms, 250 pkts": lambda n, d, seed: dumbbell(
        n, rtt=0.02, limit=250, duration=d, seed=seed
    ),
    "Fig. 7 DropTail, 1.5 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rate=1.5e6, limit=25, duration=d, seed=seed
    ),
    "Fig. 7 RED, 1.5 Mb/s, 20 ms, 25 pkts": lambda n, d, seed: dumbbell(
        n, rate=1.5e6, limit=25, qdisc="red", duration=d, seed=seed
    ),
}
