"""``undisturbed``: one SACK flow on the rr-tcp chain runs at S = M / R
without a retransmission (:mod:`.setting`). Two seeds of a run with no
random element: their identical results are the check's zero spread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import band
from reorderlab.claims import Claim
from reorderlab.papers.baseline.setting import (
    PAPER,
    UNDISTURBED,
    M,
    bottleneck_rate,
    undisturbed_scenario,
    unqueued_rtt,
)
from reorderlab.papers.kit.claims import paper_claim
from reorderlab.papers.kit.figure import LineFigure
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Runs, Sweep

CWND = LineFigure(
    "undisturbed_cwnd",
    xlabel="time (s)",
    ylabel="cwnd (segments)",
    title=f"undisturbed SACK flow, M = {M}, S = {bottleneck_rate() / 1e6:.3f} Mb/s",
    styles={"cwnd": "-"},
)


def points(quick: bool) -> Plan:
    mode = UNDISTURBED(quick)
    return {RUNS: Sweep([({}, undisturbed_scenario(mode.duration, mode.warmup))], mode.seeds)}


@dataclass(frozen=True)
class Undisturbed:
    """Per seed: throughput (bit/s) and retransmissions; the first seed's
    series (drawn)."""

    throughput_bps: dict[int, float]
    retransmits: dict[int, float]
    series: dict[str, np.ndarray]


def table(runs: Runs, quick: bool) -> Derived[Undisturbed]:
    df = runs.table()
    seeds = [int(s) for s in df["seed"]]
    return Derived(
        Undisturbed(
            dict(zip(seeds, df["throughput_bps"].astype(float), strict=True)),
            dict(zip(seeds, df["retransmits"].astype(float), strict=True)),
            runs.result().series(0),
        )
    )


def plot(data: Undisturbed, out: Path, quick: bool) -> None:
    series = data.series
    if "t" in series and "cwnd" in series:
        CWND.draw(out, {"cwnd": (series["t"].tolist(), series["cwnd"].tolist(), None)})


#: What the engine must do on this chain (:mod:`.setting`).
STATEMENT = (
    "A window of exactly M then fills the pipe without a standing queue, so the flow should "
    "run at S with no retransmission."
)
WHERE = "baseline: the undisturbed chain (S = M / R)"


def claims(data: Undisturbed, quick: bool) -> list[Claim]:
    s_bps = bottleneck_rate()
    rel = {s: thr / s_bps for s, thr in data.throughput_bps.items()}
    return [
        paper_claim(
            PAPER,
            "undisturbed",
            "an undisturbed flow with window M = 50 runs at S = M/R",
            band(
                rel,
                0.99,
                1.01,
                f"throughput / S (S = {s_bps / 1e6:.4f} Mb/s)",
                source="within 1 % of S: the engine's own tolerance",
            ),
            quote=STATEMENT,
            where=WHERE,
            kind="sanity",
            values={"S_bps": s_bps, "R_s": unqueued_rtt()},
        ),
        paper_claim(
            PAPER,
            "undisturbed",
            "no retransmissions without loss or reordering",
            band(
                data.retransmits,
                0,
                0,
                "retransmissions",
                source="'no retransmission': none at all",
            ),
            quote=STATEMENT,
            where=WHERE,
            kind="sanity",
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "undisturbed",
        "undisturbed SACK flow on the rr-tcp chain runs at S = M/R",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
