"""``fig9``: FA ratio and dupthresh vs time of DSACK-TA (the setting of
Fig. 8), one run per seed; the figure draws the first seed's.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reorderlab.checks import (
    band,
    pct,
)
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
    CHAIN,
    FIG8_P,
    MODE,
    chain_scenario,
    fig7_impairments,
)
from reorderlab.papers.rr_tcp.tables import (
    rr_claim,
)
from reorderlab.scenario import (
    RecordSpec,
)

#: seed -> series name ("t", "fa_ratio", "dupthresh") -> values
Traces = dict[int, dict[str, np.ndarray]]
WHERE = "Sec. 5.2, Fig. 9"


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    sc = chain_scenario(
        CHAIN,
        FIG8_P,
        "DSACK-TA",
        mode.duration,
        fig7_impairments(FIG8_P),
        record=RecordSpec(series=["fa_ratio", "dupthresh"], interval=1.0),
    )
    return {RUNS: Sweep([({}, sc)], seeds=mode.seeds)}


def table(runs: Runs, quick: bool) -> Derived[Traces]:
    """Each seed's series: time, FA ratio and dupthresh."""
    out: Traces = {}
    for seed in runs.plan[RUNS].seed_list():
        s = runs.result(RUNS, 0, seed).series(0)
        t = s.get("t", np.array([]))
        out[seed] = {
            "t": t,
            "fa_ratio": s.get("fa_ratio", np.full(t.shape, np.nan)),
            "dupthresh": s.get("dupthresh", np.full(t.shape, np.nan)),
        }
    return Derived(out)


SERIES = LineFigure(
    "fig9_fa_ratio_dupthresh",
    xlabel="time (s)",
    ylabel="FA ratio (%) / dupthresh (packets)",
    title=f"Fig. 9: one DSACK-TA run (seed {{seed}}), P = {FIG8_P:g} s ({{duration:g}} s)",
    styles={"FA ratio (%)": "-", "dupthresh (packets)": "-"},
)


def plot(traces: Traces, out: Path, quick: bool) -> None:
    seed = min(traces)
    s = traces[seed]
    t, fa, dt = s["t"], s["fa_ratio"], s["dupthresh"]
    lines: Lines = {
        "FA ratio (%)": (t.tolist(), (100 * fa).tolist(), None),
        "dupthresh (packets)": (t.tolist(), dt.tolist(), None),
    }
    SERIES.draw(out, lines, seed=seed, duration=MODE(quick).duration)


def settled_mean(s: dict[str, np.ndarray], name: str, skip: float) -> float:
    """The time mean of series ``name`` after the first ``skip`` seconds."""
    keep = s["t"] >= skip
    return float(np.nanmean(s[name][keep])) if keep.any() else float("nan")


def claims(traces: Traces, quick: bool) -> list[Claim]:
    skip = 0.1 * MODE(quick).duration
    after = f"after the first {skip:g} s"
    quote = (
        "Figure 9 shows the dynamic behavior of DSACK-TA as it adapts the FA ratio and "
        "dupthresh ; note that the ratio oscillates about the 70% point, shown in Figure 8c to "
        "offer roughly the maximum throughput among all FA ratios."
    )
    return [
        rr_claim(
            "fig9",
            "the FA ratio oscillates around 70 %",
            band(
                {s: settled_mean(tr, "fa_ratio", skip) for s, tr in traces.items()},
                0.65,
                0.75,
                f"time mean of the FA ratio {after}",
                source='"oscillates about the 70% point": 70 % +- 5 points',
                fmt=pct,
            ),
            quote=quote,
            where=WHERE,
        ),
        rr_claim(
            "fig9",
            "dupthresh oscillates around 25",
            band(
                {s: settled_mean(tr, "dupthresh", skip) for s, tr in traces.items()},
                20,
                30,
                f"time mean of dupthresh {after} (packets)",
                source='"dupthresh oscillates around 25": 25 +- 5 packets',
            ),
            quote="dupthresh oscillates around 25.",
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig9",
        "FA ratio and dupthresh vs time of DSACK-TA, one run per seed (as Fig. 8)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
