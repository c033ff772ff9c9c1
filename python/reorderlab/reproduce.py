"""``reorderlab reproduce``: run the chosen figures' recipes and write each
paper's ``claims.json``.

Each figure's four steps (:mod:`reorderlab.papers.kit.recipe`) run in the
registry's order (:mod:`reorderlab.papers`): its runs are simulated where
the store lacks them, its tables and plots written under
``out/<paper>/``, its claims checked. With a store and several figures,
every figure's runs are simulated ahead, in figure order, while the
figures are made (:mod:`reorderlab.reproduce_ahead`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path

from reorderlab.claims import Claim, write_claims
from reorderlab.papers import select
from reorderlab.papers.kit.recipe import FigureRecipe
from reorderlab.papers.kit.runs import Plan
from reorderlab.plot import in_background
from reorderlab.report import ReportError, read_claims
from reorderlab.reproduce_progress import Progress
from reorderlab.run_info import record_papers
from reorderlab.runner import engine_version
from reorderlab.store import Store

__all__ = ["reproduce"]


def reproduce(
    paper: str | None = None,
    figure: str | None = None,
    *,
    quick: bool = False,
    out: str | Path = "results",
    store: Store | None = None,
    on_figure: Callable[[FigureRecipe], None] | None = None,
    say: Callable[[str], None] | None = None,
    on_paper: Callable[[str, list[Claim]], None] | None = None,
) -> dict[str, list[Claim]]:
    """Run the selected recipes; write ``out/<paper>/claims.json`` for each
    paper as soon as its last figure is done (an interrupted run keeps the
    claims of the papers it finished).

    With a single figure selected, the claims file holds that figure's claims
    merged into any claims of the paper's other figures already on disk.
    With a store and several figures, every figure's runs are simulated
    ahead, in figure order, while the figures are made
    (:mod:`reorderlab.reproduce_ahead`). ``say``: where the progress lines
    go (an ETA after each figure, each paper's claims file, a summary at the
    end: :mod:`reorderlab.reproduce_progress`); None: nowhere. ``on_paper``:
    called with each paper's claims once its file is written.
    """
    out_dir = Path(out)
    chosen = select(paper, figure)
    by_paper: dict[str, list[Claim]] = {}
    # every figure's plan at once (for the ETA, and for the look-ahead); a
    # figure with steps of its own makes its plan when it runs
    plans: list[Plan | None] = [
        rec.points(quick) if type(rec) is FigureRecipe else None for rec in chosen
    ]
    progress = Progress(
        chosen,
        plans,
        stored=None if store is None else store.existing,
        say=say or (lambda _line: None),
    )
    runs_ahead = None
    if store is not None and len(chosen) > 1 and all(type(r) is FigureRecipe for r in chosen):
        # every figure's runs are simulated ahead, into the store, while the
        # figures are made in order (see reproduce_ahead); not for a figure
        # with steps of its own (the validation recipe's kernel runs, in
        # real time, want the cores to themselves)
        from reorderlab.reproduce_ahead import Ahead

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
                give_back_memory()
                progress.figure_done(rec)
                if i + 1 == len(chosen) or chosen[i + 1].paper != rec.paper:
                    path = _write_paper(out_dir, rec.paper, by_paper[rec.paper], figure)
                    record_papers(out_dir, [rec.paper], quick, engine_version())
                    if on_paper is not None:
                        on_paper(rec.paper, by_paper[rec.paper])
                    progress.paper_done(rec.paper, by_paper[rec.paper], str(path))
    finally:
        if runs_ahead is not None:
            runs_ahead.stop()
    for line in progress.summary():
        progress.say(line)
    return by_paper


def _write_paper(out_dir: Path, name: str, claims: list[Claim], figure: str | None) -> Path:
    """Write ``out_dir/name/claims.json``: ``claims``, merged with the other
    figures' claims on disk when one figure was chosen."""
    path = out_dir / name / "claims.json"
    merged = claims
    if figure is not None and path.exists():
        ran = {c.figure for c in claims}
        try:
            merged = [c for c in read_claims(path) if c.figure not in ran] + claims
        except ReportError:
            merged = claims
    return write_claims(merged, path)


def give_back_memory() -> None:
    """Return the C heap's free memory to the system (glibc's
    ``malloc_trim``; elsewhere nothing). A figure's tables free their
    memory, but glibc keeps it: after tail-loss Fig. 4 the driver held
    512 MB, 248 MB once trimmed, and every figure after it started from
    there (a full reproduction's driver stayed at ~800 MB from Fig. 4 on)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # (not glibc)
        return
    trim(0)
