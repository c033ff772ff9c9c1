"""The knife-edge sensitivity of Figs. 10-13 and Table 3 (issue 34): does
a +/-1 choice of the model decide whether DSACK-TA collapses?

At k = 6 (P = 200 ms, 4 % of the packets held N(1.2 s, 0.4 s), 2-4 RTTs)
a held packet can collect only as many duplicate ACKs as the sender has
packets past it: M - 1 = 49 with the maximum window a hard limit, more
when limited transmit may send past M. Its reordering length, measured
when it arrives (Sec. 4.1.1), is that count, so dupthresh = the length +
1 sits one above what the next held packet can collect. Three choices of
the project sit on that edge:

* how far limited transmit may send past M: Table 2's 1 x cwnd (as the
  core reads it), or M a hard limit plus 0, 1 or 2 segments
  (``tcp.limited_transmit_past_window``);
* dupthresh = the percentile + 1 (Sec. 4.2's example, the default) or + 0
  (``tcp.rr_percentile_offset``);
* a length above the histogram's top bin (64, Table 2's maximum dupthresh)
  counted in it or discarded (``tcp.rr_long_samples``; it matters only
  when limited transmit runs past M).

The sweep runs DSACK-FA at 95 %, DSACK-TA, -TAES and -HG under each
reading (the core's reading is the figure's own runs); ``fig12_knife_edge_table``
lists their mean RTO, timeouts, false fast retransmits, FA ratio and
throughput, and plots the mean RTO; ``fig12_knife_edge_fa_ratio`` plots
DSACK-FA's timeouts against its FA ratio with M a hard limit beside the
figure's. ``fig12_trace_*`` trace DSACK-TA's
dupthresh and FA ratio against percentiles of its reordering histogram
(one run, seed 1) under three readings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
    stat_series,
)
from reorderlab.papers.kit.runs import (
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG10_FRACTION,
    FIG10_P,
    MODE,
    Knobs,
    capacity_bps,
    chain_scenario,
    kp_delay,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    LT_XLABEL,
    Points,
    past_m_x,
)
from reorderlab.scenario import (
    RecordSpec,
)

#: The plan entries of the sweep and of the traces.
KNIFE_EDGE = "sensitivity"
TRACE = "trace"
#: The readings swept: the core's (the figure's own runs) first.
READINGS = (
    Knobs(),
    Knobs(past_m=2),
    Knobs(past_m=1),
    Knobs(past_m=0),
    Knobs(offset=0),
    Knobs(past_m=2, offset=0),
    Knobs(past_m=1, offset=0),
    Knobs(past_m=0, offset=0),
    Knobs(long_samples="discard"),
    Knobs(offset=0, long_samples="discard"),
)
#: Those of the traces (file stem suffix, reading).
TRACED = (
    ("lt-cwnd", Knobs()),
    ("lt0", Knobs(past_m=0)),
    ("lt0-offset0", Knobs(past_m=0, offset=0)),
)
#: The variants swept (DSACK-FA at the highest FA ratio of the figure).
VARIANTS = ("DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
K = 6.0


def curve(variant: str, k: Knobs) -> str:
    """The table key of one variant under the reading's offset and
    long-sample rule (x: :func:`past_m_x`)."""
    off = 1 if k.offset is None else k.offset
    return f"ke:{variant} | percentile + {off} | {k.long_samples or 'clamp'}"


#: DSACK-FA at every FA ratio of the figure is also run with M a hard
#: limit (Fig. 12's timeouts vs the FA ratio under that reading).
HELD = Knobs(past_m=0)


def ratio_curve() -> str:
    """The table key of DSACK-FA vs its FA ratio under :data:`HELD`."""
    return f"ke-ratio:DSACK-FA | {HELD.label()}"


def sweeps(quick: bool, fa_ratio: float, ratios: Sequence[float]) -> dict[str, Sweep]:
    """The sweep and the traces, for a figure's plan (``fa_ratio``: DSACK-FA's
    in the sweep; ``ratios``: the figure's FA ratios)."""
    mode = MODE(quick)
    s = capacity_bps(FIG10_P)
    imps = [kp_delay(FIG10_FRACTION, K, FIG10_P)]
    points: list[Point] = [
        point(
            curve(v, k),
            past_m_x(k.past_m),
            s,
            chain_scenario(
                CHAIN,
                FIG10_P,
                v,
                mode.duration,
                imps,
                fa_ratio=fa_ratio if v == "DSACK-FA" else None,
                knobs=k,
            ),
        )
        for v in VARIANTS
        for k in READINGS
    ]
    points += [
        point(
            ratio_curve(),
            r,
            s,
            chain_scenario(CHAIN, FIG10_P, "DSACK-FA", mode.duration, imps, fa_ratio=r, knobs=HELD),
        )
        for r in ratios
    ]
    rec = RecordSpec(
        series=["fa_ratio", "dupthresh", "reorder_p10", "reorder_p50", "reorder_p90"],
        interval=1.0,
    )
    traces = [
        (
            {"reading": name},
            chain_scenario(CHAIN, FIG10_P, "DSACK-TA", mode.duration, imps, record=rec, knobs=k),
        )
        for name, k in TRACED
    ]
    return {KNIFE_EDGE: Sweep(points, mode.seeds), TRACE: Sweep(traces, seeds=1)}


_COLUMNS = {
    "rto_mean": "mean_rto_s",
    "to_frac": "timeout_fraction",
    "false_fr_frac": "false_fr_fraction",
    "fa_ratio": "fa_ratio_end",
    "dupthresh": "dupthresh_end",
    "norm": "throughput_over_S",
}


def rows(data: Points) -> list[dict[str, Any]]:
    """``fig12-knife-edge-table.csv``: per reading and variant, the seed means."""
    out = []
    for k in READINGS:
        for v in VARIANTS:
            st = data.tab[(curve(v, k), past_m_x(k.past_m))]
            row: dict[str, Any] = {
                "reading": k.label(),
                "variant": v,
                "lt_past_m": "1 cwnd" if k.past_m is None else k.past_m,
                "percentile_offset": 1 if k.offset is None else k.offset,
                "long_samples": k.long_samples or "clamp",
                "seeds": st.seeds,
            }
            row |= {name: st.mean[m] for m, name in _COLUMNS.items()}
            out.append(row)
    return out


def _lines(data: Points, metric: str, scale: float) -> Lines:
    """``metric`` vs segments past M, per variant and offset (clamp)."""
    series: Lines = {}
    for v in VARIANTS:
        for off in (1, 0):
            label = f"{v}{' (95 %)' if v == 'DSACK-FA' else ''}, percentile + {off}"
            key = curve(v, Knobs(offset=off))
            one = stat_series(data.tab, [key], metric, yscale=scale)
            if key in one:
                series[label] = one[key]
    return series


def plot(data: Points, traces: dict[str, dict[str, np.ndarray]], out: Path, quick: bool) -> None:
    """``fig12_knife_edge`` (mean RTO) and ``fig12_knife_edge_timeouts``, and
    the traces."""
    mode = MODE(quick)
    title = (
        f"k = 6: readings of the model's thresholds ({mode.seeds} seeds x {mode.duration:g} s)\n"
        "paper's Table 3 (s): FA 3.1, TA 1.6, TAES 3.1, HG 2.3"
    )
    for stem, metric, ylabel, scale in (
        ("fig12_knife_edge", "rto_mean", "mean RTO (s)", 1.0),
        ("fig12_knife_edge_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
    ):
        LineFigure(stem, LT_XLABEL, ylabel, title).draw(out, _lines(data, metric, scale))
    held: Lines = {
        "DSACK-FA, LT 1 cwnd past M (the figure's)": stat_series(
            data.tab, ["DSACK-FA"], "to_frac", xscale=100, yscale=100
        )["DSACK-FA"],
        f"DSACK-FA, {HELD.label()}": stat_series(
            data.tab, [ratio_curve()], "to_frac", xscale=100, yscale=100
        )[ratio_curve()],
    }
    LineFigure(
        "fig12_knife_edge_fa_ratio",
        "FA ratio (%)",
        "packets meeting a timeout (%)",
        f"Fig. 12: DSACK-FA's timeouts vs its FA ratio ({mode.seeds} seeds x {mode.duration:g} s)",
    ).draw(out, held)
    for name, k in TRACED:
        s = traces.get(name)
        if s is None:
            continue
        t = s["t"].tolist()
        lines: Lines = {"FA ratio (%)": (t, (100 * s["fa_ratio"]).tolist(), None)}
        lines |= {
            label: (t, s[key].tolist(), None)
            for label, key in (
                ("dupthresh", "dupthresh"),
                ("reordering length, 10th percentile", "reorder_p10"),
                ("reordering length, median", "reorder_p50"),
                ("reordering length, 90th percentile", "reorder_p90"),
            )
        }
        LineFigure(
            f"fig12_trace_{name}",
            "time (s)",
            "packets / FA ratio (%)",
            f"DSACK-TA at k = 6, seed 1, {k.label()} ({mode.duration:g} s)",
        ).draw(out, lines)


def traces_of(runs: Runs) -> dict[str, dict[str, np.ndarray]]:
    """Each traced run's series by reading."""
    out = {}
    names: Sequence[tuple[str, Knobs]] = TRACED
    for i, (name, _) in enumerate(names):
        out[name] = runs.result(TRACE, i).series(0)
    return out
