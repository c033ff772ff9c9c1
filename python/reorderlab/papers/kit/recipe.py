"""A figure's recipe: four plain functions, the steps that reproduce it.

``points(quick) -> Plan``
    the runs it needs (named :class:`~reorderlab.papers.kit.runs.Sweep` s
    of points x seeds; ``quick``: the short runs of ``--quick``);
``table(runs, quick) -> Derived``
    what the figure shows, computed from those runs only
    (:class:`~reorderlab.papers.kit.runs.Runs`), and the CSV tables written
    beside its plots;
``plot(data, out, quick)``
    its plots, under ``out`` (``results/<paper>/``);
``claims(data, quick) -> list[Claim]``
    the paper's claims checked against the data (:mod:`reorderlab.checks`);
    each that does not hold gets the deviation recorded for it in
    ``papers/deviations/<paper>.toml`` (:func:`reorderlab.claims.explain`).

:mod:`reorderlab.reproduce` runs all four, simulating what the store
lacks; :mod:`reorderlab.recheck` (``reorderlab report --recheck``) runs the
table and claims steps on runs read from the store, simulating nothing.
A figure's module builds its recipe with :func:`recipe` and lists it in
its ``FIGURES``; the registry (:mod:`reorderlab.papers`) names the module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from reorderlab.claims import Claim, explain
from reorderlab.papers.kit.runs import Plan, Runs, write_table

if TYPE_CHECKING:
    import pandas as pd

    from reorderlab.store import Store

__all__ = ["Derived", "FigureRecipe", "recipe"]

T = TypeVar("T")

#: Each figure's steps are logged (INFO) as they end: ``scripts/profile_reproduce.py``
#: reads them to say where a reproduction's time goes.
_log = logging.getLogger("reorderlab.papers")


@dataclass(frozen=True)
class Derived(Generic[T]):
    """What a table step derives from the runs: the figure's ``data`` (for
    its plot and claims steps) and its CSV tables (file stem -> rows)."""

    data: T
    csv: Mapping[str, pd.DataFrame | Sequence[Mapping[str, Any]]] = field(default_factory=dict)


@dataclass(frozen=True)
class FigureRecipe:
    """One figure (or table) of a paper and the steps reproducing it."""

    paper: str
    figure: str
    title: str
    points: Callable[[bool], Plan]
    table: Callable[[Runs, bool], Derived[Any]]
    plot: Callable[[Any, Path, bool], None]
    claims: Callable[[Any, bool], list[Claim]]
    default: bool = True
    #: run by ``reproduce`` without a paper named (False: only by ``reproduce
    #: PAPER``, e.g. a figure that needs root and runs in real time)
    in_all: bool = True

    def run(
        self, quick: bool, out: Path, store: Store | None, plan: Plan | None = None
    ) -> list[Claim]:
        """Every step: simulate the runs the store lacks, write the tables
        and plots under ``out``, check the claims. ``plan``: the points
        step's result, if the caller has it already."""
        _log.info("figure start: %s %s", self.paper, self.figure)
        plan = self.points(quick) if plan is None else plan
        derived = self.derive(Runs(plan, store), quick, out)
        _log.info("figure tables done: %s %s", self.paper, self.figure)
        self.plot(derived.data, out, quick)
        _log.info("figure plots done: %s %s", self.paper, self.figure)
        claims = self.check(derived.data, quick)
        _log.info("figure claims done: %s %s", self.paper, self.figure)
        return claims

    def check(self, data: Any, quick: bool) -> list[Claim]:
        """The claims step, each claim that does not hold with the deviation
        recorded for it (:func:`reorderlab.claims.explain`)."""
        return explain(self.claims(data, quick), quick)

    def derive(self, runs: Runs, quick: bool, out: Path) -> Derived[Any]:
        """The table step; its CSV tables written under ``out``."""
        derived = self.table(runs, quick)
        for stem, rows in derived.csv.items():
            write_table(out, stem, rows)
        return derived


def recipe(
    paper: str,
    figure: str,
    title: str,
    *,
    points: Callable[[bool], Plan],
    table: Callable[[Runs, bool], Derived[T]],
    plot: Callable[[T, Path, bool], None],
    claims: Callable[[T, bool], list[Claim]],
    default: bool = True,
    in_all: bool = True,
) -> FigureRecipe:
    """The steps of ``paper`` / ``figure`` (see the module docstring), for
    a figure module's ``FIGURES``.

    ``default=False`` leaves it out of ``reproduce PAPER`` (long or optional
    figures), though ``reproduce PAPER FIGURE`` still runs it. ``in_all=False``
    leaves it out of ``reproduce`` without a paper, though ``reproduce PAPER``
    runs it.
    """
    return FigureRecipe(paper, figure, title, points, table, plot, claims, default, in_all)
