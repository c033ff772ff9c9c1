"""``kernel``: the kernel runs of the chain's points (``reorderlab reproduce
bbr-reordering kernel``; root, real time), then the figures that read them
(:mod:`.chain`, :mod:`.state`). Where the emulator cannot run it says why
and returns no claim. Not run by ``reproduce bbr-reordering`` (the figures
read whatever runs are saved)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from reorderlab.claims import Claim
from reorderlab.papers.bbr_reordering.chain import CHAIN
from reorderlab.papers.bbr_reordering.setting import PAPER, measure
from reorderlab.papers.bbr_reordering.state import STATE
from reorderlab.papers.kit.recipe import FigureRecipe
from reorderlab.papers.kit.runs import Plan
from reorderlab.store import Store


@dataclass(frozen=True)
class KernelRuns(FigureRecipe):
    """Emulate the chain's points not saved yet, then make the chain and
    state figures with them."""

    def run(
        self, quick: bool, out: Path, store: Store | None, plan: Plan | None = None
    ) -> list[Claim]:
        from reorderlab.emulate import unavailable_reason

        reason = unavailable_reason()
        if reason is not None:
            print(f"{PAPER}: kernel runs skipped: {reason}", file=sys.stderr)
            return []
        made = measure(quick, out)
        print(f"{PAPER}: {made} kernel runs made", file=sys.stderr)
        return CHAIN.run(quick, out, store) + STATE.run(quick, out, store)


FIGURES = (
    KernelRuns(
        PAPER,
        "kernel",
        "the chain's kernel runs (root; real time), then the chain and state figures",
        points=CHAIN.points,
        table=CHAIN.table,
        plot=CHAIN.plot,
        claims=CHAIN.claims,
        default=False,
        in_all=False,
    ),
)
