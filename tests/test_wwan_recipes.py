"""Recipes of the wwan paper (link-layer ARQ, TCP-Aix): metrics, scenarios, issue-9 checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

import reorderlab
from reorderlab.papers import papers, select
from reorderlab.papers.kit import sensitivity as kit_sensitivity
from reorderlab.papers.wwan import fig3 as wwan_fig3
from reorderlab.papers.wwan import setting as wwan_setting


def test_every_wwan_paper_figure_is_registered() -> None:
    figs = papers()["wwan"]
    assert {int(n) for k in figs for n in re.findall(r"\d+", k)} == {2, 3, 4}
    assert {r.figure for r in select("wwan")} == set(wwan_setting.figures())


def test_cov_by_scale_sums_samples_into_coarser_intervals() -> None:
    t = np.arange(0, 4.05, 0.05)
    # alternating 2 and 0 packets per 50 ms: CoV 1 at 50 ms, 0 at 100 ms
    counts = np.array([2 if i % 2 == 0 else 0 for i in range(len(t) - 1)])
    sent = np.concatenate([[0], np.cumsum(counts)])
    cov = wwan_setting.cov_by_scale(t, sent.astype(float), start=0.0, scales=(0.05, 0.1))
    assert cov[0.05] == pytest.approx(1.0)
    assert cov[0.1] == pytest.approx(0.0)
    # only samples from `start` on
    late = wwan_setting.cov_by_scale(t, sent.astype(float), start=2.0, scales=(0.1,))
    assert late[0.1] == pytest.approx(0.0)


def test_idle_share_and_confidence_interval() -> None:
    assert wwan_setting.idle_share(np.array([0.0, 0.01, 0.02, 0.5, 0.51])) == pytest.approx(
        0.48 / 0.51
    )
    assert wwan_setting.idle_share(np.arange(0, 1, 0.001)) == 0.0
    # two values 1 and 3: mean 2, sd 1.414, t(1 dof) = 12.71
    assert wwan_setting.ci95([1.0, 3.0]) == pytest.approx(12.71 * np.sqrt(2) / np.sqrt(2))


def test_fig1_path_has_a_60_ms_rtt_and_arq_on_the_last_hop() -> None:
    sc = wwan_setting.scenario(
        "TCP-Aix", in_order=False, frame_error=0.1, duration=10.0, buffer=125
    )
    (arq,) = sc.impairments
    assert arq.link == "N2->R" and not arq.in_order and arq.link_rtt == 0.04
    assert 2 * sum(link.delay for link in sc.topology.links_) == pytest.approx(0.06)
    last = sc.topology.links_[-1]
    assert last.rate == 10e6 and last.queue.limit_packets == 125
    red = wwan_setting.n2_queue("red", 200)
    assert (red.min_th, red.max_th, red.instantaneous) == (20, 100, True)
    assert (
        wwan_setting.scenario("SACK-CWV", in_order=True, frame_error=0.0, duration=5.0).impairments
        == []
    )


def test_without_errors_every_sender_and_delivery_mode_gets_the_same_throughput() -> None:
    """Issue 9: 0 % frame errors -> all senders, both modes within 2 %."""
    thr = []
    for v in wwan_setting.VARIANTS:
        for in_order in (True, False):
            sc = wwan_setting.scenario(v, in_order=in_order, frame_error=0.0, duration=40.0)
            thr.append(reorderlab.run(sc, seed=1).flow(0)["throughput_bps"])
    assert max(thr) <= 1.02 * min(thr), thr
    assert min(thr) > 9e6  # and the link is used


def test_aix_out_of_order_is_smoother_than_sack_in_order_at_10_percent() -> None:
    """Issue 9: TCP-Aix out-of-order keeps the 50 ms CoV below in-order SACK."""

    def cov50(variant: str, in_order: bool) -> float:
        sc = wwan_setting.scenario(variant, in_order=in_order, frame_error=0.1, duration=40.0)
        s = reorderlab.run(sc, seed=2).series(0)
        return wwan_setting.cov_by_scale(s["t"], s["sent"], start=10.0, scales=(0.05,))[0.05]

    aix, sack = cov50("TCP-Aix", False), cov50("SACK-CWV", True)
    assert aix < sack, (aix, sack)


def test_fig3_sensitivity_runs_ncr_and_aix_over_buffers_and_link_cases() -> None:
    from reorderlab.runner import engine_version

    plan = papers()["wwan"]["fig3"].points(True)
    points = plan[kit_sensitivity.SENSITIVITY].points
    cases = {(p["variant"], p["link"]) for p, _ in points}
    assert cases == {("TCP-NCR-aggressive", name) for name, _, _ in wwan_fig3.LINK_CASES} | {
        ("TCP-Aix", "paper's link"),
        ("TCP-NCR", "paper's link"),
        ("TCP-DCR", "paper's link"),
    }
    assert {p["buffer"] for p, _ in points} == set(wwan_fig3.SENSITIVITY_BUFFERS)
    by = {(p["variant"], p["link"], p["buffer"]): sc for p, sc in points}
    arq = by[("TCP-NCR-aggressive", "at most one link retry", 50)].impairments[0]
    assert arq.max_attempts == 2 and arq.link_rtt == 0.04
    assert by[("TCP-NCR-aggressive", "20-ms link RTT", 50)].impairments[0].link_rtt == 0.02
    # the paper's link at buffer 100 is Fig. 3's own run (simulated once)
    own = wwan_setting.scenario("TCP-Aix", in_order=False, frame_error=0.03, duration=60.0)
    version = engine_version()
    key = by[("TCP-Aix", "paper's link", 100)].cache_key(1, version)
    assert key == own.cache_key(1, version)


def test_fig3_sensitivity_table_counts_spurious_fast_retransmits() -> None:
    """NCR at 3 % out-of-order: the 40-ms link retries trigger spurious fast
    retransmits; with a 20-ms link RTT they do not (the deviation's finding)."""
    from reorderlab.papers.kit.runs import Runs, Sweep

    points = [
        (
            {"variant": "TCP-NCR-aggressive", "link": name, "buffer": 100},
            wwan_setting.scenario(
                "TCP-NCR-aggressive",
                in_order=False,
                frame_error=0.03,
                duration=60.0,
                link_rtt=rtt,
            ),
        )
        for name, rtt in (("paper's link", 0.04), ("20-ms link RTT", 0.02))
    ]
    runs = Runs({kit_sensitivity.SENSITIVITY: Sweep(points, 1)}, None)
    table = wwan_fig3.fig3_sensitivity_table(runs, quick=True).set_index("link")
    assert set(table.columns) >= {"cov_50ms", "mbps", "fast_retransmits", "spurious"}
    paper, short = table.loc["paper's link"], table.loc["20-ms link RTT"]
    assert paper["spurious"] > 5 and short["spurious"] < paper["spurious"] / 5
    assert short["mbps"] > 2 * paper["mbps"]


def _fig4_rows(curves: dict[tuple[str, bool], dict[int, dict[int, float]]]) -> list[dict]:
    return [
        {"qdisc": "droptail", "error": 0.03, "variant": v, "in_order": io, "seed": s,
         "buffer": b, "mbps": m}
        for (v, io), seeds in curves.items()
        for s, curve in seeds.items()
        for b, m in curve.items()
    ]  # fmt: skip


def test_a_curves_buffer_need_is_where_it_comes_within_0_1_mbps_of_the_panels_best() -> None:
    """Fig. 4's buffer need ("the highest possible throughput", Sec. IV-B):
    per curve and seed, the smallest buffer within 1 % of the link rate of
    the best any paper curve reaches in the panel (``need``; 275 when the
    grid never gets there), the curve's own best beside it (``need_own``)."""
    import pandas as pd

    from reorderlab.papers.wwan import fig4

    sack = {1: {50: 7.0, 100: 9.85, 150: 9.94, 200: 9.95},
            2: {50: 7.0, 100: 9.5, 150: 9.84, 200: 9.95}}  # fmt: skip
    aix = {1: {50: 9.9, 100: 9.96, 150: 9.96, 200: 9.96},
           2: {50: 9.99, 100: 9.99, 150: 9.99, 200: 9.99}}  # fmt: skip
    rows = pd.DataFrame(_fig4_rows({("SACK-CWV", True): sack, ("TCP-Aix", False): aix}))
    needs = fig4._needs(rows).set_index(["variant", "seed"])
    # seed 1: the panel's best is Aix's 9.96: 9.85 at 100 is 0.11 below it
    # (within 0.1 of SACK-CWV's own 9.95); seed 2: the panel's best is 9.99,
    # 9.95 at 200 is within, 9.84 is not
    assert needs.loc["SACK-CWV", "need"].to_dict() == {1: 150.0, 2: 200.0}
    assert needs.loc["SACK-CWV", "need_own"].to_dict() == {1: 100.0, 2: 200.0}
    assert needs.loc["TCP-Aix", "need"].to_dict() == {1: 50.0, 2: 50.0}
    # a panel's best out of reach: the need is past the grid, not the own best's
    aix[2] = {50: 10.2, 100: 10.2, 150: 10.2, 200: 10.2}
    rows = pd.DataFrame(_fig4_rows({("SACK-CWV", True): sack, ("TCP-Aix", False): aix}))
    needs = fig4._needs(rows).set_index(["variant", "seed"])
    assert needs.loc[("SACK-CWV", 2), "need"] == fig4.BEYOND == 275
    assert not needs.loc[("SACK-CWV", 2), "reached"]
    assert needs.loc[("SACK-CWV", 2), "need_own"] == 200.0
    summary = fig4._need_summary(rows).set_index("variant").loc["SACK-CWV"]
    assert summary["need_1pct"] == (150 + 275) / 2 and summary["own_need_1pct"] == 150.0
    assert summary["reached"] == 0.5


def test_perform_the_same_is_tested_at_each_buffer() -> None:
    """Sec. IV-B's "all perform the same with in-order delivery": a
    difference of 0.3 Mb/s at one buffer fails the claim even when the
    differences average to 0 over the buffers."""
    import pandas as pd

    from reorderlab.papers.kit.claims import per_seed
    from reorderlab.papers.wwan import fig4

    def curves(offset: dict[int, float]) -> list[dict]:
        rows = []
        for e in (0.03, 0.10):
            for v in fig4.PAPER_VARIANTS:
                for s in range(1, 6):
                    for b in fig4.FIG4_BUFFERS:
                        d = offset.get(b, 0.0) if v == "TCP-Aix" else 0.0
                        base = 9.0 + 0.01 * s + 0.001 * b
                        rows.append({"qdisc": "droptail", "error": e, "variant": v,
                                     "in_order": True, "seed": s, "buffer": b,
                                     "mbps": base + d + 0.004 * (s % 2)})  # fmt: skip
        return rows

    alike = pd.DataFrame(curves({}))
    claim = fig4._in_order_alike(lambda q, e, v, io, b: per_seed(
        alike, "mbps", qdisc=q, error=e, variant=v, in_order=io, buffer=b))  # fmt: skip
    assert claim.holds
    apart = pd.DataFrame(curves({50: 0.3, 100: -0.3}))
    claim = fig4._in_order_alike(lambda q, e, v, io, b: per_seed(
        apart, "mbps", qdisc=q, error=e, variant=v, in_order=io, buffer=b))  # fmt: skip
    assert not claim.holds
    table = fig4._alike_table(apart).set_index(["error", "variant", "buffer"])
    assert len(table) == len(fig4.ALIKE)
    assert not table.loc[(0.03, "TCP-Aix", 50), "holds"]
    assert table.loc[(0.03, "TCP-Aix", 50), "diff"] == pytest.approx(0.3)
    assert table.loc[(0.03, "TCP-Aix", 75), "holds"]
    assert table.loc[(0.03, "TCP-NCR-aggressive", 50), "seed_share"] == 1.0


def test_retried_frames_come_from_the_arq_element() -> None:
    assert wwan_fig3._retried({"impairments": [{"held": 800, "seen": 28054}]}) == 800
    assert wwan_fig3._retried({"impairments": []}) == 0
