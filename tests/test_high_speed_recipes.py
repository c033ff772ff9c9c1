"""Recipes of the high-speed paper (high-speed TCPs): registration, scenario
builders, the seeded claims on made-up runs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from reorderlab.papers import papers, select
from reorderlab.papers.high_speed import fig12_13_14 as hs_fig12
from reorderlab.papers.high_speed import measures as hs_measures
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
    # the paper's blocks are "delayed for a reordering delay time" (Sec. III-B)
    assert gen.anchor == "block-arrival"
    assert sc.flows[0].variant == "TCP-NCR" and sc.flows[0].cc == "bic"
    # background both ways, not through the generator
    assert {(t.server, t.client) for t in sc.traffic} == {("S1", "D1"), ("D2", "S2")}


def test_zero_delay_means_no_reordering() -> None:
    assert hs_setting.scenario("SACK", "highspeed", 30.0, delay=0.0).impairments == []


def test_the_later_packet_anchor_is_the_old_scenario() -> None:
    """The sensitivity runs of the later-packet anchor leave the generator's
    default anchor unset: the same scenarios (and store keys) as the runs
    made before the block-arrival anchor existed."""
    later = hs_setting.scenario("TCP-NCR", "bic", 30.0, setting=hs_setting.LATER_PACKET)
    (gen,) = later.impairments
    assert isinstance(gen, ReorderImpairment) and gen.anchor is None
    assert "anchor" not in later.to_dict()["impairments"][0]
    own = hs_setting.scenario("TCP-NCR", "bic", 30.0)
    version = engine_version()
    assert own.cache_key(1, version) != later.cache_key(1, version)


class FakeRuns:
    """Runs of a plan with made-up throughputs: Mb/s by curve, rising with
    the reordering interval, and a per-seed factor ``spread`` (seed s gets
    ``1 + spread * (s - 3)``)."""

    def __init__(self, plan: Plan, level: dict[str, float], spread: float = 0.01) -> None:
        self.plan, self.level, self.spread = plan, level, spread

    def table(self, name: str = RUNS) -> pd.DataFrame:
        rows = []
        sweep = self.plan[name]
        for params, _ in sweep.points:
            x = params["x"]
            for seed in sweep.seed_list():
                mbps = self.level[params["curve"]] * (1 + x if x < 1 else 1)
                mbps *= 1 + self.spread * (seed - 3)
                rows.append(
                    {
                        **params,
                        "seed": seed,
                        "throughput_bps": mbps * 1e6,
                        "fast_retransmits": 0,
                        "spurious_fast_retransmits": 0,
                    }
                )
        return pd.DataFrame(rows)


LEVEL = {
    "BIC-SACK": 5.0,
    "HSTCP-SACK": 1.0,
    "CUBIC-SACK": 1.0,
    "BIC-RACK-TLP": 5000.0,
    "BIC-NCR": 900.0,
    "BIC-AVG-DEV": 800.0,
    "BIC-TCP-RR": 700.0,
}


def _claims(quick: bool, level: dict[str, float]) -> list:  # type: ignore[type-arg]
    out = []
    for rec in papers()["high-speed"].values():
        plan = rec.points(quick)
        out += rec.claims(rec.table(FakeRuns(plan, level), quick).data, quick)  # type: ignore[arg-type]
    return out


def test_rack_tlp_is_drawn_in_every_figure_but_not_judged() -> None:
    """BIC over RACK-TLP is an extra curve of Figs. 9-14, in sweeps of its
    own (fewer seeds); the claims use the paper's variants only (a RACK-TLP
    far above the rest changes none)."""
    extra: list[set[str]] = []
    for rec in papers()["high-speed"].values():
        for quick in (True, False):
            plan = rec.points(quick)
            for name, sweep in plan.items():
                curves = {p["curve"] for p, _ in sweep.points}
                if name.startswith(hs_setting.EXTRA):
                    extra.append(curves)
                    assert len(sweep.seed_list()) == hs_setting.EXTRA_MODE(quick).seeds
                else:
                    assert "BIC-RACK-TLP" not in curves and "CUBIC-SACK" not in curves, name
    assert len(extra) == 2 * 6  # figs 9, 10, 11 and the three panels of 12-14, both modes
    assert all("BIC-RACK-TLP" in c for c in extra)
    claims = _claims(True, LEVEL)
    assert not any("RACK" in c.claim or "RACK" in c.measured for c in claims)
    assert claims == _claims(True, {**LEVEL, "BIC-RACK-TLP": 1e-3})


def test_every_claim_quotes_its_sentence_and_reads_every_seed() -> None:
    """Each claim is a seeded check with the paper's sentence; in full mode
    its records have the figure's five seeds."""
    for quick, seeds in ((True, 3), (False, 5)):
        for c in _claims(quick, LEVEL):
            assert c.kind == "claim" and c.quote and c.where, c.claim
            assert c.tests, c.claim
            for rec in c.tests:
                rows = [row for rows in rec["inputs"].values() for row in rows]
                assert {int(r[0]) for r in rows} == set(range(1, seeds + 1)), c.claim


def test_the_paper_shapes_hold_and_a_flat_ncr_fails() -> None:
    """Made-up runs with the paper's shapes make the claims on them hold;
    the same with BIC-NCR flat (no interval trend, equal at blocks 1 and
    2, equal to AVG-DEV) make those claims fail."""
    claims = {c.claim: c for c in _claims(False, LEVEL)}
    suffers = "BIC with TCP-NCR still suffers at small intervals and large blocks"
    best = "TCP-NCR performs better than AVG-DEV and TCP-RR at every point"
    assert claims[best].holds
    assert claims[
        "every reordering-tolerant algorithm at least doubles BIC-SACK at every point"
    ].holds
    assert not claims[suffers].holds  # the fake NCR does not fall with the block size
    flat = {c.claim: c for c in _claims(False, {**LEVEL, "BIC-AVG-DEV": 900.0})}
    assert not flat[best].holds
    assert "not at BIC-AVG-DEV" in flat[best].measured


def test_only_slightly_is_measured_against_the_throughput_without_reordering() -> None:
    """ "only slightly reduces": a collapse to near zero that stays there
    passes (the paper's BIC-SACK is below 10 Mb/s in most cases); a drop
    from 600 to 200 Mb/s of 1000 does not."""
    free = {s: 990.0 + s for s in range(1, 6)}
    collapsed = hs_measures.slightly_more(
        {s: 2.0 + 0.1 * s for s in range(1, 6)}, {s: 0.4 for s in range(1, 6)}, free, "x"
    )
    assert collapsed.holds
    dropping = hs_measures.slightly_more(
        {s: 600.0 + s for s in range(1, 6)}, {s: 200.0 for s in range(1, 6)}, free, "x"
    )
    assert not dropping.holds


def test_bic_sack_below_10_is_a_share_of_the_points_per_seed() -> None:
    plan = papers()["high-speed"]["fig12-13-14"].points(True)
    data = hs_fig12.table(FakeRuns(plan, {**LEVEL, "BIC-SACK": 7.0}), True).data  # type: ignore[arg-type]
    # 7 Mb/s x (1 + interval) is >= 10 only at the 0.5-s interval (of 9 points)
    shares = hs_fig12._sack_share_below_10(data)
    assert set(shares) == {1, 2, 3}
    assert all(v == pytest.approx(8 / 9) for v in shares.values())


def test_a_figure_plot_does_not_replace_its_table(tmp_path: Path) -> None:
    # each recipe writes its table as figN.csv, then plots it: the plot's
    # CSV of points must go elsewhere (it replaced the table before)
    runs = pd.DataFrame(
        {"curve": ["BIC-SACK"] * 4, "x": [0.1, 0.1, 1.0, 1.0], "seed": [1, 2, 1, 2]}
        | {"mbps": [10.0, 12.0, 20.0, 22.0], "fast_retransmits": 0.0, "spurious": 0.0}
    )
    table = hs_setting.summary(runs)
    write_table(tmp_path, "fig9", table)
    line = hs_setting.throughput_figure("fig9", "interval (s)", "Fig. 9", logx=True)
    line.draw(tmp_path, hs_setting.curves(runs))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "fig9.csv"), table)
    assert list(table["mbps"]) == [11.0, 21.0] and list(table["mbps_min"]) == [10.0, 20.0]
    assert (tmp_path / "fig9-throughput.png").exists()
    assert (tmp_path / "fig9-throughput.csv").exists()


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
    assert gen.anchor == "block-arrival"
    assert isinstance(gig.topology, DumbbellTopology) and gig.topology.access_rate == 1e9
    assert gig.flows == base.flows
    undo = hs_setting.scenario("AVG-DEV", "bic", 30.0, setting=hs_setting.SLOW_START_UNDO)
    assert undo.flows[0].tcp.undo_response == "slow-start"
    assert all(t.tcp.undo_response is None for t in undo.traffic)  # the studied flow only
    assert undo.impairments == hs_setting.scenario("AVG-DEV", "bic", 30.0).impairments


def test_sensitivity_figures_are_written_and_change_no_claim(tmp_path: Path) -> None:
    """fig9-12 draw <fig>_sensitivity (PNG + CSV of points) with one line
    per curve and setting; their runs do not enter the claims."""
    figs = papers()["high-speed"]
    for key, stem in (
        ("fig9", "fig9"),
        ("fig10", "fig10"),
        ("fig11", "fig11"),
        ("fig12-13-14", "fig12"),
    ):
        rec = figs[key]
        plan = rec.points(True)
        assert kit_sensitivity.SENSITIVITY in plan
        derived = rec.table(FakeRuns(plan, LEVEL), True)  # type: ignore[arg-type]
        assert f"{stem}_sensitivity_runs" in derived.csv
        rec.plot(derived.data, tmp_path, True)
        assert (tmp_path / f"{stem}-sensitivity.png").exists()
        names = set(pd.read_csv(tmp_path / f"{stem}-sensitivity.csv")["series"])
        assert {"BIC-SACK, default", "BIC-SACK, later-packet anchor"} <= names
        if stem == "fig12":
            # the default point's cases are drawn on Fig. 14's axis (block size)
            names = set(pd.read_csv(tmp_path / "fig14-sensitivity.csv")["series"])
            assert {
                "BIC-NCR, default",
                "BIC-NCR, later-packet anchor",
                "BIC-AVG-DEV, slow-start undo",
                "BIC-TCP-RR, slow-start undo",
            } <= names
            names = set(pd.read_csv(tmp_path / "fig13-sensitivity.csv")["series"])
            assert {
                "BIC-NCR, default",
                "BIC-NCR, after a 1 Gb/s access link",
                "BIC-NCR, aggressive NCR",
            } <= names
        # the sensitivity runs far off: the claims stay what the figure's runs give
        before = rec.claims(derived.data, True)
        level_off = {**LEVEL, "BIC-SACK": 1e4, "BIC-NCR": 1e-3}
        off = _sensitivity_only(plan, LEVEL, level_off)
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


def test_sensitivity_verdicts_give_each_claim_under_each_setting() -> None:
    """<fig>-sensitivity-verdicts.csv: every claim again on the runs of
    each sensitivity setting. Made-up runs where HSTCP is far below BIC by
    default but level with it under the later-packet anchor: the claim
    holds by default and not under that setting."""
    rec = papers()["high-speed"]["fig9"]
    plan = rec.points(True)
    level = {**LEVEL, "BIC-SACK": 400.0, "HSTCP-SACK": 10.0}
    runs = _sensitivity_only(plan, level, {**LEVEL, "BIC-SACK": 400.0, "HSTCP-SACK": 390.0})
    verdicts = pd.DataFrame(rec.table(runs, True).csv["fig9_sensitivity_verdicts"])  # type: ignore[arg-type]
    assert set(verdicts["setting"]) == {"default", "delayed ACK", "later-packet anchor"}
    far = verdicts[verdicts["claim"].str.startswith("HSTCP is far below BIC")]
    by_setting = dict(zip(far["setting"], far["holds"], strict=True))
    assert by_setting == {"default": True, "delayed ACK": False, "later-packet anchor": False}
    fig12 = papers()["high-speed"]["fig12-13-14"]
    plan = fig12.points(True)
    derived = fig12.table(FakeRuns(plan, LEVEL), True)  # type: ignore[arg-type]
    table = pd.DataFrame(derived.csv["fig12_sensitivity_verdicts"])
    assert {"default", "later-packet anchor", "slow-start undo", "aggressive NCR"} <= set(
        table["setting"]
    )


def test_aggressive_ncr_is_the_paper_curve_with_the_other_flavour() -> None:
    """The "aggressive NCR" sensitivity runs are BIC-NCR's scenarios of Fig.
    13 with RFC 4653's aggressive flavour, nothing else changed."""
    cases = [c for c in hs_fig12.sensitivity_cases(False) if c[0] == hs_fig12.AGGRESSIVE]
    assert [x for *_, x in cases] == list(hs_setting.FIG10_DELAYS[1:])
    for _, setting, (label, variant, cc), panel, x in cases:
        assert (label, variant, cc, panel) == ("BIC-NCR", "TCP-NCR-aggressive", "bic", "fig13")
        mine = hs_setting.at_point(variant, cc, 100.0, "delay", x, setting)
        paper = hs_setting.at_point("TCP-NCR", "bic", 100.0, "delay", x)
        assert mine.flows[0].variant == "TCP-NCR-aggressive"
        assert mine.model_copy(update={"flows": paper.flows}) == paper
