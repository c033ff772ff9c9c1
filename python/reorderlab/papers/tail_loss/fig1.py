"""``fig1``: normalized FCT of 10-segment flows losing their last segment,
RTT 10-640 ms, and its delayed-ACK timer sensitivity (:mod:`.setting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    below,
    each_at_most,
    unit,
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
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    flow_column,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
    sensitivity_figure,
)
from reorderlab.papers.tail_loss.setting import (
    BASELINE,
    DELACK_TIMEOUT,
    PAPER,
    RECEIVERS,
    RTTS,
    VARIANTS,
    cell,
    controlled,
    fct_table,
    no_spurious_claim,
)


def _fig1_rtts(quick: bool) -> tuple[float, ...]:
    return (0.01, 0.08, 0.64) if quick else RTTS


def plan(quick: bool) -> Plan:
    points: list[Point] = [
        ({"variant": v, "receiver": r, "rtt": rtt}, controlled(v, rtt, r, 1))
        for r in RECEIVERS
        for rtt in _fig1_rtts(quick)
        for v in VARIANTS
    ]
    return {RUNS: Sweep(points, 1), SENSITIVITY: Sweep(_fig1_sensitivity_points(quick), 1)}


#: Fig. 1's sensitivity: delayed-ACK timers around the paper's 200 ms (s).
DELACK_OFFSETS = (-0.001, -0.0001, 0.0, 0.0001, 0.001)


def _fig1_sensitivity_points(quick: bool) -> list[Point]:
    """Baseline and RTOR with the last segment lost, delayed ACKs, the
    delayed-ACK timer 200 ms +- ``DELACK_OFFSETS``: at RTT <= 80 ms RTOR's
    deadline (send + SRTT + 200 ms) and the delayed ACK of the ninth
    segment (send + RTT + 200 ms + its serialisation) coincide, and which
    comes first decides RTOR's saving."""
    return [
        (
            {"variant": v, "rtt": rtt, "delack_timeout": DELACK_TIMEOUT + d},
            controlled(v, rtt, "delack", 1, delack_timeout=DELACK_TIMEOUT + d),
        )
        for d in DELACK_OFFSETS
        for rtt in _fig1_rtts(quick)
        for v in (BASELINE, "RTOR")
    ]


def fig1_sensitivity(df: pd.DataFrame) -> pd.DataFrame:
    """RTOR's saving over the baseline by delayed-ACK timer and RTT: saved,
    saved - (RTT + timer) ("excess") and RTOR's spurious retransmissions."""
    df["fct"] = df[flow_column(df, 0, "fct")].astype(float)
    df["spurious"] = df[flow_column(df, 0, "spurious_retransmits")].astype(int)
    rows = []
    for timer in sorted({float(x) for x in df["delack_timeout"]}):
        for rtt in sorted({float(x) for x in df["rtt"]}):
            cell = df[(df["delack_timeout"] == timer) & (df["rtt"] == rtt)].set_index("variant")
            saved = float(cell["fct"][BASELINE]) - float(cell["fct"]["RTOR"])
            rows.append(
                {
                    "delack_timeout": timer,
                    "rtt": rtt,
                    "saved": saved,
                    "excess": saved - rtt - timer,
                    "rtor_spurious": int(cell["spurious"]["RTOR"]),
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Fig1:
    """Fig. 1's table (:func:`fct_table`) and its sensitivity table."""

    table: pd.DataFrame
    sensitivity: pd.DataFrame


def table(runs: Runs, quick: bool) -> Derived[Fig1]:
    df = fct_table(runs.table())
    sens = fig1_sensitivity(runs.table(SENSITIVITY))
    return Derived(Fig1(df, sens), {"fig1": df, "fig1_sensitivity_table": sens})


#: One panel per receiver (``{panel}``: 1 delack, 2 quickack).
FCT = LineFigure("fig1-{panel}", "RTT (s)", "FCT / baseline FCT", "Fig. 1 ({receiver})", logx=True)
SENSITIVITY_PLOT = sensitivity_figure(
    "fig1",
    xlabel="RTT (s)",
    ylabel="RTOR saving - (RTT + delACK timer) (ms)",
    title="Fig. 1 (delack) sensitivity: RTOR's saving vs the delayed-ACK timer",
    logx=True,
)


def plot(data: Fig1, out: Path, quick: bool) -> None:
    df = data.table
    for i, r in enumerate(RECEIVERS):
        lines = series_of(df[df["receiver"] == r], "variant", "rtt", "norm")
        FCT.draw(out, lines, panel=i + 1, receiver=r)
    sens = data.sensitivity
    timers = [f"delACK timer {timer * 1e3:g} ms" for timer in sens["delack_timeout"]]
    lines = series_of(sens.assign(timer=timers), "timer", "rtt", "excess", yscale=1e3)
    SENSITIVITY_PLOT.draw(out, lines)


def claims(data: Fig1, quick: bool) -> list[Claim]:
    df = data.table
    rtts = _fig1_rtts(quick)

    def fct(v: str, r: str, rtt: float) -> float:
        return cell(df, "fct", v, r, rtt=rtt)

    claims = []
    for r, extra in (("quickack", 0.0), ("delack", 0.2)):
        saved = {rtt: fct(BASELINE, r, rtt) - fct("RTOR", r, rtt) for rtt in rtts}
        want = {rtt: rtt + extra for rtt in rtts}
        target = "(RTT + 200 ms)" if extra else "RTT"
        check = each_at_most(
            {k: abs(saved[k] - want[k]) for k in rtts},
            Ref(want, target, times=0.1, plus=0.005, fmt=unit("ms", 1e3)),
            f"|baseline FCT - RTOR FCT - {target}|",
            "at every RTT",
        )
        claims.append(
            make_claim(
                PAPER,
                "fig1",
                f"{r}: RTOR reduces the FCT by one RTT"
                + (" plus the 200 ms delayed-ACK timer" if extra else ""),
                check,
                "saved (ms) by RTT: "
                + series_str({k * 1e3: v * 1e3 for k, v in saved.items()}, "{:.0f}"),
                saved=saved,
            )
        )
    small = [k for k in rtts if k <= 0.08]
    large = [k for k in rtts if k >= 0.16]
    tlp = {k: fct("TLP", "delack", k) / fct(BASELINE, "delack", k) for k in rtts}
    tlp_small = float(np.mean([tlp[k] for k in small]))
    tlp_large = float(np.mean([tlp[k] for k in large]))
    claims.append(
        make_claim(
            PAPER,
            "fig1",
            "with delayed ACKs TLP gains most at small RTTs (10-80 ms)",
            below(
                tlp_small,
                Ref(tlp_large, "at RTT >= 160 ms"),
                "TLP's mean normalized FCT at RTT <= 80 ms",
            ),
            series_str({k * 1e3: v for k, v in tlp.items()}, "{:.2f}"),
            norm=tlp,
        )
    )
    tlpr = {f"{r} {k * 1e3:g} ms": fct("TLPR", r, k) for r in RECEIVERS for k in rtts}
    best = {
        f"{r} {k * 1e3:g} ms": min(fct("RTOR", r, k), fct("TLP", r, k))
        for r in RECEIVERS
        for k in rtts
    }
    lowest = each_at_most(
        tlpr,
        Ref(best, "min(RTOR, TLP)", times=1.02, plus=0.001, fmt=unit("ms", 1e3)),
        "TLPR FCT",
        "in every setting",
    )
    claims.append(
        make_claim(
            PAPER,
            "fig1",
            "TLPR gives the lowest FCT of RTOR, TLP and TLPR, or ties",
            lowest,
            "every setting" if lowest.holds else "not in: " + ", ".join(lowest.failed),
        )
    )
    return [*claims, no_spurious_claim("fig1", df)]


FIGURES = (
    recipe(
        PAPER,
        "fig1",
        "Normalized FCT of 10-segment flows losing their last segment",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
