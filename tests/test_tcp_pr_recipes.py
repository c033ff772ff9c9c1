"""Recipes of the tcp-pr paper (TCP-PR): registration, scenario builders, metrics, one run."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import reorderlab as rl
from reorderlab.papers import papers, select
from reorderlab.papers.kit.mode import Mode, Modes
from reorderlab.papers.tcp_pr import fig4_5_7 as pr_fig4_5_7
from reorderlab.papers.tcp_pr import fig9 as pr_fig9
from reorderlab.papers.tcp_pr import fig11 as pr_fig11
from reorderlab.papers.tcp_pr import fig13 as pr_fig13
from reorderlab.papers.tcp_pr import fig15_16 as pr_fig15_16
from reorderlab.papers.tcp_pr import setting as pr_setting
from reorderlab.papers.tcp_pr import tables as pr_tables
from reorderlab.reproduce import reproduce
from reorderlab.scenario import (
    DumbbellTopology,
    ParkingLotTopology,
    PositionedImpairment,
    RedQueue,
    SwapImpairment,
)

PAPERS_DOC = Path(__file__).resolve().parents[1] / "docs" / "papers.md"


def figures_of(key: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", key)}


def test_every_tcp_pr_paper_figure_is_registered_and_run_by_default() -> None:
    figs = papers()["tcp-pr"]
    got = set().union(*(figures_of(k) for k in figs))
    assert got >= {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16}
    assert set(figs) == set(pr_setting.figures())
    assert {r.figure for r in select("tcp-pr")} == set(figs)


def test_every_papers_doc_row_has_a_recipe() -> None:
    section = PAPERS_DOC.read_text(encoding="utf-8").split("\n## The tcp-pr paper", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = re.findall(r"^\| ((?:fig|fair-)[^|]*?) \|", section, flags=re.MULTILINE)
    assert len(rows) == 8
    got = set().union(*(figures_of(k) for k in papers()["tcp-pr"]))
    named = {
        "fair-dumbbell": {4, 5, 7},
        "fair-reno": {6, 8},
        "fair-http": {9},
        "fair-parkinglot": {10},
    }
    for row in rows:
        wanted = named.get(row, figures_of(row))
        assert wanted and wanted <= got, f"row {row} not covered"


def test_dumbbell_has_the_papers_propagation_rtt_and_alternating_protocols() -> None:
    sc = pr_setting.dumbbell(6, rtt=0.2, limit=25, qdisc="red", duration=100.0)
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(0.2)
    assert [f.variant for f in sc.flows] == ["TCP-PR", "SACK"] * 3
    assert sc.warmup == pytest.approx(40.0)  # the last 60 s are measured
    assert max(f.start for f in sc.flows) < 5.0
    with_bg = pr_setting.dumbbell(4, http=True)
    # calibrated to the paper's "around 10%" (the paper's 50 sessions: 48 %)
    assert with_bg.traffic[0].sessions == pr_setting.WEB_SESSIONS == 10
    assert with_bg.traffic[0].closed_loop


def test_seeds_differ_by_their_flows_start_times() -> None:
    first = [f.start for f in pr_setting.dumbbell(8, seed=1).flows]
    assert first == [5.0 * i / 8 for i in range(8)]  # seed 1: evenly spread
    second = [f.start for f in pr_setting.dumbbell(8, seed=2).flows]
    assert second != first and all(0.0 <= t < 5.0 for t in second)
    assert second == [f.start for f in pr_setting.dumbbell(8, seed=2).flows]  # deterministic
    assert [f.start for f in pr_setting.parking_lot(8, seed=3).flows] == pr_setting.flow_starts(
        8, 3
    )
    # each seed's sweep holds that seed's scenarios
    plan = pr_fig11.FIGURES[0].points(True)
    assert sorted(plan) == ["runs", *(f"runs@{s}" for s in range(2, pr_setting.QUICK_SEEDS + 1))]
    assert plan["runs@2"].seeds == [2]
    starts = {k: [f.start for f in v.points[0][1].flows] for k, v in plan.items()}
    assert starts["runs"] == pr_setting.flow_starts(32, 1) and starts[
        "runs@3"
    ] == pr_setting.flow_starts(32, 3)


def test_the_papers_ns2_agents_run_without_limited_transmit() -> None:
    """Sec. III-B's SACK (and Reno, and the web sessions) without limited
    transmit; the Blanton-Allman schemes and TD-FR keep their own (on)."""
    sc = pr_setting.dumbbell(4, variants=("SACK", "Reno"), http=True)
    assert {f.variant: f.tcp.limited_transmit for f in sc.flows} == {"SACK": False, "Reno": False}
    assert sc.traffic[0].tcp.limited_transmit is False
    pr = pr_setting.dumbbell(4)
    assert {f.variant: f.tcp.limited_transmit for f in pr.flows} == {"TCP-PR": None, "SACK": False}
    on = pr_setting.dumbbell(4, lt=True, http=True)
    assert {f.variant: f.tcp.limited_transmit for f in on.flows} == {"TCP-PR": None, "SACK": True}
    assert on.traffic[0].tcp.limited_transmit is True
    for build in (pr_setting.swap_scenario, pr_setting.mesh_scenario):
        assert build("SACK", 0.03, 0, 10.0).flows[0].tcp.limited_transmit is False
        assert build("TD-FR", 0.03, 0, 10.0).flows[0].tcp.limited_transmit is None


@pytest.mark.parametrize("lt", [False, True])
def test_sack_times_out_on_a_drop_at_cwnd_below_4_without_limited_transmit(lt: bool) -> None:
    """Sec. III-B: SACK enters "the timeout mode [...] when drops occur while
    the congestion window size is smaller than 4" (not enough duplicate
    ACKs): the second segment lost at a window of 3 leaves two duplicate
    ACKs. With limited transmit two more segments give the third."""
    sc = pr_setting.dumbbell(1, variants=("SACK", "SACK"), lt=lt, duration=20.0)
    sc.warmup = 0.0
    sc.flows[0].segments = 8
    sc.impairments = [PositionedImpairment(link="R1->R2", flow=0, segments=[1])]
    flow = rl.run(sc, seed=1).flows.iloc[0]
    assert bool(flow["completed"])
    assert (int(flow["timeouts"]), int(flow["fast_retransmits"])) == ((0, 1) if lt else (1, 0))


def test_red_thresholds_default_to_ns2_and_can_be_swept() -> None:
    red = pr_setting.dumbbell(2, qdisc="red", limit=25).topology
    assert isinstance(red, DumbbellTopology) and isinstance(red.queue, RedQueue)
    assert (red.queue.min_th, red.queue.max_th) == pr_setting.RED_THRESHOLDS == (5.0, 15.0)
    swept = pr_setting.dumbbell(2, qdisc="red", limit=25, red=(10.0, 30.0)).topology
    assert isinstance(swept, DumbbellTopology) and isinstance(swept.queue, RedQueue)
    assert (swept.queue.min_th, swept.queue.max_th) == (10.0, 30.0)


def test_parking_lot_matches_fig3() -> None:
    sc = pr_setting.parking_lot(8, duration=100.0)
    topo = sc.topology
    assert isinstance(topo, ParkingLotTopology)
    assert topo.cross_access_rates == [5e6, 1.66e6, 2.5e6]
    rtt = 2 * (3 * topo.hop_delay + 2 * topo.access_delay)
    assert rtt == pytest.approx(0.02)
    sessions = {(t.server, t.client): t.sessions for t in sc.traffic}
    assert sum(sessions.values()) == 80  # 8 web pairs x 10 sessions
    assert sessions[("CS1", "CD1")] == sessions[("CS3", "CD3")] == 20
    assert all(f.src == "S" and f.dst == "D" for f in sc.flows)


def test_swap_and_mesh_scenarios() -> None:
    sc = pr_setting.swap_scenario("TD-FR", 0.18, 20, 50.0)
    assert sc.impairments == [SwapImpairment(link="R1->R2", period=1.0, swaps=20)]
    assert pr_setting.swap_scenario("SACK", 0.03, 0, 50.0).impairments == []
    mesh = pr_setting.mesh_scenario("TCP-PR", 0.06, 2.0, 50.0)
    mp = mesh.multipath[0]
    assert [len(p) for p in mp.paths] == [3, 4, 5]
    # paths are node-disjoint apart from S and D
    inner = [{link.split("->")[1] for link in p[:-1]} for p in mp.paths]
    assert not (inner[0] & inner[1]) and not (inner[1] & inner[2])


def _fair_run(seed: int, t: float) -> dict[str, object]:
    """One 2-flow run's row: TCP-PR (flow 0) gets ``t`` of the mean."""
    return {
        "panel": "p",
        "n": 2,
        "seed": seed,
        "norm.TCP-PR": t,
        "norm.SACK": 2 - t,
        "cov.TCP-PR": 0.0,
        "cov.SACK": 0.0,
        "jain_index": 0.9,
        "f0.variant": "TCP-PR",
        "f1.variant": "SACK",
        "f0.timeouts": 4,
        "f1.timeouts": 2,
        "f0.fast_recoveries": 10,
        "f1.fast_recoveries": 20,
        "f0.data_drops": 1,
        "f0.data_packets_sent": 100,
        "f1.data_drops": 3,
        "f1.data_packets_sent": 100,
        "f2.data_drops": math.nan,  # a wider run's column
        "f0.throughput_bps": 8e3,
        "f1.throughput_bps": 8e3,
    }


def test_fairness_table_means_over_seeds_and_drop_rate() -> None:
    df = pd.DataFrame([_fair_run(s, t) for s, t in ((1, 0.9), (2, 1.1))])
    table = pr_tables.fairness_table(df, ("TCP-PR", "SACK"))
    row = table.iloc[0]
    assert row["norm.TCP-PR"] == pytest.approx(1.0)
    assert row["drop_rate"] == pytest.approx(0.02)
    assert row["background_share"] == 0.0
    assert (row["timeouts.TCP-PR"], row["recoveries.SACK"]) == (4.0, 20.0)


def test_fairness_claim_is_a_band_per_n_over_the_seeds() -> None:
    """Fair when the 95 % CI of TCP-PR's mean normalized throughput is in
    [0.8, 1.2] at every n; a seed spread reaching past the band fails it."""
    fair = pd.DataFrame([_fair_run(s, t) for s, t in ((1, 0.97), (2, 1.0), (3, 1.03))])
    (claim,) = pr_tables.fair_claims("figX", fair)
    assert claim.holds and claim.seed_share == 1.0 and claim.quote == pr_tables.FAIR_QUOTE
    assert claim.tests[0]["test"] == "band" and claim.tests[0]["params"]["hi"] == 1.2
    wide = pd.DataFrame([_fair_run(s, t) for s, t in ((1, 0.9), (2, 1.0), (3, 1.19))])
    (claim,) = pr_tables.fair_claims("figX", wide)
    assert not claim.holds and claim.seed_share == 1.0  # each seed in the band, the CI not


def test_fig13_claims_read_the_paper_s_quantities() -> None:
    """SACK below the others' mean; the median dupack variant below
    min(TCP-PR, TD-FR) ("most methods")."""
    by = dict(
        zip(pr_setting.REORDER_VARIANTS, (10.0, 8.0, 10.0, 10.0, 10.0, 10.0, 12.0), strict=True)
    )
    assert pr_fig13.sack_shortfall(by) == pytest.approx(1 - 8 / (62 / 6))
    # SACK 8 and three at 10 against min(TCP-PR 10, TD-FR 12): the median is 0
    assert pr_fig13.most_shortfall(by) == pytest.approx(0.0)
    # SACK 0.2, Inc-by-1 0.3, EWMA 0.25 below, two at 0: the third largest is 0.2
    assert pr_fig13.most_shortfall({**by, "Inc-by-1": 7.0, "EWMA": 7.5}) == pytest.approx(0.2)


def test_fig13_quick_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # shorter runs and fewer seeds than quick mode's: the pipeline, not the verdicts
    monkeypatch.setattr(pr_fig13, "MODE", Modes(full=Mode(200.0, 3), quick=Mode(20.0, 3)))
    monkeypatch.setattr(pr_fig13, "SENS_DURATIONS", {True: (20.0, 40.0), False: ()})
    out = reproduce("tcp-pr", "fig13", quick=True, out=tmp_path, store=None)
    claims = out["tcp-pr"]
    assert len(claims) == 4 and all(c.quote and c.where and c.tests for c in claims)
    saved = json.loads((tmp_path / "tcp-pr" / "claims.json").read_text())
    assert [c["measured"] for c in saved] == [c.measured for c in claims]
    table = pd.read_csv(tmp_path / "tcp-pr" / "fig13.csv")
    assert set(table["variant"]) == set(pr_setting.REORDER_VARIANTS)
    assert (tmp_path / "tcp-pr" / "fig13-1.png").exists()
    # the sensitivity sweeps are drawn beside the figure, quick mode too
    sens = pd.read_csv(tmp_path / "tcp-pr" / "fig13-sensitivity.csv")
    assert set(sens["series"]) >= set(pr_fig13.SENS_SWAP_DELAYS)
    dur = pd.read_csv(tmp_path / "tcp-pr" / "fig13-duration-sensitivity.csv")
    assert sorted(dur["x"].unique()) == [20.0, 40.0]
    # TCP-PR ignores swaps (the paper's flat curve) whatever else holds.
    flat = [c for c in claims if "independent of K" in c.claim]
    assert flat and all(c.holds for c in flat)


def test_sensitivity_runs_join_the_plan_but_not_the_claims() -> None:
    quick, full = pr_fig4_5_7.FIGURES[0].points(True), pr_fig4_5_7.FIGURES[0].points(False)
    assert "sensitivity" in quick and "sensitivity@2" not in quick  # 1 seed quick
    assert quick["sensitivity"].seeds == [1] and full["sensitivity@3"].seeds == [3]
    params = [p for p, _ in quick["sensitivity"].points]
    assert {p["setting"] for p in params} == {
        *pr_fig4_5_7.SENS_RED_SETTINGS,
        pr_fig4_5_7.SENS_DROPTAIL,
    }
    assert {p["lt"] for p in params} == {True, False}
    # the LT-off point at ns-2's thresholds is the figure's own 16-flow run
    same = [sc for p, sc in quick["sensitivity"].points if p["min_th"] == 5.0 and not p["lt"]]
    own = pr_tables.PR_PANELS["Fig. 4 RED, 15 Mb/s, 20 ms, 25 pkts"](
        16, pr_setting.QUICK_DURATION, 1
    )
    assert same[0] == own


def test_swap_sensitivity_measures_both_claims_quantities() -> None:
    rows = pd.DataFrame(
        [
            {
                "sweep": "rate",
                "delay": "d",
                "rate": 1e6,
                "duration": 90.0,
                "undo": "own",
                "variant": v,
                "seed": 1,
                "throughput_bps": t,
            }
            for v, t in zip(pr_setting.REORDER_VARIANTS, (10, 8, 10, 10, 10, 10, 10), strict=True)
        ]
    )
    own = pr_fig13._sens_table(rows)
    assert list(own["undo"]) == ["own"]
    # SACK 8 against the others' mean of 10; the median dupack variant at 0
    assert list(own["shortfall"]) == pytest.approx([0.2])
    assert list(own["most_shortfall"]) == pytest.approx([0.0])
    # the Blanton-Allman schemes with given undo responses instead of their
    # own: 10 restoring at once, 6 undoing by slow start
    bl = rows["variant"].isin(pr_fig13.BL_VARIANTS)
    restore = rows[bl].assign(undo="restore")
    slow = rows[bl].assign(undo="slow-start", throughput_bps=6.0)
    table = pr_fig13._sens_table(pd.concat([rows[~bl], restore, slow], ignore_index=True))
    assert list(table["undo"]) == ["restore", "slow-start"]
    # SACK 8 against the others' mean: 10, then (10 + 10 + 10 + 3 x 6) / 6 = 8
    assert list(table["shortfall"]) == pytest.approx([0.2, 0.0])
    # restore: SACK 0.2, the rest 0 -> 0; slow start: three at 0.4, SACK 0.2 -> 0.4
    assert list(table["most_shortfall"]) == pytest.approx([0.0, 0.4])
    # their own runs kept beside the slow-start ones (the 30 ms sweep): both rows
    both = pr_fig13._sens_table(pd.concat([rows, slow], ignore_index=True))
    assert list(both["undo"]) == ["own", "slow-start"]
    assert list(both["shortfall"]) == pytest.approx([0.2, 0.0])


def test_swap_sensitivity_gives_the_undo_to_the_blanton_allman_schemes_only() -> None:
    points = pr_fig13._sens_points(True, 1)
    undo = {
        (p["sweep"], p["delay"], p["undo"], p["variant"]): sc.flows[0].tcp.undo_response
        for p, sc in points
    }
    assumed = pr_fig13.ASSUMED_DELAY
    assert undo[("rate", assumed, "slow-start", "EWMA")] == "slow-start"
    assert undo[("rate", assumed, "own", "EWMA")] is None
    assert ("rate", "30 ms round trip", "slow-start", "EWMA") not in undo
    assert ("rate", assumed, "slow-start", "SACK") not in undo
    assert undo[("duration", "180 ms one-way", "restore", "Inc-by-N")] == "restore"
    assert ("duration", "180 ms one-way", "own", "Inc-by-N") not in undo


def test_mesh_sensitivity_sets_the_undo_and_compares_with_the_meshs_tcp_pr() -> None:
    points = pr_fig15_16._sens_points(True, 1)
    undo = {
        (p["mesh"], p["case"]): sc.flows[0].tcp.undo_response
        for p, sc in points
        if p["sweep"] == "mesh" and p["delay"] == 0.01
    }
    assert undo[("3/4/5 hops, undo at once", "EWMA")] == "restore"
    assert undo[("3/4/5 hops, undo by slow start", "Inc-by-N")] == "slow-start"
    assert undo[("3/4/5 hops (assumed)", "Inc-by-N")] is None  # the variant's own
    assert ("3/4/5 hops, undo at once", pr_setting.PR) not in undo  # TCP-PR does not undo
    rows = pd.DataFrame(
        [
            {"sweep": "mesh", "case": c, "duration": 90.0, "mesh": m, "delay": 0.01, "seed": 1,
             "throughput_bps": t}
            for m, c, t in [
                ("3/4/5 hops (assumed)", pr_setting.PR, 20.0),
                ("3/4/5 hops (assumed)", "EWMA", 10.0),
                ("3/4/5 hops, undo by slow start", "EWMA", 2.0),
                ("3/5/7 hops", pr_setting.PR, 40.0),
                ("3/5/7 hops", "EWMA", 10.0),
            ]
        ]
    )  # fmt: skip
    rel = pr_fig15_16._sens_table(rows).set_index(["mesh", "case"])["relative"]
    assert rel[("3/4/5 hops, undo by slow start", "EWMA")] == pytest.approx(0.1)  # of 20
    assert rel[("3/5/7 hops", "EWMA")] == pytest.approx(0.25)  # its own mesh's 40


def test_web_sensitivity_reports_the_background_share() -> None:
    row = {
        "sweep": "sessions",
        "qdisc": "droptail",
        "sessions": 8,
        "n": 16,
        "min_th": 5.0,
        "seed": 1,
        "norm.TCP-PR": 1.0,
        "norm.SACK": 1.0,
        "f0.throughput_bps": 8e6 / 60,  # 1 MB over the 60 s window
        "t0.bytes_delivered_measured": 1e6 / 9,
    }
    table = pr_fig9._sens_table(pd.DataFrame([row]))
    assert table["share"].iloc[0] == pytest.approx(0.1)
    assert {p["sweep"] for p, _ in pr_fig9._sens_points(True, 1)} == {"sessions", "red"}
