"""Recipes of seed 003 (high-speed TCPs): registration and scenario builders."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from reorderlab.papers import high_speed as hs
from reorderlab.papers import papers, select
from reorderlab.papers.common import RUNS, Plan, write_table
from reorderlab.scenario import DumbbellTopology, ReorderImpairment

EXPERIMENTS = Path(__file__).resolve().parents[2] / "shared" / "EXPERIMENTS.md"


def test_every_seed003_figure_is_registered() -> None:
    figs = papers()["high-speed"]
    got = {int(n) for key in figs for n in re.findall(r"\d+", key)}
    assert got == set(range(9, 15))
    assert set(figs) == set(hs.figures())
    assert {r.figure for r in select("high-speed")} == set(figs)


@pytest.mark.skipif(not EXPERIMENTS.exists(), reason="EXPERIMENTS.md not available")
def test_every_experiments_row_has_a_recipe() -> None:
    section = EXPERIMENTS.read_text(encoding="utf-8").split("## Seed 003", 1)[1]
    rows = re.findall(r"^\| 003-([^|]+?) \|", section.split("\n## ", 1)[0], flags=re.M)
    got = {int(n) for key in papers()["high-speed"] for n in re.findall(r"\d+", key)}
    for row in rows:
        assert {int(n) for n in re.findall(r"\d+", row)} <= got, row


def test_gigabit_dumbbell_and_generator_placement() -> None:
    sc = hs.scenario("TCP-NCR", "bic", 100.0, interval=0.05, delay=40e-6, block=3)
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    assert topo.bottleneck_rate == 1e9 and topo.bottleneck_delay == 0.05
    assert all(0.0001 <= d <= 0.0009 for d in topo.access_delays)
    # queue of one bandwidth-delay product: 1e9 * ~0.102 s / 12000 bits
    assert 8400 <= hs.bdp_packets() <= 8600
    (gen,) = sc.impairments
    assert isinstance(gen, ReorderImpairment)
    assert gen.link == "S0->R1"  # only the studied flow's access link
    assert gen.interval.model_dump() == {"dist": "exponential", "mean": 0.05}
    assert gen.block.model_dump() == {"dist": "constant", "value": 3.0}
    assert sc.flows[0].variant == "TCP-NCR" and sc.flows[0].cc == "bic"
    # background both ways, not through the generator
    assert {(t.server, t.client) for t in sc.traffic} == {("S1", "D1"), ("D2", "S2")}


def test_zero_delay_means_no_reordering() -> None:
    assert hs.scenario("SACK", "highspeed", 30.0, delay=0.0).impairments == []


class FakeRuns:
    """Runs of a plan with made-up throughputs (Mb/s by curve; rising with
    the reordering interval)."""

    def __init__(self, plan: Plan, level: dict[str, float]) -> None:
        self.plan, self.level = plan, level

    def table(self, name: str = RUNS) -> pd.DataFrame:
        rows = []
        for params, _ in self.plan[name].points:
            x = params["x"]
            mbps = self.level[params["curve"]] * (1 + x if x < 1 else 1)
            rows.append(
                {
                    **params,
                    "seed": 1,
                    "throughput_bps": mbps * 1e6,
                    "fast_retransmits": 0,
                    "spurious_fast_retransmits": 0,
                }
            )
        return pd.DataFrame(rows)


def test_rack_tlp_is_drawn_in_every_figure_but_not_judged() -> None:
    """BIC over RACK-TLP is an extra curve of Figs. 9-14; the claims use the
    paper's variants only (a RACK-TLP far above the rest changes none)."""
    level = {
        "BIC-SACK": 5.0,
        "HSTCP-SACK": 1.0,
        "CUBIC-SACK": 1.0,
        "BIC-RACK-TLP": 5000.0,
        "BIC-NCR": 900.0,
        "BIC-AVG-DEV": 800.0,
        "BIC-TCP-RR": 700.0,
    }
    curves_by_sweep: list[set[str]] = []
    claims = []
    for rec in papers()["high-speed"].values():
        plan = rec.points(True)
        curves_by_sweep += [{p["curve"] for p, _ in sweep.points} for sweep in plan.values()]
        data = rec.table(FakeRuns(plan, level), True).data  # type: ignore[arg-type]
        claims += rec.claims(data, True)
    drawn = [c for c in curves_by_sweep if len(c) > 2]
    assert len(drawn) == 6  # figs 9, 10, 11 and the three sweeps of 12-14
    assert all("BIC-RACK-TLP" in c for c in drawn)
    assert not any("RACK" in c.claim or "RACK" in c.measured for c in claims)
    best = next(c for c in claims if c.claim == "TCP-NCR performs best of the three")
    assert best.holds, best.measured


def test_a_figure_plot_does_not_replace_its_table(tmp_path: Path) -> None:
    # each recipe writes its table as figN.csv, then plots it: the plot's
    # CSV of points must go elsewhere (it replaced the table before)
    table = pd.DataFrame(
        {
            "curve": ["BIC-SACK", "BIC-SACK"],
            "x": [0.1, 1.0],
            "mbps": [10.0, 20.0],
            "seed_sd": [0.5, 0.7],
        }
    )
    write_table(tmp_path, "fig9", table)
    hs._plot(tmp_path, "fig9", table, "interval (s)", "Fig. 9", logx=True)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "fig9.csv"), table)
    assert (tmp_path / "fig9_throughput.png").exists()
    assert (tmp_path / "fig9_throughput.csv").exists()
