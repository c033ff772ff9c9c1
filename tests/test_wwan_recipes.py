"""Recipes of seed 004 (link-layer ARQ, TCP-Aix): metrics, scenarios, issue-9 checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

import reorderlab
from reorderlab.papers import papers, select, wwan


def test_every_seed004_figure_is_registered() -> None:
    figs = papers()["wwan"]
    assert {int(n) for k in figs for n in re.findall(r"\d+", k)} == {2, 3, 4}
    assert {r.figure for r in select("wwan")} == set(wwan.figures())


def test_cov_by_scale_sums_samples_into_coarser_intervals() -> None:
    t = np.arange(0, 4.05, 0.05)
    # alternating 2 and 0 packets per 50 ms: CoV 1 at 50 ms, 0 at 100 ms
    counts = np.array([2 if i % 2 == 0 else 0 for i in range(len(t) - 1)])
    sent = np.concatenate([[0], np.cumsum(counts)])
    cov = wwan.cov_by_scale(t, sent.astype(float), start=0.0, scales=(0.05, 0.1))
    assert cov[0.05] == pytest.approx(1.0)
    assert cov[0.1] == pytest.approx(0.0)
    # only samples from `start` on
    late = wwan.cov_by_scale(t, sent.astype(float), start=2.0, scales=(0.1,))
    assert late[0.1] == pytest.approx(0.0)


def test_idle_share_and_confidence_interval() -> None:
    assert wwan.idle_share(np.array([0.0, 0.01, 0.02, 0.5, 0.51])) == pytest.approx(0.48 / 0.51)
    assert wwan.idle_share(np.arange(0, 1, 0.001)) == 0.0
    # two values 1 and 3: mean 2, sd 1.414, t(1 dof) = 12.71
    assert wwan.ci95([1.0, 3.0]) == pytest.approx(12.71 * np.sqrt(2) / np.sqrt(2))


def test_fig1_path_has_a_60_ms_rtt_and_arq_on_the_last_hop() -> None:
    sc = wwan.scenario("TCP-Aix", in_order=False, frame_error=0.1, duration=10.0, buffer=125)
    (arq,) = sc.impairments
    assert arq.link == "N2->R" and not arq.in_order and arq.link_rtt == 0.04
    assert 2 * sum(link.delay for link in sc.topology.links_) == pytest.approx(0.06)
    last = sc.topology.links_[-1]
    assert last.rate == 10e6 and last.queue.limit_packets == 125
    red = wwan.n2_queue("red", 200)
    assert (red.min_th, red.max_th, red.instantaneous) == (20, 100, True)
    assert wwan.scenario("SACK-CWV", in_order=True, frame_error=0.0, duration=5.0).impairments == []


def test_without_errors_every_sender_and_delivery_mode_gets_the_same_throughput() -> None:
    """Issue 9: 0 % frame errors -> all senders, both modes within 2 %."""
    thr = []
    for v in wwan.VARIANTS:
        for in_order in (True, False):
            sc = wwan.scenario(v, in_order=in_order, frame_error=0.0, duration=40.0)
            thr.append(reorderlab.run(sc, seed=1).flow(0)["throughput_bps"])
    assert max(thr) <= 1.02 * min(thr), thr
    assert min(thr) > 9e6  # and the link is used


def test_aix_out_of_order_is_smoother_than_sack_in_order_at_10_percent() -> None:
    """Issue 9: TCP-Aix out-of-order keeps the 50 ms CoV below in-order SACK."""

    def cov50(variant: str, in_order: bool) -> float:
        sc = wwan.scenario(variant, in_order=in_order, frame_error=0.1, duration=40.0)
        s = reorderlab.run(sc, seed=2).series(0)
        return wwan.cov_by_scale(s["t"], s["sent"], start=10.0, scales=(0.05,))[0.05]

    aix, sack = cov50("TCP-Aix", False), cov50("SACK-CWV", True)
    assert aix < sack, (aix, sack)
