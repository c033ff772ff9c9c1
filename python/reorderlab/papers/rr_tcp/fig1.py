"""``fig1``: one false fast retransmit and its DSACK undo (cwnd vs time).

The figure illustrates two coded rules, the halving at a fast retransmit
and the DSACK undo (Sec. 2.1): they are tested as rules
(``tests/test_rr_tcp_recipes.py``, ``crates/reorderlab/tests/rrtcp.rs``),
not checked as the paper's claims; :func:`events` measures them on the
figure's runs.

The setting: :mod:`.setting`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reorderlab.claims import (
    Claim,
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


def plan(quick: bool) -> Plan:
    return {RUNS: Sweep([({"variant": v}, fig1_scenario(v)) for v in FIG1_VARIANTS], seeds=1)}


@dataclass(frozen=True)
class Fig1:
    """Each variant's cwnd series and flow metrics."""

    series: dict[str, dict[str, np.ndarray]]
    flows: dict[str, dict[str, Any]]


def table(runs: Runs, quick: bool) -> Derived[Fig1]:
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


def plot(data: Fig1, out: Path, quick: bool) -> None:
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


def events(data: Fig1) -> dict[str, float]:
    """DSACK-R's window around the held packet: before the event, its
    minimum after it and when, when it is back at 16 and from what, at the
    end; its fast retransmits, false ones and undos; when SACK (no undo)
    is back at 16."""
    s = data.series["DSACK-R"]
    t, cwnd = s.get("t", np.array([])), s.get("cwnd", np.array([]))
    flow = data.flows["DSACK-R"]
    before = cwnd[(t > FIG1_EVENT - 0.5) & (t < FIG1_EVENT)]
    w_before = float(before.min()) if before.size else float("nan")
    after_event = t >= FIG1_EVENT
    drop_idx = np.flatnonzero(after_event & (cwnd < w_before))
    t_halve = float(t[drop_idx[0]]) if drop_idx.size else float("nan")
    back_idx = (
        np.flatnonzero((t > t_halve) & (cwnd >= FIG1_WINDOW)) if drop_idx.size else np.array([])
    )
    st, sc = data.series["SACK"].get("t", np.array([])), data.series["SACK"].get("cwnd")
    return {
        "cwnd_before": w_before,
        "cwnd_min": float(cwnd[after_event].min()) if after_event.any() else float("nan"),
        "t_halve": t_halve,
        "t_restore": float(t[back_idx[0]]) if back_idx.size else float("nan"),
        "cwnd_before_restore": float(cwnd[back_idx[0] - 1]) if back_idx.size else float("nan"),
        "cwnd_end": float(cwnd[-1]) if cwnd.size else float("nan"),
        "fast_retransmits": float(flow["fast_retransmits"]),
        "spurious_fast_retransmits": float(flow["spurious_fast_retransmits"]),
        "undos": float(flow["undos"]),
        "sack_undos": float(data.flows["SACK"]["undos"]),
        "sack_regrown_at": _first(st, (st > t_halve) & (sc >= FIG1_WINDOW))
        if st.size and sc is not None
        else float("nan"),
    }


def claims(data: Fig1, quick: bool) -> list[Claim]:
    """None: the figure shows coded rules (module docstring)."""
    return []


FIGURES = (
    recipe(
        "rr-tcp",
        "fig1",
        "one false fast retransmit and its DSACK undo (cwnd vs time)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
