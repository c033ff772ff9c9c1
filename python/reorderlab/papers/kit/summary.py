"""Seed summaries of a sweep's table: per point, the mean and spread of
its metrics over the seeds.

Two shapes: a :data:`Table` of :class:`Stat` s keyed by (curve, x), for
figures drawn as curves of one metric against one parameter
(:func:`seed_stats`, :func:`x_values`, :func:`by_x`; drawn with
:func:`reorderlab.papers.kit.figure.stat_series`); and a DataFrame of seed
means per key columns (:func:`mean_by`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import pandas as pd

__all__ = ["Stat", "Table", "by_x", "mean_by", "seed_stats", "x_values"]


@dataclass
class Stat:
    """Means (and sample standard deviations) over the seeds of one point."""

    mean: dict[str, float] = field(default_factory=dict)
    sd: dict[str, float] = field(default_factory=dict)
    seeds: int = 0

    def __getitem__(self, metric: str) -> float:
        return self.mean[metric]


#: A figure's points by (curve, x).
Table = dict[tuple[str, float], Stat]


def seed_stats(
    df: pd.DataFrame,
    metrics: Sequence[str],
    pooled: Callable[[pd.DataFrame], dict[str, float]] | None = None,
) -> Table:
    """Per (curve, x) of a table of runs: the seed mean and sample standard
    deviation of each of ``metrics``; ``pooled(group)``: more values
    computed from the point's runs together (ratios of sums)."""
    table: Table = {}
    for key, g in df.groupby(["curve", "x"], sort=False):
        curve, x = cast(tuple[str, float], key)
        st = Stat(seeds=len(g))
        for m in metrics:
            vals = g[m].astype(float)
            st.mean[m] = float(vals.mean())
            st.sd[m] = float(vals.std(ddof=1)) if len(vals) > 1 else 0.0
        if pooled is not None:
            st.mean.update(pooled(g))
        table[(str(curve), float(x))] = st
    return table


def x_values(table: Table, curve: str) -> list[float]:
    """The x values of ``curve``, in order."""
    return sorted(x for c, x in table if c == curve)


def by_x(table: Table, curve: str, metric: str = "norm") -> dict[float, float]:
    """``metric`` of ``curve`` by x."""
    return {x: table[(curve, x)][metric] for x in x_values(table, curve)}


def mean_by(df: pd.DataFrame, keys: list[str], values: dict[str, str]) -> pd.DataFrame:
    """Seed means of ``values`` (new column -> source column) per ``keys``."""
    data = df.assign(**{new: df[old].astype(float) for new, old in values.items()})
    return data.groupby(keys, sort=False, dropna=False)[list(values)].mean().reset_index()
