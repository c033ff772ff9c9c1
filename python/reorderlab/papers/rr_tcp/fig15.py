"""``fig15``: DSACK-TA's gain over SACK under other delay distributions.

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    band,
    difference,
    every,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    stat_series,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_P,
    MODE,
    capacity_bps,
    chain_scenario,
    delayed,
    normal,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    points_table,
    rr_claim,
)
from reorderlab.scenario import (
    ExponentialVar,
    HyperexponentialVar,
    Pareto2Var,
    ParetoVar,
    RandomVar,
    UniformVar,
)

FIG15_FRACTIONS = (0.01, 0.02, 0.05, 0.10, 0.20)
FIG15_FRACTIONS_QUICK = (0.02, 0.10)


def fig15_distributions() -> dict[str, RandomVar]:
    """Every delay law with mean 25 ms (module docstring)."""
    return {
        "normal": normal(0.025, 0.008),
        "exponential": ExponentialVar(mean=0.025),
        "hyperexponential": HyperexponentialVar(means=[0.01, 0.1], probs=[5 / 6, 1 / 6]),
        "pareto": ParetoVar(scale=0.015, shape=2.5),
        "pareto2": Pareto2Var(scale=0.0375, shape=2.5),
        "uniform": UniformVar(low=0.0, high=0.05),
    }


def plan(quick: bool) -> Plan:
    mode = MODE(quick)
    fractions = FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS
    s = capacity_bps(FIG4_P)
    points = [
        point(
            f"{v} {name}",
            f,
            s,
            chain_scenario(CHAIN, FIG4_P, v, mode.duration, [delayed(f, law)]),
        )
        for name, law in fig15_distributions().items()
        for v in ("SACK", "DSACK-TA")
        for f in fractions
    ]
    return plan_of(points, quick)


#: Each law's DSACK-TA and SACK curves.
FIG15_CURVES = [f"{v} {name}" for name in fig15_distributions() for v in ("DSACK-TA", "SACK")]
THROUGHPUT = LineFigure(
    "fig15_throughput",
    xlabel="fraction of packets delayed (%)",
    ylabel="throughput / S",
    title=f"Fig. 15: delay laws of mean 25 ms, P = {FIG4_P:g} s "
    "({seeds} seeds x {duration:g} s)",
    styles={c: ("o-" if c.startswith("DSACK") else "x--") for c in FIG15_CURVES},
)
QUOTE = (
    "Figure 15 shows that across all reordering length distributions simulated, DSACK-TA "
    "achieves similar throughput gains over SACK."
)


def plot(data: Points, out: Path, quick: bool) -> None:
    lines = stat_series(data.tab, FIG15_CURVES, "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def claims(data: Points, quick: bool) -> list[Claim]:
    fractions = list(FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS)
    laws = list(fig15_distributions())
    ta = {n: data.mean_over(f"DSACK-TA {n}", fractions) for n in laws}
    sack = {n: data.mean_over(f"SACK {n}", fractions) for n in laws}
    gain = {n: {s: ta[n][s] - sack[n][s] for s in ta[n]} for n in laws}
    seeds = list(gain[laws[0]])
    spread = {s: min(gain[n][s] for n in laws) / max(gain[n][s] for n in laws) for s in seeds}
    return [
        rr_claim(
            "fig15",
            "DSACK-TA gains over SACK under every delay distribution",
            every(
                {
                    n: difference(
                        ta[n], sack[n], f"TA - SACK under the {n} law, mean over the fractions"
                    )
                    for n in laws
                },
                "DSACK-TA above SACK under every law",
            ),
            quote=QUOTE,
            where="Sec. 5.5, Fig. 15",
        ),
        rr_claim(
            "fig15",
            "the gains are similar across distributions",
            band(
                spread,
                0.5,
                None,
                "the smallest gain over the laws / the largest",
                source='"similar throughput gains": the smallest at least half the largest',
            ),
            quote=QUOTE,
            where="Sec. 5.5, Fig. 15",
            values={"gain": gain},
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig15",
        "DSACK-TA's gain over SACK under other delay distributions",
        points=plan,
        table=points_table("fig15_points"),
        plot=plot,
        claims=claims,
    ),
)
