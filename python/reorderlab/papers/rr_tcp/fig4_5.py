"""``fig4`` and ``fig5``: throughput and the false fast retransmit ratio vs
the fraction of delayed packets (one set of runs).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    at_most,
    below,
    each_at_least,
    each_at_most,
    each_below,
    equals,
    pct,
    points,
    that,
    unit,
    within,
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
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
)
from reorderlab.papers.kit.summary import (
    Stat,
    Table,
    by_x,
    x_values,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_CURVES,
    FIG4_DELAY,
    FIG4_P,
    MODE,
    NODELAY,
    PAPER,
    capacity_bps,
    chain_scenario,
    delayed,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
    summary,
)

FIG4_FRACTIONS = (0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
FIG4_FRACTIONS_QUICK = (0.01, 0.10, 0.30)


def _fig4_points(quick: bool) -> Plan:
    mode = MODE(quick)
    fractions = FIG4_FRACTIONS_QUICK if quick else FIG4_FRACTIONS
    s = capacity_bps(FIG4_P)
    points = [point(NODELAY, 0.0, s, chain_scenario(CHAIN, FIG4_P, "SACK", mode.duration))]
    for label, variant in FIG4_CURVES.items():
        for f in fractions:
            sc = chain_scenario(CHAIN, FIG4_P, variant, mode.duration, [delayed(f, FIG4_DELAY)])
            points.append(point(label, f, s, sc))
    return plan_of(points, quick)


THROUGHPUT = LineFigure(
    "fig4_throughput",
    xlabel="fraction of packets delayed (%)",
    ylabel="throughput / S",
    title=f"Fig. 4: P = {FIG4_P * 1000:g} ms, delay N(25 ms, 8 ms) "
    "({seeds} seeds x {duration:g} s)",
    styles={NODELAY: "k*", "DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
)
FALSE_FR = LineFigure(
    "fig5_false_fr_ratio",
    xlabel="fraction of packets delayed (%)",
    ylabel="false fast retransmits / reordered packets (%)",
    title="Fig. 5: as Fig. 4 ({seeds} seeds x {duration:g} s)",
    styles={"DSACK-FA-RTX": "s--", "DSACK-TA-RTX": "^--"},
)
FIG5_CURVES = ("DSACK-R", "DSACK-FA-MEAN", "DSACK-FA-RTX", "DSACK-TA-MEAN", "DSACK-TA-RTX")


def _fig4_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, [NODELAY, *FIG4_CURVES], "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _setting_claim(nodelay: Stat) -> Claim:
    """The condition Sec. 5 states of its setting, on which the capacity S
    = M / R was calibrated (from that sentence only): undisturbed, one flow
    runs at S with its window at M, without loss. Measured over the whole
    run, so slow start (~log2 M RTTs) costs a little of it."""
    retransmissions = nodelay["fast_retransmits"] + nodelay["timeouts"]
    return make_claim(
        PAPER,
        "fig4",
        "the setting: with no delay or drops the flow runs at S (SACK-NODELAY)",
        all_of(
            at_least(
                nodelay["norm"], 0.99, "SACK-NODELAY's throughput / S over the run", unit("S")
            ),
            equals(retransmissions, 0, "its fast retransmits and timeouts"),
        ).noted(
            "(Sec. 5: \"when we don't introduce a controlled packet delay or dropping process "
            'at the link, a TCP flow achieves throughput S")'
        ),
        f"SACK-NODELAY {nodelay['norm']:.4f} S, {retransmissions:g} retransmissions",
        nodelay_norm=nodelay["norm"],
        retransmissions=retransmissions,
    )


def _fig4_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig4"
    nodelay = tab[(NODELAY, 0.0)]["norm"]
    xs = x_values(tab, "SACK")
    th = {c: by_x(tab, c) for c in FIG4_CURVES}
    claims: list[Claim] = [_setting_claim(tab[(NODELAY, 0.0)])]

    x10 = min(xs, key=lambda x: abs(x - 0.10))
    sack10 = th["SACK"][x10] / nodelay
    sack_lowest = all(th["SACK"][x] <= min(th[c][x] for c in FIG4_CURVES) + 1e-12 for x in xs)
    claims.append(
        make_claim(
            PAPER,
            fig,
            "SACK's throughput falls fast as more packets are delayed",
            all_of(
                below(sack10, 0.5, f"SACK / SACK-NODELAY at {percent(x10)} delayed"),
                that(sack_lowest, "SACK the lowest curve at every fraction"),
            ),
            f"SACK / SACK-NODELAY at {percent(x10)}: {sack10:.3f}; SACK vs fraction: "
            f"{series_str(th['SACK'])}; lowest everywhere: {sack_lowest}",
            sack_over_nodelay_at_10pct=sack10,
            sack=th["SACK"],
            nodelay=nodelay,
        )
    )

    others = [c for c in FIG4_CURVES if not c.startswith("DSACK-TA")]
    gaps = {x: th["DSACK-TA-MEAN"][x] - max(th[c][x] for c in others) for x in xs}
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-TA performs best",
            each_at_least(
                gaps,
                -0.01,
                "DSACK-TA(-MEAN) - the best non-TA curve (SACK, DSACK-R, FA-MEAN, FA-RTX)",
                "at every fraction",
                unit("S"),
            ),
            "TA - best other: " + series_str(gaps, "{:+.3f}"),
            ta_minus_best_other=gaps,
        )
    )

    x30 = max(xs)
    ta30 = th["DSACK-TA-MEAN"][x30] / nodelay
    claims.append(
        make_claim(
            PAPER,
            fig,
            f"DSACK-TA keeps over 71 % of SACK-NODELAY's throughput at {percent(x30)} delayed",
            above(ta30, 0.71, "DSACK-TA / SACK-NODELAY"),
            f"{ta30:.3f} (TA {th['DSACK-TA-MEAN'][x30]:.3f} S, SACK-NODELAY {nodelay:.3f} S)",
            ta_over_nodelay=ta30,
        )
    )

    return claims + _rtx_claims(th, xs)


def _rtx_claims(th: dict[str, dict[float, float]], xs: list[float]) -> list[Claim]:
    """Fig. 4: the -MEAN and -RTX pairings of FA and TA."""
    fig = "fig4"
    claims: list[Claim] = []
    diff_ta = {x: th["DSACK-TA-MEAN"][x] - th["DSACK-TA-RTX"][x] for x in xs}
    worst = max(abs(v) for v in diff_ta.values())
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-TA-MEAN ~ DSACK-TA-RTX (plotted atop one another)",
            at_most(worst, 0.03, "|TA-MEAN - TA-RTX|, largest over the fractions", unit("S")),
            "TA-MEAN - TA-RTX: " + series_str(diff_ta, "{:+.3f}"),
            diff=diff_ta,
            max_abs_diff=worst,
        )
    )

    diff_fa = {x: th["DSACK-FA-MEAN"][x] - th["DSACK-FA-RTX"][x] for x in xs}
    mean_fa = float(np.mean(list(diff_fa.values())))
    claims.append(
        make_claim(
            PAPER,
            fig,
            "DSACK-FA-MEAN performs slightly better than DSACK-FA-RTX",
            within(
                mean_fa,
                0,
                0.10,
                "mean over the fractions of FA-MEAN - FA-RTX",
                unit("S"),
                low_open=True,
            ),
            f"mean {mean_fa:+.4f} S; per fraction: " + series_str(diff_fa, "{:+.3f}"),
            diff=diff_fa,
            mean_diff=mean_fa,
        )
    )
    return claims


def _fig5_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, FIG5_CURVES, "false_fr_per_reorder", xscale=100, yscale=100)
    FALSE_FR.draw(out, lines, **MODE(quick).fields())


def _fig5_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig5"
    metric = "false_fr_per_reorder"
    fa = by_x(tab, "DSACK-FA-MEAN", metric)
    ta = by_x(tab, "DSACK-TA-MEAN", metric)
    xs = list(fa)

    def pooled(curve: str) -> float:
        reord = sum(tab[(curve, x)]["reordered"] for x in xs)
        false = sum(tab[(curve, x)]["spurious_fast_retransmits"] for x in xs)
        return false / reord if reord else 0.0

    fa_all, ta_all = pooled("DSACK-FA-MEAN"), pooled("DSACK-TA-MEAN")
    share = {
        c: {x: tab[(c, x)]["false_fr_detected"] for x in xs}
        for c in ("DSACK-FA-MEAN", "DSACK-TA-MEAN")
    }
    ta_check = all_of(
        below(ta_all, Ref(fa_all, "FA's"), "TA's ratio pooled over all fractions"),
        each_at_most(ta, Ref(fa, "FA", plus=0.01, fmt=points), "TA", "at every fraction"),
        sep=", and ",
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-FA's false fast retransmit ratio stays below 10 %",
            each_below(
                fa,
                0.10,
                "false fast retransmits (ground truth) / reordered packets of DSACK-FA(-MEAN)",
                "at every fraction",
                pct,
            ),
            "FA (%): " + series_str({x: 100 * v for x, v in fa.items()}, "{:.2f}"),
            fa=fa,
            fa_rtx=by_x(tab, "DSACK-FA-RTX", metric),
            dsack_detected_share_of_frs=share,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA prevents still more false fast retransmits",
            ta_check,
            f"pooled TA {100 * ta_all:.2f} % vs FA {100 * fa_all:.2f} %; TA (%): "
            + series_str({x: 100 * v for x, v in ta.items()}, "{:.2f}"),
            ta=ta,
            ta_pooled=ta_all,
            fa_pooled=fa_all,
            ta_rtx=by_x(tab, "DSACK-TA-RTX", metric),
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig4",
        "throughput vs fraction of delayed packets (P = 50 ms, N(25, 8) ms)",
        points=_fig4_points,
        table=summary,
        plot=_fig4_plot,
        claims=_fig4_claims,
    ),
    recipe(
        PAPER,
        "fig5",
        "false fast retransmit ratio vs fraction of delayed packets",
        points=_fig4_points,
        table=summary,
        plot=_fig5_plot,
        claims=_fig5_claims,
    ),
)
