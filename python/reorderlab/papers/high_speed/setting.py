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
from typing import Any

import pandas as pd

from reorderlab.checks import (
    unit,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
    series_of,
)
from reorderlab.papers.kit.mode import (
    Mode,
    Modes,
)
from reorderlab.papers.kit.recipe import (
    Derived,
)
from reorderlab.papers.kit.runs import (
    Point,
    Runs,
    Sweep,
    flow_column,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
    sensitivity_figure,
)
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


#: Run length and seeds of every figure's runs.
MODE = Modes(full=Mode(FULL_DURATION, FULL_SEEDS), quick=Mode(QUICK_DURATION, QUICK_SEEDS))


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
    mode = MODE(quick)
    points: list[Point] = [
        ({"curve": label, "x": float(x)}, at_point(v, cc, mode.duration, param, x))
        for label, v, cc in curves
        for x in xs
    ]
    return Sweep(points, mode.seeds)


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


def mbps_by_x(table: pd.DataFrame, curve: str) -> dict[float, float]:
    sub = table[table["curve"] == curve]
    return {float(x): float(y) for x, y in zip(sub["x"], sub["mbps"], strict=True)}


MBPS = unit("Mb/s")


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
    mode = MODE(quick)
    points: list[Point] = [
        (
            {"curve": label, "x": float(x), "setting": name},
            at_point(v, cc, mode.duration, param, x, setting),
        )
        for name, setting in settings.items()
        for label, v, cc in curves
        for x in xs
    ]
    return Sweep(points, mode.seeds)


def with_default(
    table: pd.DataFrame, sensitivity: pd.DataFrame, curves: Sequence[str]
) -> pd.DataFrame:
    """The figure's own rows of ``curves`` (setting "default") followed by
    the sensitivity rows: one table per sensitivity figure."""
    own = table[table["curve"].isin(curves)].assign(setting="default")
    return pd.concat([own, sensitivity], ignore_index=True)


def throughput_figure(figure: str, xlabel: str, title: str, *, logx: bool = False) -> LineFigure:
    """``<figure>_throughput``: the studied flow's throughput, one line per
    curve (:func:`curves`). The plot writes a CSV of its points, which must
    not replace the figure's table (``<figure>.csv``)."""
    return LineFigure(f"{figure}_throughput", xlabel, "throughput (Mb/s)", title, logx=logx)


def sensitivity_throughput(figure: str, xlabel: str, title: str, *, logx: bool) -> LineFigure:
    """``<figure>_sensitivity``: one line per curve and setting (:func:`setting_curves`)."""
    return sensitivity_figure(figure, xlabel, "throughput (Mb/s)", title, logx=logx)


def curves(table: pd.DataFrame, xscale: float = 1.0) -> Lines:
    """A :func:`throughput_table`'s lines: Mb/s against x, per curve."""
    return series_of(table, "curve", "x", "mbps", xscale=xscale)


def setting_curves(table: pd.DataFrame, xscale: float = 1.0) -> Lines:
    """A sensitivity table's lines: Mb/s against x, per curve and setting."""
    labelled = table.assign(line=table["curve"] + ", " + table["setting"])
    return series_of(labelled, "line", "x", "mbps", xscale=xscale)


def throughput_and_sensitivity(
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


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig9", "fig10", "fig11", "fig12-13-14")
