"""``fig4``: throughput vs the N2 buffer (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    each_at_most,
    each_near,
    most,
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
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.wwan.setting import (
    BDP,
    DURATION,
    PAPER,
    PAPER_VARIANTS,
    VARIANTS,
    scenario,
)


def _label(variant: str, in_order: bool) -> str:
    return f"{variant} {'in' if in_order else 'out'}"


FIG4_BUFFERS = (25, 50, 75, 100, 125, 150, 175, 200, 250)
QUICK_BUFFERS = (50, 100, 150, 200)
FIG4_PANELS = (("droptail", 0.03), ("droptail", 0.10), ("red", 0.10))


def _enough(by_buffer: dict[float, float], share: float = 0.95) -> float:
    """The smallest buffer reaching ``share`` of the curve's best throughput."""
    best = max(by_buffer.values())
    return min(b for b, t in by_buffer.items() if t >= share * best)


def plan(quick: bool) -> Plan:
    duration = DURATION(quick)
    buffers = QUICK_BUFFERS if quick else FIG4_BUFFERS
    points: list[Point] = [
        (
            {"qdisc": q, "error": e, "variant": v, "in_order": io, "buffer": b},
            scenario(v, in_order=io, frame_error=e, duration=duration, buffer=b, qdisc=q),
        )
        for q, e in FIG4_PANELS
        for v in VARIANTS
        for io in (True, False)
        for b in buffers
    ]
    return {RUNS: Sweep(points, 1 if quick else 3)}


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    df = runs.table()
    df["mbps"] = df["throughput_bps"].astype(float) / 1e6
    table = (
        df.groupby(["qdisc", "error", "variant", "in_order", "buffer"], sort=False)["mbps"]
        .mean()
        .reset_index()
    )
    return Derived(table, {"fig4": table})


#: Per panel (qdisc, error rate): each curve's throughput (Mb/s) by buffer.
Curves = dict[tuple[str, float], dict[str, dict[float, float]]]


def _curves(table: pd.DataFrame) -> Curves:
    curves: Curves = {}
    for q, e in FIG4_PANELS:
        sub = table[(table["qdisc"] == q) & (table["error"] == e)]
        panel: dict[str, dict[float, float]] = {}
        for (v, io), g in sub.groupby(["variant", "in_order"], sort=False):
            panel[_label(str(v), bool(io))] = dict(
                zip(g["buffer"].astype(float), g["mbps"].astype(float), strict=True)
            )
        curves[(q, e)] = panel
    return curves


#: One panel per (queue, error rate) of ``FIG4_PANELS``.
THROUGHPUT = LineFigure(
    "fig4-{panel}",
    xlabel="N2 buffer (segments)",
    ylabel="throughput (Mb/s)",
    title="Fig. 4 {qdisc} {error:g} %",
)


def plot(table: pd.DataFrame, out: Path, quick: bool) -> None:
    for i, ((q, e), panel) in enumerate(_curves(table).items()):
        series = {k: (list(c), list(c.values()), None) for k, c in panel.items()}
        THROUGHPUT.draw(out, series, panel=i + 1, qdisc=q, error=100 * e)


def _in_order(panel: dict[str, dict[float, float]]) -> dict[str, dict[float, float]]:
    """The paper's variants' in-order curves."""
    return {
        k: c
        for k, c in panel.items()
        if k.endswith(" in") and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
    }


def claims(table: pd.DataFrame, quick: bool) -> list[Claim]:
    curves = _curves(table)
    claims = []
    for e, need, text in ((0.03, BDP + 50, "75 + 50"), (0.10, BDP + 100, "75 + 100")):
        ins = {k: _enough(c) for k, c in _in_order(curves[("droptail", e)]).items()}
        claims.append(
            make_claim(
                PAPER,
                "fig4",
                f"DropTail {100 * e:g} %: in-order delivery needs about {text} segments of buffer",
                each_near(
                    {k: (b, need) for k, b in ins.items()},
                    50,
                    "smallest buffer reaching 95 % of each in-order curve's best",
                    f"{need} segments",
                    "",
                ),
                series_str(ins, "{:.0f}", "{}"),
                need=ins,
            )
        )
    for q, e in FIG4_PANELS[:2]:
        panel = curves[(q, e)]
        aix = panel["TCP-Aix out"]
        # "needs the least": the smallest buffer does best for Aix out-of-order
        small = min(aix)
        rel = {k: c[small] for k, c in _in_order(panel).items()}
        claims.append(
            make_claim(
                PAPER,
                "fig4",
                f"{q} {100 * e:g} %: out-of-order delivery with TCP-Aix needs the least buffer",
                each_at_most(
                    rel,
                    Ref(aix[small], "TCP-Aix out-of-order"),
                    f"at the smallest buffer ({small:g}), every in-order curve",
                    "",
                ),
                f"TCP-Aix out {aix[small]:.2f} Mb/s; in-order {series_str(rel, '{:.2f}', '{}')}",
            )
        )
    red, dt = curves[("red", 0.10)], curves[("droptail", 0.10)]
    diffs = {
        k: float(np.mean([red[k][b] - dt[k][b] for b in red[k]]))
        for k in red
        if k in dt and k.rsplit(" ", 1)[0] in PAPER_VARIANTS
    }
    claims.append(
        make_claim(
            PAPER,
            "fig4",
            "RED performs worse than DropTail for one flow (10 % errors)",
            most(
                diffs.values(), "<", 0, "mean over buffers of RED - DropTail throughput", "curves"
            ),
            series_str(diffs, "{:+.2f}", "{}") + " Mb/s",
            diffs=diffs,
        )
    )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig4",
        "Throughput vs buffer size at N2 (DropTail 3 %, 10 %; RED 10 %)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
