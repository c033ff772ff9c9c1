"""``fig3``: FCT CDFs of flows with a tail loss under congestion, the
background's calibration and a sensitivity sweep (:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

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
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
    sensitivity_figure,
)
from reorderlab.papers.tail_loss.fig3_claims import (
    claims,
)
from reorderlab.papers.tail_loss.fig3_data import (
    Fig3,
    Fig3Data,
    bottleneck,
    fig3_mode,
    tail_objects,
)
from reorderlab.papers.tail_loss.fig3_replay import (
    REPLAY,
    replay_table,
)
from reorderlab.papers.tail_loss.fig3_replay import (
    sweep as replay_sweep,
)
from reorderlab.papers.tail_loss.setting import (
    BACKGROUND_SESSIONS,
    BASELINE,
    CALIBRATION,
    CALIBRATION_SEEDS,
    CALIBRATION_SESSIONS,
    FIG3_SEEDS,
    FIG3_SENS_BG_DELAYS,
    FIG3_SENS_SEEDS,
    PAPER,
    VARIANTS,
    congested,
)
from reorderlab.plot import (
    cdf_points,
)


def plan(quick: bool) -> Plan:
    duration, _, _, cases = fig3_mode(quick)
    points: list[Point] = [
        ({"variant": v, "size": n, "owd": owd, "receiver": r}, congested(v, n, owd, r, duration))
        for n, owd, r in cases
        for v in VARIANTS
    ]
    slot = 0 if quick else 1
    calibration: list[Point] = [
        ({"sessions": k}, congested(BASELINE, 10, 0.04, "quickack", duration, sessions=k))
        for k in CALIBRATION_SESSIONS
    ]
    sens: list[Point] = [
        (
            {"variant": v, "bg_delay": d},
            congested(v, 4, 0.04, "quickack", duration, bg_delay=d),
        )
        for d in FIG3_SENS_BG_DELAYS
        for v in (BASELINE, "RTOR")
    ]
    return {
        RUNS: Sweep(points, FIG3_SEEDS[slot]),
        CALIBRATION: Sweep(calibration, CALIBRATION_SEEDS[slot]),
        SENSITIVITY: Sweep(sens, FIG3_SENS_SEEDS[slot]),
        REPLAY: replay_sweep(),
    }


def fig3_sensitivity(runs: Runs) -> pd.DataFrame:
    """4-segment flows, owd 40 ms, quickack, by background access delay:
    bottleneck loss, the share of tail-drop flows that lost all four
    segments (no ACK comes back: RTOR has nothing to restart) and RTOR's
    median-FCT saving over the baseline."""
    octs: dict[tuple[float, str], list[float]] = {}
    drops: dict[tuple[float, str], list[int]] = {}
    loss: dict[float, list[float]] = {}
    for rec, raw in runs.results(SENSITIVITY, columns=True):
        d = float(rec["bg_delay"])
        x, _timeouts, dropped = tail_objects(raw)
        octs.setdefault((d, str(rec["variant"])), []).extend(x.tolist())
        drops.setdefault((d, str(rec["variant"])), []).extend(dropped.tolist())
        loss.setdefault(d, []).append(bottleneck(raw)[0])
    rows = []
    for d in sorted(loss):
        med = {v: float(np.median(octs[(d, v)])) for v in (BASELINE, "RTOR")}
        base = drops[(d, BASELINE)]
        rows.append(
            {
                "bg_delay": d,
                "loss": float(np.mean(loss[d])),
                "flows": len(base),
                "all_four_lost": float(np.mean([k >= 4 for k in base])),
                "rtor_saving": med[BASELINE] - med["RTOR"],
            }
        )
    return pd.DataFrame(rows)


def fig3_calibration(runs: Runs) -> pd.DataFrame:
    """Bottleneck loss and largest queueing delay by background sessions
    (mean over the seeds, and each seed's loss)."""
    by: dict[int, list[tuple[float, float]]] = {}
    for rec, raw in runs.results(CALIBRATION, columns=True):
        by.setdefault(int(rec["sessions"]), []).append(bottleneck(raw))
    return pd.DataFrame(
        [
            {
                "sessions": k,
                "seeds": len(v),
                "loss": float(np.mean([x[0] for x in v])),
                "loss_min": min(x[0] for x in v),
                "loss_max": max(x[0] for x in v),
                "max_queueing": max(x[1] for x in v),
            }
            for k, v in sorted(by.items())
        ]
    )


def fig3_loss_patterns(data: Fig3) -> pd.DataFrame:
    """Per case: the flows by number of segments dropped among their last
    four (1-4), their share with a timeout and their median FCT."""
    rows = []
    for case, octs in data.octs.items():
        v, n, owd, r = case
        x = np.asarray(octs, dtype=float)
        drops = np.asarray(data.drops[case])
        timeouts = np.asarray(data.timeouts[case])
        for k in range(1, 5):
            m = drops == k
            rows.append(
                {
                    "variant": v,
                    "size": n,
                    "owd": owd,
                    "receiver": r,
                    "tail_drops": k,
                    "flows": int(m.sum()),
                    "share": float(m.mean()) if len(m) else float("nan"),
                    "with_timeout": float(np.mean(timeouts[m] > 0)) if m.any() else float("nan"),
                    "median": float(np.median(x[m])) if m.any() else float("nan"),
                }
            )
    return pd.DataFrame(rows)


def fig3_seeds(seeds: dict[int, Fig3]) -> pd.DataFrame:
    """Per seed and case: the flows with a tail drop and their median FCT
    (the per-seed values of Fig. 3's claims)."""
    rows = [
        {
            "seed": seed,
            "variant": v,
            "size": n,
            "owd": owd,
            "receiver": r,
            "flows": len(x),
            "median": float(np.median(x)) if x else float("nan"),
        }
        for seed, data in sorted(seeds.items())
        for (v, n, owd, r), x in data.octs.items()
    ]
    return pd.DataFrame(rows)


def table(runs: Runs, quick: bool) -> Derived[Fig3Data]:
    cal = fig3_calibration(runs)
    sens = fig3_sensitivity(runs)
    per_seed: dict[int, Fig3] = {}
    for rec, raw in runs.results(columns=True):
        per_seed.setdefault(int(rec["seed"]), Fig3.empty()).add(rec, raw)
    pooled = Fig3.empty()
    for seed in sorted(per_seed):
        pooled.merge(per_seed[seed])
    rows = [
        {
            "variant": v,
            "size": n,
            "owd": owd,
            "receiver": r,
            "flows": len(x),
            "median": float(np.median(x)) if x else float("nan"),
            "p90": float(np.percentile(x, 90)) if x else float("nan"),
            "with_timeout": float(np.mean(np.asarray(pooled.timeouts[(v, n, owd, r)]) > 0))
            if x
            else float("nan"),
        }
        for (v, n, owd, r), x in pooled.octs.items()
    ]
    replay = replay_table(runs)
    data = Fig3Data(pooled, per_seed, cal, sens, replay)
    return Derived(
        data,
        {
            "fig3": pd.DataFrame(rows),
            "fig3_seeds": fig3_seeds(per_seed),
            "fig3_calibration_table": cal,
            "fig3_loss_patterns": fig3_loss_patterns(pooled),
            "fig3_sensitivity_table": sens,
            "fig3_replay": replay,
        },
    )


SENSITIVITY_PLOT = sensitivity_figure(
    "fig3",
    xlabel="background access delay (ms)",
    ylabel="value (see legend)",
    title="Fig. 3 sensitivity: 4 segments, owd 40 ms, quickack",
    logx=True,
    # one quantity per axis (the CSV keeps its one ylabel)
    panels={
        "tail-drop flows losing all 4 segments (%)": "flows losing all 4 (%)",
        "RTOR median FCT saving (ms)": "RTOR saving (ms)",
        "bottleneck loss (0.01 %)": "loss (0.01 %)",
    },
)
CALIBRATION_PLOT = LineFigure(
    "fig3_calibration",
    xlabel="background web sessions",
    ylabel="bottleneck drop rate (%)",
    title=f"Fig. 3 calibration (chosen: {BACKGROUND_SESSIONS} sessions)",
    logx=True,
)
#: One CDF per case of ``_fig3_mode`` (``{panel}`` its number).
CDF = LineFigure(
    "fig3-{panel}",
    xlabel="FCT (s)",
    ylabel="CDF",
    title="Fig. 3: {n} segments, owd {owd_ms:g} ms, {receiver}",
    styles=dict.fromkeys(VARIANTS, "-"),
)


def _fig3_sensitivity_plot(sens: pd.DataFrame, out: Path) -> None:
    delays = list(1e3 * sens["bg_delay"])
    lines: Lines = {
        "tail-drop flows losing all 4 segments (%)": (
            delays,
            list(100 * sens["all_four_lost"]),
            None,
        ),
        "RTOR median FCT saving (ms)": (delays, list(1e3 * sens["rtor_saving"]), None),
        "bottleneck loss (0.01 %)": (delays, list(1e4 * sens["loss"]), None),
    }
    SENSITIVITY_PLOT.draw(out, lines)


def plot(fig: Fig3Data, out: Path, quick: bool) -> None:
    _fig3_sensitivity_plot(fig.sensitivity, out)
    data = fig.pooled
    cal = fig.calibration
    sessions = list(cal["sessions"].astype(float))
    lines: Lines = {
        "bottleneck loss (mean)": (sessions, list(100 * cal["loss"]), None),
        "min over seeds": (sessions, list(100 * cal["loss_min"]), None),
        "max over seeds": (sessions, list(100 * cal["loss_max"]), None),
        "paper: about 1.5 %": (sessions, [1.5] * len(sessions), None),
    }
    CALIBRATION_PLOT.draw(out, lines)
    for i, (n, owd, r) in enumerate(fig3_mode(quick)[3]):
        series: Lines = {}
        for v in VARIANTS:
            xs, ys = cdf_points(data.octs.get((v, n, owd, r), []))
            if xs:
                series[v] = (xs, ys, None)
        CDF.draw(out, series, panel=i + 1, n=n, owd_ms=owd * 1e3, receiver=r)


FIGURES = (
    recipe(
        PAPER,
        "fig3",
        "FCT CDFs of flows with a tail loss under congestion",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
