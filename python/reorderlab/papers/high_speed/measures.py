"""The quantities the high-speed paper's sentences name, per seed, from a
figure's runs (a :func:`~reorderlab.papers.high_speed.setting.run_table`:
one row per curve, x and seed), and the checks two figures share.

Every check is a seeded test of :mod:`reorderlab.checks` (a 95 % interval
over the seeds); the bands and limits say which words of the paper they
stand for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from reorderlab.checks import Check, PerSeed, band, every, ratio

#: "significantly degrade": at most half the throughput without reordering.
DEGRADED = 0.5
DEGRADED_SOURCE = "'significantly degrade': to at most half"
#: "only slightly reduces": a further loss of at most a tenth of the
#: throughput without reordering (against the first loss, at least half).
SLIGHT = 0.1
#: "very high throughputs" on the 1000 Mb/s bottleneck: at least 80 % of it.
VERY_HIGH_MBPS = 800.0
VERY_HIGH_SOURCE = "'very high throughputs' on the 1000 Mbps bottleneck (Sec. V-A): >= 80 %"


def mbps(runs: pd.DataFrame, curve: str, x: float) -> dict[int, float]:
    """``curve``'s Mb/s at ``x``, per seed."""
    rows = runs[(runs["curve"] == curve) & (runs["x"] == float(x))]
    if rows.empty:
        raise KeyError(f"no run of {curve!r} at x = {x:g}")
    return {int(s): float(v) for s, v in zip(rows["seed"], rows["mbps"], strict=True)}


def curve(
    runs: pd.DataFrame, name: str, xs: Sequence[float] | None = None
) -> dict[int, dict[float, float]]:
    """``name``'s Mb/s against x (all of its x, or ``xs``), per seed."""
    rows = runs[runs["curve"] == name]
    if xs is not None:
        rows = rows[rows["x"].isin([float(x) for x in xs])]
    out: dict[int, dict[float, float]] = {}
    for s, x, y in zip(rows["seed"], rows["x"], rows["mbps"], strict=True):
        out.setdefault(int(s), {})[float(x)] = float(y)
    if not out:
        raise KeyError(f"no run of {name!r}")
    return out


def mean_over_x(curves: Mapping[int, Mapping[float, float]]) -> dict[int, float]:
    """Per seed, the mean of a curve over its points."""
    return {s: sum(c.values()) / len(c) for s, c in curves.items()}


def minus(a: PerSeed, b: PerSeed) -> dict[int, float]:
    """``a - b`` per seed (the seeds of both)."""
    return {s: a[s] - b[s] for s in sorted(set(a) & set(b))}


def degraded(at: PerSeed, free: PerSeed, what: str) -> Check:
    """ "significantly degrade": ``at`` / ``free`` (the throughput without
    reordering) below :data:`DEGRADED`."""
    return ratio(at, free, f"{what} / throughput without reordering", op="<", limit=DEGRADED)


def slightly_more(first: PerSeed, last: PerSeed, free: PerSeed, what: str) -> Check:
    """ "only slightly reduces": the further loss ``first - last`` as a
    share of the throughput without reordering ``free``, below
    :data:`SLIGHT` (a gain passes)."""
    return ratio(
        minus(first, last), free, f"{what} / throughput without reordering", op="<", limit=SLIGHT
    )


def very_high(free: PerSeed, what: str) -> Check:
    return band(free, VERY_HIGH_MBPS, None, what, source=VERY_HIGH_SOURCE)


def for_both(checks: Mapping[str, Check], text: str) -> Check:
    """The same check of BIC-SACK and HSTCP-SACK: both must hold."""
    return every(dict(checks), text)


#: How many failing parts a measured text names.
SHOWN = 6


def each(checks: Mapping[str, Check], text: str) -> tuple[Check, str]:
    """Every one of many checks (one per curve and point) must hold; and a
    measured text that counts them and names those that do not, with their
    estimate and interval."""
    failed = [k for k, c in checks.items() if not c.holds]

    def show(key: str) -> str:
        rec = checks[key].tests[0]
        return f"{key}: {rec['estimate']:.4g} [{rec['lo']:.4g}, {rec['hi']:.4g}]"

    told = "; ".join(show(k) for k in failed[:SHOWN])
    more = f" and {len(failed) - SHOWN} more" if len(failed) > SHOWN else ""
    text_ = f"holds at {len(checks) - len(failed)} of {len(checks)}"
    return every(dict(checks), text), text_ + (f"; not at {told}{more}" if failed else "")
