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
    curves only; the extra curves are drawn and tabulated, over fewer seeds
    (:data:`EXTRA_MODE`, their own sweep ``extra``).

Full fidelity: 100 s runs, 5 seeds. Quick (``--quick``): 30 s runs, 3
seeds, 3-4 x values per figure. Every claim is a seeded check (a 95 %
interval over the seeds, :mod:`reorderlab.checks`) of the sentence it
quotes; ``coverage.toml`` lists every outcome sentence of Secs. IV-VI.

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
    * The generator counts a block's delay time from the block's own
      arrival (``anchor = "block-arrival"``): the paper's blocks are
      "delayed for a reordering delay time" (Sec. III-B), so a later packet
      overtakes a block only if one arrives within that time. Its other
      definition, the delay from the earliest later packet P_y to the block
      (``t(P_x) - t(P_y)``), agrees on the continuous stream the paper
      measured, but read as the generator's rule (``anchor =
      "later-packet"``, the impairment's default) it holds every block
      until a later packet has come, up to 10 ms, and so reorders every
      window of a window-limited flow: the sensitivity runs keep that
      reading (:data:`LATER_PACKET`).

Sensitivity (drawn and tabulated, not judged; issue 20)
    Where a verdict depends on a setting the paper does not give or on a
    choice of this project, a sweep shows by how much (``<fig>_sensitivity``
    PNG + CSV, full and quick mode; ``papers/deviations/high_speed.toml``
    cites them): ``fig9_sensitivity`` BIC and HSTCP over SACK at every
    interval with delayed ACKs (RFC 1122, the studied flow's receiver) and
    with the later-packet anchor; ``fig10_sensitivity`` the same at 20-100
    us, and with the generator after a 1 Gb/s access link (ns-2's
    ``link-lossmodel`` instead of ``lossmodel``: a burst reaches it spaced
    by the access rate); ``fig11_sensitivity`` the later-packet anchor at
    every block size; ``fig12_sensitivity`` the paper's four curves of
    Figs. 12-14 at the default point (BIC-NCR also at block 2) with the
    later-packet anchor, and AVG-DEV and TCP-RR with the Blanton-Allman undo
    (ssthresh back, cwnd slow-starts: ``tcp.undo_response = "slow-start"``);
    ``fig13_sensitivity`` BIC-NCR at every delay time with the generator
    after a 1 Gb/s access link, and with RFC 4653's aggressive flavour.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from reorderlab.claims import Claim
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
    RUNS,
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

#: Run length and seeds of the paper's curves ...
MODE = Modes(full=Mode(100.0, 5), quick=Mode(30.0, 3))
#: ... and of the curves the paper predates (drawn, not judged).
EXTRA_MODE = Modes(full=Mode(100.0, 2), quick=Mode(30.0, 1))
#: The sweep of the extra curves in a figure's plan.
EXTRA = "extra"

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
Curve = tuple[str, str, str]

FIG9_INTERVALS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
FIG10_DELAYS = (0.0, 10e-6, 20e-6, 40e-6, 60e-6, 80e-6, 100e-6)
FIG11_BLOCKS = (1, 2, 3, 5, 7, 10)
QUICK_INTERVALS = (0.01, 0.02, 0.1, 0.5)
QUICK_DELAYS = (0.0, 20e-6, 100e-6)
QUICK_BLOCKS = (1, 2, 10)
INTERVALS = Modes(full=FIG9_INTERVALS, quick=QUICK_INTERVALS)
DELAYS = Modes(full=FIG10_DELAYS, quick=QUICK_DELAYS)
BLOCKS = Modes(full=FIG11_BLOCKS, quick=QUICK_BLOCKS)


def bdp_packets() -> int:
    """One bandwidth-delay product of the studied flow's path, in packets."""
    rtt = 2 * (DELAY + 2 * ACCESS_DELAYS[0])
    return int(RATE * rtt / (8 * MSS))


#: What the generator counts a block's delay time from (``ReorderImpairment.anchor``).
Anchor = Literal["later-packet", "block-arrival"]


@dataclass(frozen=True)
class Setting:
    """The settings the sensitivity figures vary (the defaults are the
    assumptions of the module docstring).

    ``delayed_ack``: the studied flow's receiver (the background's keeps
    ACKing every segment). ``max_hold``: how long the generator holds an
    incomplete block (None: the generator's default, 10 ms).
    ``after_access_link``: the generator sits after the access link's queue
    (ns-2's ``link-lossmodel``), where a burst is spaced by the access rate,
    instead of before it (``lossmodel``), where the packets of a burst
    arrive together. ``access_rate``: every access link. ``anchor``: what
    a block's delay time counts from. ``undo_response``: the studied
    flow's response to a reduction found spurious (None: the variant's)."""

    delayed_ack: DelayedAck = "none"
    max_hold: float | None = None
    after_access_link: bool = False
    access_rate: float = ACCESS_RATE
    anchor: Anchor = "block-arrival"
    undo_response: Literal["restore", "slow-start"] | None = None


DEFAULT_SETTING = Setting()
#: The sensitivity figures' settings, by the name their lines carry.
LATER_PACKET = Setting(anchor="later-packet")
DELAYED_ACK = Setting(delayed_ack="rfc1122")
GIGABIT_ACCESS = Setting(after_access_link=True, access_rate=1e9)
SLOW_START_UNDO = Setting(undo_response="slow-start")


def reorderer(
    interval: float, delay: float, block: float, setting: Setting = DEFAULT_SETTING
) -> list[Impairment]:
    """The paper's reordering generator on S0 -> R1 (none when the delay time is 0)."""
    if delay <= 0:
        return []
    extra: dict[str, Any] = {}
    if setting.anchor != "later-packet":
        # the generator's default anchor is left unset: its runs keep their keys
        extra["anchor"] = setting.anchor
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
    studied = (
        tcp
        if setting.undo_response is None
        else tcp.model_copy(update={"undo_response": setting.undo_response})
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
                name="studied", src="S0", dst="D0", variant=variant, cc=cc, tcp=studied, **receiver
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
    param: str,
    xs: Sequence[float],
    curves: Sequence[Curve],
    quick: bool,
    modes: Modes[Mode] = MODE,
) -> Sweep:
    """The runs of every curve at every value ``x`` of ``param`` (the run
    length and seeds of ``modes``)."""
    mode = modes(quick)
    points: list[Point] = [
        ({"curve": label, "x": float(x)}, at_point(v, cc, mode.duration, param, x))
        for label, v, cc in curves
        for x in xs
    ]
    return Sweep(points, mode.seeds)


def setting_sweep(
    param: str,
    xs: Sequence[float],
    curves: Sequence[Curve],
    settings: dict[str, Setting],
    quick: bool,
) -> Sweep:
    """Every curve at every ``x`` of ``param`` under each named setting
    (the paper's curves' seeds)."""
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


def figure_plan(param: str, xs: Sequence[float], quick: bool) -> dict[str, Sweep]:
    """Figs. 9-11's own runs: the SACK curves (:data:`RUNS`) and the extra
    curves (:data:`EXTRA`) at every ``x`` of ``param``."""
    return {
        RUNS: sweep_parameter(param, xs, SACK_CURVES, quick),
        EXTRA: sweep_parameter(param, xs, EXTRA_CURVES, quick, EXTRA_MODE),
    }


#: The studied flow's metrics a table keeps, by their column there.
METRICS = {"mbps": "throughput_bps", "fast_retransmits": "fast_retransmits"}
METRICS_SPURIOUS = "spurious_fast_retransmits"


def run_table(df: pd.DataFrame, by: Sequence[str] = ("curve", "x")) -> pd.DataFrame:
    """One row per run of a sweep's table: the columns ``by``, the seed, the
    studied flow's Mb/s, fast retransmits and spurious ones."""
    out = df[list(by)].copy()
    out["seed"] = df["seed"].astype(int)
    out["mbps"] = df[flow_column(df, 0, "throughput_bps")].astype(float) / 1e6
    out["fast_retransmits"] = df[flow_column(df, 0, "fast_retransmits")].astype(float)
    out["spurious"] = df[flow_column(df, 0, METRICS_SPURIOUS)].astype(float)
    return out


def summary(runs: pd.DataFrame, by: Sequence[str] = ("curve", "x")) -> pd.DataFrame:
    """Per ``by`` of a :func:`run_table`: the seed mean of Mb/s, fast and
    spurious fast retransmits, the lowest and highest Mb/s, the seeds."""
    g = runs.groupby(list(by), sort=False)
    out = g[["mbps", "fast_retransmits", "spurious"]].mean()
    out["mbps_min"] = g["mbps"].min()
    out["mbps_max"] = g["mbps"].max()
    out["seeds"] = g["seed"].nunique()
    return out.reset_index()


def mbps_by_x(table: pd.DataFrame, curve: str) -> dict[float, float]:
    """A :func:`summary`'s mean Mb/s of ``curve`` by x."""
    sub = table[table["curve"] == curve]
    return {float(x): float(y) for x, y in zip(sub["x"], sub["mbps"], strict=True)}


@dataclass(frozen=True)
class FigureData:
    """A figure's runs (one row per curve, x and seed: the claims read
    them), the extra curves' runs and the sensitivity runs (each with
    a ``setting`` column; empty when the figure has none)."""

    runs: pd.DataFrame
    extra: pd.DataFrame
    sensitivity: pd.DataFrame


def figure_table(
    figure: str,
    runs: Runs,
    quick: bool,
    claims: Callable[[FigureData, bool], list[Claim]],
    free: pd.DataFrame | None = None,
) -> Derived[FigureData]:
    """Figs. 9-11's table step: ``<figure>.csv`` (the seed summary of every
    curve), ``<figure>-runs.csv`` (the paper's curves run by run),
    ``<figure>-sensitivity-runs.csv`` and ``<figure>-sensitivity-verdicts.csv``
    (:func:`under_settings`; ``free``: the runs without reordering, when
    not among the figure's own). The figure's runs are the data, with
    ``free`` among them."""
    own, extra = run_table(runs.table()), run_table(runs.table(EXTRA))
    if free is not None:
        own = pd.concat([own, free], ignore_index=True)
    sens = run_table(runs.table(SENSITIVITY), ("curve", "setting", "x"))
    data = FigureData(own, extra, sens)
    reordered = own[own["x"] > 0] if free is not None else own
    csv = {
        figure: summary(pd.concat([reordered, extra], ignore_index=True)),
        f"{figure}_runs": own,
        f"{figure}_sensitivity_runs": sens,
        f"{figure}_sensitivity_verdicts": under_settings(data, claims, own[own["x"] == 0], quick),
    }
    return Derived(data, csv)


def verdict_rows(setting: str, claims: Sequence[Claim]) -> list[dict[str, Any]]:
    """``<figure>-sensitivity-verdicts.csv``'s rows of one setting: per
    claim made on that setting's runs and per seeded test of it (``test``:
    its index), the test's estimate, interval and verdict, and the claim's."""
    return [
        {
            "setting": setting,
            "claim": c.claim,
            "holds": c.holds,
            "seed_share": c.seed_share,
            "test": i,
            "what": rec["what"],
            "estimate": rec["estimate"],
            "lo": rec["lo"],
            "hi": rec["hi"],
            "test_holds": rec["holds"],
        }
        for c in claims
        for i, rec in enumerate(c.tests)
    ]


def under_settings(
    data: FigureData,
    claims: Callable[[FigureData, bool], list[Claim]],
    free: pd.DataFrame,
    quick: bool,
) -> pd.DataFrame:
    """The figure's claims under each setting of its sensitivity runs
    (those runs as the figure's, with ``free``, the runs without
    reordering, where a setting has none), after the default's: the
    ``<figure>_sensitivity_verdicts`` table."""
    rows = verdict_rows("default", claims(data, quick))
    for name, runs in data.sensitivity.groupby("setting", sort=False):
        own = runs.drop(columns="setting")
        if not (own["x"] == 0).any():
            own = pd.concat([free, own], ignore_index=True)
        alt = FigureData(own, data.extra.iloc[0:0], data.sensitivity.iloc[0:0])
        rows += verdict_rows(str(name), claims(alt, quick))
    return pd.DataFrame(rows)


def throughput_figure(
    figure: str, xlabel: str, title: str, *, logx: bool = False, symlogy: bool = False
) -> LineFigure:
    """``<figure>_throughput``: the studied flow's throughput, one line per
    curve (:func:`curves`). The plot writes a CSV of its points, which must
    not replace the figure's table (``<figure>.csv``). ``symlogy``: a y axis
    logarithmic above 1 Mb/s (throughputs spanning decades, 0 among them)."""
    return LineFigure(
        f"{figure}_throughput", xlabel, "throughput (Mb/s)", title, logx=logx, symlogy=symlogy
    )


def sensitivity_throughput(
    figure: str, xlabel: str, title: str, *, logx: bool, symlogy: bool = False
) -> LineFigure:
    """``<figure>_sensitivity``: one line per curve and setting (:func:`setting_curves`)."""
    return sensitivity_figure(
        figure, xlabel, "throughput (Mb/s)", title, logx=logx, symlogy=symlogy
    )


def curves(runs: pd.DataFrame, xscale: float = 1.0) -> Lines:
    """Lines of a :func:`run_table` (or a summary): mean Mb/s against x, per curve."""
    return series_of(summary(runs) if "seed" in runs else runs, "curve", "x", "mbps", xscale=xscale)


def setting_curves(
    own: pd.DataFrame, sensitivity: pd.DataFrame, names: Iterable[str], xscale: float = 1.0
) -> Lines:
    """A sensitivity figure's lines: mean Mb/s against x per curve and
    setting, the figure's own runs of the curves ``names`` as "default"."""
    mine = own[own["curve"].isin(list(names))].assign(setting="default")
    both = pd.concat([mine, sensitivity], ignore_index=True)
    table = summary(both, ("curve", "setting", "x"))
    labelled = table.assign(line=table["curve"] + ", " + table["setting"])
    return series_of(labelled, "line", "x", "mbps", xscale=xscale)


def figures() -> Iterable[str]:
    """The figure keys of this paper, in registration order."""
    return ("fig9", "fig10", "fig11", "fig12-13-14")
