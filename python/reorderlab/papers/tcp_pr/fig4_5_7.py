"""``fig4-5-7``: TCP-PR vs SACK normalized throughput on the dumbbell, and the
sensitivity to RED's thresholds and SACK's limited transmit (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.papers.kit.figure import (
    Lines,
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
    RED_THRESHOLDS,
    SACK,
    SENS_FLOWS,
    SENS_SEEDS,
    dumbbell,
)
from reorderlab.papers.tcp_pr.tables import (
    PR_PANELS,
    fairness_recipe,
)
from reorderlab.scenario import (
    Scenario,
)

# --------------------------------------------------------------------------
# Figs. 4, 5, 7: TCP-PR vs SACK on the dumbbell
# --------------------------------------------------------------------------


#: RED min_th swept (max_th = 3 min_th, ns-2's ratio), packets.
SENS_RED_MIN_TH = (2.0, 5.0, 10.0)
#: The small-window settings of the RED sweep: name -> dumbbell settings.
SENS_RED_SETTINGS: dict[str, tuple[float, str]] = {
    "Fig. 4 RED 15 Mb/s 25 pkts": (15e6, "red"),
    "Fig. 7 RED 1.5 Mb/s 25 pkts": (1.5e6, "red"),
}
SENS_DROPTAIL = "Fig. 7 DropTail 1.5 Mb/s 25 pkts"


def _small_window_points(quick: bool, seed: int) -> list[Point]:
    """RED thresholds x the ns-2 agents' limited transmit (off: the
    figure's own reading) at 16 flows, 20 ms, 25 packets; Fig. 7's DropTail
    with and without limited transmit (its ``min_th`` 0: no thresholds)."""
    mode = MODE(quick)

    def run(rate: float, qdisc: str, red: tuple[float, float], lt: bool) -> Scenario:
        return dumbbell(
            SENS_FLOWS,
            rate=rate,
            limit=25,
            qdisc=qdisc,
            red=red,
            lt=lt,
            duration=mode.duration,
            seed=seed,
        )

    points: list[Point] = []
    for lt in (True, False):
        for name, (rate, qdisc) in SENS_RED_SETTINGS.items():
            points += [
                ({"setting": name, "min_th": m, "lt": lt}, run(rate, qdisc, (m, 3 * m), lt))
                for m in SENS_RED_MIN_TH
            ]
        point = {"setting": SENS_DROPTAIL, "min_th": 0.0, "lt": lt}
        points.append((point, run(1.5e6, "droptail", RED_THRESHOLDS, lt)))
    return points


def _small_window_table(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["setting", "lt", "min_th"]
    return mean_by(df, keys, {"pr": f"norm.{PR}", "sack": f"norm.{SACK}"})


SMALL_WINDOW_PLOT = sensitivity_figure(
    "fig4-5-7",
    xlabel="RED min_th (packets; max_th = 3 min_th)",
    ylabel=f"TCP-PR mean normalized throughput ({SENS_FLOWS} flows)",
    title="Figs. 4 / 7: RED thresholds and SACK's limited transmit",
)


def _small_window_plot(table: pd.DataFrame, out: Path) -> None:
    series: Lines = {}
    for (name, lt), g in table.groupby(["setting", "lt"], sort=False):
        label = f"{name}, SACK limited transmit {'on' if lt else 'off (the paper)'}"
        if name == SENS_DROPTAIL:  # no thresholds: a flat reference line
            series[label] = (list(SENS_RED_MIN_TH), [float(g["pr"].iloc[0])] * 3, None)
        else:
            series[label] = (list(g["min_th"].astype(float)), list(g["pr"].astype(float)), None)
    SMALL_WINDOW_PLOT.draw(out, series)


FIGURES = (
    fairness_recipe(
        "fig4-5-7",
        "TCP-PR vs SACK normalized throughput on the dumbbell",
        PR_PANELS,
        (PR, SACK),
        sensitivity=Sensitivity(
            _small_window_points, _small_window_table, _small_window_plot, seeds=SENS_SEEDS
        ),
    ),
)
