"""``fig4``: CDFs of web object completion times (delayed ACKs), both
readings of the paper's sample selection, and a queue sensitivity
(:mod:`.setting`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Ref,
    above,
    at_least_n,
    each_at_most,
    each_below,
    each_near,
    pct,
    points,
    that,
    within,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    claims_stability,
    make_claim,
    series_str,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
    sensitivity_figure,
)
from reorderlab.papers.tail_loss.fig4_samples import (
    SELECTIONS,
    Fig4,
    Fig4Key,
    Pool,
    fig4_deciles,
    fig4_of,
    fig4_sensitivity,
    merged_over_seeds,
    pools_by_seed,
)
from reorderlab.papers.tail_loss.setting import (
    BASELINE,
    FIG4_CASES,
    FIG4_DURATION,
    FIG4_RTTS,
    FIG4_SEEDS,
    FIG4_SENS_QUEUES,
    FIG4_SENS_SEEDS,
    PAPER,
    PAPER_VARIANTS,
    SITES,
    VARIANTS,
    web,
)
from reorderlab.plot import (
    cdf_points,
)


def plan(quick: bool) -> Plan:
    """Fig. 4 (Sec. 3.3): pages of three sites downloaded again and again.

    Assumptions (the paper's text gives only what ``SITES`` lists, 10 Mb/s,
    RTT 10-160 ms, ~1.5 % Gilbert-Elliott loss and delayed ACKs)
        * Each site is a fixed page (a recording): object sizes drawn once
          from a lognormal law (sigma 1) and scaled to the paper's mean,
          the first object being the HTML (``site_sizes``).
        * One host: at most 6 persistent connections; a think time of 1 s
          between downloads, each download opening new connections
          (``docs/traffic.md``, kind ``page``).
        * Loss: Gilbert-Elliott on the data direction of the bottleneck
          (ACKs and requests are not lost), mean burst 2 packets, stationary
          loss 1.5 %. The 10 Mb/s link has a 100-packet DropTail queue
          (KauNet's is not given), whose drops come on top.
        * 1500-byte packets, 52-byte ACKs, receiver delayed ACK 200 ms.
        * OCT from the object's request to the arrival of its last segment.
          The paper keeps "all objects in flows where at least one object
          experienced a segment retransmission in one of the four last
          segments of the object". Both readings are drawn and checked
          (``selected_octs``): ``connections`` (literal: all objects of such
          a persistent connection; ``fig4-1`` .. ``fig4-6``) and ``objects``
          (only the objects with such a retransmission, as Fig. 3 selects
          flows; ``fig4-obj-1`` .. ``fig4-obj-6``). The table also gives the
          mean over all objects.
        * Seeds: the OCT means are heavy-tailed (a few objects wait for
          backed-off timeouts), so one run decides the close claims by
          chance: each point pools the objects of ``FIG4_SEEDS`` runs (6
          quick, 12 full), and ``fig4_stability.csv`` gives, per claim, on
          how many single seeds it holds. Quick runs are shorter (fewer
          downloads per run), same settings: over 12 seeds each, the
          quick and full OCT samples have the same distribution (the
          claims' quick / full disagreements were sampling noise).
        * Sensitivity (``fig4_sensitivity``): the TLP / TLPR mean-OCT
          reduction at RTT 10 ms for bottleneck queues of
          ``FIG4_SENS_QUEUES`` packets (KauNet's queue is not given).
    """
    slot = 0 if quick else 1
    points: list[Point] = [
        (
            {"variant": v, "site": site, "rtt": rtt},
            web(v, site, rtt, FIG4_DURATION[site][slot]),
        )
        for site, rtt in FIG4_CASES
        for v in VARIANTS
    ]
    low = min(FIG4_RTTS)
    sens: list[Point] = [
        (
            {"variant": v, "site": site, "queue": q},
            web(v, site, low, FIG4_DURATION[site][slot], queue=q),
        )
        for q in FIG4_SENS_QUEUES
        for site in SITES
        for v in PAPER_VARIANTS
    ]
    return {RUNS: Sweep(points, FIG4_SEEDS[slot]), SENSITIVITY: Sweep(sens, FIG4_SENS_SEEDS[slot])}


def fig4_stability(
    per_seed: dict[int, dict[Fig4Key, Pool]], pooled: Fig4, quick: bool
) -> pd.DataFrame:
    """:func:`claims_stability` of Fig. 4's claims over its seeds."""
    singles = [fig4_of(per_seed[s]) for s in sorted(per_seed)]
    return claims_stability(lambda d: fig_claims(d, quick), pooled, singles)


def table(runs: Runs, quick: bool) -> Derived[Fig4Data]:
    per_seed = pools_by_seed(
        runs, RUNS, lambda r: (str(r["variant"]), str(r["site"]), float(r["rtt"]))
    )
    pooled = fig4_of(merged_over_seeds(per_seed))
    stability = fig4_stability(per_seed, pooled, quick)
    sens_pools = merged_over_seeds(
        pools_by_seed(
            runs, SENSITIVITY, lambda r: (int(r["queue"]), str(r["site"]), str(r["variant"]))
        )
    )
    sens = fig4_sensitivity(sens_pools)
    return Derived(
        Fig4Data(pooled, sens),
        {
            "fig4": pooled.table,
            "fig4_stability": stability,
            "fig4_deciles": fig4_deciles(pooled),
            "fig4_sensitivity_table": sens,
        },
    )


@dataclass(frozen=True)
class Fig4Data:
    """Fig. 4 pooled over seeds, and its queue sensitivity."""

    fig: Fig4
    sensitivity: pd.DataFrame


#: One CDF per selection and (site, RTT) case (``{panel}``: 1-6).
CDF = LineFigure(
    "{prefix}-{panel}",
    xlabel="object completion time (s)",
    ylabel="CDF",
    title="Fig. 4{letter}: {site} ({n} objects, mean {kb:g} KB), RTT {rtt_ms:g} ms [{selection}]",
    logx=True,
    styles=dict.fromkeys(VARIANTS, "-"),
)
SENSITIVITY_PLOT = sensitivity_figure(
    "fig4",
    xlabel="bottleneck queue (packets)",
    ylabel="mean OCT reduction vs baseline (%) / queue drops (%)",
    title="Fig. 4 at RTT 10 ms: TLP / TLPR gain vs the queue [objects]",
    logx=True,
)


def plot(data4: Fig4Data, out: Path, quick: bool) -> None:
    data = data4.fig
    _fig4_sensitivity_plot(data4.sensitivity, out)
    for sel_name, prefix in zip(SELECTIONS, ("fig4", "fig4-obj"), strict=True):
        for i, (site, rtt) in enumerate(FIG4_CASES):
            series: Lines = {}
            for v in VARIANTS:
                sample = data.octs.get((sel_name, v, site, rtt), np.empty(0))
                if len(sample):
                    xs, ys = cdf_points(sample)
                    series[v] = (xs, ys, None)
            n, mean = SITES[site]
            fields = {"letter": "abcdef"[i], "site": site, "n": n, "kb": mean / 1e3}
            fields |= {"rtt_ms": rtt * 1e3, "selection": sel_name}
            CDF.draw(out, series, prefix=prefix, panel=i + 1, **fields)


def _fig4_sensitivity_plot(sens: pd.DataFrame, out: Path) -> None:
    series: Lines = {}
    for site in SITES:
        g = sens[sens["site"] == site]
        for v in ("TLP", "TLPR"):
            series[f"{v} {site}"] = (list(g["queue"].astype(float)), list(100 * g[v]), None)
        series[f"queue drops {site}"] = (
            list(g["queue"].astype(float)),
            list(100 * g["queue_drops"]),
            None,
        )
    SENSITIVITY_PLOT.draw(out, series)


def claims(data: Fig4Data, quick: bool) -> list[Claim]:
    """The claims step: the claims of Fig. 4 pooled over its seeds."""
    return fig_claims(data.fig, quick)


def fig_claims(data: Fig4, quick: bool) -> list[Claim]:
    claims = _loss_claim(data.table)
    for sel_name in SELECTIONS:
        claims.extend(_oct_claims(data.table, sel_name))
    claims.extend(_spurious_claims(data.table))
    return claims


def _loss_claim(table: pd.DataFrame) -> list[Claim]:
    ge = float(table["ge_dropped"].sum() / max(1, table["ge_seen"].sum()))
    queue = float(table["queue_drops"].sum() / max(1, table["data_packets"].sum()))
    return [
        make_claim(
            PAPER,
            "fig4",
            "the Gilbert-Elliott loss averages about 1.5 %",
            within(ge, 0.012, 0.018, "Gilbert-Elliott drops / data packets", pct),
            f"{100 * ge:.2f} % (queue drops add {100 * queue:.2f} % of the data packets)",
            ge_loss=ge,
            queue_loss=queue,
        )
    ]


def _oct_claims(table: pd.DataFrame, selection: str) -> list[Claim]:
    """The OCT claims of Sec. 3.3 on one reading of the sample selection."""

    def cell(v: str, site: str, rtt: float, col: str) -> float:
        m = table[(table["variant"] == v) & (table["site"] == site) & (table["rtt"] == rtt)]
        return float(m[f"{selection}.{col}"].iloc[0])

    def mean(v: str, site: str, rtt: float) -> float:
        return cell(v, site, rtt, "mean")

    lo, hi = min(FIG4_RTTS), max(FIG4_RTTS)
    tag = f" [selection: {selection}]"
    better = {
        f"{v} {site}": mean(v, site, lo) / mean(BASELINE, site, lo)
        for v in ("RTOR", "TLP", "TLPR")
        for site in SITES
    }
    halved = {
        f"{v} {site}": 1 - mean(v, site, lo) / mean(BASELINE, site, lo)
        for v in ("TLP", "TLPR")
        for site in SITES
    }
    rtor_tlp = {site: mean("RTOR", site, hi) / mean("TLP", site, hi) for site in SITES}
    best = {
        site: mean("TLPR", site, hi) / min(mean(v, site, hi) for v in (BASELINE, "RTOR", "TLP"))
        for site in SITES
    }
    claims = [
        make_claim(
            PAPER,
            "fig4",
            f"at RTT {lo * 1e3:g} ms every mechanism beats the baseline" + tag,
            each_below(
                better,
                1,
                "mean OCT / baseline mean OCT",
                "for RTOR, TLP and TLPR at every site",
            ),
            series_str(better, "{:.2f}", "{}"),
            ratio=better,
        ),
        make_claim(
            PAPER,
            "fig4",
            f"at RTT {lo * 1e3:g} ms TLP and TLPR reduce OCTs by more than 50 % in many cases"
            + tag,
            at_least_n(
                halved.values(), ">", 0.5, 4, "mean OCT reduction", "site x {TLP, TLPR} cases", pct
            ),
            series_str(halved, "{:.0%}", "{}"),
            reduction=halved,
        ),
        make_claim(
            PAPER,
            "fig4",
            f"at RTT {hi * 1e3:g} ms RTOR is, on average, better than TLP" + tag,
            at_least_n(rtor_tlp.values(), "<", 1, 2, "mean OCT of RTOR / mean OCT of TLP", "sites"),
            series_str(rtor_tlp, "{:.2f}", "{}"),
            ratio=rtor_tlp,
        ),
        make_claim(
            PAPER,
            "fig4",
            f"at RTT {hi * 1e3:g} ms TLPR still performs best" + tag,
            each_at_most(
                best,
                1.02,
                "mean OCT of TLPR / the lowest of baseline, RTOR and TLP",
                "at every site",
            ),
            "TLPR / best other: " + series_str(best, "{:.2f}", "{}"),
            ratio=best,
        ),
    ]
    return claims + _below_1s_claims(cell, hi, tag)


def _below_1s_claims(
    cell: Callable[[str, str, float, str], float], hi: float, tag: str
) -> list[Claim]:
    """The newspaper site at the highest RTT (Fig. 4f): OCTs below 1 s."""
    paper = {BASELINE: 0.70, "TLP": 0.74, "RTOR": 0.84}
    frac = {v: cell(v, "newspaper", hi, "below_1s") for v in paper}
    return [
        make_claim(
            PAPER,
            "fig4",
            f"newspaper site at {hi * 1e3:g} ms (Fig. 4f): more OCTs below 1 s with RTOR "
            "than with TLP, and with TLP than with the baseline" + tag,
            that(
                frac["RTOR"] > frac["TLP"] > frac[BASELINE],
                "fraction of OCTs < 1 s: RTOR > TLP > baseline",
            ),
            series_str(frac, "{:.0%}", "{}"),
            fraction=frac,
        ),
        make_claim(
            PAPER,
            "fig4",
            f"newspaper site at {hi * 1e3:g} ms: about 84 % (RTOR), 74 % (TLP) and 70 % "
            "(baseline) of the OCTs are below 1 s" + tag,
            each_near(
                {v: (frac[v], p) for v, p in paper.items()},
                0.10,
                "fraction of OCTs < 1 s",
                "the paper's",
                "for RTOR, TLP and the baseline",
                points,
            ),
            ", ".join(f"{v}: {frac[v]:.0%} (paper {p:.0%})" for v, p in paper.items()),
            fraction=frac,
            paper=paper,
        ),
    ]


def _spurious_claims(table: pd.DataFrame) -> list[Claim]:
    def total(v: str, col: str) -> float:
        return float(table.loc[table["variant"] == v, col].sum())

    truth = {v: total(v, "spurious") / max(1.0, total(v, "data_packets")) for v in VARIANTS}
    seen = {v: total(v, "dsacks") / max(1.0, total(v, "data_packets")) for v in VARIANTS}
    worst = table.iloc[int(np.argmax(table["spurious_frac"].to_numpy()))]
    paper_frac = {BASELINE: 4.8e-5, "RTOR": 5.9e-5, "TLP": 1.8e-3, "TLPR": 2.1e-3}
    claims = [
        make_claim(
            PAPER,
            "fig4",
            "spurious retransmissions stay rare (paper: at most 0.21 %, TLPR)",
            each_below(
                truth,
                0.005,
                "spurious retransmissions / data packets over all runs (ground truth)",
                "for every sender",
                pct,
            ),
            "truth: "
            + series_str(truth, "{:.1e}", "{}")
            + "; DSACKs: "
            + series_str(seen, "{:.1e}", "{}")
            + f"; largest single case: {worst['variant']} {worst['site']} "
            f"{float(worst['rtt']) * 1e3:g} ms {float(worst['spurious_frac']):.1e}",
            truth=truth,
            dsack=seen,
            paper=paper_frac,
        )
    ]
    for name, fr in (("ground truth", truth), ("as DSACKs report them", seen)):
        claims.append(
            make_claim(
                PAPER,
                "fig4",
                "TLP and TLPR retransmit spuriously more often than the baseline and RTOR "
                f"({name}; paper: 1.8e-3, 2.1e-3 vs 4.8e-5, 5.9e-5)",
                above(
                    min(fr["TLP"], fr["TLPR"]),
                    Ref(max(fr[BASELINE], fr["RTOR"]), "max(baseline, RTOR)"),
                    "min(TLP, TLPR)",
                ),
                series_str({v: fr[v] for v in paper_frac}, "{:.1e}", "{}"),
                fraction={v: fr[v] for v in paper_frac},
            )
        )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "fig4",
        "CDFs of web object completion times (delayed ACKs)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
