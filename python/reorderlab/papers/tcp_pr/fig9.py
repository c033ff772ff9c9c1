"""``fig9``: TCP-PR vs SACK with HTTP background traffic, the background's
share (a condition of the setting), and the sensitivity to the
background's session count and to RED's thresholds (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reorderlab.checks import (
    band,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
    per_seed,
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
    SENS_SEEDS,
    WEB_SESSIONS,
    dumbbell,
)
from reorderlab.papers.tcp_pr.tables import (
    Fairness,
    background_share,
    dumbbell_panel,
    fairness_recipe,
)

#: Sec. V's sentence on the background's share, and the band read from it.
SHARE_QUOTE = "When background traffic was used, it corresponded to around 10% of the total traffic"
SHARE_BAND = (0.05, 0.20)
SHARE_SOURCE = (
    "'around 10% of the total traffic' (Sec. V); footnote 5: short-lived flows are "
    "'at least 10%' of Internet traffic"
)


def _background_condition(data: Fairness) -> list[Claim]:
    """The HTTP share of the delivered bytes, per seed the mean over both
    panels and every n: the condition the session count is calibrated to."""
    df = data.runs.assign(share=[background_share(r) for r in frame_records(data.runs)])
    lo, hi = SHARE_BAND
    check = band(
        per_seed(df, "share"),
        lo,
        hi,
        "HTTP share of the delivered bytes (mean over both panels and every n)",
        source=SHARE_SOURCE,
        fmt="{:.2f}".format,
    )
    by = df.groupby(["panel", "n"], sort=False)["share"].mean().reset_index()
    detail = ", ".join(
        f"{str(p).split(',')[0]} n={n}: {100 * v:.0f} %"
        for p, n, v in by[["panel", "n", "share"]].itertuples(index=False)
    )
    (rec,) = check.tests
    return [
        paper_claim(
            PAPER,
            "fig9",
            "HTTP background traffic is around 10 % of the total traffic",
            check,
            quote=SHARE_QUOTE,
            where="Sec. V",
            kind="condition",
            measured=(
                f"mean {100 * rec['estimate']:.1f} % [{100 * rec['lo']:.1f}, "
                f"{100 * rec['hi']:.1f}] ({WEB_SESSIONS} sessions; {detail})"
            ),
        )
    ]


#: Web session counts of the Fig. 9 calibration sweep (quick: fewer).
SENS_WEB_SESSIONS = {True: (2, 10, 50), False: (2, 4, 8, 10, 16, 32, 50)}
#: RED min_th of the threshold sweep (max_th = 3 min_th), and its flow counts.
SENS_RED_MIN_TH = (2.0, 5.0, 10.0, 20.0)
SENS_RED_FLOWS = {True: (4,), False: (2, 4, 8)}


def _sens_points(quick: bool, seed: int) -> list[Point]:
    """The HTTP background's session count (DropTail and RED, 16 flows),
    and RED's thresholds at the flow counts where the RED panel is least
    fair (the calibrated background)."""
    mode = MODE(quick)
    web: list[Point] = [
        (
            {"sweep": "sessions", "qdisc": q, "sessions": k, "n": SENS_FLOWS, "min_th": 5.0},
            dumbbell(
                SENS_FLOWS, qdisc=q, http=True, web_sessions=k, duration=mode.duration, seed=seed
            ),
        )
        for q in ("droptail", "red")
        for k in SENS_WEB_SESSIONS[quick]
    ]
    red: list[Point] = [
        (
            {"sweep": "red", "qdisc": "red", "sessions": WEB_SESSIONS, "n": n, "min_th": m},
            dumbbell(n, qdisc="red", http=True, red=(m, 3 * m), duration=mode.duration, seed=seed),
        )
        for n in SENS_RED_FLOWS[quick]
        for m in SENS_RED_MIN_TH
    ]
    return web + red


def _sens_table(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(share=[background_share(r) for r in frame_records(df)])
    keys = ["sweep", "qdisc", "sessions", "n", "min_th"]
    return mean_by(df, keys, {"share": "share", "pr": f"norm.{PR}", "sack": f"norm.{SACK}"})


WEB_PLOT = sensitivity_figure(
    "fig9",
    xlabel=f"web sessions (calibrated: {WEB_SESSIONS}; the paper: 50)",
    ylabel=f"share / normalized throughput ({SENS_FLOWS} flows)",
    title="Fig. 9: the HTTP background's session count",
    logx=True,
)
RED_PLOT = sensitivity_figure(
    "fig9-red",
    xlabel="RED min_th (packets; max_th = 3 min_th; ns-2's default: 5)",
    ylabel="TCP-PR mean normalized throughput",
    title="Fig. 9 RED: RED's thresholds (HTTP background)",
)


def _sens_plot(table: pd.DataFrame, out: Path) -> None:
    web = table[table["sweep"] == "sessions"]
    web = web.assign(
        share_label="HTTP share of the delivered bytes, " + web["qdisc"],
        pr_label="TCP-PR mean normalized throughput, " + web["qdisc"],
    )
    WEB_PLOT.draw(
        out,
        {
            **series_of(web, "share_label", "sessions", "share"),
            **series_of(web, "pr_label", "sessions", "pr"),
        },
    )
    red = table[table["sweep"] == "red"]
    red = red.assign(label=red["n"].astype(int).astype(str) + " flows")
    RED_PLOT.draw(out, series_of(red, "label", "min_th", "pr"))


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
        more_claims=_background_condition,
        sensitivity=Sensitivity(_sens_points, _sens_table, _sens_plot, seeds=SENS_SEEDS),
    ),
)
