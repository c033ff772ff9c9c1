"""Recipes of the high-speed paper (high-speed TCPs): registration and scenario builders."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from reorderlab.papers import papers, select
from reorderlab.papers.high_speed import fig9 as hs_fig9
from reorderlab.papers.high_speed import setting as hs_setting
from reorderlab.papers.kit import sensitivity as kit_sensitivity
from reorderlab.papers.kit.runs import RUNS, Plan, write_table
from reorderlab.runner import engine_version
from reorderlab.scenario import DumbbellTopology, ReorderImpairment

PAPERS_DOC = Path(__file__).resolve().parents[1] / "docs" / "papers.md"


def test_every_high_speed_paper_figure_is_registered() -> None:
    figs = papers()["high-speed"]
    got = {int(n) for key in figs for n in re.findall(r"\d+", key)}
    assert got == set(range(9, 15))
    assert set(figs) == set(hs_setting.figures())
    assert {r.figure for r in select("high-speed")} == set(figs)


def test_every_papers_doc_row_has_a_recipe() -> None:
    section = PAPERS_DOC.read_text(encoding="utf-8").split("\n## The high-speed paper", 1)[1]
    rows = re.findall(r"^\| (fig[^|]*?) \|", section.split("\n## ", 1)[0], flags=re.M)
    assert len(rows) == 4
    got = {int(n) for key in papers()["high-speed"] for n in re.findall(r"\d+", key)}
    for row in rows:
        assert {int(n) for n in re.findall(r"\d+", row)} <= got, row


def test_gigabit_dumbbell_and_generator_placement() -> None:
    sc = hs_setting.scenario("TCP-NCR", "bic", 100.0, interval=0.05, delay=40e-6, block=3)
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    assert topo.bottleneck_rate == 1e9 and topo.bottleneck_delay == 0.05
    assert all(0.0001 <= d <= 0.0009 for d in topo.access_delays)
    # queue of one bandwidth-delay product: 1e9 * ~0.102 s / 12000 bits
    assert 8400 <= hs_setting.bdp_packets() <= 8600
    (gen,) = sc.impairments
    assert isinstance(gen, ReorderImpairment)
    assert gen.link == "S0->R1"  # only the studied flow's access link
    assert gen.interval.model_dump() == {"dist": "exponential", "mean": 0.05}
    assert gen.block.model_dump() == {"dist": "constant", "value": 3.0}
    assert sc.flows[0].variant == "TCP-NCR" and sc.flows[0].cc == "bic"
    # background both ways, not through the generator
    assert {(t.server, t.client) for t in sc.traffic} == {("S1", "D1"), ("D2", "S2")}


def test_zero_delay_means_no_reordering() -> None:
    assert hs_setting.scenario("SACK", "highspeed", 30.0, delay=0.0).impairments == []


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
        curves_by_sweep += [
            {p["curve"] for p, _ in sweep.points}
            for name, sweep in plan.items()
            if name != kit_sensitivity.SENSITIVITY
        ]
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
    line = hs_setting.throughput_figure("fig9", "interval (s)", "Fig. 9", logx=True)
    line.draw(tmp_path, hs_setting.curves(table))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "fig9.csv"), table)
    assert (tmp_path / "fig9_throughput.png").exists()
    assert (tmp_path / "fig9_throughput.csv").exists()


def test_default_setting_is_the_figures_own_scenario() -> None:
    """A sensitivity point under the default setting is the same run as the
    figure's (same cache key), so it is simulated once."""
    version = engine_version()
    plain = hs_setting.scenario("TCP-NCR", "bic", 30.0, block=2)
    explicit = hs_setting.scenario(
        "TCP-NCR", "bic", 30.0, block=2, setting=hs_setting.Setting(max_hold=10e-3)
    )
    assert plain.cache_key(1, version) == explicit.cache_key(1, version)
    assert hs_setting.at_point("SACK", "bic", 30.0, "delay", 60e-6).cache_key(1, version) == (
        hs_setting.scenario("SACK", "bic", 30.0, delay=60e-6).cache_key(1, version)
    )
    with pytest.raises(ValueError, match="param"):
        hs_setting.at_point("SACK", "bic", 30.0, "rate", 1.0)


def test_settings_change_only_what_they_name() -> None:
    base = hs_setting.scenario("SACK", "highspeed", 30.0)
    delack = hs_setting.scenario("SACK", "highspeed", 30.0, setting=hs_setting.DELAYED_ACK)
    assert delack.flows[0].receiver.delayed_ack == "rfc1122"
    assert all(t.receiver.delayed_ack == "none" for t in delack.traffic)  # background as before
    assert delack.impairments == base.impairments
    gig = hs_setting.scenario("SACK", "highspeed", 30.0, setting=hs_setting.GIGABIT_ACCESS)
    (gen,) = gig.impairments
    assert isinstance(gen, ReorderImpairment) and gen.position == "egress"
    assert isinstance(gig.topology, DumbbellTopology) and gig.topology.access_rate == 1e9
    assert gig.flows == base.flows
    held = hs_setting.scenario(
        "SACK", "highspeed", 30.0, setting=hs_setting.Setting(max_hold=20e-6)
    )
    (gen,) = held.impairments
    assert isinstance(gen, ReorderImpairment) and gen.max_hold == 20e-6
    assert gen.position is None  # before the access link's queue, as by default


def test_sensitivity_figures_are_written_and_change_no_claim(tmp_path: Path) -> None:
    """fig9, fig10 and fig12 draw <fig>_sensitivity (PNG + CSV of points)
    with one line per curve and setting; their runs do not enter the claims."""
    level = {
        "BIC-SACK": 5.0,
        "HSTCP-SACK": 1.0,
        "CUBIC-SACK": 1.0,
        "BIC-RACK-TLP": 900.0,
        "BIC-NCR": 900.0,
        "BIC-AVG-DEV": 800.0,
        "BIC-TCP-RR": 700.0,
    }
    figs = papers()["high-speed"]
    for key, stem in (("fig9", "fig9"), ("fig10", "fig10"), ("fig12-13-14", "fig12")):
        rec = figs[key]
        plan = rec.points(True)
        assert kit_sensitivity.SENSITIVITY in plan
        data = rec.table(FakeRuns(plan, level), True).data  # type: ignore[arg-type]
        rec.plot(data, tmp_path, True)
        assert (tmp_path / f"{stem}_sensitivity.png").exists()
        points = pd.read_csv(tmp_path / f"{stem}_sensitivity.csv")
        names = set(points["series"])
        if stem == "fig12":
            assert {"BIC-NCR, block 1", "BIC-NCR, block 2", "BIC-SACK, block 1"} <= names
            assert set(points["x"]) == {h * 1e6 for h in hs_setting.QUICK_HOLDS}
        else:
            assert {"BIC-SACK, default", "BIC-SACK, delayed ACK"} <= names
        # the sensitivity runs far off: the claims stay what the figure's runs give
        before = rec.claims(data, True)
        level_off = {**level, "BIC-SACK": 1e4, "BIC-NCR": 1e-3}
        off = _sensitivity_only(plan, level, level_off)
        after = rec.claims(rec.table(off, True).data, True)  # type: ignore[arg-type]
        assert [c.to_dict() for c in after] == [c.to_dict() for c in before]


def _sensitivity_only(plan: Plan, level: dict[str, float], other: dict[str, float]) -> FakeRuns:
    """FakeRuns with ``other`` levels for the sensitivity sweep only."""
    runs = FakeRuns(plan, level)
    own = runs.table

    def table(name: str = RUNS) -> pd.DataFrame:
        return (
            FakeRuns(plan, other).table(name) if name == kit_sensitivity.SENSITIVITY else own(name)
        )

    runs.table = table  # type: ignore[method-assign]
    return runs


def test_fig9_tabulates_its_seed_spread_without_judging_it() -> None:
    """fig9_seeds.csv: BIC and HSTCP at the largest interval with either ACK
    policy over more seeds than the figure (6 in full mode), each run and
    its mean / min / max; the claims read the figure's runs only."""
    rec = papers()["high-speed"]["fig9"]
    full = rec.points(False)[hs_fig9.SEED_SPREAD]
    assert full.seed_list() == [1, 2, 3, 4, 5, 6]
    params = [p for p, _ in full.points]
    assert {(p["curve"], p["setting"]) for p in params} == {
        (c, s) for c in ("BIC-SACK", "HSTCP-SACK") for s in ("default", "delayed ACK")
    }
    assert {p["x"] for p in params} == {max(hs_setting.FIG9_INTERVALS)}
    level = {"BIC-SACK": 5.0, "HSTCP-SACK": 1.0, "CUBIC-SACK": 1.0, "BIC-RACK-TLP": 9.0}
    plan = rec.points(True)
    derived = rec.table(FakeRuns(plan, level), True)  # type: ignore[arg-type]
    assert "fig9_seeds" in derived.csv
    runs = pd.DataFrame(
        {
            "curve": ["HSTCP-SACK"] * 3,
            "setting": ["delayed ACK"] * 3,
            "x": [0.5] * 3,
            "seed": [1, 2, 3],
            "throughput_bps": [3e6, 4e6, 89e6],
            "fast_retransmits": [30, 31, 20],
            "spurious_fast_retransmits": [30, 31, 20],
        }
    )
    table = hs_fig9.seed_spread_table(runs).set_index("seed")
    assert list(table.index) == ["1", "2", "3", "mean", "min", "max"]
    assert table.loc["mean", "mbps"] == pytest.approx(32.0)
    assert (table.loc["min", "mbps"], table.loc["max", "mbps"]) == (3.0, 89.0)
    assert table.loc["max", "spurious"] == 31
