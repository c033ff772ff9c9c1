"""``fig10-11``: throughput and timeouts vs the mean delay kP (P = 200 ms,
4 % delayed).

The setting: :mod:`.setting`."""

from __future__ import annotations

from pathlib import Path

from reorderlab.checks import (
    all_of,
    band,
    difference,
    every,
    trend,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    stat_series,
)
from reorderlab.papers.kit.mode import (
    Modes,
)
from reorderlab.papers.kit.recipe import (
    recipe,
)
from reorderlab.papers.kit.runs import (
    Plan,
)
from reorderlab.papers.rr_tcp.setting import (
    CHAIN,
    FIG10_FRACTION,
    FIG10_P,
    FULL_DURATION,
    MODE,
    capacity_bps,
    chain_scenario,
    kp_delay,
    plan_of,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    Points,
    points_table,
    rr_claim,
)

FIG10_K = (4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0)
FIG10_K_QUICK = (4.5, 5.5, 6.0, 7.0, 8.0)
#: Quick mode's runs of this figure: a timeout is rare (a few per 100 s),
#: and TA's and TAES's differences are made of them.
FIG10_DURATION = Modes(full=FULL_DURATION, quick=300.0)
FIG10_CURVES = ("SACK", "DSACK-R", "DSACK-FA", "DSACK-TA", "DSACK-TAES", "DSACK-HG")
#: "when k goes beyond 5.5" (Sec. 5.3)
K_EDGE = 5.5
WHERE = "Sec. 5.3, Figs. 10-11"


def plan(quick: bool) -> Plan:
    duration = FIG10_DURATION(quick)
    ks = FIG10_K_QUICK if quick else FIG10_K
    s = capacity_bps(FIG10_P)
    points = [
        point(
            v,
            k,
            s,
            chain_scenario(CHAIN, FIG10_P, v, duration, [kp_delay(FIG10_FRACTION, k, FIG10_P)]),
        )
        for v in FIG10_CURVES
        for k in ks
    ]
    return plan_of(points, quick)


#: Fig. 10 (throughput) and Fig. 11 (timeouts): (figure, metric, y scale).
FIG10_11 = (
    (
        LineFigure(
            "fig10_throughput",
            "mean packet delay kP (s)",
            "throughput / S",
            f"Figs. 10-11: P = {FIG10_P:g} s, 4 % delayed N(kP, kP/3) "
            "({seeds} seeds x {duration:g} s)",
        ),
        "norm",
        1.0,
    ),
    (
        LineFigure(
            "fig11_timeouts",
            "mean packet delay kP (s)",
            "packets meeting a timeout (%)",
            f"Figs. 10-11: P = {FIG10_P:g} s, 4 % delayed N(kP, kP/3) "
            "({seeds} seeds x {duration:g} s)",
        ),
        "to_frac",
        100.0,
    ),
)


def plot(data: Points, out: Path, quick: bool) -> None:
    for line, metric, scale in FIG10_11:
        lines = stat_series(data.tab, FIG10_CURVES, metric, xscale=FIG10_P, yscale=scale)
        line.draw(out, lines, seeds=MODE(quick).seeds, duration=FIG10_DURATION(quick))


def claims(data: Points, quick: bool) -> list[Claim]:
    ks = FIG10_K_QUICK if quick else FIG10_K
    late = [k for k in ks if k > K_EDGE]
    beyond = f"k > {K_EDGE:g}"

    def over(v: str, metric: str = "norm") -> dict[int, float]:
        return data.mean_over(v, late, metric)

    return [
        rr_claim(
            "fig10-11",
            "throughput decreases as the packet delay grows",
            every(
                {
                    v: trend(data.curves(v), f"{v}'s throughput", direction="falls", x="k")
                    for v in FIG10_CURVES
                },
                "every variant's throughput falls with k",
            ),
            quote="In Figure 10, as packet delay increases, the throughput decreases, as expected.",
            where=WHERE,
        ),
        rr_claim(
            "fig10-11",
            "DSACK-TA collapses past k = 5.5 (mean delay 1.1 s), below DSACK-FA",
            difference(
                over("DSACK-TA"),
                over("DSACK-FA"),
                f"TA - FA throughput, mean over {beyond} (S)",
                op="<",
            ),
            quote="But when k goes beyond 5.5, which corresponds to a mean delay of 1.1 seconds "
            "in Figure 10, the throughput of DSACK-TA drops sharply and becomes even worse than "
            "that of DSACK-FA.",
            where=WHERE,
        ),
        rr_claim(
            "fig10-11",
            "DSACK-TA's timeouts exceed DSACK-FA's past k = 5.5",
            all_of(
                trend(
                    data.curves("DSACK-TA", "to_frac"),
                    "TA's timeout fraction",
                    direction="rises",
                    x="k",
                ),
                difference(
                    over("DSACK-TA", "to_frac"),
                    over("DSACK-FA", "to_frac"),
                    f"TA - FA timeout fraction, mean over {beyond}",
                ),
                sep=", and ",
            ),
            quote="Figure 11 shows that the fraction of packets that encounter timeouts under "
            "DSACK-TA increases rapidly, and exceeds that for DSACK-FA after the mean delay "
            "surpasses 1.1 seconds.",
            where=WHERE,
        ),
        *_taes_claims(data, late, ks),
    ]


def _taes_claims(data: Points, late: list[float], ks: tuple[float, ...]) -> list[Claim]:
    """DSACK-TAES (enhanced RTT sampling) against DSACK-TA and DSACK-HG."""
    beyond = f"k > {K_EDGE:g}"

    def over(v: str, metric: str = "norm") -> dict[int, float]:
        return data.mean_over(v, late, metric)

    taes, hg = data.mean_over("DSACK-TAES", list(ks)), data.mean_over("DSACK-HG", list(ks))
    return [
        rr_claim(
            "fig10-11",
            "DSACK-TAES has few timeouts",
            difference(
                over("DSACK-TAES", "to_frac"),
                over("DSACK-TA", "to_frac"),
                f"TAES - TA timeout fraction, mean over {beyond}",
                op="<",
            ),
            quote="DSACK-TAES, which implements the enhanced RTT sampling strategy described in "
            "Section 4.4, maintains a low incidence of timeouts even when packet delays are "
            "severe by including conservative mean RTT samples from packets that experience "
            "false retransmits.",
            where=WHERE,
        ),
        rr_claim(
            "fig10-11",
            "DSACK-TAES's more conservative RTO gives it more throughput than DSACK-TA",
            all_of(
                difference(
                    over("DSACK-TAES", "rto_mean"),
                    over("DSACK-TA", "rto_mean"),
                    f"TAES - TA mean RTO, mean over {beyond} (s)",
                ),
                difference(
                    over("DSACK-TAES"),
                    over("DSACK-TA"),
                    f"TAES - TA throughput, mean over {beyond} (S)",
                ),
                sep=", and ",
            ),
            quote="The more conservative RTO chosen by DSACK-TAES leads to fewer timeouts and "
            "increased throughput.",
            where=WHERE,
        ),
        rr_claim(
            "fig10-11",
            "DSACK-TAES's throughput is comparable to DSACK-HG's",
            band(
                {s: taes[s] / hg[s] for s in taes},
                0.9,
                1.1,
                "TAES / HG throughput, mean over k",
                source='"comparable to those of DSACK-HG": within 10 % (Sec. 5.7 calls '
                'differences "mostly < 5%, and all < 10%" slight)',
            ),
            quote="Even across the range of delays in Figures 10 and 11, DSACK-TAES offers high "
            "throughput and low timeout incidence, comparable to those of DSACK-HG.",
            where="Sec. 5.3, Figs. 10-11",
        ),
    ]


FIGURES = (
    recipe(
        "rr-tcp",
        "fig10-11",
        "throughput and timeouts vs mean delay kP (P = 200 ms, 4 % delayed)",
        points=plan,
        table=points_table("fig10_points"),
        plot=plot,
        claims=claims,
    ),
)
