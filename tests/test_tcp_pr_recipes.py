"""Recipes of seed 001 (TCP-PR): registration, scenario builders, metrics, one run."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from reorderlab.papers import papers, reproduce, select
from reorderlab.papers import tcp_pr as pr
from reorderlab.scenario import DumbbellTopology, ParkingLotTopology, SwapImpairment

EXPERIMENTS = Path(__file__).resolve().parents[2] / "shared" / "EXPERIMENTS.md"


def figures_of(key: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", key)}


def test_every_seed001_figure_is_registered_and_run_by_default() -> None:
    figs = papers()["tcp-pr"]
    got = set().union(*(figures_of(k) for k in figs))
    assert got >= {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16}
    assert set(figs) == set(pr.figures())
    assert {r.figure for r in select("tcp-pr")} == set(figs)


@pytest.mark.skipif(not EXPERIMENTS.exists(), reason="EXPERIMENTS.md not available")
def test_every_experiments_row_has_a_recipe() -> None:
    section = EXPERIMENTS.read_text(encoding="utf-8").split("## Seed 001", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = re.findall(r"^\| 001-([^|]+?) \|", section, flags=re.MULTILINE)
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
        assert wanted and wanted <= got, f"row 001-{row} not covered"


def test_dumbbell_has_the_papers_propagation_rtt_and_alternating_protocols() -> None:
    sc = pr.dumbbell(6, rtt=0.2, limit=25, qdisc="red", duration=100.0)
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(0.2)
    assert [f.variant for f in sc.flows] == ["TCP-PR", "SACK"] * 3
    assert sc.warmup == pytest.approx(40.0)  # the last 60 s are measured
    assert max(f.start for f in sc.flows) < 5.0
    with_bg = pr.dumbbell(4, http=True)
    assert with_bg.traffic[0].sessions == 50 and with_bg.traffic[0].closed_loop


def test_reno_reference_gets_limited_transmit_like_ns2() -> None:
    sc = pr.dumbbell(4, variants=("SACK", "Reno"))
    lt = {f.variant: f.tcp.limited_transmit for f in sc.flows}
    assert lt == {"SACK": None, "Reno": True}


def test_parking_lot_matches_fig3() -> None:
    sc = pr.parking_lot(8, duration=100.0)
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
    sc = pr.swap_scenario("TD-FR", 0.18, 20, 50.0)
    assert sc.impairments == [SwapImpairment(link="R1->R2", period=1.0, swaps=20)]
    assert pr.swap_scenario("SACK", 0.03, 0, 50.0).impairments == []
    mesh = pr.mesh_scenario("TCP-PR", 0.06, 2.0, 50.0)
    mp = mesh.multipath[0]
    assert [len(p) for p in mp.paths] == [3, 4, 5]
    # paths are node-disjoint apart from S and D
    inner = [{link.split("->")[1] for link in p[:-1]} for p in mp.paths]
    assert not (inner[0] & inner[1]) and not (inner[1] & inner[2])


def test_fairness_table_means_over_seeds_and_drop_rate() -> None:
    df = pd.DataFrame(
        [
            {
                "panel": "p",
                "n": 2,
                "seed": s,
                "norm.TCP-PR": t,
                "norm.SACK": 2 - t,
                "cov.TCP-PR": 0.0,
                "cov.SACK": 0.0,
                "jain_index": 0.9,
                "f0.data_drops": 1,
                "f0.data_packets_sent": 100,
                "f1.data_drops": 3,
                "f1.data_packets_sent": 100,
                "f2.data_drops": math.nan,  # a wider run's column
                "f0.throughput_bps": 8e3,
                "f1.throughput_bps": 8e3,
            }
            for s, t in ((1, 0.9), (2, 1.1))
        ]
    )
    table = pr.fairness_table(df, ("TCP-PR", "SACK"))
    row = table.iloc[0]
    assert row["norm.TCP-PR"] == pytest.approx(1.0)
    assert row["drop_rate"] == pytest.approx(0.02)
    assert row["background_share"] == 0.0
    claims = pr._fair_claims("figX", table, ("TCP-PR", "SACK"), "both")
    assert len(claims) == 1 and claims[0].holds


def test_fig13_quick_end_to_end(tmp_path: Path) -> None:
    out = reproduce("tcp-pr", "fig13", quick=True, out=tmp_path, store=None)
    claims = out["tcp-pr"]
    assert len(claims) == 4
    saved = json.loads((tmp_path / "tcp-pr" / "claims.json").read_text())
    assert [c["measured"] for c in saved] == [c.measured for c in claims]
    table = pd.read_csv(tmp_path / "tcp-pr" / "fig13.csv")
    assert set(table["variant"]) == set(pr.REORDER_VARIANTS)
    assert (tmp_path / "tcp-pr" / "fig13-1.png").exists()
    # TCP-PR ignores swaps (the paper's flat curve) whatever else holds.
    flat = [c for c in claims if "independent of K" in c.claim]
    assert flat and all(c.holds for c in flat)
