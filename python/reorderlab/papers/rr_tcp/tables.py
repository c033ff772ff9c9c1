"""The rr-tcp paper's figure tables: each point's seed means (and sample
standard deviations) of the metrics of Sec. 5, and the limited-transmit
sensitivity sweep of Figs. 12-13 and 17-18."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Check,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
)
from reorderlab.papers.kit.figure import (
    Lines,
    stat_series,
)
from reorderlab.papers.kit.recipe import (
    Derived,
)
from reorderlab.papers.kit.runs import (
    Runs,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)
from reorderlab.papers.kit.summary import (
    Table,
    seed_stats,
    x_values,
)
from reorderlab.papers.rr_tcp.setting import (
    PAPER,
    M,
)

_MEAN_METRICS = (
    "norm",
    "to_frac",
    "fr_frac",
    "rto_mean",
    "fa_ratio",
    "dupthresh",
    "segments_delivered",
    "timeouts",
    "fast_retransmits",
    "spurious_fast_retransmits",
    "reordered",
    "false_fr_frac",
)


def with_metrics(df: pd.DataFrame) -> pd.DataFrame:
    """The runs' table with the metrics of Sec. 5 per run (module docstring
    of :mod:`.setting`): ``norm``, ``to_frac``, ``fr_frac``, the false
    fast-retransmit ratios and the mean RTO that expired."""
    d = df.copy()
    for col in (
        "throughput_bps",
        "S_bps",
        "timeouts",
        "fast_retransmits",
        "spurious_fast_retransmits",
        "false_fast_retransmits_detected",
        "data_packets_sent",
        "rto_mean",
        "fa_ratio",
        "dupthresh",
        "segments_delivered",
        "reordered_ratio",
    ):
        d[col] = pd.to_numeric(d[col], errors="coerce")
    # segments that arrived out of order (RFC 4737 reordered ratio x first copies)
    d["reordered"] = d["reordered_ratio"].fillna(0.0) * d["segments_delivered"]
    sent = d["data_packets_sent"].clip(lower=1)
    d["norm"] = d["throughput_bps"] / d["S_bps"]
    d["to_frac"] = d["timeouts"] / sent
    d["fr_frac"] = d["fast_retransmits"] / sent
    frs = d["fast_retransmits"].where(d["fast_retransmits"] > 0)
    d["false_fr"] = (d["spurious_fast_retransmits"] / frs).fillna(0.0)
    d["false_fr_detected"] = (d["false_fast_retransmits_detected"] / frs).fillna(0.0)
    reord = d["reordered"].where(d["reordered"] > 0)
    d["false_fr_per_reorder"] = (d["spurious_fast_retransmits"] / reord).fillna(0.0)
    d["false_fr_frac"] = d["spurious_fast_retransmits"] / sent
    return d


def summarise(df: pd.DataFrame) -> Table:
    """Per (curve, x): seed means of the metrics; pooled false-FR ratios."""
    return seed_stats(with_metrics(df), _MEAN_METRICS, _pooled)


@dataclass(frozen=True)
class Points:
    """A figure's runs two ways: ``tab``, the seed means per (curve, x)
    (what the plots draw), and ``runs``, one row per run with its seed and
    the metrics of :func:`with_metrics` (what the claims test, seed by
    seed)."""

    tab: Table
    runs: pd.DataFrame

    def seeds(self, curve: str, x: float, metric: str = "norm") -> dict[int, float]:
        """``metric`` of the point (``curve``, ``x``) on each seed."""
        rows = self.runs[(self.runs["curve"] == curve) & (self.runs["x"] == x)]
        if rows.empty:
            raise KeyError(f"no run of curve {curve!r} at x = {x:g}")
        return {int(s): float(v) for s, v in zip(rows["seed"], rows[metric], strict=True)}

    def curves(
        self, curve: str, metric: str = "norm", xs: Sequence[float] | None = None
    ) -> dict[int, dict[float, float]]:
        """``metric`` of ``curve`` against x per seed (seed -> x -> value),
        over ``xs`` (default: every x of the curve)."""
        xs = x_values(self.tab, curve) if xs is None else xs
        out: dict[int, dict[float, float]] = {}
        for x in xs:
            for s, v in self.seeds(curve, x, metric).items():
                out.setdefault(s, {})[x] = v
        return out

    def mean_over(self, curve: str, xs: Sequence[float], metric: str = "norm") -> dict[int, float]:
        """Per seed, the mean of ``metric`` of ``curve`` over ``xs``."""
        return {
            s: float(np.mean([c[x] for x in xs])) for s, c in self.curves(curve, metric, xs).items()
        }


def seeded(df: pd.DataFrame) -> Points:
    """:class:`Points` of a sweep's table."""
    d = with_metrics(df)
    return Points(seed_stats(d, _MEAN_METRICS, _pooled), d)


def point_rows(data: Points) -> list[dict[str, Any]]:
    """One row per point (curve, x): its seeds and the seed means of every
    metric (what a deviation's evidence numbers cite)."""
    return [
        {"curve": curve, "x": x, "seeds": st.seeds, **st.mean}
        for (curve, x), st in sorted(data.tab.items())
    ]


def points_table(stem: str) -> Callable[[Runs, bool], Derived[Points]]:
    """The table step of most figures: :func:`seeded` of the runs, and
    :func:`point_rows` written as ``<stem>.csv``."""

    def table(runs: Runs, quick: bool) -> Derived[Points]:
        data = seeded(runs.table())
        return Derived(data, {stem: point_rows(data)})

    return table


def _pooled(g: pd.DataFrame) -> dict[str, float]:
    """A point's ratios of sums over its seeds: false fast retransmits per
    fast retransmit (ground truth, and found by DSACK), per reordered
    packet; and the mean RTO that expired."""
    frs = float(g["fast_retransmits"].sum())
    det = float(g["false_fast_retransmits_detected"].sum())
    reord = float(g["reordered"].sum())
    false = float(g["spurious_fast_retransmits"].sum())
    return {
        "false_fr": float(g["spurious_fast_retransmits"].sum()) / frs if frs else 0.0,
        "false_fr_detected": det / frs if frs else 0.0,
        "false_fr_per_reorder": false / reord if reord else 0.0,
        "rto_at_timeout": _rto_at_timeout(g),
    }


def _rto_at_timeout(g: pd.DataFrame) -> float:
    """The mean RTO that expired, pooled over the seeds' timeouts (NaN
    without a timeout): the other reading of Table 3's "mean RTO"."""
    if "rto_expired_mean" not in g.columns:
        return math.nan
    n = g["timeouts"].astype(float)
    waits = pd.to_numeric(g["rto_expired_mean"], errors="coerce").fillna(0.0) * n
    return float(waits.sum() / n.sum()) if n.sum() > 0 else math.nan


def summary(runs: Runs, quick: bool) -> Derived[Table]:
    """The table step of most figures: :func:`summarise` of the runs."""
    return Derived(summarise(runs.table()))


def percent(v: float) -> str:
    return f"{100 * v:.1f} %"


# Sensitivity: how far limited transmit may run past the maximum window
# --------------------------------------------------------------------------
#
# Table 2 gives both "Maximum sending window (maxwnd) 50 pkts" and "Limited
# transmit bound 1 x cwnd", but not whether limited transmit may send beyond
# maxwnd. The core lets it (up to k x cwnd past the receiver window, k = 1):
# a packet held 2-4 RTTs then collects up to ~2M duplicate ACKs, more than
# the maximum dupthresh of 64. The sensitivity step of Figs. 17-18 reruns
# DSACK-TA with M a hard limit plus 0 or 2 segments
# (``tcp.limited_transmit_past_window``; limited transmit below M as
# before); 1 x cwnd past M is the figure's own runs. Figs. 12-13's
# knife-edge sweep (:mod:`.knife_edge`) covers these readings and more.

#: Segments limited transmit may send past M in the sensitivity sweeps
#: (None: 1 x cwnd, the figure's own runs).
PAST_M_SWEEP: tuple[int | None, ...] = (0, 2, None)


def past_m_x(past_m: int | None) -> float:
    """The sweeps' x: segments past M (1 x cwnd = M at cwnd = M)."""
    return float(M if past_m is None else past_m)


#: The x axis of the limited-transmit sensitivity plots.
LT_XLABEL = f"segments limited transmit may send past M ({M}: 1 x cwnd, Table 2 as read)"


def sens_curve(label: str) -> str:
    """Table key of a sensitivity curve (kept apart from the figure's)."""
    return f"lt:{label}"


def lt_series(tab: Table, labels: Sequence[str], metric: str, yscale: float = 1.0) -> Lines:
    """``metric`` vs the limited-transmit bound, one line per label (its
    curve :func:`sens_curve`)."""
    return stat_series(tab, labels, metric, yscale=yscale, key=sens_curve)


def rr_claim(
    figure: str,
    name: str,
    check: Check,
    *,
    quote: str,
    where: str,
    kind: str = "claim",
    values: Mapping[str, Any] | None = None,
) -> Claim:
    """A claim of the rr-tcp paper: :func:`~reorderlab.papers.kit.claims.paper_claim`."""
    return paper_claim(
        PAPER, figure, name, check, quote=quote, where=where, kind=kind, values=values
    )


def gap(a: Mapping[int, float], b: Mapping[int, float]) -> dict[int, float]:
    """``a - b`` seed by seed (the seeds of ``a``)."""
    return {s: a[s] - b[s] for s in a}


def best_of(per: Mapping[str, Mapping[int, float]]) -> dict[int, float]:
    """Per seed, the largest value over the curves of ``per``."""
    seeds = next(iter(per.values()))
    return {s: max(v[s] for v in per.values()) for s in seeds}


def seeded_with_sensitivity(runs: Runs) -> Points:
    """:class:`Points` of the figure's sweep and of its sensitivity sweep
    (whose curves are named by :func:`sens_curve`)."""
    df = pd.concat([runs.table(), runs.table(SENSITIVITY)], ignore_index=True)
    return seeded(df)
