"""``fig13``: throughput vs packet swaps per swap event, and the sensitivity
to the bottleneck rate, the delay reading and the run's duration
(:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reorderlab.checks import (
    Check,
    band,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    paper_claim,
)
from reorderlab.papers.kit.figure import (
    series_of,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Point,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    Sensitivity,
    sensitivity_figure,
    with_sensitivity,
)
from reorderlab.papers.kit.summary import (
    mean_by,
)
from reorderlab.papers.tcp_pr.setting import (
    ACCESS_DELAY,
    DUPACK_VARIANTS,
    MODE,
    PAPER,
    PR,
    REORDER_VARIANTS,
    SACK,
    SENS_SEEDS,
    SENS_SWAPS,
    swap_scenario,
)
from reorderlab.papers.tcp_pr.tables import (
    by_variant_plot,
    throughput_of,
    throughput_table,
)
from reorderlab.scenario import (
    DumbbellTopology,
)

FIG13_SWAPS = (0, 2, 5, 10, 20, 50)
FIG13_DELAYS = (0.03, 0.18)


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    swaps = (0, 5, 20, 50) if quick else FIG13_SWAPS
    points: list[Point] = [
        ({"delay": d, "variant": v, "swaps": k}, swap_scenario(v, d, k, mode.duration))
        for d in FIG13_DELAYS
        for v in REORDER_VARIANTS
        for k in swaps
    ]
    return {RUNS: Sweep(points, mode.seeds)}


def plot(rows: pd.DataFrame, out: Path, quick: bool) -> None:
    table = throughput_table(rows, "swaps")
    for i, d in enumerate(FIG13_DELAYS):
        by_variant_plot(
            out,
            f"fig13-{i + 1}",
            table[table["delay"] == d],
            "swaps",
            "packet swaps per swap event",
            f"Fig. 13, {d * 1e3:g} ms",
        )


def swapped_means(rows: pd.DataFrame) -> dict[int, dict[str, float]]:
    """Per seed, each variant's mean throughput over K > 0."""
    swapped = rows[rows["swaps"] > 0]
    out: dict[int, dict[str, float]] = {}
    for (seed, v), g in swapped.groupby(["seed", "variant"], sort=False):
        out.setdefault(int(str(seed)), {})[str(v)] = float(g["throughput_bps"].mean())
    return out


def sack_shortfall(by: dict[str, float]) -> float:
    """SACK's throughput below the other variants' mean (a fraction)."""
    return 1 - by[SACK] / float(np.mean([x for v, x in by.items() if v != SACK]))


def most_shortfall(by: dict[str, float]) -> float:
    """The median dupack variant's throughput below min(TCP-PR, TD-FR):
    at least 3 of the 5 fall that far ("most methods")."""
    best = min(by[PR], by["TD-FR"])
    return float(np.median([1 - by[v] / best for v in DUPACK_VARIANTS]))


#: Sec. VI-A's sentences on Fig. 13, and the bands read from them.
SACK_QUOTE = (
    "Indeed, even TCP-SACK with no special mitigation for packet reordering achieves a "
    "throughput that is merely 1.5% smaller than the other algorithms."
)
MOST_QUOTE = (
    "In the right plot of Figure 13, we observe that most methods only achieve a throughput "
    "that is 25% smaller than TCP-PR and TD-FR."
)
FLAT_QUOTE = (
    "In both cases the throughput achieved by TCP-PR is nearly independent of the number of "
    "packet swaps per swap event."
)


def _sack_claim(rows: pd.DataFrame) -> Claim:
    per = {s: sack_shortfall(by) for s, by in swapped_means(rows).items()}
    check = band(
        per,
        None,
        0.05,
        "SACK below the other algorithms' mean throughput (mean over K > 0)",
        source="'merely 1.5% smaller' (Sec. VI-A): at most 5 %",
        fmt="{:.0%}".format,
    )
    return _claim("30 ms: even SACK is only ~1.5 % below the other algorithms", check, SACK_QUOTE)


def _most_claim(rows: pd.DataFrame) -> Claim:
    per = {s: most_shortfall(by) for s, by in swapped_means(rows).items()}
    check = band(
        per,
        0.15,
        None,
        "the median of SACK, DSACK-NM, Inc-by-1, Inc-by-N, EWMA below min(TCP-PR, TD-FR) "
        "(mean over K > 0)",
        source="'25% smaller' (Sec. VI-A): at least 15 %",
        fmt="{:.0%}".format,
    )
    return _claim(
        "180 ms: most methods get ~25 % less throughput than TCP-PR and TD-FR", check, MOST_QUOTE
    )


def _flat_claim(rows: pd.DataFrame, ms: str) -> Claim:
    pr = rows[rows["variant"] == PR]
    spread = {
        int(str(s)): float(g["throughput_bps"].max() / g["throughput_bps"].min())
        for s, g in pr.groupby("seed")
    }
    check = band(
        spread,
        None,
        1.05,
        "max / min of TCP-PR's throughput over K",
        source="'nearly independent' (Sec. VI-A): within 5 %",
    )
    return _claim(f"{ms}: TCP-PR's throughput is nearly independent of K", check, FLAT_QUOTE)


def _claim(name: str, check: Check, quote: str) -> Claim:
    side = "left" if name.startswith("30") else "right"
    where = f"Sec. VI-A, Fig. 13 ({side})"
    return paper_claim(PAPER, "fig13", name, check, quote=quote, where=where)


def claims(rows: pd.DataFrame, quick: bool) -> list[Claim]:
    short, long = (rows[rows["delay"] == d] for d in FIG13_DELAYS)
    return [
        _sack_claim(short),
        _flat_claim(short, "30 ms"),
        _most_claim(long),
        _flat_claim(long, "180 ms"),
    ]


#: Bottleneck rates of the Fig. 13 sensitivity sweep (the paper gives none;
#: quick: fewer).
SENS_SWAP_RATES = {True: (1.5e6, 10e6), False: (1.5e6, 5e6, 10e6)}
#: The "30 ms propagation delay" read two ways: the bottleneck link's
#: one-way delay (assumed), or the round trip.
SENS_SWAP_DELAYS = {
    "30 ms one-way (assumed)": 0.03,
    "30 ms round trip": 0.015 - 2 * ACCESS_DELAY,
}
#: Run durations (s) of the 180 ms sweep; the paper gives none.
SENS_DURATIONS = {True: (90.0, 200.0), False: (90.0, 200.0, 600.0, 1000.0)}


#: The Blanton-Allman schemes, and the undo responses the 180 ms sweep gives
#: them explicitly (whatever the variants' default): the window restored at
#: once, and slow start back to the earlier window (tcp-pr footnote 2 on
#: [1]). The other variants keep their own ("own").
BL_VARIANTS = ("Inc-by-1", "Inc-by-N", "EWMA")
UNDO_OWN, UNDO_SLOW_START = "own", "slow-start"
BL_UNDOS = ("restore", UNDO_SLOW_START)
ASSUMED_DELAY = next(iter(SENS_SWAP_DELAYS))


def _sens_points(quick: bool, seed: int) -> list[Point]:
    """Every variant at K = 5 swaps: at 30 ms by bottleneck rate and delay
    reading (at the assumed reading the Blanton-Allman schemes also undoing
    by slow start); at 180 ms by the run's duration, the Blanton-Allman
    schemes with each undo response of ``BL_UNDOS``."""
    mode = MODE(quick)
    points: list[Point] = []
    for meaning, delay in SENS_SWAP_DELAYS.items():
        for rate in SENS_SWAP_RATES[quick]:
            point = {"sweep": "rate", "delay": meaning, "rate": rate, "duration": mode.duration}
            runs = [(UNDO_OWN, v) for v in REORDER_VARIANTS]
            if meaning == ASSUMED_DELAY:
                runs += [(UNDO_SLOW_START, v) for v in BL_VARIANTS]
            for undo, v in runs:
                sc = swap_scenario(v, delay, SENS_SWAPS, mode.duration)
                assert isinstance(sc.topology, DumbbellTopology)
                sc.topology.bottleneck_rate = rate
                if undo != UNDO_OWN:
                    sc.flows[0].tcp.undo_response = undo  # type: ignore[assignment]
                points.append(({**point, "undo": undo, "variant": v}, sc))
    for d in SENS_DURATIONS[quick]:
        point = {"sweep": "duration", "delay": "180 ms one-way", "rate": 10e6, "duration": d}
        for v in REORDER_VARIANTS:
            if v in BL_VARIANTS:
                continue
            sc = swap_scenario(v, 0.18, SENS_SWAPS, d)
            points.append(({**point, "undo": UNDO_OWN, "variant": v}, sc))
        for undo in BL_UNDOS:
            for v in BL_VARIANTS:
                sc = swap_scenario(v, 0.18, SENS_SWAPS, d)
                sc.flows[0].tcp.undo_response = undo  # type: ignore[assignment]
                points.append(({**point, "undo": undo, "variant": v}, sc))
    return points


def _sens_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per setting: SACK's shortfall below the other variants' mean (the
    30 ms claim's measure) and the median dupack variant's below
    min(TCP-PR, TD-FR) (the 180 ms claim's), from the seed means: one row
    for the variants' own runs (if the Blanton-Allman schemes are among
    them) and one per undo response the Blanton-Allman schemes were given,
    the other variants taken from their own runs."""
    keys = ["sweep", "delay", "rate", "duration"]
    t = mean_by(df, [*keys, "undo", "variant"], {"tput": "throughput_bps"})
    rows = []
    for key, g in t.groupby(keys, sort=False):
        own = g[g["undo"] == UNDO_OWN]
        given = [u for u in g["undo"].unique() if u != UNDO_OWN]
        undos = [UNDO_OWN] * bool(set(BL_VARIANTS) & set(own["variant"])) + given
        for undo in undos:
            u = g[g["undo"] == undo]
            by = dict(zip(own["variant"], own["tput"], strict=True))
            by |= dict(zip(u["variant"], u["tput"], strict=True))
            rows.append(
                {
                    **dict(zip(keys, key, strict=True)),
                    "undo": undo,
                    "shortfall": sack_shortfall(by),
                    "most_shortfall": most_shortfall(by),
                    "pr_mbps": by[PR] / 1e6,
                    "sack_mbps": by[SACK] / 1e6,
                }
            )
    return pd.DataFrame(rows)


SWAP_PLOT = sensitivity_figure(
    "fig13",
    xlabel="bottleneck rate (Mb/s)",
    ylabel=f"SACK below the others' mean (%), K = {SENS_SWAPS}",
    title="Fig. 13, 30 ms: bottleneck rate and delay reading",
)
DURATION_PLOT = sensitivity_figure(
    "fig13-duration",
    xlabel="run duration (s)",
    ylabel=f"below min(TCP-PR, TD-FR) (%), K = {SENS_SWAPS}",
    title="Fig. 13, 180 ms: the median dupack variant by run duration",
    logx=True,
)


def _sens_plot(table: pd.DataFrame, out: Path) -> None:
    rate = table[table["sweep"] == "rate"]
    undo = rate["undo"].map(lambda u: "" if u == UNDO_OWN else f", Blanton-Allman undo: {u}")
    mbps = rate.assign(mbps=rate["rate"] / 1e6, label=rate["delay"] + undo)
    series = series_of(mbps, "label", "mbps", "shortfall", yscale=100)
    rates = sorted(rate["rate"].unique() / 1e6)
    series["the paper (1.5 %)"] = (rates, [1.5] * len(rates), None)
    SWAP_PLOT.draw(out, series)
    dur = table[table["sweep"] == "duration"]
    dur = dur.assign(label="median of the dupack variants, Blanton-Allman undo: " + dur["undo"])
    durations = sorted(dur["duration"].unique())
    DURATION_PLOT.draw(
        out,
        {
            **series_of(dur, "label", "duration", "most_shortfall", yscale=100),
            "the paper (25 %)": (durations, [25.0] * len(durations), None),
        },
    )


FIGURES = (
    with_sensitivity(
        recipe(
            PAPER,
            "fig13",
            "Throughput vs packet swaps per swap event",
            points=plan,
            table=throughput_of("swaps", "fig13"),
            plot=plot,
            claims=claims,
        ),
        Sensitivity(_sens_points, _sens_table, _sens_plot, seeds=SENS_SEEDS),
    ),
)
