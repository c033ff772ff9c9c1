"""``fig2``: normalized FCT of 10-segment flows losing their last n segments,
RTT 80 ms (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    difference,
    every,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
    per_seed,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    series_of,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Sweep,
)
from reorderlab.papers.tail_loss.setting import (
    BASELINE,
    CONTROLLED_SEEDS,
    PAPER,
    RECEIVERS,
    VARIANTS,
    controlled,
    controlled_table,
    no_spurious_claim,
)


def _fig2_losses(quick: bool) -> tuple[int, ...]:
    return (1, 3, 4, 5) if quick else (1, 2, 3, 4, 5)


def plan(quick: bool) -> Plan:
    points: list[Point] = [
        ({"variant": v, "receiver": r, "lost": n}, controlled(v, 0.08, r, n))
        for r in RECEIVERS
        for n in _fig2_losses(quick)
        for v in VARIANTS
    ]
    return {RUNS: Sweep(points, CONTROLLED_SEEDS)}


#: One panel per receiver (``{panel}``: 1 delack, 2 quickack).
FCT = LineFigure("fig2-{panel}", "segments lost", "FCT / baseline FCT", "Fig. 2 ({receiver})")


def plot(df: pd.DataFrame, out: Path, quick: bool) -> None:
    df = df[df["seed"] == df["seed"].min()]
    for i, r in enumerate(RECEIVERS):
        lines = series_of(df[df["receiver"] == r], "variant", "lost", "norm")
        FCT.draw(out, lines, panel=i + 1, receiver=r)


#: RTOR is on with fewer than four segments outstanding (RFC 7765 rrthresh;
#: tests/test_tail_loss_recipes.py checks that it is off above).
RTOR_MAX_LOST = 3


def _all_reduce(df: pd.DataFrame, r: str, losses: tuple[int, ...]) -> Claim:
    """Sec. 3.1: every mechanism's FCT below the baseline's as the degree of
    tail loss grows (n >= 2: n = 1 is Fig. 1's point at 80 ms), RTOR's only
    up to three."""
    parts = {
        f"{v} n={n}": difference(
            per_seed(df, "fct", variant=BASELINE, receiver=r, lost=n),
            per_seed(df, "fct", variant=v, receiver=r, lost=n),
            f"baseline FCT - {v} FCT, {r}, {n} lost (s)",
        )
        for v in ("RTOR", "TLP", "TLPR")
        for n in losses
        if n >= 2 and (v != "RTOR" or n <= RTOR_MAX_LOST)
    }
    return paper_claim(
        PAPER,
        "fig2",
        f"{r}: every mechanism reduces the FCT as more tail segments are lost, "
        "RTOR only up to three",
        every(parts, "below the baseline's FCT for n >= 2 (RTOR: n = 2-3)"),
        quote="In general, all the mechanisms are able to reduce the FCT when the degree of "
        "tail loss increases, with the exception of RTOR when the degree of loss is larger "
        "than three.",
        where="Sec. 3.1, Fig. 2",
    )


def claims(df: pd.DataFrame, quick: bool) -> list[Claim]:
    losses = _fig2_losses(quick)
    return [
        *(_all_reduce(df, r, losses) for r in RECEIVERS),
        no_spurious_claim("fig2", df),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig2",
        "Normalized FCT of 10-segment flows losing their last n segments",
        points=plan,
        table=controlled_table("fig2"),
        plot=plot,
        claims=claims,
    ),
)
