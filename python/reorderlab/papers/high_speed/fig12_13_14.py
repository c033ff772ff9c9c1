"""``fig12-13-14``: BIC with TCP-NCR, AVG-DEV and TCP-RR vs BIC-SACK over
the three reordering parameters, with the anchor and undo sensitivity
(:mod:`.setting`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reorderlab.checks import Check, band, difference, every, ratio, trend
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.high_speed.measures import (
    curve,
    each,
    mbps,
)
from reorderlab.papers.high_speed.setting import (
    BLOCK,
    BLOCKS,
    DEFAULT_SETTING,
    DELAY_TIME,
    DELAYS,
    EXTRA_MODE,
    GIGABIT_ACCESS,
    INTERVAL,
    INTERVALS,
    LATER_PACKET,
    MODE,
    PAPER,
    RACK_CURVE,
    SACK_CURVES,
    SLOW_START_UNDO,
    TOLERANT_CURVES,
    Curve,
    Setting,
    at_point,
    curves,
    run_table,
    sensitivity_throughput,
    summary,
    sweep_parameter,
    throughput_figure,
    verdict_rows,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
)
from reorderlab.papers.kit.figure import (
    series_of,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)

#: The paper's curves of Figs. 12-14 (the claims read these).
PAPER_CURVES = (SACK_CURVES[0], *TOLERANT_CURVES)
TOLERANT = tuple(label for label, _, _ in TOLERANT_CURVES)


@dataclass(frozen=True)
class Panel:
    """One of Figs. 12-14: the parameter it sweeps, its x label and scale."""

    param: str
    xlabel: str
    xscale: float
    logx: bool


PANELS = {
    "fig12": Panel("interval", "mean reordering interval (s)", 1.0, True),
    "fig13": Panel("delay", "mean reordering delay time (us)", 1e6, False),
    "fig14": Panel("block", "reordering block size (packets)", 1.0, False),
}


def panel_xs(fig: str, quick: bool) -> Sequence[float]:
    """The x values of one panel (Fig. 13 without the delay time 0)."""
    if fig == "fig12":
        return INTERVALS(quick)
    if fig == "fig13":
        return DELAYS(quick)[1:]
    return BLOCKS(quick)


def extra(fig: str) -> str:
    """The plan's sweep of the extra curve of panel ``fig``."""
    return f"extra {fig}"


#: Where Figs. 12-14 meet: the default point, as Fig. 14's block size 1.
DEFAULT_POINT = ("fig14", float(BLOCK))
#: A sensitivity case: the setting's name and value, the curve, the panel and x.
Case = tuple[str, Setting, Curve, str, float]
#: BIC-NCR's curve with RFC 4653's aggressive Limited Transmit (LT_F = 1/2)
#: in place of careful (the setting's), drawn under the setting named
#: :data:`AGGRESSIVE`.
AGGRESSIVE = "aggressive NCR"
AGGRESSIVE_NCR: Curve = ("BIC-NCR", "TCP-NCR-aggressive", "bic")


def sensitivity_cases(quick: bool) -> list[Case]:
    """The runs of ``fig12_sensitivity`` .. ``fig14_sensitivity``: BIC-SACK
    with the later-packet anchor at every point (Figs. 9-11's sensitivity
    runs, the same scenarios); the three tolerant variants with it at the
    default point (BIC-NCR also at block 2); AVG-DEV and TCP-RR with the
    Blanton-Allman undo at the default point; BIC-NCR with the generator
    after a 1 Gb/s access link, and BIC over RFC 4653's aggressive NCR (the
    paper does not say which flavour it ran), at every delay time of Fig. 13."""
    later, ncr = "later-packet anchor", TOLERANT_CURVES[0]
    fig, block = DEFAULT_POINT
    cases: list[Case] = [
        (later, LATER_PACKET, SACK_CURVES[0], panel, float(x))
        for panel in PANELS
        for x in panel_xs(panel, quick)
    ]
    cases += [(later, LATER_PACKET, c, fig, block) for c in TOLERANT_CURVES]
    cases.append((later, LATER_PACKET, ncr, fig, 2.0))
    cases += [("slow-start undo", SLOW_START_UNDO, c, fig, block) for c in TOLERANT_CURVES[1:]]
    gigabit = "after a 1 Gb/s access link"
    cases += [(gigabit, GIGABIT_ACCESS, ncr, "fig13", float(x)) for x in panel_xs("fig13", quick)]
    cases += [
        (AGGRESSIVE, DEFAULT_SETTING, AGGRESSIVE_NCR, "fig13", float(x))
        for x in panel_xs("fig13", quick)
    ]
    return cases


def sensitivity_sweep(quick: bool) -> Sweep:
    mode = MODE(quick)
    points: list[Point] = [
        (
            {"curve": label, "setting": name, "panel": panel, "x": x},
            at_point(v, cc, mode.duration, PANELS[panel].param, x, setting),
        )
        for name, setting, (label, v, cc), panel, x in sensitivity_cases(quick)
    ]
    return Sweep(points, mode.seeds)


def plan(quick: bool) -> Plan:
    own = {
        fig: sweep_parameter(p.param, panel_xs(fig, quick), PAPER_CURVES, quick)
        for fig, p in PANELS.items()
    }
    extras = {
        extra(fig): sweep_parameter(p.param, panel_xs(fig, quick), [RACK_CURVE], quick, EXTRA_MODE)
        for fig, p in PANELS.items()
    }
    return {**own, **extras, SENSITIVITY: sensitivity_sweep(quick)}


@dataclass(frozen=True)
class Fig12Data:
    """Per panel its runs (one row per curve, x and seed) and its extra
    curve's; the sensitivity runs (with their setting and panel)."""

    runs: dict[str, pd.DataFrame]
    extra: dict[str, pd.DataFrame]
    sensitivity: pd.DataFrame


def table(runs: Runs, quick: bool) -> Derived[Fig12Data]:
    own = {fig: run_table(runs.table(fig)) for fig in PANELS}
    extras = {fig: run_table(runs.table(extra(fig))) for fig in PANELS}
    sens = run_table(runs.table(SENSITIVITY), ("curve", "setting", "panel", "x"))
    data = Fig12Data(own, extras, sens)
    csv = {fig: summary(pd.concat([own[fig], extras[fig]], ignore_index=True)) for fig in PANELS}
    csv |= {f"{fig}_runs": own[fig] for fig in PANELS}
    csv["fig12_sensitivity_runs"] = sens
    verdicts = verdict_rows("default", claims(data, quick))
    for name in dict.fromkeys(sens["setting"]):
        verdicts += verdict_rows(str(name), claims(replaced(data, str(name)), quick))
    csv["fig12_sensitivity_verdicts"] = pd.DataFrame(verdicts)
    return Derived(data, csv)


#: Each panel's x at the default point (where the three figures meet).
DEFAULT_X = {"fig12": INTERVAL, "fig13": DELAY_TIME, "fig14": float(BLOCK)}


def replaced(data: Fig12Data, setting: str) -> Fig12Data:
    """Figs. 12-14 with the runs of ``setting`` in place of the default's
    where that setting was run (a default-point run in all three panels):
    ``fig12_sensitivity_verdicts`` gives the claims on these."""
    sens = data.sensitivity[data.sensitivity["setting"] == setting].drop(columns="setting")
    fig, x = DEFAULT_POINT
    at_default = sens[(sens["panel"] == fig) & (sens["x"] == x)]
    moved = [at_default.assign(panel=p, x=px) for p, px in DEFAULT_X.items() if p != fig]
    sens = pd.concat([sens, *moved], ignore_index=True)
    runs = {}
    for panel, t in data.runs.items():
        mine = sens[sens["panel"] == panel].drop(columns="panel")
        done = set(zip(mine["curve"], mine["x"], strict=True))
        keep = [(c, x) not in done for c, x in zip(t["curve"], t["x"], strict=True)]
        runs[panel] = pd.concat([t[keep], mine], ignore_index=True)
    return Fig12Data(runs, data.extra, data.sensitivity.iloc[0:0])


def plot(data: Fig12Data, out: Path, quick: bool) -> None:
    """Each panel, and its sensitivity figure: the panel's curves as run
    and the sensitivity runs on it."""
    for fig, p in PANELS.items():
        line = throughput_figure(fig, p.xlabel, f"Fig. {fig[3:]}", logx=p.logx)
        line.draw(out, curves(data.runs[fig], p.xscale) | curves(data.extra[fig], p.xscale))
        sens = data.sensitivity[data.sensitivity["panel"] == fig]
        own = data.runs[fig][data.runs[fig]["curve"].isin(set(sens["curve"]))]
        both = pd.concat([own.assign(setting="default"), sens], ignore_index=True)
        table = summary(both, ("curve", "setting", "x"))
        labelled = table.assign(line=table["curve"] + ", " + table["setting"])
        title = f"Fig. {fig[3:]}: generator anchor and placement, undo response"
        plot_ = sensitivity_throughput(fig, p.xlabel, title, logx=p.logx)
        plot_.draw(out, series_of(labelled, "line", "x", "mbps", xscale=p.xscale))


WHERE = "Sec. VI-A, Figs. 12-14"
IMPROVE = (
    "First, all reordering-tolerant algorithms can significantly improve the throughput of BIC "
    "in all simulation scenarios."
)
SACK_LOW = "BIC-SACK achieves less than 10Mbps throughput in most cases"
ABOVE_100 = (
    "BIC with any of TCP-NCR, AVG-DEV, and TCP-RR achieves a rate greater than 100Mbps in all "
    "cases."
)
BEST = (
    "Second, TCP-NCR consistently performs better than the other two algorithms: AVG-DEV and "
    "TCP-RR."
)
SUFFERS = (
    "Third, even with TCP-NCR, BIC still suffers from packet reordering, especially with small "
    "reordering intervals and large reordering block sizes."
)
BLOCK_2 = (
    "For example, Figure 14 shows that BIC with TCP-NCR achieves only 463Mbps throughput with a "
    "reordering block size of 2 packets, whereas it achieves 632Mbps throughput with a "
    "reordering block size of 1 packet."
)
LONG_DELAYS = "BIC can achieve very high throughput even with long reordering delay times."
#: "significantly improve": BIC-SACK at most half of the tolerant variant
#: (the tolerant variant at least doubles it).
IMPROVED = 0.5


def _points(data: Fig12Data) -> list[tuple[str, float]]:
    """Every (panel, x) of Figs. 12-14."""
    return [(fig, float(x)) for fig, t in data.runs.items() for x in sorted(set(t["x"]))]


def _at(data: Fig12Data, label: str, fig: str, x: float) -> dict[int, float]:
    return mbps(data.runs[fig], label, x)


#: A check of one curve at one point of Figs. 12-14: (label, panel, x).
PointCheck = Callable[[str, str, float], Check]


def _each_point(
    data: Fig12Data, labels: Sequence[str], check: PointCheck, text: str
) -> tuple[Check, str]:
    """``check`` of every label at every point of Figs. 12-14, and the
    measured text naming the points where it fails."""
    return each(
        {
            f"{label} {fig} x={x:g}": check(label, fig, x)
            for label in labels
            for fig, x in _points(data)
        },
        text,
    )


def _sack_share_below_10(data: Fig12Data) -> dict[int, float]:
    """Per seed, the share of the points of Figs. 12-14 where BIC-SACK gets
    less than 10 Mb/s."""
    points = _points(data)
    per_seed: dict[int, list[bool]] = {}
    for fig, x in points:
        for s, v in _at(data, "BIC-SACK", fig, x).items():
            per_seed.setdefault(s, []).append(v < 10.0)
    return {s: sum(v) / len(v) for s, v in per_seed.items()}


def _improvement_claims(data: Fig12Data) -> list[Claim]:
    def improved(label: str, fig: str, x: float) -> Check:
        sack, mine = _at(data, "BIC-SACK", fig, x), _at(data, label, fig, x)
        return ratio(sack, mine, f"BIC-SACK / {label} Mb/s", op="<", limit=IMPROVED)

    def above_100(label: str, fig: str, x: float) -> Check:
        mine = _at(data, label, fig, x)
        return band(mine, 100.0, None, f"{label} Mb/s", source="'greater than 100Mbps'")

    doubles, doubles_text = _each_point(data, TOLERANT, improved, "every variant at every point")
    over, over_text = _each_point(data, TOLERANT, above_100, "every variant at every point")
    return [
        paper_claim(
            PAPER,
            "fig12-13-14",
            "every reordering-tolerant algorithm at least doubles BIC-SACK at every point",
            doubles,
            quote=IMPROVE,
            where=WHERE,
            measured=doubles_text,
        ),
        paper_claim(
            PAPER,
            "fig12-13-14",
            "BIC-SACK gets less than 10 Mb/s at most points",
            band(
                _sack_share_below_10(data),
                0.5,
                None,
                "share of the points where BIC-SACK < 10 Mb/s",
                source="'in most cases': at least half",
            ),
            quote=SACK_LOW,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig12-13-14",
            "BIC with TCP-NCR, AVG-DEV and TCP-RR gets more than 100 Mb/s at every point",
            over,
            quote=ABOVE_100,
            where=WHERE,
            measured=over_text,
        ),
    ]


def _ncr_claims(data: Fig12Data) -> list[Claim]:
    def better(other: str, fig: str, x: float) -> Check:
        ncr = _at(data, "BIC-NCR", fig, x)
        return difference(ncr, _at(data, other, fig, x), f"BIC-NCR - {other} Mb/s")

    suffers = {
        "fig12": trend(
            curve(data.runs["fig12"], "BIC-NCR"),
            "BIC-NCR Mb/s",
            direction="rises",
            logx=True,
            x="mean interval (s)",
        ),
        "fig14": trend(
            curve(data.runs["fig14"], "BIC-NCR"), "BIC-NCR Mb/s", direction="falls", x="block size"
        ),
    }
    others = ("BIC-AVG-DEV", "BIC-TCP-RR")
    best, best_text = _each_point(data, others, better, "against both at every point")
    return [
        paper_claim(
            PAPER,
            "fig12-13-14",
            "TCP-NCR performs better than AVG-DEV and TCP-RR at every point",
            best,
            quote=BEST,
            where=WHERE,
            measured=best_text,
        ),
        paper_claim(
            PAPER,
            "fig12-13-14",
            "BIC with TCP-NCR still suffers at small intervals and large blocks",
            every(suffers, "Fig. 12's and Fig. 14's trends"),
            quote=SUFFERS,
            where=WHERE,
        ),
        paper_claim(
            PAPER,
            "fig12-13-14",
            "BIC+NCR gets less at block size 2 than at 1 (paper: 463 vs 632 Mb/s)",
            difference(
                _at(data, "BIC-NCR", "fig14", 2.0),
                _at(data, "BIC-NCR", "fig14", 1.0),
                "BIC-NCR Mb/s at block 2 - at block 1",
                op="<",
            ),
            quote=BLOCK_2,
            where=WHERE,
        ),
    ]


#: "very high" in Fig. 13's caption: at least half the bottleneck (the
#: paper's own BIC-NCR gets 632 Mb/s at the default point, Sec. VI-A).
HIGH_MBPS = 500.0


def _long_delay_claim(data: Fig12Data) -> Claim:
    runs = data.runs["fig13"]
    top = float(max(runs["x"]))
    return paper_claim(
        PAPER,
        "fig12-13-14",
        "BIC with each tolerant algorithm keeps a very high throughput at the longest delay time",
        every(
            {
                label: band(
                    mbps(runs, label, top),
                    HIGH_MBPS,
                    None,
                    f"{label} Mb/s at {top * 1e6:g} us",
                    source="'very high': >= half the bottleneck; the paper's NCR gets 632 Mb/s",
                )
                for label in TOLERANT
            },
            "each of the three",
        ),
        quote=LONG_DELAYS,
        where="Fig. 13 (caption)",
    )


def claims(data: Fig12Data, quick: bool) -> list[Claim]:
    return [*_improvement_claims(data), *_ncr_claims(data), _long_delay_claim(data)]


FIGURES = (
    recipe(
        PAPER,
        "fig12-13-14",
        "BIC with TCP-NCR, AVG-DEV and TCP-RR vs BIC-SACK",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
