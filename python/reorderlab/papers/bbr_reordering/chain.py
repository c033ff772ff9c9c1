"""``chain``: goodput and retransmissions of BBR, CUBIC and Reno (``Linux``
loss recovery) against the fraction of delayed packets on the rr-tcp Fig. 4
chain at 10 and 100 Mb/s, the kernel's beside the simulator's where its
runs are saved (:mod:`.kernel` makes them).
The setting: :mod:`.setting`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from reorderlab.checks import each_within, that
from reorderlab.claims import Claim
from reorderlab.papers.bbr_reordering.setting import (
    CHAIN_FRACTIONS,
    CHAIN_MODE,
    COUNT_SHARE,
    COUNT_SLACK,
    CURVES,
    GOODPUT_BAND,
    MSS,
    PAPER,
    RATES,
    KernelPoint,
    chain,
    chain_grid,
    counts_agree,
    read_kernel,
)
from reorderlab.papers.kit.claims import paper_claim, series_str
from reorderlab.papers.kit.figure import LineFigure, Lines
from reorderlab.papers.kit.recipe import Derived, FigureRecipe
from reorderlab.papers.kit.runs import RUNS, Plan, Point, Runs, Sweep, flow_column, write_table

FIGURE = "chain"
#: Issue 37's sentence the claims encode ("What must hold").
AGREEMENT = (
    "every bbr cell of the validation matrix within 10 % goodput and 20 % "
    "retransmissions of the kernel"
)
WHERE = "issue 37, What must hold"


def points(quick: bool) -> Plan:
    mode = CHAIN_MODE(quick)
    grid: list[Point] = [
        ({"curve": c, "rate": r, "x": x}, chain(CURVES[c], r, x, mode.duration))
        for c, r, x in chain_grid(quick)
    ]
    return {RUNS: Sweep(grid, mode.seeds)}


def _sd(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def table(
    runs: Runs, kernel: Mapping[tuple[str, float, float], KernelPoint]
) -> Derived[list[dict[str, Any]]]:
    """One row per (curve, rate, fraction): the simulator's goodput (data
    segments per second, mean and sd of the seeds) and counts, the
    kernel's where it ran, their ratios."""
    df = runs.table()
    rows: list[dict[str, Any]] = []
    for key, g in df.groupby(["curve", "rate", "x"], sort=False):
        curve, rate, x = cast(tuple[str, float, float], key)
        pps = [float(v) / 8 / MSS for v in g[flow_column(g, 0, "throughput_bps")]]
        row: dict[str, Any] = {
            "curve": str(curve),
            "rate_mbps": float(rate) / 1e6,
            "x": float(x),
            "sim_pps": sum(pps) / len(pps),
            "sim_pps_sd": _sd(pps),
            "sim_retransmits": float(g[flow_column(g, 0, "retransmits")].astype(float).mean()),
            "sim_spurious": float(
                g[flow_column(g, 0, "spurious_retransmits")].astype(float).mean()
            ),
            "seeds": len(pps),
        }
        k = kernel.get((str(curve), float(rate), float(x)))
        row.update(
            {
                "kernel_pps": k.pps if k else math.nan,
                "kernel_retransmits": k.retransmits if k else math.nan,
                "kernel_spurious": k.spurious_retransmits if k else math.nan,
                "ratio": row["sim_pps"] / k.pps if k and k.pps > 0 else math.nan,
                "timing_p99_us": k.timing_p99_us if k else math.nan,
            }
        )
        rows.append(row)
    return Derived(rows, {"chain": rows})


#: One colour per curve: the kernel's solid with circles, the simulator's dashed.
STYLES = {
    f"{side} {curve}": f"C{i}{mark}"
    for i, curve in enumerate(("BBR", "CUBIC", "Reno"))
    for side, mark in (("kernel", "o-"), ("simulator", "s--"))
}


def _figure(rate: float, what: str, ylabel: str) -> LineFigure:
    return LineFigure(
        f"chain-{rate / 1e6:g}M-{what}",
        "fraction of packets delayed (%)",
        ylabel,
        f"Fig. 4 chain at {rate / 1e6:g} Mb/s, Linux loss recovery "
        "({duration:g} s, sim {seeds} seeds)",
        styles=STYLES,
    )


def plot(rows: list[dict[str, Any]], out: Path, quick: bool) -> None:
    mode = CHAIN_MODE(quick)
    for rate in RATES:
        goodput: Lines = {}
        rexmit: Lines = {}
        for curve in CURVES:
            mine = [r for r in rows if r["curve"] == curve and r["rate_mbps"] == rate / 1e6]
            xs = [100 * r["x"] for r in mine]
            mbps = 8 * MSS / 1e6
            goodput[f"simulator {curve}"] = (
                xs,
                [r["sim_pps"] * mbps for r in mine],
                [r["sim_pps_sd"] * mbps for r in mine],
            )
            rexmit[f"simulator {curve}"] = (xs, [r["sim_retransmits"] for r in mine], None)
            kern = [r for r in mine if not math.isnan(r["kernel_pps"])]
            if kern:
                kx = [100 * r["x"] for r in kern]
                goodput[f"kernel {curve}"] = (kx, [r["kernel_pps"] * mbps for r in kern], None)
                rexmit[f"kernel {curve}"] = (kx, [r["kernel_retransmits"] for r in kern], None)
        fields = {"duration": mode.duration, "seeds": mode.seeds}
        _figure(rate, "goodput", "goodput (Mb/s)").draw(out, goodput, **fields)
        _figure(rate, "retransmissions", "retransmissions per run").draw(out, rexmit, **fields)


def _agreement(curve: str, rate: float, mine: list[dict[str, Any]]) -> list[Claim]:
    at = f"{curve} at {rate / 1e6:g} Mb/s"
    ratios = {r["x"]: r["ratio"] for r in mine}
    pairs = {r["x"]: (r["kernel_retransmits"], r["sim_retransmits"]) for r in mine}
    counts = {x: counts_agree(k, s) for x, (k, s) in pairs.items()}
    return [
        paper_claim(
            PAPER,
            FIGURE,
            f"{at}: the simulator's goodput within 10 % of the kernel's at every fraction",
            each_within(
                ratios,
                1 - GOODPUT_BAND,
                1 + GOODPUT_BAND,
                "simulator / kernel goodput",
                "at every fraction delayed",
            ),
            quote=AGREEMENT,
            where=WHERE,
            measured="ratio by fraction delayed: " + series_str(ratios, "{:.3f}", "{:.0%}"),
            values={"ratios": ratios},
        ),
        paper_claim(
            PAPER,
            FIGURE,
            f"{at}: the simulator's retransmissions within 20 % of the kernel's at every fraction",
            that(
                all(counts.values()),
                f"|simulator - kernel| <= max({COUNT_SLACK:g}, {COUNT_SHARE:.0%} of the "
                "kernel's) retransmissions at every fraction delayed",
            ),
            quote=AGREEMENT,
            where=WHERE,
            measured="kernel / simulator by fraction delayed: "
            + ", ".join(f"{x:.0%}: {k:g} / {s:.1f}" for x, (k, s) in pairs.items()),
            values={"kernel_vs_sim": {str(x): list(p) for x, p in pairs.items()}},
        ),
    ]


def claims(rows: list[dict[str, Any]], quick: bool) -> list[Claim]:
    """Issue 37's agreement for BBR at each rate whose kernel runs are all
    saved (the issue states it for bbr only: CUBIC and Reno are drawn and
    tabulated), and that the emulator kept its schedule in those runs."""
    out: list[Claim] = []
    fractions = set(CHAIN_FRACTIONS(quick))
    for rate in RATES:
        mine = [r for r in rows if r["curve"] == "BBR" and r["rate_mbps"] == rate / 1e6]
        have = {r["x"] for r in mine if not math.isnan(r["kernel_pps"])}
        if have != fractions:
            continue
        out.extend(_agreement("BBR", rate, mine))
    timed = {
        f"{r['curve']} {r['rate_mbps']:g}M {r['x']:.0%}": r["timing_p99_us"]
        for r in rows
        if not math.isnan(r["timing_p99_us"])
    }
    if out and timed:
        worst = max(timed.values())
        out.append(
            paper_claim(
                PAPER,
                FIGURE,
                "The emulated path kept its schedule in every kernel run",
                that(worst < 1000, "per-packet timing error p99 < 1 ms in every kernel run"),
                quote="Simulated and kernel curves go side by side where the emulator reaches "
                "(up to 200 Mb/s).",
                where="issue 37, What to build",
                kind="sanity",
                measured=f"worst p99 {worst:.0f} us",
                values={"p99_us": timed},
            )
        )
    return out


@dataclass(frozen=True)
class ChainFigure(FigureRecipe):
    """The chain figure: its table step reads the kernel runs saved under
    ``out`` (if any) beside the simulated runs."""

    def derive(self, runs: Runs, quick: bool, out: Path) -> Derived[Any]:
        derived = table(runs, read_kernel(out, quick))
        for stem, rows in derived.csv.items():
            write_table(out, stem, rows)
        return derived


def _no_table(runs: Runs, quick: bool) -> Derived[list[dict[str, Any]]]:
    raise RuntimeError("the chain table reads the kernel runs too: use ChainFigure.derive")


CHAIN = ChainFigure(
    PAPER,
    FIGURE,
    "BBR, CUBIC and Reno vs delayed packets on the rr-tcp chain at 10 and 100 Mb/s, "
    "kernel beside simulator",
    points=points,
    table=_no_table,
    plot=plot,
    claims=claims,
    in_all=False,
)


FIGURES = (CHAIN,)
