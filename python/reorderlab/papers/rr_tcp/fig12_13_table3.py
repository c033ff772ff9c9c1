"""``fig12-13-table3``: timeouts and throughput vs the FA ratio at k = 6, the
mean RTO of Table 3, and the limited-transmit sensitivity.

The setting: :mod:`.setting`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    each_above,
    each_at_most,
    each_below,
    points,
    rises,
    unit,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
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
    FIG8_RATIOS,
    FIG8_RATIOS_QUICK,
    FIG10_FRACTION,
    FIG10_P,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    kp_delay,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    LT_XLABEL,
    lt_override,
    lt_series,
    lt_sweep,
    percent,
    sens_curve,
    with_lt_sensitivity,
)

FIG12_K = 6.0
FIG12_REFS = ("SACK", "DSACK-R", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
#: Table 3's variants whose mean RTO depends on the limited-transmit bound
#: (DSACK-FA at the highest FA ratio).
FIG12_LT_VARIANTS = ("DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
TABLE3_PAPER = {
    "SACK": 1.0,
    "DSACK-R": 1.0,
    "DSACK-FA": 3.1,
    "DSACK-TA": 1.6,
    "DSACK-TAES": 3.1,
    "DSACK-HG": 2.3,
}


def _fig12_points(quick: bool) -> Plan:
    mode = MODE(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    s = capacity_bps(FIG10_P)
    imps = [kp_delay(FIG10_FRACTION, FIG12_K, FIG10_P)]
    points = [
        point(v, r, s, chain_scenario(CHAIN, FIG10_P, v, mode.duration, imps, fa_ratio=r))
        for v in ("DSACK-FA", "DSACK-FAES")
        for r in ratios
    ]
    points += [
        point(v, 0.0, s, chain_scenario(CHAIN, FIG10_P, v, mode.duration, imps)) for v in FIG12_REFS
    ]
    hi_r = max(ratios)
    sens = [
        point(
            sens_curve(v),
            b,
            s,
            chain_scenario(
                CHAIN,
                FIG10_P,
                v,
                mode.duration,
                imps,
                fa_ratio=hi_r if v == "DSACK-FA" else None,
                lt_bound=lt_override(b),
            ),
        )
        for v in FIG12_LT_VARIANTS
        for b in lt_sweep(quick)
    ]
    return {**plan_of(points, quick), SENSITIVITY: Sweep(sens, MODE(quick).seeds)}


def _mean_rto(tab: Table, quick: bool) -> dict[str, float]:
    """Table 3's mean RTO by variant (DSACK-FA at the highest FA ratio)."""
    hi_r = max(FIG8_RATIOS_QUICK if quick else FIG8_RATIOS)
    rto = {v: tab[(v, 0.0)]["rto_mean"] for v in FIG12_REFS}
    rto["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_mean"]
    return rto


def _fig12_table(runs: Runs, quick: bool) -> Derived[Table]:
    tab = with_lt_sensitivity(runs)
    hi_r = max(FIG8_RATIOS_QUICK if quick else FIG8_RATIOS)
    rto = _mean_rto(tab, quick)
    at_timeout = {v: tab[(v, 0.0)]["rto_at_timeout"] for v in FIG12_REFS}
    at_timeout["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_at_timeout"]
    rows = [
        {
            "variant": v,
            "mean_rto_s": rto[v],
            "mean_rto_at_timeout_s": None if math.isnan(at_timeout[v]) else at_timeout[v],
            "paper_s": TABLE3_PAPER[v],
            "note": f"FA ratio {percent(hi_r)}" if v == "DSACK-FA" else "",
        }
        for v in TABLE3_PAPER
    ]
    return Derived(tab, {"table3_mean_rto": rows})


#: Fig. 12 (timeouts) and Fig. 13 (throughput) vs the FA ratio: (stem,
#: metric, y label, y scale); DSACK-TA, -TAES and -HG as reference lines.
FIG12_13 = (
    ("fig12_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
    ("fig13_throughput", "norm", "throughput / S", 1.0),
)
PANEL = LineFigure(
    "{stem}",
    xlabel="FA ratio (%)",
    ylabel="{ylabel}",
    title=f"Figs. 12-13: P = {FIG10_P:g} s, 4 % delayed N(1.2 s, 0.4 s) "
    "({seeds} seeds x {duration:g} s)",
    styles={"DSACK-TA": "--", "DSACK-TAES": "-.", "DSACK-HG": ":"},
)
#: The limited-transmit sensitivity plots: (stem, metric, y label, y scale).
LT_PLOTS = (
    ("fig12_sensitivity", "rto_mean", "mean RTO (s)", 1.0),
    ("fig12_sensitivity_timeouts", "to_frac", "packets meeting a timeout (%)", 100.0),
)


def _fig12_plot(tab: Table, out: Path, quick: bool) -> None:
    mode = MODE(quick)
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    for stem, metric, ylabel, scale in FIG12_13:
        lines = stat_series(tab, ["DSACK-FA", "DSACK-FAES"], metric, xscale=100, yscale=scale)
        for v in ("DSACK-TA", "DSACK-TAES", "DSACK-HG"):
            lines[v] = ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2, None)
        PANEL.draw(out, lines, stem=stem, ylabel=ylabel, **mode.fields())
    paper = ", ".join(f"{v[6:]} {TABLE3_PAPER[v]:g}" for v in FIG12_LT_VARIANTS)
    sens_title = (
        f"k = 6, FA at {percent(hi_r)} ({mode.seeds} seeds x {mode.duration:g} s)\n"
        f"paper's Table 3 (s): {paper}"
    )
    for stem, metric, ylabel, scale in LT_PLOTS:
        line = LineFigure(stem, LT_XLABEL, ylabel, sens_title)
        line.draw(out, lt_series(tab, FIG12_LT_VARIANTS, metric, yscale=scale))


def pct_map(m: Mapping[float, float]) -> str:
    return ", ".join(f"{100 * r:g}: {100 * v:.3f}" for r, v in m.items())


def _fig12_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig12-13-table3"
    ratios = FIG8_RATIOS_QUICK if quick else FIG8_RATIOS
    lo_r, hi_r = min(ratios), max(ratios)
    to_fa = by_x(tab, "DSACK-FA", "to_frac")
    to_faes = by_x(tab, "DSACK-FAES", "to_frac")
    thr_faes = by_x(tab, "DSACK-FAES")
    ta_to = tab[("DSACK-TA", 0.0)]["to_frac"]
    taes = tab[("DSACK-TAES", 0.0)]["norm"]
    hg = tab[("DSACK-HG", 0.0)]["norm"]
    best_faes = max(thr_faes.values())
    every = "at every FA ratio"
    faes_few = all_of(
        each_at_most(
            to_faes, Ref(to_fa, "FA's", plus=1e-4, fmt=points), "FAES timeout fraction", every
        ),
        each_below(to_faes, Ref(ta_to, "DSACK-TA's"), "FAES timeout fraction", every),
    )
    ta_many = all_of(
        above(ta_to, Ref(to_fa[hi_r], f"FA's at {percent(hi_r)}"), "TA's timeout fraction"),
        rises(
            to_fa[hi_r],
            to_fa[lo_r],
            "FA's timeout fraction",
            f"FA ratio {percent(hi_r)}",
            percent(lo_r),
        ),
    )
    taes_best = all_of(
        at_least(taes, Ref(best_faes, "the best FAES over the FA ratios", times=0.95), "TAES"),
        at_least(taes, Ref(hg, "HG", times=0.95), "TAES"),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-FAES has few timeouts at every FA ratio",
            faes_few,
            f"FAES (%): {pct_map(to_faes)}; FA (%): {pct_map(to_fa)}; TA {100 * ta_to:.3f} %",
            faes=to_faes,
            fa=to_fa,
            ta=ta_to,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TA meets far more timeouts than DSACK-FA at 95 %; FA's timeouts grow as "
            "its FA ratio falls",
            ta_many,
            f"TA {100 * ta_to:.3f} %, FA at {percent(hi_r)} {100 * to_fa[hi_r]:.3f} %, "
            f"FA at {percent(lo_r)} {100 * to_fa[lo_r]:.3f} %",
            ta=ta_to,
            fa=to_fa,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-TAES matches the best DSACK-FAES and DSACK-HG",
            taes_best,
            f"TAES {taes:.3f} S, best FAES {best_faes:.3f} S, HG {hg:.3f} S",
            taes=taes,
            best_faes=best_faes,
            hg=hg,
            faes=thr_faes,
        ),
        *_table3_claims(_mean_rto(tab, quick)),
    ]


def _table3_claims(rto: dict[str, float]) -> list[Claim]:
    fig = "fig12-13-table3"
    rto_str = ", ".join(f"{v} {rto[v]:.2f} (paper {TABLE3_PAPER[v]:.1f})" for v in TABLE3_PAPER)
    return [
        make_claim(
            PAPER,
            fig,
            "Table 3: without enhanced sampling TA's RTO is short; FA (95 %) and TAES are "
            "more conservative",
            each_above(
                {"DSACK-FA (95 %)": rto["DSACK-FA"], "DSACK-TAES": rto["DSACK-TAES"]},
                Ref(rto["DSACK-TA"], "TA's"),
                "mean RTO of DSACK-FA (95 %) and of TAES",
                "",
            ),
            rto_str,
            mean_rto=rto,
            paper=TABLE3_PAPER,
        ),
        make_claim(
            PAPER,
            fig,
            "Table 3: TA's mean RTO is above SACK's, and SACK / DSACK-R stay near the 1 s minimum",
            all_of(
                above(rto["DSACK-TA"], Ref(rto["SACK"], "SACK's"), "TA's mean RTO"),
                each_at_most(
                    {"SACK": rto["SACK"], "DSACK-R": rto["DSACK-R"]},
                    1.1,
                    "mean RTO of SACK and of DSACK-R",
                    "",
                    unit("s"),
                ),
            ),
            rto_str,
            mean_rto=rto,
        ),
        make_claim(
            PAPER,
            fig,
            "Table 3: DSACK-FA and DSACK-TAES are more conservative than DSACK-HG",
            each_above(
                {"DSACK-FA (95 %)": rto["DSACK-FA"], "DSACK-TAES": rto["DSACK-TAES"]},
                Ref(rto["DSACK-HG"], "HG's"),
                "mean RTO of FA (95 %) and of TAES",
                "",
            ),
            rto_str,
            mean_rto=rto,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig12-13-table3",
        "timeouts and throughput vs FA ratio at k = 6 (N(1.2 s, 0.4 s)); mean RTO (Table 3)",
        points=_fig12_points,
        table=_fig12_table,
        plot=_fig12_plot,
        claims=_fig12_claims,
    ),
)
