"""``random-loss``: Reno and SACK under i.i.d. loss against the PFTK full
model and the square-root law (the models and their reading in
:mod:`.setting`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reorderlab.checks import Ref, each_at_least, within
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
from reorderlab.papers.kit.claims import make_claim
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
RandomLoss = dict[tuple[str, float], dict[str, float]]


def table(runs: Runs, quick: bool) -> Derived[RandomLoss]:
    df = runs.table()
    rows: RandomLoss = {}
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
    return Derived(rows)


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


def plot(rows: RandomLoss, out: Path, quick: bool) -> None:
    mode = RANDOM_LOSS(quick)
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
        f"ratio {r[ratio]:.3f} (sim {r['sim_pps'] * TO_MBPS:.3f} Mb/s; "
        f"srtt {1000 * r['srtt']:.1f} ms, T0 {r['rto_mean']:.2f} s; "
        f"{100 * r['timeouts_per_loss_indication']:.1f} % of loss indications "
        "were timeouts)"
    )


def _model_claim(variant: str, p: float, r: dict[str, float], model: str, ratio: str) -> Claim:
    return make_claim(
        PAPER,
        "random-loss",
        f"{variant} goodput matches the {model} at p = {100 * p:g} %"
        + (" (timeouts rare)" if variant == "SACK" and ratio == "ratio_pftk" else ""),
        within(r[ratio], 0.7, 1.3, "simulated / model"),
        _measured(r, ratio),
        variant=variant,
        p=p,
        **r,
    )


def claims(rows: RandomLoss, quick: bool) -> list[Claim]:
    claims: list[Claim] = []
    for p in LOSS_RATES:
        reno, sack = rows[("Reno", p)], rows[("SACK", p)]
        claims.append(_model_claim("Reno", p, reno, "PFTK full model", "ratio_pftk"))
        claims.append(_model_claim("SACK", p, sack, "square-root law", "ratio_sqrt"))
        if p <= 0.001:
            claims.append(_model_claim("SACK", p, sack, "PFTK full model", "ratio_pftk"))
    sack_pps = {p: rows[("SACK", p)]["sim_pps"] for p in LOSS_RATES}
    reno_pps = {p: rows[("Reno", p)]["sim_pps"] for p in LOSS_RATES}
    check = each_at_least(sack_pps, Ref(reno_pps, "Reno goodput"), "SACK goodput", "for each p")
    claims.append(
        make_claim(
            PAPER,
            "random-loss",
            "SACK is at least as fast as Reno at every loss rate",
            check,
            ", ".join(
                f"p = {100 * p:g} %: SACK/Reno {sack_pps[p] / reno_pps[p]:.3f}" for p in LOSS_RATES
            ),
            **{str(p): p not in check.failed for p in LOSS_RATES},
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
