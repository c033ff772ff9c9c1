"""The recipes of the papers simulated in ns-2 use the estimator and timer
of the ns-2 release each paper ran (docs/variants.md, "RTT estimators and
timers"), and the estimator changes what a run measures."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import reorderlab as rl
from reorderlab.papers.high_speed import setting as high_speed_setting
from reorderlab.papers.rr_tcp import fig1 as rr_tcp_fig1
from reorderlab.papers.rr_tcp import setting as rr_tcp_setting
from reorderlab.papers.tcp_pr import setting as tcp_pr_setting
from reorderlab.papers.wwan import setting as wwan_setting
from reorderlab.scenario import Scenario, TcpSpec


def _specs(sc: Scenario) -> list[TcpSpec]:
    specs = [f.tcp for f in sc.flows]
    specs += [t.tcp for t in sc.traffic if t.tcp is not None]
    assert specs
    return specs


@pytest.mark.parametrize(
    ("scenario", "release", "min_rto"),
    [
        (
            lambda: rr_tcp_setting.chain_scenario(rr_tcp_setting.CHAIN, 0.05, "DSACK-TA", 10.0),
            "ns2-2.1b8",
            1.0,
        ),
        (lambda: rr_tcp_fig1.fig1_scenario("DSACK-R"), "ns2-2.1b8", 1.0),
        (
            lambda: tcp_pr_setting.dumbbell(4),
            "ns2-2.26",
            None,
        ),
        (lambda: tcp_pr_setting.swap_scenario("SACK", 0.03, 5, 10.0), "ns2-2.26", None),
        (lambda: high_speed_setting.scenario("TCP-NCR", "bic", 30.0), "ns2-2.31", 1.0),
        (
            lambda: wwan_setting.scenario(
                "TCP-Aix", in_order=False, frame_error=0.1, duration=10.0
            ),
            "ns2-2.27",
            0.2,
        ),
    ],
)
def test_each_ns2_paper_runs_its_releases_estimator(
    scenario: Callable[[], Scenario], release: str, min_rto: float | None
) -> None:
    for tcp in _specs(scenario()):
        assert tcp.rto_estimator == release
        assert tcp.min_rto == min_rto


def test_wwan_paper_ncr_is_the_aggressive_mode() -> None:
    # wwan Sec. II: NCR "sends new segments in response to each dupack".
    assert "TCP-NCR-aggressive" in wwan_setting.PAPER_VARIANTS
    assert "TCP-NCR" not in wwan_setting.PAPER_VARIANTS


def test_the_ns2_estimator_changes_the_initial_rto_and_the_tick() -> None:
    sc = rr_tcp_setting.chain_scenario(rr_tcp_setting.CHAIN, 0.05, "SACK", 5.0)
    ns2 = rl.run(sc, seed=1).flow(0)
    tcp = sc.flows[0].tcp.model_copy(update={"rto_estimator": None})
    plain = rl.run(
        sc.model_copy(update={"flows": [sc.flows[0].model_copy(update={"tcp": tcp})]}), seed=1
    ).flow(0)
    # ns-2.1b8: RTO floored to whole 100 ms ticks, at least the 1 s minimum;
    # the first segment waits under the 6 s initial RTO.
    assert ns2["rto"] == pytest.approx(round(ns2["rto"], 1))
    assert ns2["rto"] >= 1.0
    assert ns2["rto_mean"] > plain["rto_mean"]
