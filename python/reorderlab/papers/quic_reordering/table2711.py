"""``table2711``: goodput and the share of packets declared lost, by packet
threshold, on quinn issue 2711's path (:mod:`.setting`), with the adaptive
variants and issue 2710's duplicate window beside them; the issue's table
as claims (issue 38: each threshold's goodput as a ratio of the clean path
within +/- 15 % of the published one, the four in the published order, the
lost shares within 10 points)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reorderlab.checks import band, ratio
from reorderlab.claims import Claim
from reorderlab.papers.kit.claims import paper_claim, per_seed
from reorderlab.papers.kit.names import artifact_stem
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Runs, Sweep
from reorderlab.papers.quic_reordering.setting import (
    DURATION,
    MSS,
    PAPER,
    PUBLISHED,
    ROWS,
    SEEDS,
    scenario,
)

#: The thresholds of the published table, in its order.
THRESHOLDS = ("3", "300", "1000", "inf")
#: Issue 38's margins.
RATIO_MARGIN = 0.15
SHARE_POINTS = 0.10

#: The issue's sentences (its table's rows, as it writes them).
WHERE = "quinn issue 2711, Measured dose-response"
QUOTES = {
    "3": "| 3 (default) | 125 Mbit/s | ~65% of sent |",
    "300": "| 300 | 306 Mbit/s | ~64% |",
    "1000": "| 1000 | 563 Mbit/s | ~52% |",
    "inf": "| effectively ∞ | **632–710 Mbit/s** | **~14%** |",  # noqa: RUF001 (the issue's dash)
}
ORDER_QUOTE = (
    "So for any fixed threshold there is a rate above which benign reordering is declared "
    "loss, triggering spurious fast-retransmit storms and congestion response."
)


def points(quick: bool) -> Plan:
    grid = [({"row": row}, scenario(row)) for row in ROWS]
    return {RUNS: Sweep(grid, SEEDS(quick))}


def run_measures(row: dict[str, Any]) -> dict[str, float]:
    """Goodput (the transfer over its completion time, or what arrived in
    the run) and the QUIC counters of one run."""
    q = row["quic"]
    done = bool(row["completed"])
    span = float(row["fct"]) if done else DURATION
    return {
        "goodput_mbps": float(row["segments_delivered"]) * MSS * 8 / span / 1e6,
        "completed": float(done),
        "lost_share": float(q["lost_share"]),
        "spurious_share": float(q["spurious_share"]),
        "packet_threshold_end": float(q["packet_threshold"]),
        "window_discards": float(q["window_discards"]),
    }


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    df = runs.table()
    rows = []
    for rec in df.to_dict("records"):
        row = {str(k): v for k, v in rec.items()}
        rows.append({"row": row["row"], "seed": row["seed"], **run_measures(row)})
    out = pd.DataFrame(rows)
    clean = out[out["row"] == "clean"].set_index("seed")["goodput_mbps"]
    pairs = zip(out["goodput_mbps"], out["seed"], strict=True)
    out["of_clean"] = [g / float(clean[s]) for g, s in pairs]
    means = out.groupby("row", sort=False).mean(numeric_only=True).reset_index()
    return Derived(out, {"table2711": out, "table2711_means": means})


def plot(df: pd.DataFrame, out: Path, quick: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = df.groupby("row", sort=False)["of_clean"].mean()
    x = np.arange(len(THRESHOLDS))
    ours = [float(means[t]) for t in THRESHOLDS]
    published = [sum(PUBLISHED[t][:2]) / 2 / PUBLISHED["clean"][0] for t in THRESHOLDS]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(x - 0.2, published, 0.4, label="quinn issue 2711")
    ax.bar(x + 0.2, ours, 0.4, label="simulator (Linux BBR v1)")
    ax.set_xticks(x, [f"threshold {t}" for t in THRESHOLDS])
    ax.set_ylabel("goodput / clean path")
    ax.legend()
    fig.suptitle(f"197 ms, netem delay 5ms reorder 25% 50%, BBR ({df['seed'].nunique()} seeds)")
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{artifact_stem('table2711')}.png", dpi=110)
    plt.close(fig)


def _of(df: pd.DataFrame, column: str, row: str) -> dict[int, float]:
    return per_seed(df, column, row=row)


def _ratio_claim(df: pd.DataFrame, t: str) -> Claim:
    lo_pub, hi_pub, _ = PUBLISHED[t]
    clean = PUBLISHED["clean"][0]
    lo, hi = lo_pub / clean * (1 - RATIO_MARGIN), hi_pub / clean * (1 + RATIO_MARGIN)
    return paper_claim(
        PAPER,
        "table2711",
        f"threshold {t}: goodput / clean path within 15 % of the published ratio",
        band(
            _of(df, "of_clean", t),
            lo,
            hi,
            f"threshold {t}: goodput / clean-path goodput",
            source=f"{lo_pub:g}-{hi_pub:g} of {clean:g} Mbit/s, +/- 15 % (issue 38)",
        ),
        quote=QUOTES[t],
        where=WHERE,
    )


def _share_claim(df: pd.DataFrame, t: str) -> Claim:
    share = PUBLISHED[t][2]
    return paper_claim(
        PAPER,
        "table2711",
        f"threshold {t}: packets declared lost within 10 points of the published share",
        band(
            _of(df, "lost_share", t),
            max(0.0, share - SHARE_POINTS),
            share + SHARE_POINTS,
            f"threshold {t}: packets declared lost / packets sent",
            source=f"~{share:.0%} of sent, +/- 10 points (issue 38)",
        ),
        quote=QUOTES[t],
        where=WHERE,
    )


def claims(df: pd.DataFrame, quick: bool) -> list[Claim]:
    out = [_ratio_claim(df, t) for t in THRESHOLDS]
    out += [_share_claim(df, t) for t in THRESHOLDS]
    for low, high in itertools.pairwise(THRESHOLDS):
        out.append(
            paper_claim(
                PAPER,
                "table2711",
                f"threshold {high} beats threshold {low}",
                ratio(
                    _of(df, "goodput_mbps", high),
                    _of(df, "goodput_mbps", low),
                    f"goodput threshold {high} / threshold {low}",
                    op=">",
                ),
                quote=ORDER_QUOTE,
                where="quinn issue 2711, Summary",
            )
        )
    return out


FIGURES = (
    recipe(
        PAPER,
        "table2711",
        "Goodput and declared losses by packet threshold under netem reordering (quinn 2711)",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
        in_all=False,
    ),
)
