"""``fig17-18``: DSACK-TA vs the Blanton-Allman schemes, throughput and FR
fraction vs the mean delay kP, and the limited-transmit sensitivity.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    Check,
    all_of,
    band,
    difference,
    every,
    pct,
    trend,
)
from reorderlab.claims import (
    Claim,
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
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    MODE,
    Knobs,
    chain_scenario,
    kp_delay,
    lt_bound_of,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    LT_XLABEL,
    PAST_M_SWEEP,
    Points,
    best_of,
    lt_series,
    past_m_x,
    point_rows,
    rr_claim,
    seeded_with_sensitivity,
    sens_curve,
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


def plan(quick: bool) -> Plan:
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
            past_m_x(c),
            FIG17_RATE,
            chain_scenario(
                CHAIN,
                FIG17_P,
                "DSACK-TA",
                mode.duration,
                [kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                knobs=Knobs(past_m=c),
            ),
        )
        for k in FIG18_LT_K
        for c in PAST_M_SWEEP
    ]
    sens += [
        point(
            sens_curve(BL_R_RESTORE),
            k,
            FIG17_RATE,
            chain_scenario(
                CHAIN,
                FIG17_P,
                "DSACK-BL-R",
                mode.duration,
                [kp_delay(FIG17_FRACTION, k, FIG17_P)],
                rate=FIG17_RATE,
                lt_bound=lt_bound_of("DSACK-BL-R"),
                undo_response="restore",
            ),
        )
        for k in ks
    ]
    return {**plan_of(points, quick), SENSITIVITY: Sweep(sens, MODE(quick).seeds)}


#: DSACK-BL-R with RR-TCP's immediate undo instead of the Blanton-Allman
#: model's slow start back (docs/variants.md): the model before issue 34.
BL_R_RESTORE = "DSACK-BL-R, immediate restore"


def _fig18_sens_label(k: float) -> str:
    return f"DSACK-TA, kP = {1000 * k * FIG17_P:g} ms"


def table(runs: Runs, quick: bool) -> Derived[Points]:
    data = seeded_with_sensitivity(runs)
    return Derived(data, {"fig17_points": point_rows(data)})


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


UNDO_PLOT = LineFigure(
    "fig17_sensitivity",
    xlabel="mean packet delay kP (ms)",
    ylabel="throughput / S",
    title="Fig. 17: DSACK-BL-R's undo, slow start back (the model) or at once "
    "({seeds} seeds x {duration:g} s)",
)
WHERE = "Sec. 5.7, Figs. 17-18"
#: The paper's own measure of "similar": differences "mostly < 5%, and all
#: < 10%" are slight (Sec. 5.7).
SIMILAR = '"perform similarly": within 10 % (Sec. 5.7: "mostly < 5%, and all < 10%")'


def plot(data: Points, out: Path, quick: bool) -> None:
    fields = MODE(quick).fields()
    for stem, metric, ylabel, scale in FIG17_18:
        lines = stat_series(data.tab, FIG17_CURVES, metric, xscale=FIG17_P * 1000, yscale=scale)
        PANEL.draw(out, lines, stem=stem, ylabel=ylabel, **fields)
    labels = [_fig18_sens_label(k) for k in FIG18_LT_K]
    LT_PLOT.draw(out, lt_series(data.tab, labels, "fr_frac", yscale=100.0), **fields)
    undo = stat_series(
        data.tab, [BL_R_RESTORE], "norm", xscale=FIG17_P * 1000, key=sens_curve
    ) | stat_series(data.tab, ["DSACK-BL-R", "DSACK-TA", "SACK"], "norm", xscale=FIG17_P * 1000)
    UNDO_PLOT.draw(out, undo, **fields)


FIG17_QUOTE = (
    "As shown in Figure 17, when kP is small, all schemes perform similarly better than "
    "SACK, but as kP increases, DSACK-TA achieves increasingly higher throughput as "
    "compared with all other schemes we simulated."
)
FIG18_QUOTE = (
    "Figure 18 shows that the fraction of fast retransmits suffered by DSACK-TA hovers "
    "around 0%, whereas the other schemes suffer increasingly from fast retransmits as the "
    "mean packet delay increases."
)


def _lead(data: Points, ks: tuple[float, ...]) -> dict[int, dict[float, float]]:
    """Per seed and k: DSACK-TA's throughput less the best of SACK and the BL schemes."""
    lead: dict[int, dict[float, float]] = {}
    for k in ks:
        best = best_of({v: data.seeds(v, k) for v in ("SACK", *BL_VARIANTS)})
        for s, v in data.seeds("DSACK-TA", k).items():
            lead.setdefault(s, {})[k] = v - best[s]
    return lead


def _similar_at_small_k(data: Points, lo: float) -> Check:
    """Every scheme above SACK, and every BL scheme within 10 % of DSACK-TA, at k = lo."""
    schemes = ("DSACK-TA", *BL_VARIANTS)
    sack = data.seeds("SACK", lo)
    small = {v: data.seeds(v, lo) for v in schemes}
    at_k = f"at k = {lo:g} (kP = {1000 * lo * FIG17_P:g} ms)"
    return all_of(
        every(
            {v: difference(small[v], sack, f"{v} - SACK {at_k} (S)") for v in schemes},
            f"every scheme above SACK {at_k}",
        ),
        every(
            {
                v: band(
                    {s: x / small["DSACK-TA"][s] for s, x in small[v].items()},
                    0.9,
                    1.1,
                    f"{v} / DSACK-TA {at_k}",
                    source=SIMILAR,
                )
                for v in BL_VARIANTS
            },
            f"every BL scheme within 10 % of DSACK-TA {at_k}",
        ),
        sep=", and ",
    )


def claims(data: Points, quick: bool) -> list[Claim]:
    ks = FIG17_K_QUICK if quick else FIG17_K
    similar = _similar_at_small_k(data, min(ks))
    lead = _lead(data, ks)
    fig17, fig18 = FIG17_QUOTE, FIG18_QUOTE
    return [
        rr_claim(
            "fig17-18",
            "all schemes perform similarly (and better than SACK) at small k",
            similar,
            quote=fig17,
            where=WHERE,
        ),
        rr_claim(
            "fig17-18",
            "DSACK-TA pulls increasingly ahead of the other schemes as k grows",
            trend(lead, "TA - the best of SACK and the BL schemes", direction="rises", x="k"),
            quote=fig17,
            where=WHERE,
        ),
        rr_claim(
            "fig17-18",
            "DSACK-TA's fast-retransmit fraction hovers around 0 %",
            every(
                {
                    k: band(
                        data.seeds("DSACK-TA", k, "fr_frac"),
                        None,
                        0.0005,
                        f"TA's fast retransmits / packets sent at k = {k:g}",
                        source='"hovers around 0%": below 0.05 % of packets',
                        fmt=pct,
                    )
                    for k in ks
                },
                "TA's fast-retransmit fraction below 0.05 % at every k",
            ),
            quote=fig18,
            where=WHERE,
        ),
        rr_claim(
            "fig17-18",
            "the Blanton-Allman schemes suffer increasingly from fast retransmits",
            every(
                {
                    v: trend(
                        data.curves(v, "fr_frac"),
                        f"{v}'s fast retransmits / packets sent",
                        direction="rises",
                        x="k",
                    )
                    for v in BL_VARIANTS
                },
                "every BL scheme's fast-retransmit fraction rises with k",
            ),
            quote=fig18,
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig17-18",
        "vs Blanton-Allman: throughput and FR fraction vs mean delay kP",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
