"""The high-speed paper: packet reordering and high-speed TCPs (Figs. 9-14).

Paper key ``high-speed``; one recipe per row of ``docs/papers.md`` (The high-speed paper).

Setting (Sec. V-A, Fig. 8)
    A dumbbell with a 1000 Mb/s, 50 ms one-way bottleneck; the studied flow
    S0 -> D0 (1500-byte packets) crosses the paper's reordering generator
    on its access link S0 -> R1, so only it sees reordering. Generator
    defaults: mean reordering interval 0.02 s, mean reordering delay time
    20 us, block size 1 packet; interval and delay time exponential with
    those means (the measured CDFs are not given: docs/papers.md's
    assumption). Throughput of the studied flow after a 10 s warm-up.

Curves
    Figs. 9-11: BIC and HSTCP over SACK, plus two curves the paper predates:
    CUBIC over SACK, and BIC over RACK-TLP (RFC 8985: time-based loss
    detection with a reordering window). Figs. 12-14: BIC with TCP-NCR (RFC
    4653, careful), AVG-DEV and TCP-RR (= DSACK-TA of the rr-tcp paper) against
    BIC-SACK, plus BIC over RACK-TLP. The claims are checked on the paper's
    variants only; the extra curves are drawn and tabulated.

Full fidelity: 100 s runs, 2 seeds. Quick (``--quick``): 30 s runs, 1 seed,
3-4 x values per figure. Claims are checked on those runs; a claim that
fails is reported as not holding, with the numbers.

Assumptions (the paper does not say)
    * Access links 10 Gb/s with one-way delays drawn once, uniformly in
      0.1-0.9 ms (fixed list below, so every run has the same topology).
    * Bottleneck DropTail queue of one bandwidth-delay product (docs/papers.md).
    * "Various kinds of background traffic in both directions": two HTTP
      generators with the tcp-pr paper's web sessions (50 open-loop sessions each),
      S1 -> D1 and D2 -> S2 over the bottleneck, SACK/Reno.
    * Every sender: no receiver-window limit, no delayed ACK, the RTT
      estimator and timer of the ns-2 of the paper's time (its references
      end in 2006, so ns-2.30/2.31: 10-ms ticks, integer srtt x 8 / rttvar
      x 4, RTO floored to whole ticks, initial RTO 3 s; timing cancelled at
      every fast retransmit and timeout, no sample in SACK fast recovery;
      ``tcp.rto_estimator = "ns2-2.31"``, ``docs/variants.md``) with the
      min RTO of 1 s docs/papers.md assumes for this paper (RFC 2988) where
      that release's default was 0.2 s: the paper does not give it. No
      hidden ``dupthresh = max(3, cwnd / numdupacksFrac_)`` rule.
    * AVG-DEV (Ma & Leung, GLOBECOM 2004; no text of it was found): the
      variant ``AVG-DEV``, the rules the secondary sources agree on
      (dupthresh = average + mean deviation of the DSACK-measured
      reordering lengths, EWMA gains 19/64, the adaptive bound
      cwnd (0.7 RTO/SRTT - 2), average halved and deviation quartered at a
      first timeout; ``docs/variants.md``), because each of its rules has a
      source; ``AVG-DEV-K4`` (average + 4 deviations, RFC 6298 gains) is an
      earlier reading with none for its constant 4 and is not drawn.
    * TCP-NCR: careful mode, RFC 4653's default; the paper does not say.
    * The generator holds a block until a later packet has passed it, then
      the drawn delay time (the paper's definition of the delay time,
      Sec. III-B), waiting at most 10 ms for that packet. A window-limited
      flow whose packets come tens of microseconds apart is therefore
      reordered at every event; how the paper's generator treated a block
      with no packet close behind is not said.

Sensitivity (drawn and tabulated, not judged; issue 20)
    Where a verdict depends on a setting the paper does not give, a small
    sweep shows by how much (``<fig>_sensitivity.png`` + CSV, full and
    quick mode; ``papers/deviations/high_speed.toml`` cites them):
    ``fig9_sensitivity`` BIC and HSTCP over SACK with delayed ACKs (RFC
    1122, the studied flow's receiver) at every interval;
    ``fig10_sensitivity`` the same with delayed ACKs and with the generator
    after a 1 Gb/s access link (ns-2's ``link-lossmodel`` instead of
    ``lossmodel``: a burst reaches it spaced by the access rate) at 20-100
    us; ``fig12_sensitivity`` BIC-SACK and the three tolerant variants at
    the default point (BIC-NCR also at block size 2) for generator holds
    from 10 ms down to 20 us; ``fig9_seeds.csv`` BIC and HSTCP over SACK at
    the 0.5-s interval with either ACK policy over 6 seeds (3 in quick
    mode), each run and the mean, minimum and maximum: HSTCP's throughput
    there ranges over a factor of 3 (30 with delayed ACKs) from seed to
    seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    all_of,
    at_least,
    at_most,
    below,
    each_above,
    each_at_least,
    each_at_most,
    that,
    unit,
)
from reorderlab.claims import Claim
from reorderlab.papers import Derived, recipe
from reorderlab.papers.common import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
    flow_column,
    make_claim,
    series_str,
    spearman,
)
from reorderlab.plot import line_plot
from reorderlab.scenario import (
    ConstantVar,
    DelayedAck,
    DroptailQueue,
    DumbbellTopology,
    ExponentialVar,
    FlowSpec,
    Impairment,
    ReceiverSpec,
    ReorderImpairment,
    Scenario,
    TcpSpec,
    TrafficSpec,
)

PAPER = "high-speed"

RATE = 1e9
DELAY = 0.05
MSS = 1500
ACCESS_RATE = 10e9
#: One-way access delays of pairs 0..2, drawn once from U(0.1, 0.9) ms.
ACCESS_DELAYS = (0.00047, 0.00081, 0.00019)
WARMUP = 10.0
MIN_RTO = 1.0
RTO_ESTIMATOR = "ns2-2.31"

FULL_DURATION, FULL_SEEDS = 100.0, 2
QUICK_DURATION, QUICK_SEEDS = 30.0, 1

INTERVAL, DELAY_TIME, BLOCK = 0.02, 20e-6, 1

#: (label, variant, congestion control) of the figures' curves.
SACK_CURVES = (("BIC-SACK", "SACK", "bic"), ("HSTCP-SACK", "SACK", "highspeed"))
#: Curves the paper predates (drawn, not used by the claims).
RACK_CURVE = ("BIC-RACK-TLP", "RACK-TLP", "bic")
EXTRA_CURVES = (("CUBIC-SACK", "SACK", "cubic"), RACK_CURVE)
TOLERANT_CURVES = (
    ("BIC-NCR", "TCP-NCR", "bic"),
    ("BIC-AVG-DEV", "AVG-DEV", "bic"),
    ("BIC-TCP-RR", "DSACK-TA", "bic"),
)

#: "Only a little worse" compares two throughputs; below this (Mb/s) both
#: are a collapse and the ratio says nothing.
FLOOR_MBPS = 10.0

FIG9_INTERVALS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
FIG10_DELAYS = (0.0, 10e-6, 20e-6, 40e-6, 60e-6, 80e-6, 100e-6)
FIG11_BLOCKS = (1, 2, 3, 5, 7, 10)
QUICK_INTERVALS = (0.01, 0.02, 0.1, 0.5)
QUICK_DELAYS = (0.0, 20e-6, 100e-6)
QUICK_BLOCKS = (1, 2, 10)


def _mode(quick: bool) -> tuple[float, int]:
    return (QUICK_DURATION, QUICK_SEEDS) if quick else (FULL_DURATION, FULL_SEEDS)


def bdp_packets() -> int:
    """One bandwidth-delay product of the studied flow's path, in packets."""
    rtt = 2 * (DELAY + 2 * ACCESS_DELAYS[0])
    return int(RATE * rtt / (8 * MSS))


@dataclass(frozen=True)
class Setting:
    """The unspecified settings the sensitivity figures vary (the defaults
    are the assumptions of the module docstring).

    ``delayed_ack``: the studied flow's receiver (the background's keeps
    ACKing every segment). ``max_hold``: how long the generator holds a
    block while waiting for a later packet to overtake it (None: the
    generator's default, 10 ms). ``after_access_link``: the generator sits
    after the access link's queue (ns-2's ``link-lossmodel``), where a
    burst is spaced by the access rate, instead of before it (``lossmodel``),
    where the packets of a burst arrive together. ``access_rate``: every
    access link."""

    delayed_ack: DelayedAck = "none"
    max_hold: float | None = None
    after_access_link: bool = False
    access_rate: float = ACCESS_RATE


DEFAULT_SETTING = Setting()


def reorderer(
    interval: float, delay: float, block: float, setting: Setting = DEFAULT_SETTING
) -> list[Impairment]:
    """The paper's reordering generator on S0 -> R1 (none when the delay time is 0)."""
    if delay <= 0:
        return []
    extra: dict[str, Any] = {}
    if setting.max_hold is not None:
        extra["max_hold"] = setting.max_hold
    if setting.after_access_link:
        extra["position"] = "egress"
    return [
        ReorderImpairment(
            link="S0->R1",
            interval=ExponentialVar(mean=interval),
            delay=ExponentialVar(mean=delay),
            block=ConstantVar(value=float(block)),
            **extra,
        )
    ]


def scenario(
    variant: str,
    cc: str,
    duration: float,
    *,
    interval: float = INTERVAL,
    delay: float = DELAY_TIME,
    block: float = BLOCK,
    setting: Setting = DEFAULT_SETTING,
) -> Scenario:
    """The studied flow (``variant`` over ``cc``) plus background, one run."""
    tcp = TcpSpec(
        mss=MSS, ack_size=40, max_window=1_000_000, min_rto=MIN_RTO, rto_estimator=RTO_ESTIMATOR
    )
    receiver: dict[str, Any] = {}
    if setting.delayed_ack != "none":
        receiver["receiver"] = ReceiverSpec(delayed_ack=setting.delayed_ack)
    web = [
        TrafficSpec(name="web-fwd", server="S1", client="D1", sessions=50, tcp=tcp),
        TrafficSpec(name="web-rev", server="D2", client="S2", sessions=50, tcp=tcp),
    ]
    return Scenario(
        name="high-speed",
        duration=duration,
        warmup=WARMUP,
        topology=DumbbellTopology(
            pairs=3,
            access_rate=setting.access_rate,
            access_delays=list(ACCESS_DELAYS),
            bottleneck_rate=RATE,
            bottleneck_delay=DELAY,
            queue=DroptailQueue(limit_packets=bdp_packets()),
            access_queue=DroptailQueue(limit_packets=100_000),
        ),
        impairments=reorderer(interval, delay, block, setting),
        flows=[
            FlowSpec(
                name="studied", src="S0", dst="D0", variant=variant, cc=cc, tcp=tcp, **receiver
            )
        ],
        traffic=web,
    )


# --------------------------------------------------------------------------
# Running, tables, plots
# --------------------------------------------------------------------------


def at_point(
    variant: str,
    cc: str,
    duration: float,
    param: str,
    x: float,
    setting: Setting = DEFAULT_SETTING,
) -> Scenario:
    """:func:`scenario` with the generator's ``param`` (interval, delay or
    block) set to ``x`` and the others at their defaults."""
    knobs = {"interval": INTERVAL, "delay": DELAY_TIME, "block": float(BLOCK)}
    if param not in knobs:
        raise ValueError(f"param: must be one of {', '.join(knobs)}, got {param!r}")
    knobs[param] = x
    return scenario(
        variant,
        cc,
        duration,
        interval=knobs["interval"],
        delay=knobs["delay"],
        block=knobs["block"],
        setting=setting,
    )


def sweep_parameter(
    param: str, xs: Sequence[float], curves: Sequence[tuple[str, str, str]], quick: bool
) -> Sweep:
    """The runs of every curve at every value ``x`` of ``param``."""
    duration, seeds = _mode(quick)
    points: list[Point] = [
        ({"curve": label, "x": float(x)}, at_point(v, cc, duration, param, x))
        for label, v, cc in curves
        for x in xs
    ]
    return Sweep(points, seeds)


def throughput_table(df: pd.DataFrame, by: Sequence[str] = ("curve", "x")) -> pd.DataFrame:
    """Mean studied-flow throughput (Mb/s) per (curve, x) of a table of runs
    (or per the columns ``by``)."""
    df["mbps"] = df[flow_column(df, 0, "throughput_bps")].astype(float) / 1e6
    df["fast_retransmits"] = df[flow_column(df, 0, "fast_retransmits")].astype(float)
    df["spurious"] = df[flow_column(df, 0, "spurious_fast_retransmits")].astype(float)
    return (
        df.groupby(list(by), sort=False)[["mbps", "fast_retransmits", "spurious"]]
        .mean()
        .reset_index()
    )


def _by_x(table: pd.DataFrame, curve: str) -> dict[float, float]:
    sub = table[table["curve"] == curve]
    return {float(x): float(y) for x, y in zip(sub["x"], sub["mbps"], strict=True)}


def _plot(
    out: Path,
    stem: str,
    table: pd.DataFrame,
    xlabel: str,
    title: str,
    xscale: float = 1.0,
    logx: bool = False,
) -> None:
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for curve, g in table.groupby("curve", sort=False):
        series[str(curve)] = (list(g["x"] * xscale), list(g["mbps"]), None)
    # "<stem>_throughput": the plot writes a CSV of its points, which must not
    # replace the figure's table (<stem>.csv)
    line_plot(
        out,
        f"{stem}_throughput",
        series,
        xlabel=xlabel,
        ylabel="throughput (Mb/s)",
        title=title,
        logx=logx,
    )


MBPS = unit("Mb/s")


# --------------------------------------------------------------------------
# Sensitivity to the settings the paper does not give (drawn, not judged)
# --------------------------------------------------------------------------

#: The plan's sweep of a figure's sensitivity runs.
SENSITIVITY = "sensitivity"
#: The settings of the sensitivity figures, by the name their curves carry.
DELAYED_ACK = Setting(delayed_ack="rfc1122")
GIGABIT_ACCESS = Setting(after_access_link=True, access_rate=1e9)
#: Generator holds (s) of ``fig12_sensitivity``; 10 ms is the default.
FULL_HOLDS = (10e-3, 100e-6, 30e-6, 20e-6)
QUICK_HOLDS = (10e-3, 20e-6)
#: Delay times (s) of ``fig10_sensitivity``.
FULL_SENSITIVITY_DELAYS = (20e-6, 60e-6, 100e-6)
QUICK_SENSITIVITY_DELAYS = (20e-6, 100e-6)


def setting_sweep(
    param: str,
    xs: Sequence[float],
    curves: Sequence[tuple[str, str, str]],
    settings: dict[str, Setting],
    quick: bool,
) -> Sweep:
    """Every curve at every ``x`` of ``param`` under each named setting."""
    duration, seeds = _mode(quick)
    points: list[Point] = [
        (
            {"curve": label, "x": float(x), "setting": name},
            at_point(v, cc, duration, param, x, setting),
        )
        for name, setting in settings.items()
        for label, v, cc in curves
        for x in xs
    ]
    return Sweep(points, seeds)


def with_default(
    table: pd.DataFrame, sensitivity: pd.DataFrame, curves: Sequence[str]
) -> pd.DataFrame:
    """The figure's own rows of ``curves`` (setting "default") followed by
    the sensitivity rows: one table per sensitivity figure."""
    own = table[table["curve"].isin(curves)].assign(setting="default")
    return pd.concat([own, sensitivity], ignore_index=True)


def _plot_sensitivity(
    out: Path, stem: str, table: pd.DataFrame, xlabel: str, title: str, xscale: float, logx: bool
) -> None:
    """``<stem>_sensitivity``: one line per curve and setting (its PNG, SVG
    and CSV of points)."""
    series: dict[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]] = {}
    for (curve, setting), g in table.groupby(["curve", "setting"], sort=False):
        series[f"{curve}, {setting}"] = (list(g["x"] * xscale), list(g["mbps"]), None)
    line_plot(
        out,
        f"{stem}_sensitivity",
        series,
        xlabel=xlabel,
        ylabel="throughput (Mb/s)",
        title=title,
        logx=logx,
    )


# --------------------------------------------------------------------------
# Fig. 9: mean reordering interval
# --------------------------------------------------------------------------


#: The plan's sweep of Fig. 9's seed spread: BIC and HSTCP over SACK at the
#: largest interval (where the paper gives numbers), with either ACK policy,
#: over more seeds than the figure (``fig9_seeds.csv``, tabulated, not
#: judged). HSTCP's throughput there depends much on the seed, and the
#: explanation of the claim on it (papers/deviations/high_speed.toml) cites
#: the spread, not only the figure's two seeds.
SEED_SPREAD = "seed spread"
FULL_SPREAD_SEEDS, QUICK_SPREAD_SEEDS = 6, 3


def _fig9_points(quick: bool) -> Plan:
    xs = QUICK_INTERVALS if quick else FIG9_INTERVALS
    duration, _ = _mode(quick)
    top = max(xs)
    policies = {"default": DEFAULT_SETTING, "delayed ACK": DELAYED_ACK}
    spread: list[Point] = [
        (
            {"curve": label, "x": top, "setting": name},
            at_point(v, cc, duration, "interval", top, setting),
        )
        for name, setting in policies.items()
        for label, v, cc in SACK_CURVES
    ]
    return {
        RUNS: sweep_parameter("interval", xs, SACK_CURVES + EXTRA_CURVES, quick),
        SENSITIVITY: setting_sweep(
            "interval", xs, SACK_CURVES, {"delayed ACK": DELAYED_ACK}, quick
        ),
        SEED_SPREAD: Sweep(spread, QUICK_SPREAD_SEEDS if quick else FULL_SPREAD_SEEDS),
    }


def seed_spread_table(runs: pd.DataFrame) -> pd.DataFrame:
    """``fig9_seeds.csv``: one row per run of the seed-spread sweep (curve,
    setting, interval, seed, studied-flow Mb/s, fast retransmits, spurious
    ones), then per curve and setting its mean, minimum and maximum over
    the seeds (``seed`` "mean" / "min" / "max")."""
    df = throughput_table(runs, ("curve", "setting", "x", "seed"))
    df["seed"] = df["seed"].astype(int).astype(str)
    stats = [
        df.groupby(["curve", "setting", "x"], sort=False)[["mbps", "fast_retransmits", "spurious"]]
        .agg(how)
        .reset_index()
        .assign(seed=how)
        for how in ("mean", "min", "max")
    ]
    return pd.concat([df, *stats], ignore_index=True)[
        ["curve", "setting", "x", "seed", "mbps", "fast_retransmits", "spurious"]
    ]


def _with_sensitivity(
    figure: str,
) -> Callable[[Runs, bool], Derived[tuple[pd.DataFrame, pd.DataFrame]]]:
    """The table step of a figure of one sweep and its sensitivity runs: the
    figure's table (``<figure>.csv``) and its sensitivity table (the SACK
    curves under the default and each other setting)."""

    def table(runs: Runs, quick: bool) -> Derived[tuple[pd.DataFrame, pd.DataFrame]]:
        own = throughput_table(runs.table())
        other = throughput_table(runs.table(SENSITIVITY), ("curve", "setting", "x"))
        sensitivity = with_default(own, other, [label for label, _, _ in SACK_CURVES])
        return Derived((own, sensitivity), {figure: own})

    return table


def _fig9_plot(data: tuple[pd.DataFrame, pd.DataFrame], out: Path, quick: bool) -> None:
    table, sensitivity = data
    xlabel = "mean reordering interval (s)"
    _plot(out, "fig9", table, xlabel, "Fig. 9", logx=True)
    _plot_sensitivity(out, "fig9", sensitivity, xlabel, "Fig. 9 with delayed ACKs", 1.0, logx=True)


def _fig9_claims(data: tuple[pd.DataFrame, pd.DataFrame], quick: bool) -> list[Claim]:
    table = data[0]
    bic, hs = _by_x(table, "BIC-SACK"), _by_x(table, "HSTCP-SACK")
    rho = {c: spearman(list(v), list(v.values())) for c, v in (("BIC", bic), ("HSTCP", hs))}
    lo, mid = min(bic), 0.02
    top = max(bic)
    drops = all_of(
        at_least(bic[mid], FLOOR_MBPS, f"BIC at {mid:g} s", MBPS).noted(
            "(so a drop means something)"
        ),
        at_most(bic[lo], Ref(bic[mid], "that", times=0.6), f"at {lo:g} s"),
        sep=" and ",
    )
    return [
        make_claim(
            PAPER,
            "fig9",
            "a smaller reordering interval gives lower throughput (BIC and HSTCP)",
            each_at_least(
                rho, 0.8, "Spearman rank correlation of interval and throughput", "for both"
            ),
            f"BIC {series_str(bic, '{:.0f}')} Mb/s (rho {rho['BIC']:.2f}); "
            f"HSTCP {series_str(hs, '{:.0f}')} Mb/s (rho {rho['HSTCP']:.2f})",
            bic=bic,
            hstcp=hs,
        ),
        make_claim(
            PAPER,
            "fig9",
            "BIC's throughput drops sharply when the interval is below 0.02 s",
            drops,
            f"BIC {bic[lo]:.0f} Mb/s at {lo:g} s vs {bic[mid]:.0f} Mb/s at {mid:g} s",
        ),
        make_claim(
            PAPER,
            "fig9",
            "HSTCP is far below BIC (paper: BIC ~400 vs HSTCP ~10 Mb/s at 0.5 s)",
            at_most(hs[top], Ref(bic[top], "BIC", times=0.25), f"HSTCP at {top:g} s"),
            f"at {top:g} s: BIC {bic[top]:.0f} Mb/s, HSTCP {hs[top]:.0f} Mb/s",
        ),
    ]


def _fig9_table(runs: Runs, quick: bool) -> Derived[tuple[pd.DataFrame, pd.DataFrame]]:
    """Fig. 9's table and sensitivity table (as Fig. 10's), and its seed
    spread written beside them (``fig9_seeds.csv``)."""
    derived = _with_sensitivity("fig9")(runs, quick)
    spread = seed_spread_table(runs.table(SEED_SPREAD))
    return Derived(derived.data, {**derived.csv, "fig9_seeds": spread})


recipe(
    PAPER,
    "fig9",
    "Throughput of BIC and HSTCP vs mean reordering interval",
    points=_fig9_points,
    table=_fig9_table,
    plot=_fig9_plot,
    claims=_fig9_claims,
)


# --------------------------------------------------------------------------
# Fig. 10: mean reordering delay time
# --------------------------------------------------------------------------


def _fig10_points(quick: bool) -> Plan:
    xs = QUICK_DELAYS if quick else FIG10_DELAYS
    settings = {"delayed ACK": DELAYED_ACK, "after a 1 Gb/s access link": GIGABIT_ACCESS}
    delays = QUICK_SENSITIVITY_DELAYS if quick else FULL_SENSITIVITY_DELAYS
    return {
        RUNS: sweep_parameter("delay", xs, SACK_CURVES + EXTRA_CURVES, quick),
        SENSITIVITY: setting_sweep("delay", delays, SACK_CURVES, settings, quick),
    }


def _fig10_plot(data: tuple[pd.DataFrame, pd.DataFrame], out: Path, quick: bool) -> None:
    table, sensitivity = data
    xlabel = "mean reordering delay time (us)"
    _plot(out, "fig10", table, xlabel, "Fig. 10", xscale=1e6)
    reordered = sensitivity[sensitivity["x"] > 0]
    _plot_sensitivity(
        out, "fig10", reordered, xlabel, "Fig. 10 under other settings", 1e6, logx=False
    )


def _fig10_claims(data: tuple[pd.DataFrame, pd.DataFrame], quick: bool) -> list[Claim]:
    table = data[0]
    claims = []
    for label in ("BIC-SACK", "HSTCP-SACK"):
        t = _by_x(table, label)
        none, d20, top = t[0.0], t[20e-6], t[max(t)]
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: very high throughput without reordering",
                at_least(none, 800, "throughput at delay time 0", MBPS),
                f"{none:.0f} Mb/s",
            )
        )
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: a 20 us reordering delay time already degrades throughput",
                at_most(d20, Ref(none, "at 0", times=0.5), "throughput at 20 us"),
                f"{d20:.0f} vs {none:.0f} Mb/s",
            )
        )
        little_worse = all_of(
            at_least(d20, FLOOR_MBPS, "throughput at 20 us", MBPS).noted(
                "(so the comparison means something)"
            ),
            at_least(top, Ref(d20, "that", times=0.6), f"at {max(t) * 1e6:g} us"),
            sep=" and ",
        )
        claims.append(
            make_claim(
                PAPER,
                "fig10",
                f"{label}: longer delay times are only a little worse than 20 us",
                little_worse,
                f"{top:.0f} vs {d20:.0f} Mb/s",
            )
        )
    return claims


recipe(
    PAPER,
    "fig10",
    "Throughput of BIC and HSTCP vs mean reordering delay time",
    points=_fig10_points,
    table=_with_sensitivity("fig10"),
    plot=_fig10_plot,
    claims=_fig10_claims,
)


# --------------------------------------------------------------------------
# Fig. 11: block size
# --------------------------------------------------------------------------


def _fig11_points(quick: bool) -> Plan:
    xs = QUICK_BLOCKS if quick else FIG11_BLOCKS
    return {
        RUNS: sweep_parameter("block", xs, SACK_CURVES + EXTRA_CURVES, quick),
        "no reordering": sweep_parameter("delay", (0.0,), SACK_CURVES, quick),
    }


def _fig11_table(runs: Runs, quick: bool) -> Derived[tuple[pd.DataFrame, pd.DataFrame]]:
    """The block-size sweep's table and the no-reordering reference."""
    table = throughput_table(runs.table())
    none = throughput_table(runs.table("no reordering"))
    return Derived((table, none), {"fig11": table})


def _fig11_plot(data: tuple[pd.DataFrame, pd.DataFrame], out: Path, quick: bool) -> None:
    _plot(out, "fig11", data[0], "reordering block size (packets)", "Fig. 11")


def _fig11_claims(data: tuple[pd.DataFrame, pd.DataFrame], quick: bool) -> list[Claim]:
    table, none = data
    claims = []
    for label in ("BIC-SACK", "HSTCP-SACK"):
        t = _by_x(table, label)
        ref = _by_x(none, label)[0.0]
        claims.append(
            make_claim(
                PAPER,
                "fig11",
                f"{label}: like Fig. 10, every block size degrades throughput well below "
                "the reordering-free value",
                each_at_most(
                    t,
                    Ref(ref, "the no-reordering throughput", times=0.5),
                    "throughput",
                    "at every block size",
                ),
                f"{series_str(t, '{:.0f}')} Mb/s vs {ref:.0f} Mb/s without reordering",
            )
        )
        small, big = t[min(t)], t[max(t)]
        little_worse = all_of(
            at_least(small, FLOOR_MBPS, f"throughput at block {min(t):g}", MBPS),
            at_least(big, Ref(small, "that", times=0.6), f"at block {max(t):g}"),
            sep=" and ",
        )
        claims.append(
            make_claim(
                PAPER,
                "fig11",
                f"{label}: larger blocks are only a little worse than one packet",
                little_worse,
                f"{big:.0f} vs {small:.0f} Mb/s",
            )
        )
    return claims


recipe(
    PAPER,
    "fig11",
    "Throughput of BIC and HSTCP vs reordering block size",
    points=_fig11_points,
    table=_fig11_table,
    plot=_fig11_plot,
    claims=_fig11_claims,
)


# --------------------------------------------------------------------------
# Figs. 12-14: reordering-tolerant variants with BIC
# --------------------------------------------------------------------------

#: The curves of Figs. 12-14.
TOLERANCE_CURVES = (SACK_CURVES[0], *TOLERANT_CURVES, RACK_CURVE)


def _fig12_sweeps(quick: bool) -> dict[str, tuple[str, Sequence[float], str, float]]:
    """Per figure: the parameter swept, its values, the x label and scale."""
    return {
        "fig12": (
            "interval",
            QUICK_INTERVALS if quick else FIG9_INTERVALS,
            "mean reordering interval (s)",
            1.0,
        ),
        "fig13": (
            "delay",
            QUICK_DELAYS[1:] if quick else FIG10_DELAYS[1:],
            "mean reordering delay time (us)",
            1e6,
        ),
        "fig14": (
            "block",
            QUICK_BLOCKS if quick else FIG11_BLOCKS,
            "reordering block size (packets)",
            1.0,
        ),
    }


#: The curves of ``fig12_sensitivity`` (the paper's, at the default point).
HOLD_CURVES = (SACK_CURVES[0], *TOLERANT_CURVES)


def hold_sweep(quick: bool) -> Sweep:
    """The curves of Figs. 12-14 at the default point (and BIC-NCR also at
    block size 2) for each generator hold of ``fig12_sensitivity``."""
    duration, seeds = _mode(quick)
    cases = [(label, v, cc, BLOCK) for label, v, cc in HOLD_CURVES]
    cases.append((*TOLERANT_CURVES[0], 2))
    points: list[Point] = []
    for hold in QUICK_HOLDS if quick else FULL_HOLDS:
        # the default hold is the figures' own runs (the same scenarios)
        setting = Setting(max_hold=hold)
        for label, v, cc, block in cases:
            params = {"curve": label, "x": hold, "block": float(block)}
            points.append((params, scenario(v, cc, duration, block=block, setting=setting)))
    return Sweep(points, seeds)


def _fig12_points(quick: bool) -> Plan:
    plan = {
        fig: sweep_parameter(param, xs, TOLERANCE_CURVES, quick)
        for fig, (param, xs, _, _) in _fig12_sweeps(quick).items()
    }
    return {**plan, SENSITIVITY: hold_sweep(quick)}


#: Figs. 12-14's tables by figure key, and ``fig12_sensitivity``'s.
Fig12Data = tuple[dict[str, pd.DataFrame], pd.DataFrame]


def _fig12_table(runs: Runs, quick: bool) -> Derived[Fig12Data]:
    tables = {fig: throughput_table(runs.table(fig)) for fig in _fig12_sweeps(quick)}
    holds = throughput_table(runs.table(SENSITIVITY), ("curve", "block", "x"))
    return Derived((tables, holds), dict(tables))


def _fig12_plot(data: Fig12Data, out: Path, quick: bool) -> None:
    tables, holds = data
    holds = holds.assign(
        setting=["block 1" if b == BLOCK else f"block {b:g}" for b in holds["block"]]
    )
    _plot_sensitivity(
        out,
        "fig12",
        holds,
        "generator hold, a block's longest wait for a later packet (us)",
        "Figs. 12-14 at 0.02 s, 20 us: generator hold",
        1e6,
        logx=True,
    )
    for fig, (param, _, xlabel, xscale) in _fig12_sweeps(quick).items():
        _plot(
            out,
            fig,
            tables[fig],
            xlabel,
            f"Fig. {fig[3:]}",
            xscale=xscale,
            logx=param == "interval",
        )


def _tolerant_claim(label: str, tables: dict[str, pd.DataFrame]) -> tuple[Claim, float]:
    """``label`` far above BIC-SACK at every point; and its mean throughput."""
    mine = {(fig, x): y for fig, t in tables.items() for x, y in _by_x(t, label).items()}
    sack = {(fig, x): y for fig, t in tables.items() for x, y in _by_x(t, "BIC-SACK").items()}
    every = "at every point of Figs. 12-14"
    check = all_of(
        each_above(mine, 100, label, every, MBPS),
        each_at_least(mine, Ref(sack, "BIC-SACK", times=2), label, every),
    )
    failed = set(check.failed)
    low = [
        f"{fig} x={x:g}: {y:.0f} vs SACK {sack[(fig, x)]:.0f}"
        for (fig, x), y in mine.items()
        if (fig, x) in failed
    ]
    mean = float(np.mean(list(mine.values())))
    claim = make_claim(
        PAPER,
        "fig12-13-14",
        f"{label} is far above BIC-SACK (> 100 Mb/s) for every reordering parameter",
        check,
        f"mean {mean:.0f} Mb/s; "
        + (f"{len(low)} points short: {'; '.join(low[:4])}" if low else "every point"),
    )
    return claim, mean


def _fig12_claims(data: Fig12Data, quick: bool) -> list[Claim]:
    tables = data[0]
    claims = []
    means: dict[str, float] = {}
    for label, _, _ in TOLERANT_CURVES:
        claim, means[label] = _tolerant_claim(label, tables)
        claims.append(claim)
    best = max(means, key=lambda k: means[k])
    claims.append(
        make_claim(
            PAPER,
            "fig12-13-14",
            "TCP-NCR performs best of the three",
            that(best == "BIC-NCR", "BIC-NCR has the highest mean throughput over Figs. 12-14"),
            series_str(means, "{:.0f}", "{}") + " Mb/s",
            means=means,
        )
    )
    ncr = _by_x(tables["fig14"], "BIC-NCR")
    b1, b2 = ncr.get(1.0, float("nan")), ncr.get(2.0, float("nan"))
    claims.append(
        make_claim(
            PAPER,
            "fig12-13-14",
            "BIC+NCR gets less at block size 2 than at 1 (paper: 463 vs 632 Mb/s)",
            below(b2, Ref(b1, "at block 1"), "throughput at block 2"),
            f"block 1: {b1:.0f} Mb/s, block 2: {b2:.0f} Mb/s",
        )
    )
    return claims


recipe(
    PAPER,
    "fig12-13-14",
    "BIC with TCP-NCR, AVG-DEV and TCP-RR vs BIC-SACK",
    points=_fig12_points,
    table=_fig12_table,
    plot=_fig12_plot,
    claims=_fig12_claims,
)


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig9", "fig10", "fig11", "fig12-13-14")
