"""``fig8``: timeouts, fast retransmits and throughput vs a fixed FA ratio
(P = 100 ms).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    all_of,
    band,
    difference,
    every,
    pct,
    ratio,
    trend,
)
from reorderlab.checks.stats import (
    ols_slope,
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
    by_x,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG8_P,
    FIG8_RATIOS,
    FIG8_RATIOS_QUICK,
    MODE,
    capacity_bps,
    chain_scenario,
    fig7_impairments,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    percent,
    points_table,
    rr_claim,
)

WHERE = "Sec. 5.2, Fig. 8"
#: The FA ratio at which Sec. 5.2 places the knee of Fig. 8a.
KNEE = 0.6


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    s = capacity_bps(FIG8_P)
    imps = fig7_impairments(FIG8_P)
    points = [
        point(
            "DSACK-FA",
            r,
            s,
            chain_scenario(CHAIN, FIG8_P, "DSACK-FA", mode.duration, imps, fa_ratio=r),
        )
        for r in ratios
    ]
    for v in ("DSACK-TA", "DSACK-R"):
        points.append(point(v, 0.0, s, chain_scenario(CHAIN, FIG8_P, v, mode.duration, imps)))
    return plan_of(points, quick)


#: Panels a-c: (letter, metric, y label, y scale); DSACK-TA and DSACK-R as
#: horizontal reference lines.
FIG8_PANELS = (
    ("a", "to_frac", "packets meeting a timeout (%)", 100.0),
    ("b", "fr_frac", "fast retransmits / packets sent (%)", 100.0),
    ("c", "norm", "throughput / S", 1.0),
)
PANEL = LineFigure(
    "fig8{letter}_{metric}",
    xlabel="FA ratio (%)",
    ylabel="{ylabel}",
    title=f"Fig. 8: P = {FIG8_P:g} s, as Fig. 7 ({{seeds}} seeds x {{duration:g}} s)",
    styles={"DSACK-TA": "--", "DSACK-R": ":"},
)


def plot(data: Points, out: Path, quick: bool) -> None:
    tab = data.tab
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    for letter, metric, ylabel, scale in FIG8_PANELS:
        lines = stat_series(tab, ["DSACK-FA"], metric, xscale=100, yscale=scale)
        for v in ("DSACK-TA", "DSACK-R"):
            lines[v] = ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2, None)
        fields = MODE(quick).fields()
        PANEL.draw(out, lines, letter=letter, metric=metric, ylabel=ylabel, **fields)


def _timeouts(data: Points, ratios: tuple[float, ...]) -> Claim:
    """Fig. 8a: steep from 95 % to the knee, flat below it: the per-seed
    slope of the timeout fraction over [knee, 95 %] is positive and larger
    than over [5 %, knee]."""
    upper = [r for r in ratios if r >= KNEE]
    lower = [r for r in ratios if r <= KNEE]
    to = data.curves("DSACK-FA", "to_frac")

    def slopes(rs: list[float]) -> dict[int, float]:
        return {s: ols_slope(rs, [c[r] for r in rs]) for s, c in to.items()}

    steep = all_of(
        trend(
            {s: {r: c[r] for r in upper} for s, c in to.items()},
            f"the timeout fraction over FA ratios {percent(KNEE)}-{percent(max(ratios))}",
            direction="rises",
            x="FA ratio",
        ),
        difference(
            slopes(upper),
            slopes(lower),
            f"its slope over {percent(KNEE)}-{percent(max(ratios))} minus that over "
            f"{percent(min(ratios))}-{percent(KNEE)}",
        ),
        sep=", and ",
    )
    return rr_claim(
        "fig8",
        "timeouts fall steeply from a 95 % to a 60 % FA ratio, then flatten",
        steep,
        quote="In Figure 8a, the fraction of sent packets that encounter timeouts decreases "
        "rapidly as the FA ratio decreases from 95% to to 60%, then decreases further only "
        "slightly as the FA ratio decreases further.",
        where=WHERE,
    )


def claims(data: Points, quick: bool) -> list[Claim]:
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    thr = by_x(data.tab, "DSACK-FA")
    best_r = max(thr, key=lambda r: thr[r])
    ta = data.seeds("DSACK-TA", 0.0)
    fa90 = 0.9 if 0.9 in ratios else min(ratios, key=lambda r: abs(r - 0.9))
    return [
        _timeouts(data, ratios),
        rr_claim(
            "fig8",
            "DSACK-TA chooses an FA ratio of about 60 %",
            band(
                data.seeds("DSACK-TA", 0.0, "fa_ratio"),
                0.55,
                0.65,
                "DSACK-TA's FA ratio at the end of the run",
                source='"an FA ratio of approximately 60%": 60 % +- 5 points',
                fmt=pct,
            ),
            quote="Note that DSACK-TA adaptively chooses an FA ratio of approximately 60%, at "
            "this point of diminishing returns below which fewer timeouts are avoided.",
            where=WHERE,
        ),
        rr_claim(
            "fig8",
            "fast retransmits rise as the FA ratio falls",
            trend(
                data.curves("DSACK-FA", "fr_frac"),
                "DSACK-FA's fast retransmits / packets sent",
                direction="falls",
                x="FA ratio",
            ),
            quote="Figure 8b reveals that as the FA ratio (dupthresh) decreases, the actual "
            "fraction of fast retransmits will increase.",
            where=WHERE,
        ),
        rr_claim(
            "fig8",
            "DSACK-TA beats DSACK-R (dupthresh 3) and DSACK-FA (90 %)",
            every(
                {
                    "DSACK-R": difference(ta, data.seeds("DSACK-R", 0.0), "TA - DSACK-R (S)"),
                    "DSACK-FA": difference(
                        ta, data.seeds("DSACK-FA", fa90), f"TA - FA at {percent(fa90)} (S)"
                    ),
                },
                "DSACK-TA above DSACK-R and DSACK-FA at 90 %",
            ),
            quote="Figure 8c shows that DSACK-TA achieves a higher throughput than DSACK-R, "
            "which uses a fixed dupthresh of 3, and DSACK-FA, which fixes the FA ratio at 90%, "
            "because DSACK-TA balances between false fast retransmits and timeouts.",
            where=WHERE,
        ),
        rr_claim(
            "fig8",
            "DSACK-TA gets about the best throughput of all fixed FA ratios",
            ratio(
                ta,
                data.seeds("DSACK-FA", best_r),
                f"TA / FA at its best fixed ratio ({percent(best_r)})",
                limit=0.95,
            ),
            quote="Note further in Figure 8c that DSACK-TA adapts dupthresh such that it "
            "achieves approximately the maximum throughput available among all possible fixed "
            "FA ratios.",
            where=WHERE,
            values={"best_fixed_ratio": best_r, "throughput_by_ratio": thr},
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig8",
        "timeouts, fast retransmits and throughput vs fixed FA ratio (P = 100 ms)",
        points=plan,
        table=points_table("fig8_points"),
        plot=plot,
        claims=claims,
    ),
)
