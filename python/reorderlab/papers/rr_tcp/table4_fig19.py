"""``table4-fig19``: bursty drops, DSACK-BL-INC vs DSACK-TA (Table 4), their
dupthresh vs time (Fig. 19), and the drop-episode rate sensitivity.

The setting: :mod:`.setting`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reorderlab.checks import (
    Ref,
    above,
    all_of,
    at_least,
    at_most,
    each_above,
    pct,
)
from reorderlab.claims import (
    Claim,
)
from reorderlab.papers.kit.claims import (
    make_claim,
)
from reorderlab.papers.kit.figure import (
    LineFigure,
    Lines,
)
from reorderlab.papers.kit.mode import (
    Modes,
)
from reorderlab.papers.kit.recipe import (
    Derived,
    recipe,
)
from reorderlab.papers.kit.runs import (
    RUNS,
    Plan,
    Runs,
    Sweep,
)
from reorderlab.papers.kit.sensitivity import (
    SENSITIVITY,
)
from reorderlab.papers.kit.summary import (
    Stat,
    Table,
    x_values,
)
from reorderlab.papers.rr_tcp.setting import (
    BOTTLENECK,
    CHAIN,
    FULL_DURATION,
    MODE,
    PAPER,
    capacity_bps,
    chain_scenario,
    delayed,
    lt_bound_of,
    normal,
    point,
)
from reorderlab.papers.rr_tcp.tables import (
    percent,
    sens_curve,
    with_lt_sensitivity,
)
from reorderlab.scenario import (
    BurstLossImpairment,
    Impairment,
    RecordSpec,
    UniformVar,
)

T4_P = 0.20
T4_FRACTION = 0.02
T4_DELAY = normal(0.1, 0.033)
T4_Q = 0.0002
T4_VARIANTS = ("DSACK-BL-INC", "DSACK-TA")
T4_PAPER = {
    ("DSACK-BL-INC", "no drops"): (97184, 0.13),
    ("DSACK-BL-INC", "drops"): (60708, 0.48),
    ("DSACK-TA", "no drops"): (103770, 0.03),
    ("DSACK-TA", "drops"): (81916, 0.19),
}


#: Drop-episode rates of Table 4's sensitivity step (per data packet; the
#: paper's 0.02 % is the table's own runs).
T4_Q_SWEEP = (0.0001, T4_Q, 0.0005)
#: table4_sensitivity's curve of DSACK-BL-INC with the undo a secondary
#: source gives Blanton and Allman's code (ssthresh = the earlier cwnd, slow
#: start back; docs/variants.md) instead of RR-TCP's immediate restore.
T4_BA_UNDO = "DSACK-BL-INC, slow-start undo"


def _t4_impairments(drops: bool, q: float = T4_Q) -> list[Impairment]:
    imps: list[Impairment] = [delayed(T4_FRACTION, T4_DELAY)]
    if drops:
        imps.append(
            BurstLossImpairment(link=BOTTLENECK, q=q, duration=UniformVar(low=0.3, high=0.4))
        )
    return imps


def _resets_to_three(dt: np.ndarray) -> int:
    """Times the dupthresh series falls from above 3 to 3."""
    if dt.size < 2:
        return 0
    return int(np.sum((dt[1:] <= 3) & (dt[:-1] > 3)))


T4_CONDITIONS = {"no drops": False, "drops": True}
#: Fig. 19's traced runs in quick mode: a drop episode starts about every
#: 50 s (0.02 % of ~100 packets/s), and a 100-s run met no timeout at all
#: (so no reset to show); 400 s give ~5-6 timeouts (14 per 1000 s at full
#: fidelity), at ~2 s of CPU per run.
FIG19_QUICK_DURATION = 400.0


#: The traced runs' duration.
FIG19_DURATION = Modes(full=FULL_DURATION, quick=FIG19_QUICK_DURATION)


def _t4_points(quick: bool) -> Plan:
    mode = MODE(quick)
    trace_duration = FIG19_DURATION(quick)
    s = capacity_bps(T4_P)
    points = [
        point(
            f"{v} | {cond}",
            0.0,
            s,
            chain_scenario(
                CHAIN, T4_P, v, mode.duration, _t4_impairments(drops), lt_bound=lt_bound_of(v)
            ),
        )
        for v in T4_VARIANTS
        for cond, drops in T4_CONDITIONS.items()
    ]
    # Fig. 19: dupthresh vs time, one run of each with the drops
    rec = RecordSpec(series=["dupthresh"], interval=0.1)
    traced = [
        (
            {"variant": v},
            chain_scenario(
                CHAIN,
                T4_P,
                v,
                trace_duration,
                _t4_impairments(True),
                record=rec,
                lt_bound=lt_bound_of(v),
            ),
        )
        for v in T4_VARIANTS
    ]
    # sensitivity: the drop-episode rate (the paper's is the table's own
    # runs), and DSACK-BL-INC with Blanton-Allman's slow-start undo at each
    # rate and without drops (x = 0)
    sens = [
        point(
            sens_curve(v),
            q,
            s,
            chain_scenario(
                CHAIN, T4_P, v, mode.duration, _t4_impairments(True, q), lt_bound=lt_bound_of(v)
            ),
        )
        for v in T4_VARIANTS
        for q in T4_Q_SWEEP
    ]
    ba = T4_BA_UNDO
    sens += [
        point(
            sens_curve(ba),
            q,
            s,
            chain_scenario(
                CHAIN,
                T4_P,
                "DSACK-BL-INC",
                mode.duration,
                _t4_impairments(drops=q > 0, q=q if q > 0 else T4_Q),
                lt_bound=lt_bound_of("DSACK-BL-INC"),
                undo_response="slow-start",
            ),
        )
        for q in (0.0, *T4_Q_SWEEP)
    ]
    return {
        RUNS: Sweep(points, mode.seeds),
        "fig19": Sweep(traced, seeds=1),
        SENSITIVITY: Sweep(sens, mode.seeds),
    }


@dataclass(frozen=True)
class Table4:
    """Table 4's statistics; Fig. 19's dupthresh series and timeouts by variant."""

    tab: Table
    dupthresh: dict[str, tuple[np.ndarray, np.ndarray]]
    timeouts: dict[str, int]

    def get(self, variant: str, cond: str) -> Stat:
        return self.tab[(f"{variant} | {cond}", 0.0)]


def _t4_table(runs: Runs, quick: bool) -> Derived[Table4]:
    mode = MODE(quick)
    dts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    timeouts: dict[str, int] = {}
    for i, v in enumerate(T4_VARIANTS):
        r = runs.result("fig19", i)
        ser = r.series(0)
        dts[v] = (ser.get("t", np.array([])), ser.get("dupthresh", np.array([])))
        timeouts[v] = int(r.flow(0)["timeouts"])
    data = Table4(with_lt_sensitivity(runs), dts, timeouts)
    scale = 1000.0 / mode.duration
    rows = []
    for v in T4_VARIANTS:
        for cond in T4_CONDITIONS:
            st = data.get(v, cond)
            rows.append(
                {
                    "variant": v,
                    "condition": cond,
                    "packets_per_1000s": st["segments_delivered"] * scale,
                    "throughput_over_S": st["norm"],
                    "fr_ratio_pct": 100 * st["fr_frac"],
                    "timeouts": st["timeouts"],
                    "paper_packets": T4_PAPER[(v, cond)][0],
                    "paper_fr_ratio_pct": T4_PAPER[(v, cond)][1],
                }
            )
    return Derived(data, {"table4": rows})


DUPTHRESH = LineFigure(
    "fig19_dupthresh",
    xlabel="time (s)",
    ylabel="dupthresh (packets)",
    title=f"Fig. 19: bursty drops, P = {T4_P:g} s, one run ({{duration:g}} s)",
    styles={"DSACK-BL-INC": "-", "DSACK-TA": "-"},
)
LOST = LineFigure(
    "table4_sensitivity",
    xlabel="drop episodes per data packet (%; paper: 0.02)",
    ylabel="throughput lost to the drop bursts (%)",
    title="Table 4 vs the drop-episode rate ({seeds} seeds x {duration:g} s)\n"
    "paper at 0.02 %: BL-INC 37.5 %, TA 21.1 %",
)


def _t4_plot(data: Table4, out: Path, quick: bool) -> None:
    lines: Lines = {v: (t.tolist(), d.tolist(), None) for v, (t, d) in data.dupthresh.items()}
    DUPTHRESH.draw(out, lines, duration=FIG19_DURATION(quick))
    _t4_sensitivity_plot(data, out, quick)


def _t4_sensitivity_plot(data: Table4, out: Path, quick: bool) -> None:
    """Each variant's throughput lost to the drop bursts vs their rate."""
    series: Lines = {}

    def lost(curve: str, base: float) -> tuple[list[float], list[float], None]:
        """% of ``base`` lost at each drop-episode rate (x > 0) of ``curve``."""
        qs = [q for q in x_values(data.tab, curve) if q > 0]
        return (
            [100 * q for q in qs],
            [100 * (1 - data.tab[(curve, q)]["norm"] / base) for q in qs],
            None,
        )

    for v in T4_VARIANTS:
        series[v] = lost(sens_curve(v), data.get(v, "no drops")["norm"])
    ba = sens_curve(T4_BA_UNDO)
    series[T4_BA_UNDO] = lost(ba, data.tab[(ba, 0.0)]["norm"])
    LOST.draw(out, series, **MODE(quick).fields())


def _t4_claims(data: Table4, quick: bool) -> list[Claim]:
    fig = "table4-fig19"
    thr = {(v, c): data.get(v, c)["norm"] for v in T4_VARIANTS for c in T4_CONDITIONS}
    frr = {(v, c): data.get(v, c)["fr_frac"] for v in T4_VARIANTS for c in T4_CONDITIONS}
    bl_nd, ta_nd = thr[("DSACK-BL-INC", "no drops")], thr[("DSACK-TA", "no drops")]
    rel_nd = bl_nd / ta_nd - 1 if ta_nd else float("nan")
    loss = {v: 1 - thr[(v, "drops")] / thr[(v, "no drops")] for v in T4_VARIANTS}

    def frs(c: str) -> str:
        return (
            f"BL-INC {100 * frr[('DSACK-BL-INC', c)]:.3f} %, TA {100 * frr[('DSACK-TA', c)]:.3f} %"
        )

    loses_more = all_of(
        at_least(loss["DSACK-TA"], 0, "TA's relative loss"),
        at_least(loss["DSACK-BL-INC"], Ref(loss["DSACK-TA"], "TA's", times=1.5), "BL-INC's"),
        above(loss["DSACK-BL-INC"], 0, "BL-INC's"),
    ).noted("(paper: 37.5 % vs 21.1 %, 1.78 x)")
    by_cond = {c: frr[("DSACK-BL-INC", c)] for c in T4_CONDITIONS}
    ta_by_cond = Ref({c: frr[("DSACK-TA", c)] for c in T4_CONDITIONS}, "TA's")
    with_drops = {v: frr[(v, "drops")] for v in T4_VARIANTS}
    without = Ref({v: frr[(v, "no drops")] for v in T4_VARIANTS}, "without")
    return [
        make_claim(
            PAPER,
            fig,
            "without drops DSACK-BL-INC is comparable to DSACK-TA",
            at_most(abs(rel_nd), 0.10, "|BL-INC / TA - 1|", pct).noted(
                "(paper: 97184 vs 103770 packets, -6.3 %)"
            ),
            f"BL-INC {bl_nd:.3f} S, TA {ta_nd:.3f} S ({100 * rel_nd:+.1f} %)",
            bl_inc=bl_nd,
            ta=ta_nd,
            relative=rel_nd,
        ),
        make_claim(
            PAPER,
            fig,
            "with bursty drops DSACK-BL-INC loses much more throughput than DSACK-TA",
            loses_more,
            f"BL-INC loses {percent(loss['DSACK-BL-INC'])}, TA {percent(loss['DSACK-TA'])} "
            f"(BL-INC {thr[('DSACK-BL-INC', 'drops')]:.3f} S, "
            f"TA {thr[('DSACK-TA', 'drops')]:.3f} S with drops)",
            loss=loss,
        ),
        make_claim(
            PAPER,
            fig,
            "DSACK-BL-INC has a higher fast-retransmit ratio than DSACK-TA, with and without drops",
            each_above(by_cond, ta_by_cond, "BL-INC FR ratio", "in both conditions").noted(
                "(paper 0.13 vs 0.03 %, 0.48 vs 0.19 %)"
            ),
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
            fr_ratio={f"{v} | {c}": x for (v, c), x in frr.items()},
        ),
        make_claim(
            PAPER,
            fig,
            "bursty drops raise both schemes' fast-retransmit ratios",
            each_above(with_drops, without, "FR ratio with drops", "for BL-INC and TA"),
            f"no drops: {frs('no drops')}; drops: {frs('drops')}",
        ),
        *_fig19_claims(data, quick),
    ]


def _fig19_claims(data: Table4, quick: bool) -> list[Claim]:
    fig = "table4-fig19"
    duration = FIG19_DURATION(quick)
    dts, timeouts = data.dupthresh, data.timeouts
    settled = {v: d[t >= 0.1 * duration] if t.size else np.array([]) for v, (t, d) in dts.items()}
    bl_resets = _resets_to_three(dts["DSACK-BL-INC"][1])
    ta_set = settled["DSACK-TA"]
    ta_med = float(np.median(ta_set)) if ta_set.size else float("nan")
    ta_p5 = float(np.percentile(ta_set, 5)) if ta_set.size else float("nan")
    bl_set = settled["DSACK-BL-INC"]
    bl_med = float(np.median(bl_set)) if bl_set.size else float("nan")
    bl_p5 = float(np.percentile(bl_set, 5)) if bl_set.size else float("nan")
    return [
        make_claim(
            PAPER,
            fig,
            "Fig. 19: DSACK-BL-INC's dupthresh resets to 3 at timeouts",
            at_least(
                bl_resets,
                1,
                "times BL-INC's dupthresh falls from above 3 back to 3 in the run with drops "
                "(sampled every 0.1 s)",
            ),
            f"{bl_resets} resets to 3, {timeouts['DSACK-BL-INC']} timeouts; "
            f"median {bl_med:g}, 5th percentile {bl_p5:g}",
            resets=bl_resets,
            timeouts=timeouts["DSACK-BL-INC"],
            median=bl_med,
            p5=bl_p5,
        ),
        make_claim(
            PAPER,
            fig,
            "Fig. 19: DSACK-TA's dupthresh stays near its level across the drop bursts",
            at_least(
                ta_p5,
                Ref(ta_med, "its median", times=0.5),
                f"TA's 5th percentile of dupthresh after the first {0.1 * duration:g} s",
            ),
            f"TA median {ta_med:g}, 5th percentile {ta_p5:g} ({timeouts['DSACK-TA']} "
            f"timeouts, {_resets_to_three(dts['DSACK-TA'][1])} resets to 3)",
            median=ta_med,
            p5=ta_p5,
            timeouts=timeouts["DSACK-TA"],
        ),
    ]


FIGURES = (
    recipe(
        PAPER,
        "table4-fig19",
        "bursty drops: DSACK-BL-INC vs DSACK-TA; dupthresh vs time",
        points=_t4_points,
        table=_t4_table,
        plot=_t4_plot,
        claims=_t4_claims,
    ),
)
