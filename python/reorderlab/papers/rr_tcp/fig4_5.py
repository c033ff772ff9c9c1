"""``fig4`` and ``fig5``: throughput and the false fast retransmit ratio vs
the fraction of delayed packets (one set of runs).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    all_of,
    band,
    difference,
    every,
    pct,
    trend,
    unit,
)
from reorderlab.claims import (
    Claim,
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
    x_values,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_CURVES,
    FIG4_DELAY,
    FIG4_P,
    MODE,
    NODELAY,
    capacity_bps,
    chain_scenario,
    delayed,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    best_of,
    gap,
    percent,
    points_table,
    rr_claim,
)

FIG4_FRACTIONS = (0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30)
FIG4_FRACTIONS_QUICK = (0.01, 0.10, 0.30)
#: The schemes Sec. 5.1.1 compares DSACK-TA(-MEAN) with.
OTHERS = ("SACK", "DSACK-R", "DSACK-FA-MEAN", "DSACK-FA-RTX")
WHERE4 = "Sec. 5.1.1, Fig. 4"


def plan(quick: bool) -> Plan:
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


def plot(data: Points, out: Path, quick: bool) -> None:
    lines = stat_series(data.tab, [NODELAY, *FIG4_CURVES], "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _setting_claim(data: Points) -> Claim:
    """The condition Sec. 5 states of its setting, on which the capacity S
    = M / R was calibrated (from that sentence only): undisturbed, one flow
    runs at S. Measured over the whole run, so slow start (~log2 M RTTs)
    costs a little of it; the band's 1 % is that allowance."""
    return rr_claim(
        "fig4",
        "the setting: with no delay or drops the flow runs at S (SACK-NODELAY)",
        band(
            data.seeds(NODELAY, 0.0),
            0.99,
            None,
            "SACK-NODELAY's throughput / S over the run",
            source='"a TCP flow achieves throughput S" (slow start allowed 1 %)',
            fmt=unit("S"),
        ),
        quote="Thus, when we don't introduce a controlled packet delay or dropping process "
        "at the link, a TCP flow achieves throughput S, and the steady state window size "
        "will be exactly M = 50.",
        where="Sec. 5",
        kind="condition",
    )


def claims(data: Points, quick: bool) -> list[Claim]:
    xs = x_values(data.tab, "SACK")
    better = (
        "as more packets are delayed, the throughput of SACK drops rapidly, but that of "
        "DSACK-FA and -TA is better."
    )
    over_sack = {
        f"{c} at {percent(x)}": difference(
            data.seeds(c, x), data.seeds("SACK", x), f"{c} - SACK at {percent(x)} delayed"
        )
        for c in ("DSACK-FA-MEAN", "DSACK-TA-MEAN")
        for x in xs
    }
    return [
        _setting_claim(data),
        rr_claim(
            "fig4",
            "SACK's throughput drops as more packets are delayed",
            trend(
                data.curves("SACK"), "SACK's throughput", direction="falls", x="fraction delayed"
            ),
            quote=better,
            where=WHERE4,
        ),
        rr_claim(
            "fig4",
            "DSACK-FA and DSACK-TA do better than SACK",
            every(over_sack, "DSACK-FA and -TA above SACK at every fraction delayed"),
            quote=better,
            where=WHERE4,
        ),
        _ta_best(data, xs),
        rr_claim(
            "fig4",
            f"DSACK-TA keeps over 71 % of SACK-NODELAY's throughput at {percent(max(xs))} delayed",
            band(
                {
                    s: v / data.seeds(NODELAY, 0.0)[s]
                    for s, v in data.seeds("DSACK-TA-MEAN", max(xs)).items()
                },
                0.71,
                None,
                f"DSACK-TA / SACK-NODELAY at {percent(max(xs))} delayed",
                source='"over 71% of the throughput possible without packet delays"',
                fmt=pct,
            ),
            quote="DSACK-TA can maintain over 71% of the throughput possible without packet "
            "delays, even when 30% of packets are delayed.",
            where=WHERE4,
        ),
        *_pairing_claims(data, xs),
    ]


def _ta_best(data: Points, xs: list[float]) -> Claim:
    """Sec. 5.1.1: TA above every other scheme, its lead growing with the
    fraction delayed (its throughput "decreases much more slowly")."""
    # seed -> x -> TA - the best other scheme
    curves: dict[int, dict[float, float]] = {}
    for x in xs:
        best = best_of({c: data.seeds(c, x) for c in OTHERS})
        for s, v in data.seeds("DSACK-TA-MEAN", x).items():
            curves.setdefault(s, {})[x] = v - best[s]
    best = {s: sum(c.values()) / len(c) for s, c in curves.items()}
    return rr_claim(
        "fig4",
        "DSACK-TA performs best",
        all_of(
            band(
                best,
                0.0,
                None,
                "TA(-MEAN) - the best of SACK, DSACK-R, FA-MEAN, FA-RTX, mean over the fractions",
                source='"DSACK-TA performs best": above each, i.e. a lead > 0',
                fmt=unit("S"),
            ),
            trend(
                curves,
                "TA's lead over the best other scheme",
                direction="rises",
                x="fraction delayed",
            ),
            sep=", and ",
        ),
        quote="DSACK-TA performs best, as its throughput decreases much more slowly than that "
        "of the other schemes.",
        where=WHERE4,
    )


def _pairing_claims(data: Points, xs: list[float]) -> list[Claim]:
    """Fig. 4 and Sec. 5.1.1: the -MEAN and -RTX pairings of FA and TA."""
    ta_diff = gap(data.mean_over("DSACK-TA-MEAN", xs), data.mean_over("DSACK-TA-RTX", xs))
    fa_diff = gap(data.mean_over("DSACK-FA-MEAN", xs), data.mean_over("DSACK-FA-RTX", xs))
    metric = "false_fr_per_reorder"
    fa_false = gap(
        data.mean_over("DSACK-FA-MEAN", xs, metric), data.mean_over("DSACK-FA-RTX", xs, metric)
    )
    comparable = (
        "The performance of DSACK-TA-MEAN is comparable to that of DSACK-TA-RTX, but the "
        "FA-MEAN variant performs a bit better than the FA-RTX variant."
    )
    return [
        rr_claim(
            "fig4",
            "DSACK-TA-MEAN ~ DSACK-TA-RTX (plotted atop one another)",
            band(
                ta_diff,
                -0.02,
                0.02,
                "TA-MEAN - TA-RTX, mean over the fractions",
                source='"plotted atop one another" (footnote 3): within 2 % of S, '
                "a line's width on the figure",
                fmt=unit("S"),
            ),
            quote=comparable,
            where=WHERE4,
        ),
        rr_claim(
            "fig4",
            "DSACK-FA-MEAN performs slightly better than DSACK-FA-RTX",
            difference(
                data.mean_over("DSACK-FA-MEAN", xs),
                data.mean_over("DSACK-FA-RTX", xs),
                "FA-MEAN - FA-RTX throughput, mean over the fractions (S)",
            ),
            quote=comparable,
            where=WHERE4,
            values={"fa_mean_minus_rtx": fa_diff},
        ),
        rr_claim(
            "fig4",
            "DSACK-FA-MEAN meets fewer false fast retransmits than DSACK-FA-RTX",
            difference(
                data.mean_over("DSACK-FA-MEAN", xs, metric),
                data.mean_over("DSACK-FA-RTX", xs, metric),
                "FA-MEAN - FA-RTX false fast retransmits / reordered packets, "
                "mean over the fractions",
                op="<",
            ),
            quote="Thus, DSACK-FA-MEAN tends to measure slightly longer reorderings, and thus "
            "selects a slightly larger dupthresh, which in turn causes fewer false fast "
            "retransmits.",
            where=WHERE4,
            values={"fa_mean_minus_rtx": fa_false},
        ),
    ]


def plot_fig5(data: Points, out: Path, quick: bool) -> None:
    lines = stat_series(data.tab, FIG5_CURVES, "false_fr_per_reorder", xscale=100, yscale=100)
    FALSE_FR.draw(out, lines, **MODE(quick).fields())


def claims_fig5(data: Points, quick: bool) -> list[Claim]:
    metric = "false_fr_per_reorder"
    xs = x_values(data.tab, "DSACK-FA-MEAN")
    below10 = {
        x: band(
            data.seeds("DSACK-FA-MEAN", x, metric),
            None,
            0.10,
            f"DSACK-FA's false fast retransmits / reordered packets at {percent(x)} delayed",
            source='"less than 10%"',
            fmt=pct,
        )
        for x in xs
    }
    return [
        rr_claim(
            "fig5",
            "DSACK-FA's false fast retransmit ratio stays below 10 %",
            every(below10, "DSACK-FA(-MEAN) below 10 % at every fraction delayed"),
            quote="Figure 5 reveals that the fraction of packets resent with fast retransmit "
            "for which retransmission is false under DSACK-FA is less than 10%.",
            where="Sec. 5.1.1, Fig. 5",
        ),
        rr_claim(
            "fig5",
            "DSACK-TA prevents still more false fast retransmits",
            difference(
                data.mean_over("DSACK-TA-MEAN", xs, metric),
                data.mean_over("DSACK-FA-MEAN", xs, metric),
                "TA - FA false fast retransmits / reordered packets, mean over the fractions",
                op="<",
            ),
            quote="DSACK-TA prevents still more false fast retransmits.",
            where="Sec. 5.1.1, Fig. 5",
        ),
        rr_claim(
            "fig5",
            "DSACK-TA adjusts its FA ratio to 99 %",
            band(
                data.mean_over("DSACK-TA-MEAN", xs, "fa_ratio"),
                0.985,
                0.995,
                "DSACK-TA's FA ratio at the end of the run, mean over the fractions",
                source='"adjusts the FA ratio to 99%" (to the nearest point)',
                fmt=pct,
            ),
            quote="In cases with virtually no RTOs, such as in this simulation, DSACK-TA "
            "adjusts the FA ratio to 99% so that most false fast retransmits are avoided.",
            where="Sec. 5.1.1",
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig4",
        "throughput vs fraction of delayed packets (P = 50 ms, N(25, 8) ms)",
        points=plan,
        table=points_table("fig4_points"),
        plot=plot,
        claims=claims,
    ),
    recipe(
        "rr-tcp",
        "fig5",
        "false fast retransmit ratio vs fraction of delayed packets",
        points=plan,
        table=points_table("fig5_points"),
        plot=plot_fig5,
        claims=claims_fig5,
    ),
)
