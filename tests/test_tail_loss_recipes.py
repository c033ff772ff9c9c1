"""Recipes of the tail-loss paper (tail loss): registration, scenario builders, one run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reorderlab import run
from reorderlab.papers import papers, select
from reorderlab.papers.kit import claims as kit_claims
from reorderlab.papers.tail_loss import fig1 as tl_fig1
from reorderlab.papers.tail_loss import fig3 as tl_fig3
from reorderlab.papers.tail_loss import fig3_data as tl_fig3_data
from reorderlab.papers.tail_loss import fig3_replay as tl_replay
from reorderlab.papers.tail_loss import fig4 as tl_fig4
from reorderlab.papers.tail_loss import fig4_samples as tl_fig4_samples
from reorderlab.papers.tail_loss import setting as tl_setting
from reorderlab.reproduce import reproduce
from reorderlab.scenario import (
    ChainTopology,
    DumbbellTopology,
    GilbertElliottImpairment,
    PositionedImpairment,
)


def test_registered_figures() -> None:
    figs = papers()["tail-loss"]
    assert {int(n) for k in figs for n in re.findall(r"\d+", k)} >= {1, 2, 3, 4}
    assert {r.figure for r in select("tail-loss")} == set(tl_setting.figures())


def test_controlled_scenario_drops_the_last_n_segments_once() -> None:
    sc = tl_setting.controlled("TLPR", 0.08, "delack", 3)
    (imp,) = sc.impairments
    assert isinstance(imp, PositionedImpairment)
    assert imp.segments == [7, 8, 9] and imp.copies == "original"
    f = sc.flows[0]
    assert f.segments == 10 and f.tcp.syn and f.receiver.delayed_ack == "rfc1122"
    topo = sc.topology
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(0.08)


def test_congested_scenario_has_fixed_size_foreground_objects() -> None:
    sc = tl_setting.congested("RTOR", 4, 0.04, "quickack", 60.0)
    fg, bg = sc.traffic
    assert fg.object_size.model_dump() == {"dist": "constant", "value": 4 * tl_setting.MSS}
    assert fg.variant == "RTOR" and fg.tcp.syn and fg.closed_loop
    assert bg.sessions == tl_setting.BACKGROUND_SESSIONS and bg.variant == "SACK"
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    # the foreground's one-way delay: its two access links plus the bottleneck
    assert 2 * topo.access_delays[0] + topo.bottleneck_delay == pytest.approx(0.04)
    assert sc.record.objects


def test_probe_and_rack_counters_reach_python() -> None:
    # Last segment lost (RTT 80 ms, quickack): one tail loss probe, a
    # retransmission; RACK marks nothing. Second-to-last lost: the reorder
    # timer marks it (RFC 8985 Sec. 6.3), no probe.
    last = run(tl_setting.controlled("RACK-TLP", 0.08, "quickack", 1)).flow(0)
    assert (last["tlp_probes"], last["probe_retransmits"]) == (1, 1)
    assert (last["rack_marked_lost"], last["rack_reorder_timeouts"]) == (0, 0)
    sc = tl_setting.controlled("RACK-TLP", 0.08, "quickack", 1)
    (imp,) = sc.impairments
    assert isinstance(imp, PositionedImpairment)
    imp.segments = [8]
    second = run(sc).flow(0)
    assert second["tlp_probes"] == 0
    assert (second["rack_marked_lost"], second["rack_reorder_timeouts"]) == (1, 1)
    base = run(tl_setting.controlled("Linux-ER", 0.08, "quickack", 1)).flow(0)
    assert base["tlp_probes"] == base["rack_reorder_timeouts"] == 0


def test_fig1_quick_end_to_end(tmp_path: Path) -> None:
    claims = reproduce("tail-loss", "fig1", quick=True, out=tmp_path, store=None)["tail-loss"]
    assert len(claims) == 8
    assert all(c.quote and c.where and c.tests for c in claims)
    table = pd.read_csv(tmp_path / "tail-loss" / "fig1.csv")
    assert set(table["variant"]) == set(tl_setting.VARIANTS)
    assert set(table["seed"]) == set(range(1, tl_setting.CONTROLLED_SEEDS + 1))
    base = table[table["variant"] == tl_setting.BASELINE]
    assert (base["norm"] == 1.0).all()
    # RFC 7765 with quickack: RTOR saves exactly one RTT at every RTT.
    saved = next(c for c in claims if c.claim.startswith("quickack: RTOR"))
    assert saved.holds and saved.seed_share == 1.0, saved.measured
    sens = pd.read_csv(tmp_path / "tail-loss" / "fig1-sensitivity-table.csv")
    assert len(sens) == len(tl_fig1.DELACK_OFFSETS) * len(tl_fig1._fig1_rtts(True))
    rate = pd.read_csv(tmp_path / "tail-loss" / "fig1-rate-table.csv")
    assert len(rate) == len(tl_fig1.FIG1_RATES) * len(tl_fig1.RATE_RTTS)
    for stem in ("fig1-sensitivity", "fig1-rate"):
        for ext in ("png", "svg", "csv"):
            assert (tmp_path / "tail-loss" / f"{stem}.{ext}").exists()


@pytest.mark.parametrize("site", list(tl_setting.SITES))
def test_site_pages_have_the_papers_object_count_and_mean(site: str) -> None:
    n, mean = tl_setting.SITES[site]
    sizes = tl_setting.site_sizes(site)
    assert len(sizes) == n
    assert sum(sizes) / n == pytest.approx(mean, rel=1e-4)
    assert min(sizes) > 0 and max(sizes) > 2 * mean  # a skewed law, not constant
    assert tl_setting.site_sizes(site) == sizes  # the same recorded page every time


def test_web_scenario_is_the_papers_setting() -> None:
    sc = tl_setting.web("TLPR", "newspaper", 0.16, 100.0)
    topo = sc.topology
    assert isinstance(topo, ChainTopology) and topo.bottleneck_rate == 10e6
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(0.16)
    (imp,) = sc.impairments
    assert isinstance(imp, GilbertElliottImpairment) and imp.link == "R1->R2"
    # stationary loss p_gb / (p_gb + p_bg) = 1.5 %, mean burst 1 / p_bg = 2
    assert imp.p_gb / (imp.p_gb + imp.p_bg) == pytest.approx(0.015)
    assert 1 / imp.p_bg == pytest.approx(2.0) and imp.data_only
    (gen,) = sc.traffic
    assert gen.kind == "page" and gen.connections == 6 and gen.variant == "TLPR"
    assert gen.object_sizes == tl_setting.site_sizes("newspaper")
    assert gen.receiver.delayed_ack == "rfc1122" and gen.receiver.delack_timeout == 0.2
    assert gen.stop == pytest.approx(100.0 - tl_setting.FIG4_TAIL)
    assert sc.record.objects


def _obj(page: int, conn: int, oct_: float | None, tail: int) -> dict[str, object]:
    return {"page": page, "connection": conn, "oct": oct_, "tail_retransmits": tail}


def test_selection_readings() -> None:
    objs = [
        _obj(0, 0, 0.1, 0),
        _obj(0, 0, 0.9, 1),  # a tail retransmission: its connection counts
        _obj(0, 1, 0.2, 0),
        _obj(1, 0, 0.3, 0),  # same connection number, another download
        _obj(0, 0, None, 0),  # not complete: never a sample
    ]
    assert sorted(tl_fig4_samples.selected_octs(objs, "connections")) == [0.1, 0.9]
    assert tl_fig4_samples.selected_octs(objs, "objects") == [0.9]


def test_fig4_small_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A few pages per run: the recipe's plumbing, not its numbers.
    monkeypatch.setattr(tl_fig4, "FIG4_DURATION", {s: (45.0, 45.0) for s in tl_setting.SITES})
    monkeypatch.setattr(tl_fig4, "FIG4_SEEDS", (2, 2))
    monkeypatch.setattr(tl_fig4, "FIG4_SENS_SEEDS", (1, 1))
    monkeypatch.setattr(tl_fig4, "FIG4_SENS_QUEUES", (50, 100))
    claims = reproduce("tail-loss", "fig4", quick=True, out=tmp_path, store=None)["tail-loss"]
    assert len(claims) == 1 + 2 * 8 + 2
    assert all(c.figure == "fig4" and c.measured for c in claims)
    assert {c.claim.split("[selection: ")[-1].rstrip("]") for c in claims if "[" in c.claim} == {
        "connections",
        "objects",
    }
    table = pd.read_csv(tmp_path / "tail-loss" / "fig4.csv")
    assert len(table) == len(tl_setting.VARIANTS) * len(tl_setting.SITES) * len(
        tl_setting.FIG4_RTTS
    )
    assert (table["pages"] >= 1).all() and (table["unfinished"] == 0).all()
    assert (table["objects.n"] <= table["connections.n"]).all()
    assert (table["seeds"] == 2).all()
    for stem in ("fig4-1", "fig4-6", "fig4-obj-6", "fig4-sensitivity"):
        for ext in ("png", "svg", "csv"):
            assert (tmp_path / "tail-loss" / f"{stem}.{ext}").exists()
    seeds = pd.read_csv(tmp_path / "tail-loss" / "fig4-seeds.csv")
    assert sorted(set(seeds["seed"])) == [1, 2] and len(seeds) == 2 * len(table)
    # a claim's per-seed inputs are the per-seed table's values
    better = next(c for c in claims if c.claim.startswith("at RTT 10 ms every mechanism"))
    rec = better.tests[0]
    one = seeds[(seeds["variant"] == "RTOR") & (seeds["site"] == "search") & (seeds["rtt"] == 0.01)]
    col = f"{better.claim.split('[selection: ')[1].rstrip(']')}.mean"
    assert [v for _, v in rec["inputs"]["a"]] == pytest.approx(list(one.sort_values("seed")[col]))
    sens = pd.read_csv(tmp_path / "tail-loss" / "fig4-sensitivity-table.csv")
    assert sorted(set(sens["queue"])) == [50, 100] and set(sens["site"]) == set(tl_setting.SITES)
    deciles = pd.read_csv(tmp_path / "tail-loss" / "fig4-deciles.csv")
    assert {"p10", "p50", "p90"} <= set(deciles.columns)


def _run_raw(
    objs: list[dict[str, object]], sent: int, ge: tuple[int, int], qd: int
) -> dict[str, Any]:
    """The parts of a Fig. 4 run's result that the table step reads."""
    gen = {
        "object_list": objs,
        "pages_completed": 1,
        "active_at_end": 0,
        "data_packets_sent": sent,
        "spurious_retransmits": 1,
        "dsacks_received": 1,
    }
    return {
        "traffic": [gen],
        "impairments": [{"seen": ge[0], "dropped": ge[1]}],
        "links": [{"link": "R1->R2", "queue_drops": qd}],
    }


def test_fig4_pools_seeds_sample_by_sample() -> None:
    # Two seeds of one point: counters add up, samples are concatenated
    # (selections made within each run), not averaged run by run.
    one = tl_fig4_samples.Pool({}, [], {})
    one.add(_run_raw([_obj(0, 0, 0.5, 1), _obj(0, 1, 0.1, 0)], 100, (90, 1), 2))
    two = tl_fig4_samples.Pool({}, [], {})
    two.add(
        _run_raw([_obj(0, 0, 2.0, 1), _obj(1, 0, 1.5, 1), _obj(0, 1, 0.2, 0)], 300, (280, 5), 0)
    )
    pooled = tl_fig4_samples.merged_over_seeds(
        {1: {("TLP", "search", 0.01): one}, 2: {("TLP", "search", 0.01): two}}
    )
    row = tl_fig4_samples.pool_row(("TLP", "search", 0.01), pooled[("TLP", "search", 0.01)])
    assert row["seeds"] == 2 and row["objects"] == 5
    assert (row["data_packets"], row["ge_seen"], row["ge_dropped"], row["queue_drops"]) == (
        400,
        370,
        6,
        2,
    )
    assert row["objects.n"] == 3
    assert row["objects.mean"] == pytest.approx((0.5 + 2.0 + 1.5) / 3)
    assert row["objects.below_1s"] == pytest.approx(1 / 3)
    assert row["spurious_frac"] == pytest.approx(2 / 400)


def test_fig1_sensitivity_shows_the_delayed_ack_race() -> None:
    # RTT 80 ms, delayed ACKs, last segment lost. With the paper's 200 ms
    # timer RTOR's deadline (send + SRTT + 200 ms) comes 96 us before the
    # delayed ACK of the ninth segment: RTOR retransmits twice spuriously
    # and saves RTT + 200 ms + the baseline's RTO growth (63 ms). With the
    # timer 0.1 ms shorter the ACK comes first: exactly RTT + 200 ms saved.
    timers = (tl_setting.DELACK_TIMEOUT, tl_setting.DELACK_TIMEOUT - 1e-4)
    rows = [
        {
            "variant": v,
            "rtt": 0.08,
            "delack_timeout": d,
            **run(tl_setting.controlled(v, 0.08, "delack", 1, delack_timeout=d)).flow(0),
        }
        for d in timers
        for v in (tl_setting.BASELINE, "RTOR")
    ]
    sens = tl_fig1.fig1_sensitivity(pd.DataFrame(rows)).set_index("delack_timeout")
    race, early = sens.loc[timers[0]], sens.loc[timers[1]]
    assert race["rtor_spurious"] == 2 and race["excess"] == pytest.approx(0.063, abs=0.002)
    assert early["rtor_spurious"] == 0 and abs(early["excess"]) < 0.001
    assert early["saved"] == pytest.approx(0.08 + timers[1], abs=0.001)


def test_no_spurious_claim_counts_the_paper_senders_per_seed() -> None:
    rows = [
        {"variant": v, "receiver": "delack", "rtt": 0.02, "seed": seed, "spurious": n}
        for seed in (1, 2)
        for v, n in (("RTOR", 2), ("TLP", 0), ("Linux", 5))
    ]
    df = pd.DataFrame(rows)
    claim = tl_setting.no_spurious_claim("fig1", df)
    assert not claim.holds and claim.values["by_run"] == "RTOR delack 20 ms (2)"
    (rec,) = claim.tests
    assert rec["inputs"]["x"] == [[1, 2.0], [2, 2.0]]  # Linux is not one of the paper's
    assert tl_setting.no_spurious_claim("fig1", df[df["variant"] != "RTOR"]).holds
    assert claim.quote == tl_setting.NO_SPURIOUS and claim.where == "Sec. 3.1"


def test_fig3_calibration_sweep_holds_the_chosen_session_count() -> None:
    plan = tl_fig3.plan(quick=True)
    cal = plan[tl_setting.CALIBRATION]
    assert [p["sessions"] for p, _ in cal.points] == list(tl_setting.CALIBRATION_SESSIONS)
    assert tl_setting.BACKGROUND_SESSIONS in tl_setting.CALIBRATION_SESSIONS
    for params, sc in cal.points:
        assert sc.traffic[1].sessions == params["sessions"]
    # the 290-packet queue holds the paper's 35 ms at 100 Mb/s
    raw = {"links": [{"link": "R1->R2", "queue_drops": 3, "arrivals": 200, "max_queue": 290}]}
    loss, queueing = tl_fig3_data.bottleneck(raw)
    assert loss == pytest.approx(0.015) and queueing == pytest.approx(0.0348)


def _flow(sc: Any) -> dict[str, Any]:
    return dict(run(sc).flow(0))


def test_controlled_setting_is_deterministic() -> None:
    # Sec. 3.1: "no variation was observed in the results"; the controlled
    # scenario has no random element, so Figs. 1-2 run two seeds that must
    # give the same bytes (their checks then have zero-width intervals).
    for v in tl_setting.PAPER_VARIANTS:
        sc = tl_setting.controlled(v, 0.08, "delack", 3)
        assert run(sc, seed=1).to_dict()["flows"] == run(sc, seed=2).to_dict()["flows"]


@pytest.mark.parametrize("receiver", list(tl_setting.RECEIVERS))
def test_rtor_is_off_with_four_or_more_segments_outstanding(receiver: str) -> None:
    # tail-loss Sec. 3.1 / RFC 7765: RTOR is on only with fewer than four
    # segments outstanding (rrthresh 4). Losing the last 4 or 5 of 10, it
    # is never on: its flow is the baseline's, event for event; losing 1-3
    # it restarts the timer and finishes earlier.
    for n in (1, 2, 3, 4, 5):
        base = _flow(tl_setting.controlled(tl_setting.BASELINE, 0.08, receiver, n))
        rtor = _flow(tl_setting.controlled("RTOR", 0.08, receiver, n))
        same = {k: v for k, v in rtor.items() if k not in ("name", "variant")} == {
            k: v for k, v in base.items() if k not in ("name", "variant")
        }
        assert same == (n >= 4), (n, base["fct"], rtor["fct"])
        assert (rtor["fct"] < base["fct"]) == (n <= 3)


def test_probes_recover_any_degree_of_tail_loss_without_a_timeout() -> None:
    # Sec. 3.1: "TLP and TLPR employ FACK if four or more segments are lost
    # in the tail and ER if 2-3 segments are lost": after the probe, a fast
    # retransmit repairs the tail, no timeout, with either receiver. With
    # delayed ACKs TLPR's probe is SACKed on the delayed ACK of the last
    # segment delivered, an ACK that also advances SND.UNA: Linux 3.17 runs
    # early retransmit and FACK on it (tcp_ack_is_dubious; until model
    # revision 12 reorderlab did not, and TLPR timed out at n = 3 and 5).
    cases = [(v, r) for v in ("TLP", "TLPR") for r in tl_setting.RECEIVERS]
    for v, receiver in cases:
        for n in (2, 3, 4, 5):
            f = _flow(tl_setting.controlled(v, 0.08, receiver, n))
            assert f["tlp_probes"] == 1 and f["timeouts"] == 0, (v, receiver, n)
            assert f["fast_retransmits"] >= 1, (v, receiver, n)


def _replay(v: str, owd: float, receiver: str, lost: tuple[int, ...]) -> dict[str, Any]:
    rtt = tl_replay.replay_rtt(owd)
    return _flow(tl_setting.controlled(v, rtt, receiver, 1, segments=4, pattern=lost))


def test_tlp_is_a_quarter_rtt_behind_rtor_with_the_last_two_lost() -> None:
    # Sec. 3.2 (Fig. 3d): "TLP retransmits the last segment first, causing
    # time-delayed ER to recover other lost segments. The extra delay of a
    # quarter of an RTT": early retransmit waits max(SRTT / 4, 2 ms) (RFC
    # 5827 A.3 as Linux). 4 segments, owd 160 ms, quickack, segments 3-4
    # lost: SRTT is the handshake's RTT, 320 ms.
    tlp = _replay("TLP", 0.16, "quickack", (2, 3))
    rtor = _replay("RTOR", 0.16, "quickack", (2, 3))
    assert tlp["fct"] - rtor["fct"] == pytest.approx(0.32 / 4, abs=0.002)
    assert tlp["tlp_probes"] == 1 and tlp["timeouts"] == 0


def test_no_probe_outside_the_open_state() -> None:
    # Sec. 3.2: "TLP and TLPR require to be in the open state to send the
    # loss probes". Segments 2 and 4 of 4 lost: the SACK of segment 3 starts
    # an early retransmit of 2 (fast recovery), and 4 waits for the RTO
    # with no probe, as for the baseline; RTOR restarts the timer.
    for v in ("TLP", "TLPR"):
        f = _replay(v, 0.16, "quickack", (1, 3))
        base = _replay(tl_setting.BASELINE, 0.16, "quickack", (1, 3))
        assert f["tlp_probes"] == 0 and f["fast_retransmits"] == 1 and f["timeouts"] == 1
        assert f["fct"] == base["fct"]
    assert _replay("RTOR", 0.16, "quickack", (1, 3))["fct"] < base["fct"]


def test_replay_covers_every_loss_pattern_of_a_four_segment_flow() -> None:
    assert len(tl_replay.PATTERNS) == 15 and len(set(tl_replay.PATTERNS)) == 15
    assert tl_replay.pattern_name((2, 3)) == "3+4"
    sweep = tl_replay.sweep()
    assert len(sweep.points) == 15 * len(tl_setting.FIG3_OWDS) * 2 * 4
    params, sc = sweep.points[0]
    (imp,) = sc.impairments
    assert isinstance(imp, PositionedImpairment) and imp.segments == [0]
    assert params["lost"] == "1" and sc.flows[0].segments == 4
    topo = sc.topology
    assert isinstance(topo, ChainTopology)
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(2 * params["owd"])


def test_claims_stability_counts_the_seeds_a_claim_holds_on() -> None:
    from reorderlab.claims import Claim

    def claims(x: float) -> list[Claim]:
        return [
            Claim(tl_setting.PAPER, "fig3", "x is small", "x < 1", f"{x}", x < 1, {}),
            Claim(tl_setting.PAPER, "fig3", "x is positive", "x > 0", f"{x}", x > 0, {}),
        ]

    table = kit_claims.claims_stability(claims, 0.9, [0.5, 1.5, 0.7, 2.0])
    assert list(table["claim"]) == ["x is small", "x is positive"]
    assert list(table["pooled"]) == ["holds", "holds"]
    assert list(table["seeds_holding"]) == [2, 4]
    assert list(table["share_holding"]) == [0.5, 1.0]
