"""The tcp-pr paper (TCP-PR): sensitivity sweeps over what the paper does not give.

Each sweep is drawn beside its figure as ``<figure>_sensitivity`` (PNG, SVG,
and the plotted points as CSV) in both full and quick mode, and is linked
from the deviations of the claims it explains
(``papers/deviations/tcp_pr.toml``). A sweep's runs are their own sweep of
the figure's plan (:data:`SENSITIVITY`); they never enter its claims.

``fig4-5-7``
    RED's thresholds (ns-2's 5 / 15 packets assumed, the paper gives none)
    and SACK's limited transmit (ns-2 >= 2.1b9's default, assumed; the paper
    reports SACK timing out on any drop at cwnd < 4, Sec. III-B, which it
    does only without) at 16 flows: TCP-PR's mean normalized throughput.
``fig9``
    the web session count of the HTTP background, the knob calibrated to the
    paper's "around 10%" (Sec. V): the background's share of the delivered
    bytes and TCP-PR's mean normalized throughput, 16 flows.
``fig13``
    the bottleneck rate and the meaning of the "30 ms propagation delay"
    (one-way on the bottleneck, assumed, or the round trip), neither given:
    SACK's shortfall below the other variants at K = 5 swaps.
``fig15-16``
    the run's duration (not given): TCP-PR's slow-start overshoot at long
    RTTs takes minutes to recover from; single path and epsilon 0 at 60 ms
    per link, and Fig. 13's 180 ms case, throughput by duration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reorderlab.papers.common import Point, Runs, Sweep
from reorderlab.plot import line_plot

#: The plan entry (and, ``@s`` appended, per seed) of a figure's sensitivity runs.
SENSITIVITY = "sensitivity"

#: Plot series: label -> (xs, ys, errors).
Series = dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]]


@dataclass(frozen=True)
class Sensitivity:
    """A figure's sensitivity sweep: its points for a mode and seed, the
    table its runs give, and the plot of that table (under ``out``, file
    stem ``<figure>_sensitivity``)."""

    points: Callable[[bool, int], list[Point]]
    table: Callable[[pd.DataFrame], pd.DataFrame]
    plot: Callable[[pd.DataFrame, Path, str], None]


def plan(sens: Sensitivity, quick: bool) -> dict[str, Sweep]:
    """The sweep's runs, one plan entry per seed (1 quick, 2 full)."""
    seeds = 1 if quick else 2
    return {
        SENSITIVITY if s == 1 else f"{SENSITIVITY}@{s}": Sweep(sens.points(quick, s), [s])
        for s in range(1, seeds + 1)
    }


def rows(runs: Runs) -> pd.DataFrame:
    """Every sensitivity run's row (params, seed, metrics), seed 1 first."""
    names = [k for k in runs.plan if k == SENSITIVITY or k.startswith(f"{SENSITIVITY}@")]
    return pd.concat([runs.table(k) for k in names], ignore_index=True)


def stem(figure: str) -> str:
    """The file stem of a figure's sensitivity plot."""
    return f"{figure}_sensitivity"


def mean_by(df: pd.DataFrame, keys: list[str], values: dict[str, str]) -> pd.DataFrame:
    """Seed means of ``values`` (new column -> source column) per ``keys``."""
    data = df.assign(**{new: df[old].astype(float) for new, old in values.items()})
    return data.groupby(keys, sort=False, dropna=False)[list(values)].mean().reset_index()


def series_of(table: pd.DataFrame, label: str, x: str, y: str, scale: float = 1.0) -> Series:
    """One series per value of ``label``: ``y`` (times ``scale``) against ``x``."""
    return {
        str(name): (list(g[x].astype(float)), list(g[y].astype(float) * scale), None)
        for name, g in table.groupby(label, sort=False)
    }


def draw(out: Path, figure: str, series: Series, **labels: Any) -> None:
    """The sensitivity plot of ``figure``."""
    line_plot(out, stem(figure), series, **labels)
