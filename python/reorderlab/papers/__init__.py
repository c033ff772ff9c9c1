"""Paper recipes: paper name -> figure -> function producing :class:`Claim` s.

A recipe is ``func(quick: bool, out: Path, store: Store | None) -> list[Claim]``:
it runs what it needs (through :func:`reorderlab.sweep`, so runs are cached in
``store``), writes its plots and data under ``out`` (``results/<paper>/``), and
returns the paper's claims checked against the measured numbers.

Register one with the :func:`recipe` decorator in a module listed in
``_MODULES``; ``reorderlab reproduce PAPER FIGURE`` finds it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reorderlab.claims import Claim, write_claims
from reorderlab.plot import in_background
from reorderlab.store import Store

__all__ = [
    "FigureRecipe",
    "RecipeFunc",
    "UnknownRecipeError",
    "papers",
    "recipe",
    "reproduce",
]

RecipeFunc = Callable[[bool, Path, Store | None], list[Claim]]

#: Modules of this package that register recipes (imported on first use).
_MODULES: tuple[str, ...] = ("baseline", "rr_tcp", "tail_loss", "tcp_pr", "high_speed", "wwan")

_REGISTRY: dict[str, dict[str, FigureRecipe]] = {}


@dataclass(frozen=True)
class FigureRecipe:
    """One figure (or table) of a paper and the function reproducing it."""

    paper: str
    figure: str
    title: str
    func: RecipeFunc
    default: bool = True


class UnknownRecipeError(KeyError):
    """No such paper or figure."""

    def __str__(self) -> str:
        return str(self.args[0])


def recipe(
    paper: str, figure: str, title: str, *, default: bool = True
) -> Callable[[RecipeFunc], RecipeFunc]:
    """Register ``func`` as the recipe of ``paper`` / ``figure``.

    ``default=False`` leaves it out of ``reproduce PAPER`` (long or optional
    figures), though ``reproduce PAPER FIGURE`` still runs it.
    """

    def register(func: RecipeFunc) -> RecipeFunc:
        _REGISTRY.setdefault(paper, {})[figure] = FigureRecipe(paper, figure, title, func, default)
        return func

    return register


def papers() -> dict[str, dict[str, FigureRecipe]]:
    """Every registered paper and its figures (in registration order)."""
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return _REGISTRY


def select(paper: str | None = None, figure: str | None = None) -> list[FigureRecipe]:
    """The recipes ``reproduce`` would run for these arguments."""
    registry = papers()
    if paper is None:
        return [r for figs in registry.values() for r in figs.values() if r.default]
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
    """
    out_dir = Path(out)
    chosen = select(paper, figure)
    by_paper: dict[str, list[Claim]] = {}
    # figures are drawn by another process while the next recipes simulate
    with in_background():
        for rec in chosen:
            if on_figure is not None:
                on_figure(rec)
            claims = rec.func(quick, out_dir / rec.paper, store)
            by_paper.setdefault(rec.paper, []).extend(claims)
    for name, claims in by_paper.items():
        path = out_dir / name / "claims.json"
        merged = claims
        if figure is not None and path.exists():
            from reorderlab.claims import load_claims

            ran = {c.figure for c in claims}
            try:
                merged = [c for c in load_claims(path) if c.figure not in ran] + claims
            except (ValueError, TypeError):
                merged = claims
        write_claims(merged, path)
    return by_paper
