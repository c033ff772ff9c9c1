"""``fig8``: timeouts, fast retransmits and throughput vs a fixed FA ratio
(P = 100 ms).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    below,
    falls,
    rises,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    spearman,
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
    Table,
    by_x,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG8_P,
    FIG8_RATIOS,
    FIG8_RATIOS_QUICK,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    fig7_impairments,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
    summary,
)


def _fig8_points(quick: bool) -> Plan:
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


def _fig8_plot(tab: Table, out: Path, quick: bool) -> None:
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    for letter, metric, ylabel, scale in FIG8_PANELS:
        lines = stat_series(tab, ["DSACK-FA"], metric, xscale=100, yscale=scale)
        for v in ("DSACK-TA", "DSACK-R"):
            lines[v] = ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2, None)
        fields = MODE(quick).fields()
        PANEL.draw(out, lines, letter=letter, metric=metric, ylabel=ylabel, **fields)


def _fig8_timeouts(to: dict[float, float], lo_r: float, mid: float, hi_r: float) -> Claim:
    slope_hi = (to[hi_r] - to[mid]) / (hi_r - mid)
    slope_lo = (to[mid] - to[lo_r]) / (mid - lo_r)
    check = all_of(
        falls(to[hi_r], to[mid], "timeout fraction", f"FA ratio {percent(hi_r)}", percent(mid)),
        above(
            slope_hi,
            Ref(slope_lo, f"the drop over {percent(mid)} -> {percent(lo_r)}"),
            f"its drop per FA-ratio point over {percent(hi_r)} -> {percent(mid)}",
        ),
    )
    return make_claim(
        PAPER,
        "fig8",
        "timeouts fall steeply from a 95 % to a 60 % FA ratio, then flatten",
        check,
        "packets meeting a timeout (%) by FA ratio: "
        + ", ".join(f"{r:.2f}: {100 * v:.4f}" for r, v in to.items())
        + f"; slopes {100 * slope_hi:.4f} vs {100 * slope_lo:.4f} % per FA point",
        timeout_fraction=to,
        slope_95_60=slope_hi,
        slope_60_5=slope_lo,
    )


def _fig8_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig8"
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    to = by_x(tab, "DSACK-FA", "to_frac")
    fr = by_x(tab, "DSACK-FA", "fr_frac")
    thr = by_x(tab, "DSACK-FA", "norm")
    mid = min(ratios, key=lambda r: abs(r - 0.6))
    rho = spearman(list(fr), list(fr.values()))
    ta = tab[("DSACK-TA", 0.0)]
    best_r = max(thr, key=lambda r: thr[r])
    fa90 = thr.get(0.9, float("nan"))
    r_thr = tab[("DSACK-R", 0.0)]["norm"]
    fr_rise = all_of(
        rises(fr[hi_r], fr[lo_r], "FR fraction", f"FA ratio {percent(hi_r)}", percent(lo_r)),
        below(rho, 0, "Spearman rank correlation of FA ratio and FR fraction"),
    )
    best = Ref(thr[best_r], "the best fixed-FA-ratio throughput", times=0.95)
    beats = all_of(
        above(ta["norm"], Ref(r_thr, "DSACK-R"), "TA"),
        above(ta["norm"], Ref(fa90, "DSACK-FA at 90 %"), "TA"),
        sep=" and ",
    )
    return [
        _fig8_timeouts(to, lo_r, mid, hi_r),
        make_claim(
            PAPER,
            fig,
            "fast retransmits rise as the FA ratio falls",
            fr_rise,
            "FR / packets (%): "
            + ", ".join(f"{r:.2f}: {100 * v:.3f}" for r, v in fr.items())
            + f"; Spearman {rho:+.2f}",
            fr_fraction=fr,
            spearman=rho,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA gets about the best throughput of all fixed FA ratios",
            at_least(ta["norm"], best, "DSACK-TA"),
            f"TA {ta['norm']:.3f} S (final FA ratio {ta['fa_ratio']:.2f}) vs best fixed "
            f"{thr[best_r]:.3f} S at {percent(best_r)} (ratio {ta['norm'] / thr[best_r]:.3f})",
            ta=ta["norm"],
            best_fixed=thr[best_r],
            best_ratio=best_r,
            throughput=thr,
            ta_final_fa_ratio=ta["fa_ratio"],
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA beats DSACK-R (dupthresh 3) and DSACK-FA (90 %)",
            beats,
            f"TA {ta['norm']:.3f}, DSACK-R {r_thr:.3f}, FA 90 % {fa90:.3f} (of S)",
            ta=ta["norm"],
            dsack_r=r_thr,
            fa90=fa90,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig8",
        "timeouts, fast retransmits and throughput vs fixed FA ratio (P = 100 ms)",
        points=_fig8_points,
        table=summary,
        plot=_fig8_plot,
        claims=_fig8_claims,
    ),
)
