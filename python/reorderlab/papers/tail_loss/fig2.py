"""``fig2``: normalized FCT of 10-segment flows losing their last n segments,
RTT 80 ms (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    all_of,
    each_at_least,
    each_below,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
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
    PAPER,
    RECEIVERS,
    VARIANTS,
    cell,
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
    return {RUNS: Sweep(points, 1)}


#: One panel per receiver (``{panel}``: 1 delack, 2 quickack).
FCT = LineFigure("fig2-{panel}", "segments lost", "FCT / baseline FCT", "Fig. 2 ({receiver})")


def plot(df: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, r in enumerate(RECEIVERS):
        lines = series_of(df[df["receiver"] == r], "variant", "lost", "norm")
        FCT.draw(out, lines, panel=i + 1, receiver=r)


def claims(df: pd.DataFrame, quick: bool) -> list[Claim]:
    losses = _fig2_losses(quick)
    claims = []
    for r in RECEIVERS:
        rtor = {n: cell(df, "norm", "RTOR", r, lost=n) for n in losses}
        what = "RTOR normalized FCT"
        vanishes = all_of(
            each_below({n: v for n, v in rtor.items() if n <= 3}, 0.98, what, "for n <= 3"),
            each_at_least({n: v for n, v in rtor.items() if n > 3}, 0.98, what, "for n > 3"),
        )
        claims.append(
            make_claim(
                PAPER,
                "fig2",
                f"{r}: RTOR's gain vanishes when more than 3 segments are lost "
                "(it is off with 4 or more outstanding)",
                vanishes,
                series_str(rtor, "{:.2f}"),
                norm=rtor,
            )
        )
        # Where RTOR's gain vanishes (n > 3), the probes still shorten the
        # tail (tail-loss Sec. 3.1: "TLP and TLPR ... try to enable fast
        # recovery as a response to any degree of tail loss"); for n = 1
        # with quickack the paper itself shows no TLP gain (its Eq. 2).
        probes = {
            f"{v} n={n}": cell(df, "norm", v, r, lost=n)
            for v in ("TLP", "TLPR")
            for n in losses
            if n > 3
        }
        claims.append(
            make_claim(
                PAPER,
                "fig2",
                f"{r}: TLP and TLPR keep their gains where RTOR's vanish (n > 3)",
                each_below(probes, 0.98, "normalized FCT of TLP and TLPR", "at every n > 3"),
                series_str(probes, "{:.2f}", "{}"),
                norm=probes,
            )
        )
    return [*claims, no_spurious_claim("fig2", df)]


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
