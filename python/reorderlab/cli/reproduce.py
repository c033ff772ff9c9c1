"""``reorderlab reproduce``: the figures and claims of the papers, then the
report. Its local workers are started before this module is imported
(:func:`reorderlab.cli.app`)."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from reorderlab.claims import print_claims
from reorderlab.cli.common import errors, fail
from reorderlab.cli.report import write_page
from reorderlab.cli.run import open_store
from reorderlab.papers import UnknownRecipeError, papers, select
from reorderlab.papers.kit.recipe import FigureRecipe
from reorderlab.reproduce import reproduce as run_recipes

__all__ = ["COMPACT_FROM", "cmd_reproduce"]

#: ``reproduce`` compacts its store at the end (``Store.compact``) when this
#: share of the file or more is free space: a session that added runs to a
#: store that had some leaves as much free space as the store had data.
COMPACT_FROM = 0.2


def cmd_reproduce(a: argparse.Namespace) -> None:
    """Reproduce a paper's figures; print and save its claims; rebuild the
    HTML report DIR/index.html."""
    con = Console(width=None if sys.stdout.isatty() else 140, soft_wrap=False)
    if a.list_only:
        _list(con)
        return
    try:
        select(a.paper, a.figure)
    except UnknownRecipeError as exc:
        fail(str(exc), 2)

    def announce(rec: FigureRecipe) -> None:
        mode = "quick" if a.quick else "full"
        con.print(f"[bold]{rec.paper} {rec.figure}[/bold] ({mode}): {rec.title}")

    with errors():
        st = open_store(a.store, a.no_cache)
        try:
            run_recipes(
                a.paper,
                a.figure,
                quick=a.quick,
                out=a.out,
                store=st,
                on_figure=announce,
                say=lambda line: con.print(line, markup=False, highlight=False),
                on_paper=lambda name, claims: print_claims(claims, con, title=f"{name}: claims"),
            )
            if st is not None and st.free_share() > COMPACT_FROM:
                st.compact()
        finally:
            if st is not None:
                st.close()
    print(f"wrote {write_page(a.out)}")


def _list(con: Console) -> None:
    """``reproduce --list``: every paper's figures."""
    for name, figs in papers().items():
        for fig, rec in figs.items():
            mark = "" if rec.default else " (not in the default set)"
            if not rec.in_all:
                mark = " (only when its paper is named)"
            con.print(f"{name} {fig}: {rec.title}{mark}")
