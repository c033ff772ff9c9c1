"""``fig1``: one false fast retransmit and its DSACK undo (cwnd vs time).

The setting: :mod:`.setting`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reorderlab.checks import (
    all_of,
    at_most,
    equals,
    near,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Runs,
    Sweep,
)
from reorderlab.papers.rr_tcp.setting import (
    ACCESS_DELAY,
    ACCESS_RATE,
    ACK,
    BOTTLENECK,
    MIN_RTO,
    MSS,
    PAPER,
    QUEUE,
    RTO_ESTIMATOR,
)
from reorderlab.scenario import (
    ChainTopology,
    ConstantVar,
    DroptailQueue,
    FlowSpec,
    RecordSpec,
    ReorderImpairment,
    Scenario,
    TcpSpec,
)

FIG1_EVENT = 3.0
FIG1_HOLD = 0.45
FIG1_WINDOW = 16


def fig1_scenario(variant: str) -> Scenario:
    """Window 16 on a 10 Mb/s, 100 ms bottleneck; one packet held 0.45 s at t = 3 s."""
    return Scenario(
        name="rr-tcp-fig1",
        duration=6.0,
        topology=ChainTopology(
            access_rate=ACCESS_RATE,
            access_delay=ACCESS_DELAY,
            bottleneck_rate=10e6,
            bottleneck_delay=0.1,
            queue=DroptailQueue(limit_packets=QUEUE),
        ),
        impairments=[
            ReorderImpairment(
                link=BOTTLENECK,
                interval=ConstantVar(value=FIG1_EVENT),
                delay=ConstantVar(value=FIG1_HOLD),
                block=ConstantVar(value=1.0),
                max_hold=1.0,
            )
        ],
        flows=[
            FlowSpec(
                name="f0",
                src="S1",
                dst="D",
                variant=variant,
                tcp=TcpSpec(
                    mss=MSS,
                    ack_size=ACK,
                    max_window=FIG1_WINDOW,
                    min_rto=MIN_RTO,
                    rto_estimator=RTO_ESTIMATOR,
                ),
            )
        ],
        record=RecordSpec(series=["cwnd"], interval=0.01),
    )


FIG1_VARIANTS = ("DSACK-R", "SACK")


def _fig1_points(quick: bool) -> Plan:
    return {RUNS: Sweep([({"variant": v}, fig1_scenario(v)) for v in FIG1_VARIANTS], seeds=1)}


@dataclass(frozen=True)
class Fig1:
    """Each variant's cwnd series and flow metrics."""

    series: dict[str, dict[str, np.ndarray]]
    flows: dict[str, dict[str, Any]]


def _fig1_table(runs: Runs, quick: bool) -> Derived[Fig1]:
    res = {v: runs.result(RUNS, i) for i, v in enumerate(FIG1_VARIANTS)}
    return Derived(
        Fig1({v: r.series(0) for v, r in res.items()}, {v: r.flow(0) for v, r in res.items()})
    )


CWND = LineFigure(
    "fig1_cwnd",
    xlabel="time (s)",
    ylabel="cwnd (segments)",
    title=f"one packet held {FIG1_HOLD} s at t = {FIG1_EVENT:g} s, window {FIG1_WINDOW}",
    styles={"DSACK-R": "-", "SACK": "--"},
)


def _fig1_plot(data: Fig1, out: Path, quick: bool) -> None:
    lines: Lines = {
        v: (s["t"].tolist(), s["cwnd"].tolist(), None)
        for v, s in data.series.items()
        if "t" in s and "cwnd" in s
    }
    CWND.draw(out, lines)


def _first(t: np.ndarray, where: np.ndarray) -> float:
    """The first time where ``where`` holds (NaN: never)."""
    idx = np.flatnonzero(where)
    return float(t[idx[0]]) if idx.size else float("nan")


def _fig1_claims(data: Fig1, quick: bool) -> list[Claim]:
    s = data.series["DSACK-R"]
    t, cwnd = s.get("t", np.array([])), s.get("cwnd", np.array([]))
    flow = data.flows["DSACK-R"]
    before = cwnd[(t > FIG1_EVENT - 0.5) & (t < FIG1_EVENT)]
    w_before = float(before.min()) if before.size else float("nan")
    after_event = t >= FIG1_EVENT
    drop_idx = np.flatnonzero(after_event & (cwnd < w_before))
    t_halve = float(t[drop_idx[0]]) if drop_idx.size else float("nan")
    w_min = float(cwnd[after_event].min()) if after_event.any() else float("nan")
    back_idx = (
        np.flatnonzero((t > t_halve) & (cwnd >= FIG1_WINDOW)) if drop_idx.size else np.array([])
    )
    t_back = float(t[back_idx[0]]) if back_idx.size else float("nan")
    jump_from = float(cwnd[back_idx[0] - 1]) if back_idx.size else float("nan")
    w_end = float(cwnd[-1]) if cwnd.size else float("nan")
    gap = t_back - t_halve
    st, sc = (
        data.series["SACK"].get("t", np.array([])),
        data.series["SACK"].get("cwnd", np.array([])),
    )
    sack_back = _first(st, (st > t_halve) & (sc >= FIG1_WINDOW)) if st.size else float("nan")
    halves = all_of(
        equals(w_before, FIG1_WINDOW, "cwnd before the event"),
        equals(w_min, FIG1_WINDOW / 2, "minimum cwnd after it"),
        equals(flow["fast_retransmits"], 1, "fast retransmits"),
        equals(flow["spurious_fast_retransmits"], 1, "false ones (ground truth)"),
    )
    restores = all_of(
        equals(flow["undos"], 1, "undos"),
        at_most(
            jump_from,
            0.75 * FIG1_WINDOW,
            f"cwnd in the 10 ms sample before it is back at {FIG1_WINDOW} (one step)",
        ),
        near(gap, FIG1_HOLD, 0.1, "seconds from the halving to the restore").noted(
            "(the DSACK comes back when the held original reaches the receiver)"
        ),
        equals(w_end, FIG1_WINDOW, "final cwnd"),
    )
    return [
        make_claim(
            PAPER,
            "fig1",
            "the window halves at the false fast retransmit",
            halves,
            f"cwnd {w_before:g} before, minimum {w_min:g} after (at t = {t_halve:.2f} s); "
            f"{flow['fast_retransmits']} fast retransmit(s), "
            f"{flow['spurious_fast_retransmits']} false",
            cwnd_before=w_before,
            cwnd_min=w_min,
            t_halve=t_halve,
            fast_retransmits=flow["fast_retransmits"],
            spurious_fast_retransmits=flow["spurious_fast_retransmits"],
        ),
        make_claim(
            PAPER,
            "fig1",
            "the window returns to 16 when the DSACK arrives (DSACK-R)",
            restores,
            f"{flow['undos']} undo(s); cwnd {jump_from:.2f} -> {FIG1_WINDOW} at "
            f"t = {t_back:.2f} s, {gap:.3f} s after the halving; final cwnd {w_end:g} "
            f"(SACK without undo regrows to {FIG1_WINDOW} only at t = {sack_back:.2f} s)",
            undos=flow["undos"],
            t_restore=t_back,
            restore_after_s=gap,
            cwnd_before_restore=jump_from,
            cwnd_end=w_end,
            sack_undos=data.flows["SACK"]["undos"],
            sack_regrown_at=sack_back,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig1",
        "one false fast retransmit and its DSACK undo (cwnd vs time)",
        points=_fig1_points,
        table=_fig1_table,
        plot=_fig1_plot,
        claims=_fig1_claims,
    ),
)
