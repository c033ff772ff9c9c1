"""``fig16``: throughput vs a fixed delay d of 50 % of the packets
(two-path-like).

The setting: :mod:`.setting`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reorderlab.checks import (
    all_of,
    band,
    difference,
    every,
    trend,
)
from reorderlab.checks.stats import (
    ols_slope,
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
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_P,
    MODE,
    Knobs,
    capacity_bps,
    chain_scenario,
    delayed,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    point_rows,
    rr_claim,
    seeded_with_sensitivity,
    sens_curve,
)
from reorderlab.scenario import (
    ConstantVar,
)

FIG16_D = (0.0, 0.025, 0.05, 0.075, 0.10, 0.125, 0.15, 0.20, 0.25)
FIG16_D_QUICK = (0.0, 0.05, 0.10, 0.20, 0.25)
FIG16_FRACTION = 0.5
#: "begins to diminish at delays longer than 100 ms"
D_KNEE = 0.10
WHERE = "Sec. 5.6, Fig. 16"


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    ds = FIG16_D_QUICK if quick else FIG16_D
    s = capacity_bps(FIG4_P)
    points = [
        point(
            v,
            d,
            s,
            chain_scenario(
                CHAIN,
                FIG4_P,
                v,
                mode.duration,
                [delayed(FIG16_FRACTION, ConstantVar(value=d))],
            ),
        )
        for v in ("SACK", "DSACK-TA")
        for d in ds
    ]
    sens = [
        point(
            sens_curve(label),
            d,
            s,
            chain_scenario(
                CHAIN,
                FIG4_P,
                v.variant,
                mode.duration,
                [delayed(FIG16_FRACTION, ConstantVar(value=d))],
                lt_bound=v.lt_bound,
                knobs=v.knobs,
                limited_transmit=v.limited_transmit,
            ),
        )
        for label, v in FIG16_SENSITIVITY.items()
        for d in ds
        if d > 0
    ]
    return {**plan_of(points, quick), SENSITIVITY: Sweep(sens, mode.seeds)}


@dataclass(frozen=True)
class Variation:
    """One curve of the sensitivity step: a variant and its overrides."""

    variant: str
    lt_bound: float | None = None
    knobs: Knobs | None = None
    limited_transmit: bool | None = None


#: The sensitivity step: which throughput of the seven-fold differs? DSACK-TA
#: with limited transmit twice as long or M a hard limit, and SACK's family
#: (without limited transmit, Reno, NewReno).
FIG16_SENSITIVITY = {
    "DSACK-TA, LT 2 cwnd": Variation("DSACK-TA", lt_bound=2.0),
    "DSACK-TA, LT +0 past M": Variation("DSACK-TA", knobs=Knobs(past_m=0)),
    "SACK, no limited transmit": Variation("SACK", limited_transmit=False),
    "Reno": Variation("Reno"),
    "NewReno": Variation("NewReno"),
}


THROUGHPUT = LineFigure(
    "fig16_throughput",
    xlabel="delay d of 50 % of packets (ms)",
    ylabel="throughput / S",
    title=f"Fig. 16: P = {FIG4_P:g} s, no loss ({{seeds}} seeds x {{duration:g}} s)",
)


SENS_PLOT = LineFigure(
    "fig16_sensitivity",
    xlabel="delay d of 50 % of packets (ms)",
    ylabel="throughput / S",
    title="Fig. 16: DSACK-TA's limited transmit and SACK's family ({seeds} seeds x {duration:g} s)",
    logy=True,
)


def table(runs: Runs, quick: bool) -> Derived[Points]:
    data = seeded_with_sensitivity(runs)
    return Derived(data, {"fig16_points": point_rows(data)})


def plot(data: Points, out: Path, quick: bool) -> None:
    lines = stat_series(data.tab, ["SACK", "DSACK-TA"], "norm", xscale=1000)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())
    sens = stat_series(data.tab, list(FIG16_SENSITIVITY), "norm", xscale=1000, key=sens_curve)
    SENS_PLOT.draw(out, {**lines, **sens}, **MODE(quick).fields())


def claims(data: Points, quick: bool) -> list[Claim]:
    ds = FIG16_D_QUICK if quick else FIG16_D
    pos = [d for d in ds if d > 0]
    ta, sack = data.curves("DSACK-TA"), data.curves("SACK")
    adv = {s: {d: ta[s][d] - sack[s][d] for d in pos} for s in ta}
    before = [d for d in pos if d <= D_KNEE]
    after = [d for d in pos if d >= D_KNEE]

    def slopes(xs: list[float]) -> dict[int, float]:
        return {s: ols_slope(xs, [c[d] for d in xs]) for s, c in adv.items()}

    d200 = min(ds, key=lambda d: abs(d - 0.2))
    return [
        rr_claim(
            "fig16",
            "DSACK-TA keeps a significant advantage over SACK at every delay",
            every(
                {
                    d: difference(
                        data.seeds("DSACK-TA", d),
                        data.seeds("SACK", d),
                        f"TA - SACK at d = {1000 * d:g} ms (S)",
                    )
                    for d in pos
                },
                "DSACK-TA above SACK at every d > 0",
            ),
            quote="As the delay, and thus the reordering length, increase, DSACK-TA-MEAN "
            "continues to offer significantly increased throughput over SACK.",
            where=WHERE,
        ),
        rr_claim(
            "fig16",
            "the advantage begins to shrink past 100 ms",
            all_of(
                trend(
                    {s: {d: c[d] for d in after} for s, c in adv.items()},
                    f"TA - SACK over d >= {1000 * D_KNEE:g} ms",
                    direction="falls",
                    x="d",
                ),
                difference(
                    slopes(before),
                    slopes(after),
                    f"its slope over 0 < d <= {1000 * D_KNEE:g} ms minus that over d >= "
                    f"{1000 * D_KNEE:g} ms (S/s)",
                ),
                sep=", and ",
            ),
            quote="Note that the performance advantage of DSACK-TA-MEAN over SACK begins to "
            "diminish at delays longer than 100 ms; at this point, packets are being delayed "
            "more than one window's worth.",
            where=WHERE,
        ),
        rr_claim(
            "fig16",
            "about a seven-fold improvement at d = 200 ms",
            band(
                {s: ta[s][d200] / sack[s][d200] for s in ta},
                6.5,
                7.5,
                f"TA / SACK at d = {1000 * d200:g} ms",
                source='"a seven-fold throughput improvement": 7 to the nearest whole fold',
            ),
            quote="Even with limited transmit of one window and a path RTT difference of two "
            "100 ms RTTs (200 ms), DSACK-TA-MEAN offers a seven-fold throughput improvement "
            "over SACK.",
            where=WHERE,
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig16",
        "throughput vs fixed delay d of 50 % of packets (two-path-like)",
        points=plan,
        table=table,
        plot=plot,
        claims=claims,
    ),
)
