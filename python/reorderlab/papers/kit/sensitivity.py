"""Sensitivity sweeps: a figure's runs over a setting the paper does not
give, drawn beside the figure and never judged.

A figure's sensitivity runs are a sweep of its plan named
:data:`SENSITIVITY` (or, one sweep per seed, ``sensitivity@<seed>``);
they never enter its claims. A recipe either reads that sweep in its own
table step, or is wrapped with a :class:`Sensitivity` by
:func:`with_sensitivity`: the sweep's points for a mode and seed, the table
its runs give, and its plot ``<figure>-sensitivity`` (PNG, SVG and the
plotted points as CSV), the claims unchanged. The deviations of the
claims a sweep explains link its plot (``papers/deviations/<paper>.toml``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from reorderlab.claims import Claim
from reorderlab.papers.kit.figure import LineFigure
from reorderlab.papers.kit.recipe import Derived, FigureRecipe
from reorderlab.papers.kit.runs import Plan, Point, Runs, Sweep

__all__ = [
    "SENSITIVITY",
    "Sensitivity",
    "WithSensitivity",
    "per_seed_plan",
    "per_seed_rows",
    "sensitivity_figure",
    "with_sensitivity",
]

#: The plan entry of a figure's sensitivity runs (``@s`` appended: per seed).
SENSITIVITY = "sensitivity"


@dataclass(frozen=True)
class Sensitivity:
    """A figure's sensitivity sweep: its points for a mode and seed, the
    table its runs give, and the plot of that table (under ``out``);
    ``seeds``: how many seeds (1..n) in quick and in full mode."""

    points: Callable[[bool, int], list[Point]]
    table: Callable[[pd.DataFrame], pd.DataFrame]
    plot: Callable[[pd.DataFrame, Path], None]
    seeds: tuple[int, int] = (1, 2)


def per_seed_plan(sens: Sensitivity, quick: bool) -> dict[str, Sweep]:
    """The sweep's runs, one plan entry per seed (``sens.seeds``: quick,
    full; 1 and 2 by default)."""
    if min(sens.seeds) < 1:
        raise ValueError(f"Sensitivity.seeds: {sens.seeds!r}: at least one seed per mode")
    seeds = sens.seeds[0] if quick else sens.seeds[1]
    return {
        SENSITIVITY if s == 1 else f"{SENSITIVITY}@{s}": Sweep(sens.points(quick, s), [s])
        for s in range(1, seeds + 1)
    }


def per_seed_rows(runs: Runs) -> pd.DataFrame:
    """Every sensitivity run's row (params, seed, metrics), seed 1 first."""
    names = [k for k in runs.plan if k == SENSITIVITY or k.startswith(f"{SENSITIVITY}@")]
    return pd.concat([runs.table(k) for k in names], ignore_index=True)


def sensitivity_figure(figure: str, xlabel: str, ylabel: str, title: str, **kw: Any) -> LineFigure:
    """The plot of ``figure``'s sensitivity sweep, ``<figure>-sensitivity``."""
    return LineFigure(f"{figure}_sensitivity", xlabel, ylabel, title, **kw)


@dataclass(frozen=True)
class WithSensitivity:
    """A figure's data and its sensitivity table."""

    data: Any
    sensitivity: pd.DataFrame


def with_sensitivity(rec: FigureRecipe, sens: Sensitivity) -> FigureRecipe:
    """``rec`` with ``sens``: its sweep's runs join the plan, its table is
    made beside the figure's and its plot drawn beside the figure's; the
    claims are ``rec``'s, on the figure's own data."""

    def points(quick: bool) -> Plan:
        return {**rec.points(quick), **per_seed_plan(sens, quick)}

    def table(runs: Runs, quick: bool) -> Derived[WithSensitivity]:
        main = rec.table(runs, quick)
        return Derived(WithSensitivity(main.data, sens.table(per_seed_rows(runs))), main.csv)

    def plot(data: WithSensitivity, out: Path, quick: bool) -> None:
        rec.plot(data.data, out, quick)
        sens.plot(data.sensitivity, out)

    def claims(data: WithSensitivity, quick: bool) -> list[Claim]:
        return rec.claims(data.data, quick)

    return replace(rec, points=points, table=table, plot=plot, claims=claims)
