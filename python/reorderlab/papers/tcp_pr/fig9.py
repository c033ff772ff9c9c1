"""``fig9``: TCP-PR vs SACK with HTTP background traffic, and the sensitivity
to the background's session count (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    within,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.kit.figure import (
    series_of,
)
from reorderlab.papers.kit.runs import (
    Point,
    frame_records,
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
    PAPER,
    PR,
    SACK,
    SENS_FLOWS,
    WEB_SESSIONS,
    dumbbell,
)
from reorderlab.papers.tcp_pr.tables import (
    Fairness,
    background_share,
    dumbbell_panel,
    fairness_recipe,
)


def _background_claim(data: Fairness) -> list[Claim]:
    table = data.table
    labels = table["panel"] + " n=" + table["n"].astype(str)
    share = {str(k): float(v) for k, v in zip(labels, table["background_share"], strict=True)}
    mean_share = float(np.mean(list(share.values())))
    return [
        make_claim(
            PAPER,
            "fig9",
            "HTTP background traffic is around 10 % of the total traffic",
            within(mean_share, 0.05, 0.20, "mean share of delivered bytes", "{:.2f}".format),
            f"mean {100 * mean_share:.1f} % (per panel and n: "
            f"{', '.join(f'{k}: {100 * v:.0f} %' for k, v in share.items())})",
            share=share,
        )
    ]


#: Web session counts of the Fig. 9 calibration sweep (quick: fewer).
SENS_WEB_SESSIONS = {True: (2, 8, 50), False: (2, 4, 8, 16, 32, 50)}


def _web_points(quick: bool, seed: int) -> list[Point]:
    """The HTTP background's session count, DropTail and RED, 16 flows."""
    mode = MODE(quick)
    return [
        (
            {"qdisc": q, "sessions": k},
            dumbbell(
                SENS_FLOWS, qdisc=q, http=True, web_sessions=k, duration=mode.duration, seed=seed
            ),
        )
        for q in ("droptail", "red")
        for k in SENS_WEB_SESSIONS[quick]
    ]


def _web_table(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(share=[background_share(r) for r in frame_records(df)])
    return mean_by(df, ["qdisc", "sessions"], {"share": "share", "pr": f"norm.{PR}"})


WEB_PLOT = sensitivity_figure(
    "fig9",
    xlabel=f"web sessions (calibrated: {WEB_SESSIONS}; the paper: 50)",
    ylabel=f"share / normalized throughput ({SENS_FLOWS} flows)",
    title="Fig. 9: the HTTP background's session count",
    logx=True,
)


def _web_plot(table: pd.DataFrame, out: Path) -> None:
    table = table.assign(
        share_label="HTTP share of the delivered bytes, " + table["qdisc"],
        pr_label="TCP-PR mean normalized throughput, " + table["qdisc"],
    )
    WEB_PLOT.draw(
        out,
        {
            **series_of(table, "share_label", "sessions", "share"),
            **series_of(table, "pr_label", "sessions", "pr"),
        },
    )


FIGURES = (
    fairness_recipe(
        "fig9",
        "TCP-PR vs SACK with HTTP background traffic (dumbbell)",
        {
            f"Fig. 9 {q}, 15 Mb/s, 20 ms, 250 pkts, HTTP": dumbbell_panel(
                qdisc=q.lower(), http=True
            )
            for q in ("DropTail", "RED")
        },
        (PR, SACK),
        "TCP-PR and SACK with HTTP background",
        more_claims=_background_claim,
        sensitivity=Sensitivity(_web_points, _web_table, _web_plot),
    ),
)
