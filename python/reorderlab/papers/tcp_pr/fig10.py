"""``fig10``: TCP-PR vs SACK on the parking lot with HTTP cross traffic, and
the sensitivity to RED's thresholds (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.papers.kit.figure import (
    series_of,
)
from reorderlab.papers.kit.runs import (
    Point,
)
from reorderlab.papers.kit.sensitivity import (
    Sensitivity,
    sensitivity_figure,
)
from reorderlab.papers.kit.summary import (
    mean_by,
)
from reorderlab.papers.tcp_pr.setting import (
    MODE,
    PR,
    SACK,
    SENS_SEEDS,
    parking_lot,
)
from reorderlab.papers.tcp_pr.tables import (
    fairness_recipe,
    parking_lot_panel,
)

#: RED min_th of the threshold sweep (max_th = 3 min_th), and its flow counts.
SENS_RED_MIN_TH = (2.0, 5.0, 10.0, 20.0)
SENS_RED_FLOWS = {True: (4,), False: (2, 4, 8)}


def _red_points(quick: bool, seed: int) -> list[Point]:
    """RED's thresholds on the three bottlenecks at the flow counts where
    the RED panel is least fair."""
    mode = MODE(quick)
    return [
        (
            {"n": n, "min_th": m},
            parking_lot(n, qdisc="red", red=(m, 3 * m), duration=mode.duration, seed=seed),
        )
        for n in SENS_RED_FLOWS[quick]
        for m in SENS_RED_MIN_TH
    ]


def _red_table(df: pd.DataFrame) -> pd.DataFrame:
    return mean_by(df, ["n", "min_th"], {"pr": f"norm.{PR}", "sack": f"norm.{SACK}"})


RED_PLOT = sensitivity_figure(
    "fig10",
    xlabel="RED min_th (packets; max_th = 3 min_th; ns-2's default: 5)",
    ylabel="TCP-PR mean normalized throughput",
    title="Fig. 10 RED: RED's thresholds (parking lot)",
)


def _red_plot(table: pd.DataFrame, out: Path) -> None:
    table = table.assign(label=table["n"].astype(int).astype(str) + " flows")
    RED_PLOT.draw(out, series_of(table, "label", "min_th", "pr"))


FIGURES = (
    fairness_recipe(
        "fig10",
        "TCP-PR vs SACK on the parking lot with HTTP cross traffic",
        {
            f"Fig. 10 {q}, parking lot, 15 Mb/s, 20 ms, 250 pkts": parking_lot_panel(q.lower())
            for q in ("DropTail", "RED")
        },
        (PR, SACK),
        sensitivity=Sensitivity(_red_points, _red_table, _red_plot, seeds=SENS_SEEDS),
    ),
)
