"""Paper recipes: paper name -> figure -> the steps that reproduce it.

A figure's recipe works in four steps, each a plain function:

``points(quick) -> Plan``
    the runs it needs (named :class:`~reorderlab.papers.common.Sweep` s of
    points x seeds; ``quick``: the short runs of ``--quick``);
``table(runs, quick) -> Derived``
    what the figure shows, computed from those runs only
    (:class:`~reorderlab.papers.common.Runs`), and the CSV tables written
    beside its plots;
``plot(data, out, quick)``
    its plots, under ``out`` (``results/<paper>/``);
``claims(data, quick) -> list[Claim]``
    the paper's claims checked against the data (:mod:`reorderlab.checks`);
    each that does not hold gets the deviation recorded for it in
    ``papers/deviations/<paper>.toml`` (:mod:`reorderlab.deviations`).

``reproduce`` runs all four, simulating what the store lacks;
:func:`recheck` (``reorderlab report --recheck``) runs the table and claims
steps on runs read from the store, simulating nothing. Register a figure
with :func:`recipe` in a module listed in ``_MODULES``; ``reorderlab
reproduce PAPER FIGURE`` finds it.
"""

from __future__ import annotations

import importlib
import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from reorderlab.claims import Claim, load_claims, write_claims
from reorderlab.plot import in_background
from reorderlab.store import Store

if TYPE_CHECKING:
    import pandas as pd

    from reorderlab.papers.common import Plan, Runs

__all__ = [
    "Derived",
    "FigureRecipe",
    "UnknownRecipeError",
    "papers",
    "recheck",
    "recipe",
    "reproduce",
]

T = TypeVar("T")

#: Each figure's steps are logged (INFO) as they end: ``scripts/profile_reproduce.py``
#: reads them to say where a reproduction's time goes.
_log = logging.getLogger(__name__)

#: Modules of this package that register recipes (imported on first use).
_MODULES: tuple[str, ...] = (
    "baseline",
    "rr_tcp",
    "tail_loss",
    "tcp_pr",
    "high_speed",
    "wwan",
    "validation",
)

_REGISTRY: dict[str, dict[str, FigureRecipe]] = {}


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
        from reorderlab.papers.common import Runs

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
        recorded for it (:mod:`reorderlab.deviations`)."""
        from reorderlab.deviations import explain

        return explain(self.claims(data, quick), quick)

    def derive(self, runs: Runs, quick: bool, out: Path) -> Derived[Any]:
        """The table step; its CSV tables written under ``out``."""
        from reorderlab.papers.common import write_table

        derived = self.table(runs, quick)
        for stem, rows in derived.csv.items():
            write_table(out, stem, rows)
        return derived


class UnknownRecipeError(KeyError):
    """No such paper or figure."""

    def __str__(self) -> str:
        return str(self.args[0])


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
    """Register the steps of ``paper`` / ``figure`` (see the module docstring).

    ``default=False`` leaves it out of ``reproduce PAPER`` (long or optional
    figures), though ``reproduce PAPER FIGURE`` still runs it. ``in_all=False``
    leaves it out of ``reproduce`` without a paper, though ``reproduce PAPER``
    runs it.
    """
    return register(
        FigureRecipe(paper, figure, title, points, table, plot, claims, default, in_all)
    )


def register(rec: FigureRecipe) -> FigureRecipe:
    """Register a recipe built elsewhere (e.g. a :class:`FigureRecipe`
    subclass with steps of its own, as ``validation`` has for its kernel
    runs)."""
    _REGISTRY.setdefault(rec.paper, {})[rec.figure] = rec
    return rec


def papers() -> dict[str, dict[str, FigureRecipe]]:
    """Every registered paper and its figures (in registration order)."""
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return _REGISTRY


def select(paper: str | None = None, figure: str | None = None) -> list[FigureRecipe]:
    """The recipes ``reproduce`` would run for these arguments."""
    registry = papers()
    if paper is None:
        return [r for figs in registry.values() for r in figs.values() if r.default and r.in_all]
    if paper not in registry:
        known = ", ".join(sorted(registry))
        raise UnknownRecipeError(f"unknown paper {paper!r} (known: {known})")
    figs = registry[paper]
    if figure is None:
        return [r for r in figs.values() if r.default]
    if figure not in figs:
        known = ", ".join(figs)
        raise UnknownRecipeError(f"unknown figure {figure!r} of paper {paper!r} (known: {known})")
    return [figs[figure]]


def reproduce(
    paper: str | None = None,
    figure: str | None = None,
    *,
    quick: bool = False,
    out: str | Path = "results",
    store: Store | None = None,
    on_figure: Callable[[FigureRecipe], None] | None = None,
) -> dict[str, list[Claim]]:
    """Run the selected recipes; write ``out/<paper>/claims.json`` for each paper.

    With a single figure selected, the claims file holds that figure's claims
    merged into any claims of the paper's other figures already on disk.
    With a store and several figures, every figure's runs are simulated
    ahead, in figure order, while the figures are made
    (:mod:`reorderlab.papers.ahead`).
    """
    out_dir = Path(out)
    chosen = select(paper, figure)
    by_paper: dict[str, list[Claim]] = {}
    plans: list[Plan | None] = [None] * len(chosen)
    runs_ahead = None
    if store is not None and len(chosen) > 1 and all(type(r) is FigureRecipe for r in chosen):
        # every figure's runs are simulated ahead, into the store, while the
        # figures are made in order (see papers.ahead); not for a figure
        # with steps of its own (the validation recipe's kernel runs, in
        # real time, want the cores to themselves)
        from reorderlab.papers.ahead import Ahead

        plans = [rec.points(quick) for rec in chosen]
        runs_ahead = Ahead([p for p in plans if p is not None], store.path).start()
    try:
        # figures are drawn by other processes while the next recipes simulate
        with in_background():
            for i, rec in enumerate(chosen):
                if on_figure is not None:
                    on_figure(rec)
                if runs_ahead is not None:
                    runs_ahead.wait(i)
                claims = rec.run(quick, out_dir / rec.paper, store, plans[i])
                by_paper.setdefault(rec.paper, []).extend(claims)
                _give_back_memory()
    finally:
        if runs_ahead is not None:
            runs_ahead.stop()
    for name, claims in by_paper.items():
        path = out_dir / name / "claims.json"
        merged = claims
        if figure is not None and path.exists():
            ran = {c.figure for c in claims}
            try:
                merged = [c for c in load_claims(path) if c.figure not in ran] + claims
            except (ValueError, TypeError):
                merged = claims
        write_claims(merged, path)
    return by_paper


def _give_back_memory() -> None:
    """Return the C heap's free memory to the system (glibc's
    ``malloc_trim``; elsewhere nothing). A figure's tables free their
    memory, but glibc keeps it: after tail-loss Fig. 4 the driver held
    512 MB, 248 MB once trimmed, and every figure after it started from
    there (a full reproduction's driver stayed at ~800 MB from Fig. 4 on)."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # (not glibc)
        return
    trim(0)


@dataclass(frozen=True)
class Rechecked:
    """One paper's claims before and after :func:`recheck`."""

    paper: str
    previous: list[Claim]
    claims: list[Claim]
    figures: list[str]  # the figures re-checked (others' claims are kept as they were)

    def changed(self) -> list[tuple[Claim | None, Claim | None]]:
        """(previous, re-checked) pairs that differ, in file order."""
        old = [c for c in self.previous if c.figure in self.figures]
        new = [c for c in self.claims if c.figure in self.figures]
        pairs = itertools.zip_longest(old, new)
        return [(a, b) for a, b in pairs if a is None or b is None or a.to_dict() != b.to_dict()]

    def summary(self) -> str:
        """One line: what was re-checked, what holds, what changed."""
        checked = sum(1 for c in self.claims if c.figure in self.figures)
        held = sum(1 for c in self.claims if c.holds)
        text = f"{checked} of {len(self.claims)} claims re-checked, {held} hold"
        changed = self.changed()
        if not changed:
            return text + "; the same as in the previous claims.json"
        first = next(c for pair in changed for c in pair if c is not None)
        return (
            f"{text}; {len(changed)} differ from the previous claims.json "
            f"(first: {first.figure} {first.claim!r})"
        )


def recheck(out: str | Path, store: Store, *, quick: bool) -> list[Rechecked]:
    """Re-derive the tables and claims of ``out`` from the runs in ``store``,
    simulating nothing.

    Every registered figure with claims in ``out/<paper>/claims.json`` is
    re-checked: its table step reads its runs (``quick``: those of
    ``--quick``) from the store, its CSV tables and claims are written again
    (claims in the file's order; claims of figures no longer registered are
    kept). Plots are left as they are. If any run is missing, nothing is
    written: :class:`~reorderlab.errors.MissingRunsError` says how many, of
    which figures, and names the first.
    """
    from reorderlab.papers.common import Runs
    from reorderlab.report import read_claims

    out_dir = Path(out)
    registry = papers()
    work: list[tuple[str, list[Claim], list[tuple[FigureRecipe, Runs]]]] = []
    for path in sorted(out_dir.glob("*/claims.json")):
        figs = registry.get(path.parent.name)
        if figs is None:
            continue  # a paper no longer registered
        previous = read_claims(path)
        order = [f for f in dict.fromkeys(c.figure for c in previous) if f in figs]
        runs = [(figs[f], Runs(figs[f].points(quick), store, simulate=False)) for f in order]
        work.append((path.parent.name, previous, runs))
    _check_stored([pair for _, _, runs in work for pair in runs], store, quick)
    done: list[Rechecked] = []
    for paper, previous, runs in work:
        fresh: dict[str, list[Claim]] = {}
        for rec, source in runs:
            data = rec.derive(source, quick, out_dir / paper).data
            fresh[rec.figure] = rec.check(data, quick)
        claims = _in_file_order(previous, fresh)
        write_claims(claims, out_dir / paper / "claims.json")
        done.append(Rechecked(paper, previous, claims, list(fresh)))
    return done


def _check_stored(recipes: Sequence[tuple[FigureRecipe, Runs]], store: Store, quick: bool) -> None:
    """Every run of every recipe is in the store, or a
    :class:`~reorderlab.errors.MissingRunsError` naming what is missing."""
    from reorderlab.errors import MissingRunsError
    from reorderlab.papers.common import describe

    missing = [(rec, runs.missing(), runs) for rec, runs in recipes]
    short = [(rec, jobs, runs) for rec, jobs, runs in missing if jobs]
    if not short:
        return
    n_missing = sum(len(jobs) for _, jobs, _ in short)
    total = sum(len(s.jobs()) for _, _, runs in short for s in runs.plan.values())
    names = ", ".join(f"{rec.paper} {rec.figure}" for rec, _, _ in short[:3])
    if len(short) > 3:
        names += f" and {len(short) - 3} more figures"
    rec, jobs, _ = short[0]
    mode = " --quick" if quick else ""
    raise MissingRunsError(
        f"{n_missing} of {total} runs of {names} are not in the store {store.path} "
        f"(first: {rec.paper} {rec.figure}: {describe(jobs[0])}); "
        f"'reorderlab reproduce{mode}' with this store runs them"
    )


def _in_file_order(previous: Sequence[Claim], fresh: Mapping[str, list[Claim]]) -> list[Claim]:
    """The re-checked claims in place of the previous ones of their figure,
    figures in the order they first appear in the file."""
    out: list[Claim] = []
    for figure in dict.fromkeys(c.figure for c in previous):
        out += fresh[figure] if figure in fresh else [c for c in previous if c.figure == figure]
    return out
