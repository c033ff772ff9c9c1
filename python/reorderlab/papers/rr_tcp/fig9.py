"""``fig9``: FA ratio and dupthresh vs time, one DSACK-TA run (as Fig. 8).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reorderlab.checks import (
    pct,
    within,
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
    CHAIN,
    FIG8_P,
    MODE,
    PAPER,
    chain_scenario,
    fig7_impairments,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
)
from reorderlab.scenario import (
    RecordSpec,
)


def _fig9_points(quick: bool) -> Plan:
    mode = MODE(quick)
    sc = chain_scenario(
        CHAIN,
        FIG8_P,
        "DSACK-TA",
        mode.duration,
        fig7_impairments(FIG8_P),
        record=RecordSpec(series=["fa_ratio", "dupthresh"], interval=1.0),
    )
    return {RUNS: Sweep([({}, sc)], seeds=1)}


def _fig9_table(runs: Runs, quick: bool) -> Derived[dict[str, np.ndarray]]:
    """The run's series: time, FA ratio and dupthresh."""
    s = runs.result().series(0)
    t = s.get("t", np.array([]))
    fa = s.get("fa_ratio", np.full(t.shape, np.nan))
    dt = s.get("dupthresh", np.full(t.shape, np.nan))
    return Derived({"t": t, "fa_ratio": fa, "dupthresh": dt})


SERIES = LineFigure(
    "fig9_fa_ratio_dupthresh",
    xlabel="time (s)",
    ylabel="FA ratio (%) / dupthresh (packets)",
    title=f"Fig. 9: one DSACK-TA run, P = {FIG8_P:g} s ({{duration:g}} s)",
    styles={"FA ratio (%)": "-", "dupthresh (packets)": "-"},
)


def _fig9_plot(s: dict[str, np.ndarray], out: Path, quick: bool) -> None:
    t, fa, dt = s["t"], s["fa_ratio"], s["dupthresh"]
    lines: Lines = {
        "FA ratio (%)": (t.tolist(), (100 * fa).tolist(), None),
        "dupthresh (packets)": (t.tolist(), dt.tolist(), None),
    }
    SERIES.draw(out, lines, **MODE(quick).fields())


def _fig9_claims(s: dict[str, np.ndarray], quick: bool) -> list[Claim]:
    mode = MODE(quick)
    t, fa, dt = s["t"], s["fa_ratio"], s["dupthresh"]
    settled = t >= 0.1 * mode.duration
    fa_mean = float(np.nanmean(fa[settled])) if settled.any() else float("nan")
    fa_sd = float(np.nanstd(fa[settled])) if settled.any() else float("nan")
    dt_mean = float(np.nanmean(dt[settled])) if settled.any() else float("nan")
    dt_sd = float(np.nanstd(dt[settled])) if settled.any() else float("nan")
    after = f"after the first {0.1 * mode.duration:g} s"
    return [
        make_claim(
            PAPER,
            "fig9",
            "the FA ratio oscillates around 60-70 %",
            within(fa_mean, 0.55, 0.75, f"time mean of the FA ratio {after}", pct).noted(
                "(60-70 % +- 5 points)"
            ),
            f"mean {percent(fa_mean)}, sd {percent(fa_sd)}",
            fa_ratio_mean=fa_mean,
            fa_ratio_sd=fa_sd,
        ),
        make_claim(
            PAPER,
            "fig9",
            "dupthresh oscillates around 25",
            within(dt_mean, 18, 32, f"time mean of dupthresh {after}").noted(
                "(25 +- 7 packets, i.e. +- 30 %)"
            ),
            f"mean {dt_mean:.1f}, sd {dt_sd:.1f} packets",
            dupthresh_mean=dt_mean,
            dupthresh_sd=dt_sd,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig9",
        "FA ratio and dupthresh vs time, one DSACK-TA run (as Fig. 8)",
        points=_fig9_points,
        table=_fig9_table,
        plot=_fig9_plot,
        claims=_fig9_claims,
    ),
)
