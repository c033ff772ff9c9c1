"""``fig17-18``: DSACK-TA vs the Blanton-Allman schemes, throughput and FR
fraction vs the mean delay kP, and the limited-transmit sensitivity.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    at_most,
    each_above,
    each_at_most,
    each_rises,
    pct,
    rises,
    unit,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    stat_series,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)
from reorderlab.papers.kit.summary import (
    Table,
    by_x,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    MODE,
    PAPER,
    chain_scenario,
    kp_delay,
    lt_bound_of,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    LT_XLABEL,
    lt_override,
    lt_series,
    lt_sweep,
    sens_curve,
    with_lt_sensitivity,
)

FIG17_P = 0.05
FIG17_RATE = 4e6
FIG17_FRACTION = 0.01
FIG17_K = (0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
FIG17_K_QUICK = (0.1, 1.0, 2.0, 4.0)
BL_VARIANTS = (
    "DSACK-BL-R",
    "DSACK-BL-INC",
    "DSACK-BL-AVG",
    "DSACK-BL-EWMA",
    "DSACK-BL-TIMEDEL",
    "DSACK-BL-TIMEINC",
)
FIG17_CURVES = ("SACK", "DSACK-TA", *BL_VARIANTS)
#: k of the limited-transmit sensitivity of Fig. 18 (kP = 100, 200 ms: in
#: both modes' k lists, so k = 1 x cwnd is the figure's own run).
FIG18_LT_K = (2.0, 4.0)


def _fig17_points(quick: bool) -> Plan:
    mode = MODE(quick)
    ks = FIG17_K_QUICK if quick else FIG17_K
    points = [
        point(
            v,
            k,
            FIG17_RATE,  # S = 4 Mb/s
            chain_scenario(
                CHAIN,
                FIG17_P,
                v,
                mode.duration,
                [kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                lt_bound=lt_bound_of(v),
            ),
        )
        for v in FIG17_CURVES
        for k in ks
    ]
    sens = [
        point(
            sens_curve(_fig18_sens_label(k)),
            b,
            FIG17_RATE,
            chain_scenario(
                CHAIN,
                FIG17_P,
                "DSACK-TA",
                mode.duration,
                [kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                lt_bound=lt_override(b),
            ),
        )
        for k in FIG18_LT_K
        for b in lt_sweep(quick)
    ]
    return {**plan_of(points, quick), SENSITIVITY: Sweep(sens, MODE(quick).seeds)}


def _fig18_sens_label(k: float) -> str:
    return f"DSACK-TA, kP = {1000 * k * FIG17_P:g} ms"


def _fig17_table(runs: Runs, quick: bool) -> Derived[Table]:
    return Derived(with_lt_sensitivity(runs))


#: Fig. 17 (throughput) and Fig. 18 (fast retransmits): (stem, metric, y label, y scale).
FIG17_18 = (
    ("fig17_throughput", "norm", "throughput / S", 1.0),
    ("fig18_fast_retransmits", "fr_frac", "fast retransmits / packets sent (%)", 100.0),
)
PANEL = LineFigure(
    "{stem}",
    xlabel="mean packet delay kP (ms)",
    ylabel="{ylabel}",
    title=f"Figs. 17-18: P = {FIG17_P:g} s, S = 4 Mb/s, 1 % delayed N(kP, kP/3) "
    "({seeds} seeds x {duration:g} s)",
)
LT_PLOT = LineFigure(
    "fig18_sensitivity",
    xlabel=LT_XLABEL,
    ylabel="fast retransmits / packets sent (%)",
    title=f"Fig. 18: DSACK-TA, P = {FIG17_P:g} s, 1 % delayed ({{seeds}} seeds x {{duration:g}} s)",
)


def _fig17_plot(tab: Table, out: Path, quick: bool) -> None:
    fields = MODE(quick).fields()
    for stem, metric, ylabel, scale in FIG17_18:
        lines = stat_series(tab, FIG17_CURVES, metric, xscale=FIG17_P * 1000, yscale=scale)
        PANEL.draw(out, lines, stem=stem, ylabel=ylabel, **fields)
    labels = [_fig18_sens_label(k) for k in FIG18_LT_K]
    LT_PLOT.draw(out, lt_series(tab, labels, "fr_frac", yscale=100.0), **fields)


def _fig17_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig17-18"
    ks = FIG17_K_QUICK if quick else FIG17_K
    thr = {v: by_x(tab, v) for v in FIG17_CURVES}
    fr = {v: by_x(tab, v, "fr_frac") for v in FIG17_CURVES}
    lo, hi = min(ks), max(ks)
    small = [thr[v][lo] for v in ("DSACK-TA", *BL_VARIANTS)]
    spread = max(small) - min(small)
    lead = {k: thr["DSACK-TA"][k] - max(thr[v][k] for v in BL_VARIANTS) for k in ks}
    bl_rise = {v: (fr[v][lo], fr[v][hi]) for v in BL_VARIANTS}
    similar = all_of(
        at_most(spread, 0.05, f"at k = {lo:g}: spread of DSACK-TA and the BL schemes", unit("S")),
        at_least(min(small), Ref(thr["SACK"][lo], "SACK", plus=-0.01, fmt=unit("S")), "each"),
    )
    ahead = all_of(
        above(lead[hi], 0, f"TA - best BL scheme at k = {hi:g}"),
        rises(lead[lo], lead[hi], "TA - best BL scheme", f"k = {lo:g}", f"k = {hi:g}"),
    )
    every_bl = "for every BL scheme"
    bl_worse = all_of(
        each_rises(bl_rise, "FR fraction", f"k = {lo:g}", f"k = {hi:g}", every_bl),
        each_above(
            {v: b for v, (_, b) in bl_rise.items()},
            Ref(fr["DSACK-TA"][hi], "TA's"),
            f"FR fraction at k = {hi:g}",
            every_bl,
        ),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "all schemes perform similarly (and no worse than SACK) at small k",
            similar,
            f"spread {spread:.3f} S; " + ", ".join(f"{v} {thr[v][lo]:.3f}" for v in FIG17_CURVES),
            at_small_k={v: thr[v][lo] for v in FIG17_CURVES},
            spread=spread,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA pulls increasingly ahead of the Blanton-Allman schemes as k grows",
            ahead,
            "TA - best BL: " + series_str(lead, "{:+.3f}"),
            lead=lead,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA's fast-retransmit fraction hovers around 0 %",
            each_at_most(
                fr["DSACK-TA"], 0.0005, "TA's fast retransmits / packets sent", "at every k", pct
            ),
            "TA (%): " + series_str({k: 100 * v for k, v in fr["DSACK-TA"].items()}, "{:.4f}"),
            ta=fr["DSACK-TA"],
        ),
        make_claim(
            PAPER,
            fig,
            "the Blanton-Allman schemes suffer increasingly from fast retransmits",
            bl_worse,
            "; ".join(f"{v}: {100 * a:.4f} -> {100 * b:.4f} %" for v, (a, b) in bl_rise.items()),
            bl=bl_rise,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig17-18",
        "vs Blanton-Allman: throughput and FR fraction vs mean delay kP",
        points=_fig17_points,
        table=_fig17_table,
        plot=_fig17_plot,
        claims=_fig17_claims,
    ),
)
