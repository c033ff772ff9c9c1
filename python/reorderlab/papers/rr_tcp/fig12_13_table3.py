"""``fig12-13-table3``: timeouts and throughput vs the FA ratio at k = 6, the
mean RTO of Table 3, and the knife-edge sensitivity (:mod:`.knife_edge`).

The setting: :mod:`.setting`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import (
    all_of,
    band,
    difference,
    every,
    pct,
    ratio,
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
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
    Runs,
)
from reorderlab.papers.kit.summary import (
    by_x,
)
from reorderlab.papers.rr_tcp import (
    knife_edge,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG8_RATIOS,
    FIG8_RATIOS_QUICK,
    FIG10_FRACTION,
    FIG10_P,
    MODE,
    capacity_bps,
    chain_scenario,
    kp_delay,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    percent,
    point_rows,
    rr_claim,
    seeded_with_sensitivity,
)

FIG12_K = 6.0
FIG12_REFS = ("SACK", "DSACK-R", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
TABLE3_PAPER = {
    "SACK": 1.0,
    "DSACK-R": 1.0,
    "DSACK-FA": 3.1,
    "DSACK-TA": 1.6,
    "DSACK-TAES": 3.1,
    "DSACK-HG": 2.3,
}
WHERE = "Sec. 5.3, Fig. 12"
WHERE_T3 = "Sec. 5.3, Table 3"


def ratios_of(quick: bool) -> tuple[float, ...]:
    return FIG8_RATIOS_QUICK if quick else FIG8_RATIOS


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    ratios = ratios_of(quick)
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
    return {**plan_of(points, quick), **knife_edge.sweeps(quick, max(ratios), ratios)}


def _mean_rto(data: Points, quick: bool, metric: str = "rto_mean") -> dict[str, dict[int, float]]:
    """Table 3's mean RTO by variant and seed (DSACK-FA at the highest FA ratio)."""
    rto = {v: data.seeds(v, 0.0, metric) for v in FIG12_REFS}
    rto["DSACK-FA"] = data.seeds("DSACK-FA", max(ratios_of(quick)), metric)
    return rto


@dataclass(frozen=True)
class Fig12:
    """The figure's runs and the knife-edge sweep's (:class:`Points`), and
    DSACK-TA's traces by reading (:mod:`.knife_edge`)."""

    points: Points
    traces: dict[str, dict[str, np.ndarray]]


def table(runs: Runs, quick: bool) -> Derived[Fig12]:
    data = seeded_with_sensitivity(runs)
    tab = data.tab
    hi_r = max(ratios_of(quick))
    rto = {v: tab[(v, 0.0)]["rto_mean"] for v in FIG12_REFS}
    rto["DSACK-FA"] = tab[("DSACK-FA", hi_r)]["rto_mean"]
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
    csv = {
        "table3_mean_rto": rows,
        "fig12_points": point_rows(data),
        "fig12_knife_edge_table": knife_edge.rows(data),
    }
    return Derived(Fig12(data, knife_edge.traces_of(runs)), csv)


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


def plot(fig: Fig12, out: Path, quick: bool) -> None:
    tab = fig.points.tab
    mode = MODE(quick)
    ratios = ratios_of(quick)
    lo_r, hi_r = min(ratios), max(ratios)
    for stem, metric, ylabel, scale in FIG12_13:
        lines = stat_series(tab, ["DSACK-FA", "DSACK-FAES"], metric, xscale=100, yscale=scale)
        for v in ("DSACK-TA", "DSACK-TAES", "DSACK-HG"):
            lines[v] = ([100 * lo_r, 100 * hi_r], [tab[(v, 0.0)][metric] * scale] * 2, None)
        PANEL.draw(out, lines, stem=stem, ylabel=ylabel, **mode.fields())
    knife_edge.plot(fig.points, fig.traces, out, quick)


def claims(fig: Fig12, quick: bool) -> list[Claim]:
    data = fig.points
    ratios = ratios_of(quick)
    hi_r = max(ratios)
    to_ta = data.seeds("DSACK-TA", 0.0, "to_frac")
    to_fa95 = data.seeds("DSACK-FA", hi_r, "to_frac")
    thr_faes = by_x(data.tab, "DSACK-FAES")
    best_r = max(thr_faes, key=lambda r: thr_faes[r])
    taes = data.seeds("DSACK-TAES", 0.0)
    return [
        rr_claim(
            "fig12-13-table3",
            "DSACK-TA meets far more timeouts than DSACK-FA at 95 %, over 0.4 % of packets",
            all_of(
                difference(to_ta, to_fa95, f"TA - FA ({percent(hi_r)}) timeout fraction", fmt=pct),
                band(
                    to_ta,
                    0.004,
                    None,
                    "TA's timeout fraction",
                    source='"more than 0.4% of packets"',
                    fmt=pct,
                ),
                sep=", and ",
            ),
            quote="As shown in Figure 12, the fraction of timeouts under DSACK-FA when the FA "
            "ratio is 95% is far less than that under DSACK-TA, which causes more than 0.4% of "
            "packets to encounter timeouts.",
            where=WHERE,
        ),
        rr_claim(
            "fig12-13-table3",
            "DSACK-FA's timeouts grow as its FA ratio falls below 95 %",
            trend(
                data.curves("DSACK-FA", "to_frac"),
                "DSACK-FA's timeout fraction",
                direction="falls",
                x="FA ratio",
            ),
            quote="Note further that under DSACK-FA, many more packets encounter timeouts as "
            "the FA ratio decreases below 95%, unlike in prior results, where the incidence of "
            "timeouts steadily decreases as the FA ratio decreases.",
            where=WHERE,
        ),
        rr_claim(
            "fig12-13-table3",
            "DSACK-FAES has few timeouts at every FA ratio",
            difference(
                data.mean_over("DSACK-FAES", list(ratios), "to_frac"),
                data.mean_over("DSACK-FA", list(ratios), "to_frac"),
                "FAES - FA timeout fraction, mean over the FA ratios",
                op="<",
                fmt=pct,
            ),
            quote="Now consider DSACK-FAES, which samples RTTs for packets falsely "
            "retransmitted. The incidence of timeouts under DSACK-FAES always remains low.",
            where=WHERE,
        ),
        rr_claim(
            "fig12-13-table3",
            "DSACK-TAES matches the best DSACK-FAES and DSACK-HG",
            every(
                {
                    "FAES": ratio(
                        taes,
                        data.seeds("DSACK-FAES", best_r),
                        f"TAES / FAES at its best FA ratio ({percent(best_r)})",
                        limit=0.95,
                    ),
                    "HG": ratio(taes, data.seeds("DSACK-HG", 0.0), "TAES / HG", limit=0.95),
                },
                'TAES within 5 % of the best FAES and of HG ("matches")',
            ),
            quote="DSACK-TAES matches the best throughputs achieved by DSACK-FAES across all FA "
            "ratio values, and even DSACK-HG.",
            where="Sec. 5.3, Fig. 13",
        ),
        *_table3_claims(_mean_rto(data, quick)),
    ]


def _table3_claims(rto: dict[str, dict[int, float]]) -> list[Claim]:
    fa, taes = rto["DSACK-FA"], rto["DSACK-TAES"]
    return [
        rr_claim(
            "fig12-13-table3",
            "Table 3: without enhanced sampling TA's RTO is much shorter than FA's (95 %)",
            difference(fa, rto["DSACK-TA"], "FA (95 %) - TA mean RTO", fmt=unit("s")),
            quote="Without additional samples, the average RTO used by DSACK-TA is much "
            "shorter than that used by DSACK-FA with an FA ratio of 95%.",
            where=WHERE_T3,
        ),
        rr_claim(
            "fig12-13-table3",
            "Table 3: TAES's RTO is comparable with FA's (95 %)",
            band(
                {s: taes[s] / fa[s] for s in taes},
                0.9,
                1.1,
                "TAES / FA (95 %) mean RTO",
                source='"comparable with that used by DSACK-FA" (Table 3: 3.1 and 3.1 s): '
                "within 10 %",
            ),
            quote="By adding samples for falsely retransmitted packets, DSACK-TAES eliminates "
            "the bias against long RTT samples, and restores the RTO to a value comparable with "
            "that used by DSACK-FA.",
            where=WHERE_T3,
        ),
        rr_claim(
            "fig12-13-table3",
            "Table 3: DSACK-FA and DSACK-TAES are more conservative than DSACK-HG",
            every(
                {
                    v: difference(rto[v], rto["DSACK-HG"], f"{v} - HG mean RTO", fmt=unit("s"))
                    for v in ("DSACK-FA", "DSACK-TAES")
                },
                "FA (95 %) and TAES above HG",
            ),
            quote="Note that both DSACK-FA and DSACK-TAES are more conservative than DSACK-HG.",
            where=WHERE_T3,
        ),
        rr_claim(
            "fig12-13-table3",
            "Table 3: SACK and DSACK-R use the 1 s minimum RTO",
            every(
                {
                    v: band(
                        rto[v],
                        0.95,
                        1.05,
                        f"{v}'s mean RTO (s)",
                        source='Table 3: "1.0" (one decimal)',
                    )
                    for v in ("SACK", "DSACK-R")
                },
                "SACK's and DSACK-R's mean RTO at 1.0 s",
            ),
            quote="SACK 1.0 DSACK-R 1.0",
            where="Table 3",
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig12-13-table3",
        "timeouts and throughput vs FA ratio at k = 6 (N(1.2 s, 0.4 s)); mean RTO (Table 3)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
