"""``fct``: FCT slowdown (p50, p99), spurious retransmissions and goodput of
each sender under ECMP, random spraying, round robin, the least-queued
choice, flowlets and REPS, on a symmetric fat-tree, with one failed link
and with that link failing mid-run (:mod:`.setting`); Dixit et al.'s
result as claims."""

from __future__ import annotations

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
from reorderlab.papers.spraying.setting import (
    DURATION,
    FABRICS,
    FLOW_BYTES,
    PAPER,
    POLICIES,
    SEEDS,
    VARIANTS,
    ideal_fct,
    scenario,
)

#: The per-run measures, in the table's order.
MEASURES = (
    "p50_slowdown",
    "p99_slowdown",
    "spurious",
    "spurious_share",
    "goodput_gbps",
    "completed",
)


def points(quick: bool) -> Plan:
    grid = [
        ({"variant": v, "policy": p, "fabric": f}, scenario(v, p, f))
        for f in FABRICS
        for p in POLICIES
        for v in VARIANTS
    ]
    return {RUNS: Sweep(grid, SEEDS(quick))}


def _flows(row: dict[str, Any]) -> int:
    return sum(1 for k in row if k.startswith("f") and k.endswith(".completed"))


def run_measures(row: dict[str, Any]) -> dict[str, float]:
    """One run's measures from its sweep-table row (``f{i}.*`` columns): an
    unfinished flow counts with the run's end as its completion (a lower
    bound)."""
    slow, ends, spurious, sent, done = [], [], 0.0, 0.0, 0
    for i in range(_flows(row)):
        start = float(row[f"f{i}.start"])
        finished = bool(row[f"f{i}.completed"])
        fct = float(row[f"f{i}.fct"]) if finished else DURATION - start
        src, dst = (int(str(row[f"f{i}.{end}"])[1:]) for end in ("src", "dst"))
        slow.append(fct / ideal_fct(src, dst))
        ends.append(start + fct)
        spurious += float(row[f"f{i}.spurious_retransmits"])
        sent += float(row[f"f{i}.data_packets_sent"])
        done += finished
    n = len(slow)
    return {
        "p50_slowdown": float(np.percentile(slow, 50)),
        "p99_slowdown": float(np.percentile(slow, 99)),
        "spurious": spurious,
        "spurious_share": spurious / sent,
        "goodput_gbps": n * FLOW_BYTES * 8 / max(ends) / 1e9,
        "completed": done / n,
    }


def table(runs: Runs, quick: bool) -> Derived[pd.DataFrame]:
    df = runs.table()
    rows = []
    for rec in df.to_dict("records"):
        row = {str(k): v for k, v in rec.items()}
        keep = {k: row[k] for k in ("variant", "policy", "fabric", "seed")}
        rows.append({**keep, **run_measures(row)})
    out = pd.DataFrame(rows)
    means = out.groupby(["fabric", "policy", "variant"], sort=False)[list(MEASURES)].mean()
    return Derived(out, {"fct": out, "fct_means": means.reset_index()})


def plot(df: pd.DataFrame, out: Path, quick: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = df.groupby(["fabric", "policy", "variant"], sort=False)["p99_slowdown"].mean()
    fig, axes = plt.subplots(1, len(FABRICS), figsize=(15, 4), sharey=True)
    width = 0.8 / len(POLICIES)
    x = np.arange(len(VARIANTS))
    for ax, fabric in zip(axes, FABRICS, strict=True):
        for j, policy in enumerate(POLICIES):
            ys = [float(means[(fabric, policy, v)]) for v in VARIANTS]
            ax.bar(x + (j - (len(POLICIES) - 1) / 2) * width, ys, width, label=policy)
        ax.set_xticks(x, VARIANTS, rotation=30, ha="right")
        ax.set_title(fabric)
        ax.set_yscale("log")
    axes[0].set_ylabel("p99 FCT slowdown")
    axes[0].legend()
    seeds = int(df["seed"].nunique())
    fig.suptitle(f"k = 4 fat-tree, 3 x 1 MB permutations ({seeds} seeds)")
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{artifact_stem('fct_p99')}.png", dpi=110)
    plt.close(fig)


#: The paper's sentences (abstract), as it words them.
LOAD_BALANCE = (
    "They typically rely on equal-cost multipath to split flows across multiple paths, "
    "which can lead to significant load imbalance. Splitting individual flows can provide "
    "better load balance"
)
TOLERATE = (
    "We argue that due to symmetry, the multiple equal-cost paths between two hosts are "
    "composed of links that exhibit similar queuing properties. As a result, TCP is able to "
    "tolerate the induced packet reordering and maintain a single estimate of RTT."
)
ADVERSE = (
    "We also reveal the adverse impact on the performance of RPS when the symmetry is "
    "disturbed (e.g., during link failures)"
)
WHERE = "Abstract"
#: The short name of the claims on spurious retransmissions (after the sender's).
NEEDLESS = "spraying on the symmetric fabric resends at most 1 % of packets needlessly"
#: The share of needless retransmissions "tolerated" (the recipe's reading).
TOLERABLE = 0.01
#: The sender of the paper's testbed: Linux's TCP.
PAPER_SENDER = "Linux"


def _of(df: pd.DataFrame, column: str, **match: Any) -> dict[int, float]:
    return per_seed(df, column, **match)


def claims(df: pd.DataFrame, quick: bool) -> list[Claim]:
    sym, failed, midrun = FABRICS
    out = []
    for variant in (PAPER_SENDER, "SACK"):
        ecmp = _of(df, "p99_slowdown", variant=variant, policy="ecmp", fabric=sym)
        rps = _of(df, "p99_slowdown", variant=variant, policy="spray", fabric=sym)
        out.append(
            paper_claim(
                PAPER,
                "fct",
                f"{variant}: random spraying beats ECMP's p99 FCT on the symmetric fabric",
                ratio(rps, ecmp, f"{variant}, symmetric: p99 slowdown RPS / ECMP", op="<"),
                quote=LOAD_BALANCE,
                where=WHERE,
            )
        )
        share = _of(df, "spurious_share", variant=variant, policy="spray", fabric=sym)
        out.append(
            paper_claim(
                PAPER,
                "fct",
                f"{variant}: {NEEDLESS}",
                band(
                    share,
                    None,
                    TOLERABLE,
                    f"{variant}, symmetric, RPS: spurious retransmissions / data packets sent",
                    source="'tolerate' read as at most 1 % of the data packets resent needlessly",
                ),
                quote=TOLERATE,
                where=WHERE,
            )
        )
        broken = _of(df, "p99_slowdown", variant=variant, policy="spray", fabric=failed)
        out.append(
            paper_claim(
                PAPER,
                "fct",
                f"{variant}: a failed link raises RPS's p99 FCT",
                ratio(broken, rps, f"{variant}, RPS: p99 slowdown failed / symmetric", op=">"),
                quote=ADVERSE,
                where=WHERE,
            )
        )
        during = _of(df, "p99_slowdown", variant=variant, policy="spray", fabric=midrun)
        out.append(
            paper_claim(
                PAPER,
                "fct",
                f"{variant}: a link failing mid-run raises RPS's p99 FCT",
                ratio(
                    during, rps, f"{variant}, RPS: p99 slowdown failed mid-run / symmetric", op=">"
                ),
                quote=ADVERSE,
                where=WHERE,
            )
        )
    return out


FIGURES = (
    recipe(
        PAPER,
        "fct",
        "FCT slowdown, spurious retransmissions and goodput per sender, ECMP vs spraying",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
        in_all=False,
    ),
)
