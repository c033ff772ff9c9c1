"""Recipes of the rr-tcp paper (RR-TCP): registration, helpers, and one end-to-end run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from reorderlab.papers import papers, select
from reorderlab.papers.baseline.setting import bottleneck_rate
from reorderlab.papers.kit import sensitivity as kit_sensitivity
from reorderlab.papers.kit import summary as kit_summary
from reorderlab.papers.kit.figure import LineFigure
from reorderlab.papers.kit.runs import RUNS, Runs
from reorderlab.papers.rr_tcp import fig1 as rr_fig1
from reorderlab.papers.rr_tcp import fig4_5 as rr_fig4_5
from reorderlab.papers.rr_tcp import fig10_11 as rr_fig10_11
from reorderlab.papers.rr_tcp import fig12_13_table3 as rr_fig12_13_table3
from reorderlab.papers.rr_tcp import fig17_18 as rr_fig17_18
from reorderlab.papers.rr_tcp import knife_edge as rr_knife_edge
from reorderlab.papers.rr_tcp import setting as rr_setting
from reorderlab.papers.rr_tcp import table4_fig19 as rr_table4_fig19
from reorderlab.papers.rr_tcp import tables as rr_tables
from reorderlab.reproduce import reproduce
from reorderlab.runner import run
from reorderlab.scenario import BurstLossImpairment, RecordSpec

PAPERS_DOC = Path(__file__).resolve().parents[1] / "docs" / "papers.md"

#: Every figure and table of the rr-tcp paper (docs/papers.md, "The rr-tcp paper").
PAPER_ITEMS = {("fig", n) for n in (1, *range(4, 20))} | {("table", 3), ("table", 4)}


def covered(key: str) -> set[tuple[str, int]]:
    """``fig12-13-table3`` -> {("fig", 12), ("fig", 13), ("table", 3)}."""
    out: set[tuple[str, int]] = set()
    kind = ""
    for part in key.split("-"):
        m = re.fullmatch(r"(fig|table)?(\d+)", part)
        assert m is not None, f"unexpected figure key {key!r}"
        kind = m.group(1) or kind
        out.add((kind, int(m.group(2))))
    return out


def test_every_rr_tcp_paper_figure_and_table_is_registered() -> None:
    figs = papers()["rr-tcp"]
    got: set[tuple[str, int]] = set()
    for key in figs:
        got |= covered(key)
    assert got >= PAPER_ITEMS, f"missing: {sorted(PAPER_ITEMS - got)}"
    assert set(figs) == set(rr_setting.figures())
    # all run by ``reproduce rr-tcp``
    assert {r.figure for r in select("rr-tcp")} == set(figs)


def test_every_papers_doc_row_has_a_recipe() -> None:
    text = PAPERS_DOC.read_text(encoding="utf-8")
    section = text.split("\n## The rr-tcp paper", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ((?:fig|table)[^|]*?) \|", section, flags=re.MULTILINE)
    assert len(rows) == 14
    got: set[tuple[str, int]] = set()
    for key in papers()["rr-tcp"]:
        got |= covered(key)
    for row in rows:
        wanted: set[tuple[str, int]] = set()
        for item in re.split(r",\s*", row):
            kind = "table" if item.startswith("table") else "fig"
            wanted |= {(kind, int(n)) for n in re.findall(r"\d+", item)}
        assert wanted <= got, f"row {row}: {sorted(wanted - got)} not registered"


def test_capacity_is_the_window_over_the_unqueued_rtt() -> None:
    for p in (0.05, 0.1, 0.2):
        c = rr_setting.capacity_bps(p)
        # fixed point: R computed with the bottleneck at C gives C = 8 mss M / R
        r = rr_setting.unqueued_rtt(p, rate=c)
        assert c == pytest.approx(8 * rr_setting.MSS * rr_setting.M / r, rel=1e-12)
    if not rr_setting.P_IS_LINK_DELAY:
        # P = 50 ms is the baseline chain (bottleneck delay 23 ms)
        assert rr_setting.bottleneck_delay(0.05) == pytest.approx(0.023)
        assert rr_setting.capacity_bps(0.05) == pytest.approx(bottleneck_rate(), rel=1e-12)


def test_every_variant_of_the_recipes_is_known_to_the_core() -> None:
    variants = {
        *rr_setting.FIG4_CURVES.values(),
        *rr_fig10_11.FIG10_CURVES,
        *rr_fig12_13_table3.FIG12_REFS,
        *rr_knife_edge.VARIANTS,
        *rr_fig17_18.FIG17_CURVES,
        *rr_table4_fig19.T4_VARIANTS,
        "DSACK-FAES",
    }
    for v in sorted(variants):
        sc = rr_setting.chain_scenario(
            "t", 0.05, v, 1.0, [rr_setting.delayed(0.1, rr_setting.FIG4_DELAY)]
        )
        assert sc.flows[0].variant == v


def test_summarise_normalises_and_pools() -> None:
    df = pd.DataFrame(
        [
            {
                "curve": "A",
                "x": 0.1,
                "S_bps": 1e6,
                "throughput_bps": tput,
                "timeouts": 2,
                "fast_retransmits": fr,
                "spurious_fast_retransmits": false,
                "false_fast_retransmits_detected": false,
                "data_packets_sent": 1000,
                "rto_mean": 1.0,
                "fa_ratio": None,
                "dupthresh": 3,
                "segments_delivered": 1000,
                "reordered_ratio": 0.1,
            }
            for tput, fr, false in ((5e5, 10, 5), (7e5, 30, 5))
        ]
    )
    st = rr_tables.summarise(df)[("A", 0.1)]
    assert st.seeds == 2
    assert st["norm"] == pytest.approx(0.6)
    assert st.sd["norm"] == pytest.approx(0.1414213562, rel=1e-6)
    assert st["to_frac"] == pytest.approx(0.002)
    assert st["fr_frac"] == pytest.approx(0.02)
    assert st["false_fr"] == pytest.approx(10 / 40)  # pooled, not the mean of 0.5 and 1/6
    assert st["false_fr_per_reorder"] == pytest.approx(10 / 200)


def test_fig1_shows_the_halving_and_the_dsack_undo(tmp_path: Path) -> None:
    """rr-tcp Sec. 2.1, Fig. 1: coded rules, tested as rules (the figure
    has no claims): the false fast retransmit halves the window of 16, and
    DSACK-R restores it in one step when the DSACK arrives, 0.45 s later
    (the hold); SACK, without undo, regrows only after several RTTs."""
    out = tmp_path / "results"
    result = reproduce("rr-tcp", "fig1", quick=True, out=out, store=None)
    assert result["rr-tcp"] == []
    for ext in ("png", "svg", "csv"):
        path = out / "rr-tcp" / f"fig1-cwnd.{ext}"
        assert path.is_file() and path.stat().st_size > 0, path
    csv = pd.read_csv(out / "rr-tcp" / "fig1-cwnd.csv")
    assert set(csv["series"]) == {"DSACK-R", "SACK"}
    rec = papers()["rr-tcp"]["fig1"]
    ev = rr_fig1.events(rec.table(Runs(rec.points(True), None), True).data)
    assert ev["cwnd_before"] == rr_fig1.FIG1_WINDOW
    assert ev["cwnd_min"] == rr_fig1.FIG1_WINDOW / 2
    assert (ev["fast_retransmits"], ev["spurious_fast_retransmits"], ev["undos"]) == (1, 1, 1)
    assert ev["cwnd_before_restore"] <= 0.75 * rr_fig1.FIG1_WINDOW  # one step back
    assert ev["t_restore"] - ev["t_halve"] == pytest.approx(rr_fig1.FIG1_HOLD, abs=0.1)
    assert ev["cwnd_end"] == rr_fig1.FIG1_WINDOW
    assert ev["sack_undos"] == 0
    assert ev["sack_regrown_at"] > ev["t_restore"] + 0.5


def test_bl_inc_dupthresh_resets_to_three_at_timeouts() -> None:
    """rr-tcp Sec. 5.7, Fig. 19: "Each timeout resulting from a drop burst will
    cause DSACK-BL-INC to reset dupthresh to 3" (a coded rule, tested here
    on the figure's setting, not checked as a claim): in a run with the
    drop bursts, BL-INC's dupthresh falls from above 3 back to 3 at most
    once per timeout and at least once; DSACK-TA's never does."""
    sc = {
        v: rr_setting.chain_scenario(
            rr_setting.CHAIN,
            rr_table4_fig19.T4_P,
            v,
            300.0,
            rr_table4_fig19.t4_impairments(True, q=0.001),
            record=RecordSpec(series=["dupthresh"], interval=0.1),
            lt_bound=rr_setting.lt_bound_of(v),
        )
        for v in ("DSACK-BL-INC", "DSACK-TA")
    }
    resets = {}
    for v, scenario in sc.items():
        r = run(scenario, seed=1)
        dt = r.series(0)["dupthresh"]
        resets[v] = (int(np.sum((dt[1:] <= 3) & (dt[:-1] > 3))), int(r.flow(0)["timeouts"]))
    bl_resets, bl_timeouts = resets["DSACK-BL-INC"]
    assert 1 <= bl_resets <= bl_timeouts, resets
    assert resets["DSACK-TA"][0] == 0, resets


def _plan(figure: str, quick: bool) -> Any:
    return papers()["rr-tcp"][figure].points(quick)


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("figure", ["fig17-18", "table4-fig19"])
def test_blanton_allman_runs_use_table2s_limited_transmit_bound(figure: str, quick: bool) -> None:
    # Table 2: limited transmit bound 1 x cwnd in all simulations; the BL
    # variants' own default is RFC 3042's two segments (the tcp-pr paper).
    plan = _plan(figure, quick)
    seen = set()
    for name, sweep in plan.items():
        if name == kit_sensitivity.SENSITIVITY:
            continue
        for _, sc in sweep.points:
            flow = sc.flows[0]
            if flow.variant.startswith("DSACK-BL-"):
                seen.add(flow.variant)
                assert flow.tcp.limited_transmit_bound == rr_setting.RR_LT_BOUND, (
                    figure,
                    flow.variant,
                )
            else:
                assert flow.tcp.limited_transmit_bound is None, (figure, flow.variant)
    assert seen


@pytest.mark.parametrize("quick", [True, False])
def test_fig18_sensitivity_sweeps_limited_transmit_past_m(quick: bool) -> None:
    plan = _plan("fig17-18", quick)
    sens = plan[kit_sensitivity.SENSITIVITY]
    assert sens.seeds == plan[RUNS].seeds
    own = {sc.cache_key(1, "v") for _, sc in plan[RUNS].points}
    got: dict[str, set[float]] = {}
    restore = rr_tables.sens_curve(rr_fig17_18.BL_R_RESTORE)
    for params, sc in sens.points:
        flow = sc.flows[0]
        if params["curve"] == restore:
            # DSACK-BL-R with RR-TCP's undo instead of the model's slow start
            assert flow.variant == "DSACK-BL-R" and flow.tcp.undo_response == "restore"
            continue
        assert params["curve"].startswith("lt:") and flow.variant == "DSACK-TA"
        got.setdefault(params["curve"], set()).add(params["x"])
        if params["x"] == rr_setting.M:
            # Table 2's bound as the core reads it: the figure's own run
            assert flow.tcp.limited_transmit_past_window is None
            assert sc.cache_key(1, "v") in own
        else:
            assert flow.tcp.limited_transmit_past_window == params["x"]
            assert sc.cache_key(1, "v") not in own
    assert got and all(xs == {0.0, 2.0, float(rr_setting.M)} for xs in got.values())


@pytest.mark.parametrize("quick", [True, False])
def test_knife_edge_sweep_runs_every_reading(quick: bool) -> None:
    """Figs. 12-13: every variant under every reading of the thresholds;
    the core's own reading is the figure's own runs (same store keys)."""
    plan = _plan("fig12-13-table3", quick)
    sens = plan[rr_knife_edge.KNIFE_EDGE]
    own = {sc.cache_key(1, "v") for _, sc in plan[RUNS].points}
    seen = set()
    for params, sc in sens.points:
        tcp = sc.flows[0].tcp
        if params["curve"] == rr_knife_edge.ratio_curve():
            # DSACK-FA at every FA ratio of the figure, M a hard limit
            assert tcp.limited_transmit_past_window == 0 and tcp.fa_ratio == params["x"]
            continue
        knobs = rr_setting.Knobs(
            tcp.limited_transmit_past_window, tcp.rr_percentile_offset, tcp.rr_long_samples
        )
        assert knobs in rr_knife_edge.READINGS
        assert params["curve"] == rr_knife_edge.curve(sc.flows[0].variant, knobs)
        assert (sc.cache_key(1, "v") in own) == (knobs == rr_setting.Knobs())
        seen.add((sc.flows[0].variant, knobs))
    assert seen == {(v, k) for v in rr_knife_edge.VARIANTS for k in rr_knife_edge.READINGS}
    traced = plan[rr_knife_edge.TRACE]
    assert traced.seeds == 1 and len(traced.points) == len(rr_knife_edge.TRACED)
    for _, sc in traced.points:
        assert {"dupthresh", "reorder_p50"} <= set(sc.record.series)


def test_sensitivity_plot_writes_one_line_per_label(tmp_path: Path) -> None:
    tab: kit_summary.Table = {}
    for label, rto in (("DSACK-FA", (3.0, 1.6)), ("DSACK-TA", (2.9, 1.5))):
        for b, v in zip((0.0, 1.0), rto, strict=True):
            st = kit_summary.Stat(mean={"rto_mean": v}, sd={"rto_mean": 0.1}, seeds=2)
            tab[(rr_tables.sens_curve(label), b)] = st
    tab[("DSACK-TA", 0.0)] = kit_summary.Stat(mean={"rto_mean": 9.0}, seeds=2)  # not a sweep curve
    line = LineFigure("fig12_sensitivity", rr_tables.LT_XLABEL, "mean RTO (s)", "t")
    line.draw(tmp_path, rr_tables.lt_series(tab, ["DSACK-FA", "DSACK-TA"], "rto_mean"))
    assert (tmp_path / "fig12-sensitivity.png").stat().st_size > 0
    csv = pd.read_csv(tmp_path / "fig12-sensitivity.csv")
    assert sorted(set(csv["series"])) == ["DSACK-FA", "DSACK-TA"]
    ta = csv[csv["series"] == "DSACK-TA"].sort_values("x")
    assert list(ta["x"]) == [0.0, 1.0] and list(ta["y"]) == [2.9, 1.5]
    assert list(ta["yerr"]) == [0.1, 0.1]


def test_fig19_traces_run_long_enough_in_quick_mode() -> None:
    # a 100-s trace met no timeout (nothing for Fig. 19 to show); the
    # table's runs keep the mode's duration
    assert rr_table4_fig19.FIG19_QUICK_DURATION > rr_setting.QUICK_DURATION
    plan = _plan("table4-fig19", True)
    assert {sc.duration for _, sc in plan["fig19"].points} == {rr_table4_fig19.FIG19_QUICK_DURATION}
    assert {sc.duration for _, sc in plan[RUNS].points} == {rr_setting.QUICK_DURATION}
    full = _plan("table4-fig19", False)
    assert {sc.duration for _, sc in full["fig19"].points} == {rr_setting.FULL_DURATION}


def test_table4_sensitivity_sweeps_the_drop_episode_rate(tmp_path: Path) -> None:
    plan = _plan("table4-fig19", True)
    own = {sc.cache_key(1, "v") for _, sc in plan[RUNS].points}
    got: dict[str, list[float]] = {}
    ba = rr_tables.sens_curve(rr_table4_fig19.T4_RESTORE)
    for params, sc in plan[kit_sensitivity.SENSITIVITY].points:
        got.setdefault(params["curve"], []).append(params["x"])
        bursts = [i for i in sc.impairments if isinstance(i, BurstLossImpairment)]
        assert [b.q for b in bursts] == ([params["x"]] if params["x"] else [])
        # the paper's rate is Table 4's own run with drops
        paper_rate = params["x"] == rr_table4_fig19.T4_Q and params["curve"] != ba
        assert (sc.cache_key(1, "v") in own) == paper_rate
        # RR-TCP's undo (not the Blanton-Allman model's) only on its own curve
        undo = sc.flows[0].tcp.undo_response
        assert undo == ("restore" if params["curve"] == ba else None)
        assert sc.flows[0].variant == "DSACK-BL-INC" or params["curve"] != ba
    assert got == {
        **{f"lt:{v}": list(rr_table4_fig19.T4_Q_SWEEP) for v in rr_table4_fig19.T4_VARIANTS},
        ba: [0.0, *rr_table4_fig19.T4_Q_SWEEP],
    }

    # the plot: throughput lost relative to the run without drops
    tab: kit_summary.Table = {}
    for v, base in (("DSACK-BL-INC", 0.9), ("DSACK-TA", 1.0)):
        tab[(f"{v} | no drops", 0.0)] = kit_summary.Stat(mean={"norm": base}, seeds=2)
        for q in rr_table4_fig19.T4_Q_SWEEP:
            tab[(rr_tables.sens_curve(v), q)] = kit_summary.Stat(
                mean={"norm": base * (1 - 1000 * q)}, seeds=2
            )
    tab[(ba, 0.0)] = kit_summary.Stat(mean={"norm": 0.8}, seeds=2)
    for q in rr_table4_fig19.T4_Q_SWEEP:
        tab[(ba, q)] = kit_summary.Stat(mean={"norm": 0.8 * (1 - 2000 * q)}, seeds=2)
    data = rr_table4_fig19.Table4(rr_tables.Points(tab, pd.DataFrame()), {})
    rr_table4_fig19.sensitivity_plot(data, tmp_path, True)
    csv = pd.read_csv(tmp_path / "table4-sensitivity.csv")
    ta = csv[csv["series"] == "DSACK-TA"].sort_values("x")
    assert list(ta["x"]) == pytest.approx([100 * q for q in rr_table4_fig19.T4_Q_SWEEP])
    assert list(ta["y"]) == pytest.approx([100 * 1000 * q for q in rr_table4_fig19.T4_Q_SWEEP])
    slow = csv[csv["series"] == rr_table4_fig19.T4_RESTORE].sort_values("x")
    assert list(slow["y"]) == pytest.approx([100 * 2000 * q for q in rr_table4_fig19.T4_Q_SWEEP])


@pytest.mark.parametrize(
    ("norms", "holds"),
    [((0.995, 0.995, 0.995), True), ((0.98, 0.98, 0.98), False), ((0.999, 0.985, 0.999), False)],
)
def test_the_setting_is_a_condition(norms: tuple[float, ...], holds: bool) -> None:
    """Sec. 5: "a TCP flow achieves throughput S", the calibration's own
    sentence: a condition of the setting, not a claim of the paper."""
    runs = pd.DataFrame(
        [{"curve": rr_setting.NODELAY, "x": 0.0, "seed": s, "norm": n} for s, n in enumerate(norms)]
    )
    claim = rr_fig4_5._setting_claim(rr_tables.Points({}, runs))
    assert claim.figure == "fig4"
    assert claim.kind == "condition"
    assert claim.holds is holds
    assert claim.quote.startswith("Thus, when we don't introduce")
