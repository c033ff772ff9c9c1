"""``fig12-13-14``: BIC with TCP-NCR, AVG-DEV and TCP-RR vs BIC-SACK over
the three reordering parameters, with the generator-hold sensitivity
(:mod:`.setting`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    below,
    each_above,
    each_at_least,
    that,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.setting import (
    BLOCK,
    FIG9_INTERVALS,
    FIG10_DELAYS,
    FIG11_BLOCKS,
    FULL_HOLDS,
    MBPS,
    MODE,
    PAPER,
    QUICK_BLOCKS,
    QUICK_DELAYS,
    QUICK_HOLDS,
    QUICK_INTERVALS,
    RACK_CURVE,
    SACK_CURVES,
    TOLERANT_CURVES,
    Setting,
    curves,
    mbps_by_x,
    scenario,
    sensitivity_throughput,
    setting_curves,
    sweep_parameter,
    throughput_figure,
    throughput_table,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)

#: The curves of Figs. 12-14.
TOLERANCE_CURVES = (SACK_CURVES[0], *TOLERANT_CURVES, RACK_CURVE)


def _fig12_sweeps(quick: bool) -> dict[str, tuple[str, Sequence[float], str, float]]:
    """Per figure: the parameter swept, its values, the x label and scale."""
    return {
        "fig12": (
            "interval",
            QUICK_INTERVALS if quick else FIG9_INTERVALS,
            "mean reordering interval (s)",
            1.0,
        ),
        "fig13": (
            "delay",
            QUICK_DELAYS[1:] if quick else FIG10_DELAYS[1:],
            "mean reordering delay time (us)",
            1e6,
        ),
        "fig14": (
            "block",
            QUICK_BLOCKS if quick else FIG11_BLOCKS,
            "reordering block size (packets)",
            1.0,
        ),
    }


#: The curves of ``fig12_sensitivity`` (the paper's, at the default point).
HOLD_CURVES = (SACK_CURVES[0], *TOLERANT_CURVES)


def hold_sweep(quick: bool) -> Sweep:
    """The curves of Figs. 12-14 at the default point (and BIC-NCR also at
    block size 2) for each generator hold of ``fig12_sensitivity``."""
    mode = MODE(quick)
    cases = [(label, v, cc, BLOCK) for label, v, cc in HOLD_CURVES]
    cases.append((*TOLERANT_CURVES[0], 2))
    points: list[Point] = []
    for hold in QUICK_HOLDS if quick else FULL_HOLDS:
        # the default hold is the figures' own runs (the same scenarios)
        setting = Setting(max_hold=hold)
        for label, v, cc, block in cases:
            params = {"curve": label, "x": hold, "block": float(block)}
            points.append((params, scenario(v, cc, mode.duration, block=block, setting=setting)))
    return Sweep(points, mode.seeds)


def plan(quick: bool) -> Plan:
    plan = {
        fig: sweep_parameter(param, xs, TOLERANCE_CURVES, quick)
        for fig, (param, xs, _, _) in _fig12_sweeps(quick).items()
    }
    return {**plan, SENSITIVITY: hold_sweep(quick)}


#: Figs. 12-14's tables by figure key, and ``fig12_sensitivity``'s.
Fig12Data = tuple[dict[str, pd.DataFrame], pd.DataFrame]


def table(runs: Runs, quick: bool) -> Derived[Fig12Data]:
    tables = {fig: throughput_table(runs.table(fig)) for fig in _fig12_sweeps(quick)}
    holds = throughput_table(runs.table(SENSITIVITY), ("curve", "block", "x"))
    return Derived((tables, holds), dict(tables))


HOLDS = sensitivity_throughput(
    "fig12",
    "generator hold, a block's longest wait for a later packet (us)",
    "Figs. 12-14 at 0.02 s, 20 us: generator hold",
    logx=True,
)


def plot(data: Fig12Data, out: Path, quick: bool) -> None:
    tables, holds = data
    holds = holds.assign(
        setting=["block 1" if b == BLOCK else f"block {b:g}" for b in holds["block"]]
    )
    HOLDS.draw(out, setting_curves(holds, xscale=1e6))
    for fig, (param, _, xlabel, xscale) in _fig12_sweeps(quick).items():
        line = throughput_figure(fig, xlabel, f"Fig. {fig[3:]}", logx=param == "interval")
        line.draw(out, curves(tables[fig], xscale=xscale))


def _tolerant_claim(label: str, tables: dict[str, pd.DataFrame]) -> tuple[Claim, float]:
    """``label`` far above BIC-SACK at every point; and its mean throughput."""
    mine = {(fig, x): y for fig, t in tables.items() for x, y in mbps_by_x(t, label).items()}
    sack = {(fig, x): y for fig, t in tables.items() for x, y in mbps_by_x(t, "BIC-SACK").items()}
    every = "at every point of Figs. 12-14"
    check = all_of(
        each_above(mine, 100, label, every, MBPS),
        each_at_least(mine, Ref(sack, "BIC-SACK", times=2), label, every),
    )
    failed = set(check.failed)
    low = [
        f"{fig} x={x:g}: {y:.0f} vs SACK {sack[(fig, x)]:.0f}"
        for (fig, x), y in mine.items()
        if (fig, x) in failed
    ]
    mean = float(np.mean(list(mine.values())))
    claim = make_claim(
        PAPER,
        "fig12-13-14",
        f"{label} is far above BIC-SACK (> 100 Mb/s) for every reordering parameter",
        check,
        f"mean {mean:.0f} Mb/s; "
        + (f"{len(low)} points short: {'; '.join(low[:4])}" if low else "every point"),
    )
    return claim, mean


def claims(data: Fig12Data, quick: bool) -> list[Claim]:
    tables = data[0]
    claims = []
    means: dict[str, float] = {}
    for label, _, _ in TOLERANT_CURVES:
        claim, means[label] = _tolerant_claim(label, tables)
        claims.append(claim)
    best = max(means, key=lambda k: means[k])
    claims.append(
        make_claim(
            PAPER,
            "fig12-13-14",
            "TCP-NCR performs best of the three",
            that(best == "BIC-NCR", "BIC-NCR has the highest mean throughput over Figs. 12-14"),
            series_str(means, "{:.0f}", "{}") + " Mb/s",
            means=means,
        )
    )
    ncr = mbps_by_x(tables["fig14"], "BIC-NCR")
    b1, b2 = ncr.get(1.0, float("nan")), ncr.get(2.0, float("nan"))
    claims.append(
        make_claim(
            PAPER,
            "fig12-13-14",
            "BIC+NCR gets less at block size 2 than at 1 (paper: 463 vs 632 Mb/s)",
            below(b2, Ref(b1, "at block 1"), "throughput at block 2"),
            f"block 1: {b1:.0f} Mb/s, block 2: {b2:.0f} Mb/s",
        )
    )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig12-13-14",
        "BIC with TCP-NCR, AVG-DEV and TCP-RR vs BIC-SACK",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
