"""The registry of paper recipes: paper key -> figure key -> its recipe.

Each paper is a package of this one: a module for its setting (scenario
builders, constants, the assumptions in its docstring) and one module per
figure or group of figures, which holds that figure's four steps together
(:mod:`reorderlab.papers.kit.recipe`) and lists them in its ``FIGURES``.
:data:`PAPERS` names those modules, in the order of the figures: adding a
figure is one new module and one entry there (``docs/architecture.md``).
``reorderlab reproduce PAPER FIGURE`` finds it.

:mod:`reorderlab.reproduce` and :mod:`reorderlab.recheck` run the recipes;
:mod:`reorderlab.report` shows their claims with the titles found here.
"""

from __future__ import annotations

import importlib

from reorderlab.papers.kit.recipe import FigureRecipe

__all__ = ["PAPERS", "UnknownRecipeError", "papers", "register", "select", "title"]

#: Paper key -> its figure modules (``reorderlab.papers.<package>.<module>``,
#: the package the key with ``-`` as ``_``), in the order of its figures.
PAPERS: dict[str, tuple[str, ...]] = {
    "baseline": ("undisturbed", "random_loss"),
    "rr-tcp": (
        "fig1",
        "fig4_5",
        "fig6",
        "fig7",
        "fig8",
        "fig9",
        "fig10_11",
        "fig12_13_table3",
        "fig14",
        "fig15",
        "fig16",
        "fig17_18",
        "table4_fig19",
    ),
    "tail-loss": ("fig1", "fig2", "fig3", "fig4"),
    "tcp-pr": ("fig4_5_7", "fig6_8", "fig9", "fig10", "fig11", "fig12", "fig13", "fig15_16"),
    "high-speed": ("fig9", "fig10", "fig11", "fig12_13_14"),
    "wwan": ("fig2", "fig3", "fig4"),
    "validation": ("fig4",),
    "spraying": ("fct",),
    "bbr-reordering": ("chain", "state", "gigabit", "kernel"),
    "quic-reordering": ("table2711",),
}

_REGISTRY: dict[str, dict[str, FigureRecipe]] = {}
_loaded = False


class UnknownRecipeError(KeyError):
    """No such paper or figure."""

    def __str__(self) -> str:
        return str(self.args[0])


def package(paper: str) -> str:
    """The module path of a paper's package."""
    return f"{__name__}.{paper.replace('-', '_')}"


def register(rec: FigureRecipe) -> FigureRecipe:
    """Add a recipe to the registry (the figure modules' are added by
    :func:`papers`; a test adds its own)."""
    _REGISTRY.setdefault(rec.paper, {})[rec.figure] = rec
    return rec


def papers() -> dict[str, dict[str, FigureRecipe]]:
    """Every registered paper and its figures (in :data:`PAPERS` order)."""
    global _loaded
    if not _loaded:
        for paper, modules in PAPERS.items():
            for name in modules:
                module = importlib.import_module(f"{package(paper)}.{name}")
                for rec in module.FIGURES:
                    if rec.paper != paper:
                        raise ValueError(f"{module.__name__}: a figure of {rec.paper!r}")
                    register(rec)
        _loaded = True
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


def title(paper: str) -> str:
    """A registered paper's title: the first line of its package's
    docstring (the key for a paper registered without a package)."""
    papers()
    if paper not in PAPERS:
        return paper
    doc = importlib.import_module(package(paper)).__doc__ or paper
    return doc.strip().splitlines()[0].rstrip(".")
