"""``random-loss``: Reno and SACK under i.i.d. loss against the PFTK full
model and the square-root law (the models and their reading in
:mod:`.setting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import band, every, ratio
from reorderlab.claims import Claim
from reorderlab.papers.baseline.setting import (
    LOSS_RATES,
    MSS,
    PAPER,
    RANDOM_LOSS,
    VARIANTS,
    pftk_full,
    random_loss_scenario,
    sqrt_law,
)
from reorderlab.papers.kit.claims import paper_claim
from reorderlab.papers.kit.figure import LineFigure, Lines
from reorderlab.papers.kit.recipe import Derived, recipe
from reorderlab.papers.kit.runs import RUNS, Plan, Runs, Sweep


def points(quick: bool) -> Plan:
    mode = RANDOM_LOSS(quick)
    grid = [
        ({"variant": v, "p": p}, random_loss_scenario(p, mode.duration, mode.warmup, variant=v))
        for v in VARIANTS
        for p in LOSS_RATES
    ]
    return {RUNS: Sweep(grid, mode.seeds)}


#: Per (variant, p): goodput and the models' rates (packets/s), their
#: ratios, the mean srtt and T0, and the share of loss indications that
#: were timeouts.
Rows = dict[tuple[str, float], dict[str, float]]
#: Per (variant, p): per seed, goodput (packets/s) and its ratios to the models.
Seeds = dict[tuple[str, float], dict[str, dict[int, float]]]


@dataclass(frozen=True)
class RandomLoss:
    """Seed means per point (``rows``, drawn) and the per-seed values the
    checks take (``seeds``)."""

    rows: Rows
    seeds: Seeds


def table(runs: Runs, quick: bool) -> Derived[RandomLoss]:
    df = runs.table()
    rows: Rows = {}
    per_seed: Seeds = {}
    for v in VARIANTS:
        for p in LOSS_RATES:
            g = df[(df["variant"] == v) & (df["p"] == p)]
            goodput = g["throughput_bps"].to_numpy(dtype=float) / (8 * MSS)  # packets/s
            rtt = g["srtt"].to_numpy(dtype=float)
            t0 = g["rto_mean"].to_numpy(dtype=float)
            pftk = np.array(
                [pftk_full(p, r, t, w_max=10_000) * (1 - p) for r, t in zip(rtt, t0, strict=True)]
            )
            sqrt = np.array([sqrt_law(p, r) * (1 - p) for r in rtt])
            indications = float((g["fast_recoveries"] + g["timeouts"]).sum())
            seeds = [int(s) for s in g["seed"]]
            per_seed[(v, p)] = {
                "pps": dict(zip(seeds, goodput.tolist(), strict=True)),
                "ratio_pftk": dict(zip(seeds, (goodput / pftk).tolist(), strict=True)),
                "ratio_sqrt": dict(zip(seeds, (goodput / sqrt).tolist(), strict=True)),
            }
            rows[(v, p)] = {
                "sim_pps": float(goodput.mean()),
                "sim_std": float(goodput.std(ddof=1)) if len(goodput) > 1 else 0.0,
                "pftk_pps": float(pftk.mean()),
                "sqrt_pps": float(sqrt.mean()),
                "ratio_pftk": float(goodput.mean() / pftk.mean()),
                "ratio_sqrt": float(goodput.mean() / sqrt.mean()),
                "srtt": float(rtt.mean()),
                "rto_mean": float(t0.mean()),
                "timeouts_per_loss_indication": float(g["timeouts"].sum()) / max(1.0, indications),
            }
    seeds_csv = [
        {"variant": v, "p": p, "seed": s, "goodput_pps": pps, "ratio_pftk": r["ratio_pftk"][s],
         "ratio_sqrt": r["ratio_sqrt"][s]}
        for (v, p), r in per_seed.items()
        for s, pps in r["pps"].items()
    ]  # fmt: skip
    return Derived(RandomLoss(rows, per_seed), {"random_loss_seeds": seeds_csv})


TO_MBPS = 8 * MSS / 1e6


THROUGHPUT = LineFigure(
    "random_loss_throughput",
    xlabel="loss probability p (%)",
    ylabel="goodput (Mb/s)",
    title="i.i.d. loss, not window-limited ({seeds} seeds x {duration:g} s)",
    logx=True,
    logy=True,
    styles={
        "simulated Reno": "o-",
        "simulated SACK": "D-",
        "PFTK full model (Reno's RTT, T0)": "s--",
        "square-root law": "^:",
    },
)


def plot(data: RandomLoss, out: Path, quick: bool) -> None:
    mode, rows = RANDOM_LOSS(quick), data.rows
    xs = [100 * p for p in LOSS_RATES]
    series: Lines = {}
    for v in VARIANTS:
        series[f"simulated {v}"] = (
            xs,
            [rows[(v, p)]["sim_pps"] * TO_MBPS for p in LOSS_RATES],
            [rows[(v, p)]["sim_std"] * TO_MBPS for p in LOSS_RATES],
        )
    series["PFTK full model (Reno's RTT, T0)"] = (
        xs,
        [rows[("Reno", p)]["pftk_pps"] * TO_MBPS for p in LOSS_RATES],
        None,
    )
    series["square-root law"] = (
        xs,
        [rows[("SACK", p)]["sqrt_pps"] * TO_MBPS for p in LOSS_RATES],
        None,
    )
    THROUGHPUT.draw(out, series, seeds=mode.seeds, duration=mode.duration)


def _measured(r: dict[str, float], ratio: str) -> str:
    return (
        f"ratio of the means {r[ratio]:.3f} (sim {r['sim_pps'] * TO_MBPS:.3f} Mb/s; "
        f"srtt {1000 * r['srtt']:.1f} ms, T0 {r['rto_mean']:.2f} s; "
        f"{100 * r['timeouts_per_loss_indication']:.1f} % of loss indications "
        "were timeouts)"
    )


#: The models' statements (:mod:`.setting`), quoted by the checks.
MODELS = {
    "ratio_pftk": (
        "PFTK full model",
        "The PFTK full model (eq. 31) gives the send rate of a Reno flow with timeouts and "
        "the window limit, from its RTT and timeout T0.",
        "J. Padhye et al., SIGCOMM 1998, eq. 31",
    ),
    "ratio_sqrt": (
        "square-root law",
        "The square-root law gives the send rate of a flow without timeouts: "
        "sqrt(3/2) / (RTT sqrt(p)) packets per second.",
        "M. Mathis et al., CCR 27(3), 1997",
    ),
}


def _model_claim(variant: str, p: float, data: RandomLoss, key: str) -> Claim:
    model, statement, where = MODELS[key]
    r = data.rows[(variant, p)]
    return paper_claim(
        PAPER,
        "random-loss",
        f"{variant} goodput matches the {model} at p = {100 * p:g} %"
        + (" (timeouts rare)" if variant == "SACK" and key == "ratio_pftk" else ""),
        band(
            data.seeds[(variant, p)][key],
            0.7,
            1.3,
            f"{variant} goodput / {model}, per seed",
            source="within 30 % of the model: the engine's own tolerance (tests/baseline.rs)",
        ),
        quote=statement,
        where=where,
        kind="sanity",
        measured="",
        values={"variant": variant, "p": p, "means": _measured(r, key), **r},
    )


def claims(data: RandomLoss, quick: bool) -> list[Claim]:
    claims: list[Claim] = []
    for p in LOSS_RATES:
        claims.append(_model_claim("Reno", p, data, "ratio_pftk"))
        claims.append(_model_claim("SACK", p, data, "ratio_sqrt"))
        if p <= 0.001:
            claims.append(_model_claim("SACK", p, data, "ratio_pftk"))
    checks = {
        p: ratio(
            data.seeds[("SACK", p)]["pps"],
            data.seeds[("Reno", p)]["pps"],
            f"p = {100 * p:g} %: SACK / Reno goodput",
            op=">",
            limit=0.98,
        )
        for p in LOSS_RATES
    }
    claims.append(
        paper_claim(
            PAPER,
            "random-loss",
            "SACK is at least as fast as Reno at every loss rate",
            every(
                checks,
                "at every p, SACK / Reno goodput (per-seed ratios, the same loss draws): 95 % "
                "CI > 0.98 (not slower, within 2 %)",
            ),
            quote="A SACK sender with limited transmit avoids most of those timeouts and is "
            "faster than PFTK as soon as the timeout term matters.",
            where="baseline: random loss (SACK recovers every loss Reno does)",
            kind="sanity",
        )
    )
    return claims


FIGURES = (
    recipe(
        PAPER,
        "random-loss",
        "Reno and SACK under i.i.d. loss vs PFTK and the square-root law",
        points=points,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
