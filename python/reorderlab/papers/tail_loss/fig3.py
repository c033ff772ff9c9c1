"""``fig3``: FCT CDFs of flows with a tail loss under congestion, the
background's calibration and a sensitivity sweep (:mod:`.setting`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    below,
    each_at_least,
    each_at_most,
    pct,
    unit,
    within,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    claims_stability,
    make_claim,
    series_str,
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
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
    sensitivity_figure,
)
from reorderlab.papers.tail_loss.setting import (
    BACKGROUND_SESSIONS,
    BASELINE,
    CALIBRATION,
    CALIBRATION_SEEDS,
    CALIBRATION_SESSIONS,
    FIG3_OWDS,
    FIG3_RATE,
    FIG3_SEEDS,
    FIG3_SENS_BG_DELAYS,
    FIG3_SENS_SEEDS,
    FIG3_SIZES,
    MSS,
    PAPER,
    RECEIVERS,
    VARIANTS,
    as_records,
    congested,
    floats,
    ints,
)
from reorderlab.plot import (
    cdf_points,
)


def _tail_objects(raw: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The foreground objects that completed with a drop among their last
    four segments, in order: their FCTs (s), timeouts and tail drops."""
    fg = next(t for t in raw["traffic"] if t["name"] == "fg")
    objs = as_records(fg["object_list"])
    octs, drops = floats(objs, "oct"), ints(objs, "tail_drops")
    keep = ~np.isnan(octs) & (drops > 0)
    return octs[keep], ints(objs, "timeouts")[keep], drops[keep]


#: (segments, one-way delay, receiver) of a Fig. 3 panel.
Case = tuple[int, float, str]


def _fig3_mode(quick: bool) -> tuple[float, tuple[int, ...], tuple[float, ...], list[Case]]:
    """Run length, object sizes, one-way delays and the panels' cases."""
    duration = 120.0 if quick else 300.0
    sizes = (4, 100) if quick else FIG3_SIZES
    owds = (0.005, 0.16) if quick else FIG3_OWDS
    cases = [
        (n, owd, r) for n in sizes for owd in owds for r in RECEIVERS if n < 100 or r == "quickack"
    ]
    return duration, sizes, owds, cases


def plan(quick: bool) -> Plan:
    duration, _, _, cases = _fig3_mode(quick)
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
        x, _timeouts, dropped = _tail_objects(raw)
        octs.setdefault((d, str(rec["variant"])), []).extend(x.tolist())
        drops.setdefault((d, str(rec["variant"])), []).extend(dropped.tolist())
        loss.setdefault(d, []).append(_bottleneck(raw)[0])
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


@dataclass(frozen=True)
class Fig3:
    """FCTs of the objects with a tail drop, by (variant, size, owd,
    receiver); each run's bottleneck drop rate and largest queueing delay
    (s); the calibration table (bottleneck loss by background sessions)."""

    octs: dict[tuple[str, int, float, str], list[float]]
    timeouts: dict[tuple[str, int, float, str], list[int]]
    sensitivity: pd.DataFrame
    drops: dict[tuple[str, int, float, str], list[int]]
    loss: list[float]
    queueing: list[float]
    calibration: pd.DataFrame

    def add(self, rec: dict[str, Any], raw: dict[str, Any]) -> None:
        """Add one run: its tail-drop objects (FCT, timeouts) and its bottleneck."""
        case = (str(rec["variant"]), int(rec["size"]), float(rec["owd"]), str(rec["receiver"]))
        octs, timeouts, drops = _tail_objects(raw)
        self.octs.setdefault(case, []).extend(octs.tolist())
        self.timeouts.setdefault(case, []).extend(timeouts.tolist())
        self.drops.setdefault(case, []).extend(drops.tolist())
        loss, queueing = _bottleneck(raw)
        self.loss.append(loss)
        self.queueing.append(queueing)

    def merge(self, other: Fig3) -> None:
        for case, x in other.octs.items():
            self.octs.setdefault(case, []).extend(x)
        for case, t in other.timeouts.items():
            self.timeouts.setdefault(case, []).extend(t)
        for case, t in other.drops.items():
            self.drops.setdefault(case, []).extend(t)
        self.loss.extend(other.loss)
        self.queueing.extend(other.queueing)

    def median(self, v: str, n: int, owd: float, r: str) -> float:
        x = self.octs.get((v, n, owd, r), [])
        return float(np.median(x)) if x else float("nan")


def _bottleneck(raw: dict[str, Any]) -> tuple[float, float]:
    """A Fig. 3 run's bottleneck drop rate and largest queueing delay (s)."""
    link = next(x for x in raw["links"] if x["link"] == "R1->R2")
    loss = link["queue_drops"] / max(1, link["arrivals"])
    return float(loss), float(link["max_queue"]) * MSS * 8 / FIG3_RATE


def fig3_calibration(runs: Runs) -> pd.DataFrame:
    """Bottleneck loss and largest queueing delay by background sessions
    (mean over the seeds, and each seed's loss)."""
    by: dict[int, list[tuple[float, float]]] = {}
    for rec, raw in runs.results(CALIBRATION, columns=True):
        by.setdefault(int(rec["sessions"]), []).append(_bottleneck(raw))
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


def table(runs: Runs, quick: bool) -> Derived[Fig3]:
    cal = fig3_calibration(runs)
    sens = fig3_sensitivity(runs)
    per_seed: dict[int, Fig3] = {}
    for rec, raw in runs.results(columns=True):
        seed = int(rec["seed"])
        per_seed.setdefault(seed, Fig3({}, {}, sens, {}, [], [], cal)).add(rec, raw)
    data = Fig3({}, {}, sens, {}, [], [], cal)
    for seed in sorted(per_seed):
        data.merge(per_seed[seed])
    rows = [
        {
            "variant": v,
            "size": n,
            "owd": owd,
            "receiver": r,
            "flows": len(x),
            "median": float(np.median(x)) if x else float("nan"),
            "p90": float(np.percentile(x, 90)) if x else float("nan"),
            "with_timeout": float(np.mean(np.asarray(data.timeouts[(v, n, owd, r)]) > 0))
            if x
            else float("nan"),
        }
        for (v, n, owd, r), x in data.octs.items()
    ]
    singles = [per_seed[s] for s in sorted(per_seed)]
    stability = claims_stability(lambda d: claims(d, quick), data, singles)
    patterns = fig3_loss_patterns(data)
    return Derived(
        data,
        {
            "fig3": pd.DataFrame(rows),
            "fig3_calibration_table": cal,
            "fig3_stability": stability,
            "fig3_loss_patterns": patterns,
            "fig3_sensitivity_table": sens,
        },
    )


SENSITIVITY_PLOT = sensitivity_figure(
    "fig3",
    xlabel="background access delay (ms)",
    ylabel="value (see legend)",
    title="Fig. 3 sensitivity: 4 segments, owd 40 ms, quickack",
    logx=True,
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


def plot(data: Fig3, out: Path, quick: bool) -> None:
    _fig3_sensitivity_plot(data.sensitivity, out)
    cal = data.calibration
    sessions = list(cal["sessions"].astype(float))
    lines: Lines = {
        "bottleneck loss (mean)": (sessions, list(100 * cal["loss"]), None),
        "min over seeds": (sessions, list(100 * cal["loss_min"]), None),
        "max over seeds": (sessions, list(100 * cal["loss_max"]), None),
        "paper: about 1.5 %": (sessions, [1.5] * len(sessions), None),
    }
    CALIBRATION_PLOT.draw(out, lines)
    for i, (n, owd, r) in enumerate(_fig3_mode(quick)[3]):
        series: Lines = {}
        for v in VARIANTS:
            xs, ys = cdf_points(data.octs.get((v, n, owd, r), []))
            if xs:
                series[v] = (xs, ys, None)
        CDF.draw(out, series, panel=i + 1, n=n, owd_ms=owd * 1e3, receiver=r)


def claims(data: Fig3, quick: bool) -> list[Claim]:
    _, sizes, owds, cases = _fig3_mode(quick)
    med = data.median
    mean_loss = float(np.mean(data.loss))
    claims = [
        make_claim(
            PAPER,
            "fig3",
            "the background gives about 1.5 % loss at the bottleneck (paper's Tmix setting)",
            within(mean_loss, 0.01, 0.0225, "mean bottleneck drop rate", pct).noted(
                "(1.5 % +- 50 %)"
            ),
            f"{100 * mean_loss:.2f} %",
            loss=mean_loss,
        ),
        _queueing_claim(data.queueing),
    ]
    for r, extra in (("quickack", 0.0), ("delack", 0.2)):
        saved = {owd: med(BASELINE, 4, owd, r) - med("RTOR", 4, owd, r) for owd in owds}
        rtt = {owd: 2 * (owd + 0.001) for owd in owds}
        need = Ref(rtt, "RTT", times=0.8, plus=0.75 * extra, fmt=unit("ms", 1e3))
        claims.append(
            make_claim(
                PAPER,
                "fig3",
                f"4-segment flows, {r}: RTOR is at least one RTT faster than the baseline"
                + (" (+200 ms with delayed ACKs)" if extra else ""),
                each_at_least(saved, need, "median FCT saved", "at every owd"),
                "saved (ms) by owd: "
                + ", ".join(
                    f"{o * 1e3:g}: {s * 1e3:.0f} (need {need.at(o) * 1e3:.0f})"
                    for o, s in saved.items()
                ),
            )
        )
    short = [(n, owd, r) for n, owd, r in cases if n != 100]
    lowest = each_at_most(
        {f"{n} seg {owd * 1e3:g} ms {r}": med("TLPR", n, owd, r) for n, owd, r in short},
        Ref(
            {
                f"{n} seg {owd * 1e3:g} ms {r}": min(med("RTOR", n, owd, r), med("TLP", n, owd, r))
                for n, owd, r in short
            },
            "min(RTOR, TLP)",
            times=1.05,
        ),
        "median FCT of TLPR",
        "in every setting",
    )
    claims.append(
        make_claim(
            PAPER,
            "fig3",
            "TLPR gives the lowest FCTs (4- and 10-segment flows)",
            lowest,
            "every setting" if lowest.holds else "not in: " + "; ".join(lowest.failed),
        )
    )
    gains = {}
    for n in (min(sizes), 100):
        g = [
            1 - med("TLPR", n, owd, "quickack") / med(BASELINE, n, owd, "quickack") for owd in owds
        ]
        gains[n] = float(np.nanmean(g))
    claims.append(
        make_claim(
            PAPER,
            "fig3",
            "100-segment flows gain little compared with short flows",
            below(
                gains[100],
                Ref(gains[min(sizes)], "short flows"),
                "mean relative median-FCT gain of TLPR (quickack), 100 segments",
            ),
            series_str(gains, "{:.1%}"),
            gains=gains,
        )
    )
    return claims


def _queueing_claim(queueing: Sequence[float]) -> Claim:
    """Sec. 3.2 on its own setting: "queueing delays of up to 35 ms"."""
    top = max(queueing)
    return make_claim(
        PAPER,
        "fig3",
        "queueing delays at the bottleneck reach up to about 35 ms (Sec. 3.2)",
        within(top, 0.030, 0.036, "largest bottleneck queueing delay", unit("ms", 1e3)),
        f"{top * 1e3:.1f} ms",
        queueing=top,
    )


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
