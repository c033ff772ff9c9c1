"""``fig4``: CDFs of web object completion times (delayed ACKs), both
readings of the paper's sample selection, and a queue sensitivity
(:mod:`.setting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.claims import (
    Claim,
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
from reorderlab.papers.tail_loss.fig4_claims import (
    fig4_claims,
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
          quick, 12 full) for the CDFs, and each claim is tested on the
          seeds' own values (``fig4-seeds.csv``) with an interval from
          their spread. Quick runs are shorter (fewer
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


def seed_tables(per_seed: dict[int, dict[Fig4Key, Pool]]) -> pd.DataFrame:
    """Fig. 4's table seed by seed (a ``seed`` column): the per-seed values
    of its claims."""
    return pd.concat(
        [fig4_of(per_seed[s]).table.assign(seed=s) for s in sorted(per_seed)], ignore_index=True
    )


def by_selection(table: pd.DataFrame) -> pd.DataFrame:
    """The pooled table in long form, one row per reading of the sample
    selection (``selection``): the sweep over the sentence's two readings."""
    cols = ("n", "mean", "median", "below_1s")
    return pd.concat(
        [
            table[["variant", "site", "rtt"]].assign(
                selection=sel, **{c: table[f"{sel}.{c}"] for c in cols}
            )
            for sel in SELECTIONS
        ],
        ignore_index=True,
    )


def table(runs: Runs, quick: bool) -> Derived[Fig4Data]:
    per_seed = pools_by_seed(
        runs, RUNS, lambda r: (str(r["variant"]), str(r["site"]), float(r["rtt"]))
    )
    pooled = fig4_of(merged_over_seeds(per_seed))
    seeds = seed_tables(per_seed)
    sens_pools = merged_over_seeds(
        pools_by_seed(
            runs, SENSITIVITY, lambda r: (int(r["queue"]), str(r["site"]), str(r["variant"]))
        )
    )
    sens = fig4_sensitivity(sens_pools)
    return Derived(
        Fig4Data(pooled, seeds, sens),
        {
            "fig4": pooled.table,
            "fig4_seeds": seeds,
            "fig4_selections": by_selection(pooled.table),
            "fig4_deciles": fig4_deciles(pooled),
            "fig4_sensitivity_table": sens,
        },
    )


@dataclass(frozen=True)
class Fig4Data:
    """Fig. 4 pooled over seeds, its table seed by seed, and its queue
    sensitivity."""

    fig: Fig4
    seeds: pd.DataFrame
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
    """The claims step: Fig. 4's claims on its per-seed tables."""
    return fig4_claims(data.seeds)


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
