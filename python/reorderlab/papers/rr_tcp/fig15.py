"""``fig15``: DSACK-TA's gain over SACK under other delay distributions.

The setting: :mod:`.setting`."""

from __future__ import annotations

import math
from pathlib import Path

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    each_above,
    unit,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
    series_str,
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
from reorderlab.papers.kit.summary import (
    Table,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG4_P,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    delayed,
    normal,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
    summary,
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


def _fig15_points(quick: bool) -> Plan:
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


def _fig15_plot(tab: Table, out: Path, quick: bool) -> None:
    lines = stat_series(tab, FIG15_CURVES, "norm", xscale=100)
    THROUGHPUT.draw(out, lines, **MODE(quick).fields())


def _fig15_claims(tab: Table, quick: bool) -> list[Claim]:
    fig = "fig15"
    fractions = FIG15_FRACTIONS_QUICK if quick else FIG15_FRACTIONS
    x10 = min(fractions, key=lambda f: abs(f - 0.10))
    gain = {
        name: tab[(f"DSACK-TA {name}", x10)]["norm"] - tab[(f"SACK {name}", x10)]["norm"]
        for name in fig15_distributions()
    }
    lo, hi = min(gain.values()), max(gain.values())
    at = f"at {percent(x10)} delayed"
    similar = all_of(
        above(hi, 0, f"largest gain {at}"),
        at_least(lo, Ref(hi, "the largest", times=0.5), "smallest gain"),
    )
    return [
        make_claim(
            PAPER,
            fig,
            "DSACK-TA gains over SACK under every delay distribution",
            each_above(gain, 0.1, f"TA - SACK {at}", "for every law", unit("S")),
            series_str(gain, "{:+.3f}", "{}"),
            gain=gain,
        ),
        make_claim(
            PAPER,
            fig,
            "the gains are similar across distributions",
            similar,
            f"smallest {lo:+.3f} S, largest {hi:+.3f} S (ratio {lo / hi if hi else math.nan:.2f})",
            gain=gain,
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "fig15",
        "DSACK-TA's gain over SACK under other delay distributions",
        points=_fig15_points,
        table=summary,
        plot=_fig15_plot,
        claims=_fig15_claims,
    ),
)
