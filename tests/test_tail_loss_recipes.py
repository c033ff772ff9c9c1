"""Recipes of seed 002 (tail loss): registration, scenario builders, one run."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from reorderlab import run
from reorderlab.papers import papers, reproduce, select
from reorderlab.papers import tail_loss as tl
from reorderlab.scenario import DumbbellTopology, PositionedImpairment


def test_registered_figures() -> None:
    figs = papers()["tail-loss"]
    assert {int(n) for k in figs for n in re.findall(r"\d+", k)} >= {1, 2, 3}
    assert {r.figure for r in select("tail-loss")} == set(tl.figures())


def test_controlled_scenario_drops_the_last_n_segments_once() -> None:
    sc = tl.controlled("TLPR", 0.08, "delack", 3)
    (imp,) = sc.impairments
    assert isinstance(imp, PositionedImpairment)
    assert imp.segments == [7, 8, 9] and imp.copies == "original"
    f = sc.flows[0]
    assert f.segments == 10 and f.tcp.syn and f.receiver.delayed_ack == "rfc1122"
    topo = sc.topology
    assert 2 * (topo.bottleneck_delay + 2 * topo.access_delay) == pytest.approx(0.08)


def test_congested_scenario_has_fixed_size_foreground_objects() -> None:
    sc = tl.congested("RTOR", 4, 0.04, "quickack", 60.0)
    fg, bg = sc.traffic
    assert fg.object_size.model_dump() == {"dist": "constant", "value": 4 * tl.MSS}
    assert fg.variant == "RTOR" and fg.tcp.syn and fg.closed_loop
    assert bg.sessions == tl.BACKGROUND_SESSIONS and bg.variant == "SACK"
    topo = sc.topology
    assert isinstance(topo, DumbbellTopology)
    # the foreground's one-way delay: its two access links plus the bottleneck
    assert 2 * topo.access_delays[0] + topo.bottleneck_delay == pytest.approx(0.04)
    assert sc.record.objects


def test_probe_and_rack_counters_reach_python() -> None:
    # Last segment lost (RTT 80 ms, quickack): one tail loss probe, a
    # retransmission; RACK marks nothing. Second-to-last lost: the reorder
    # timer marks it (RFC 8985 Sec. 6.3), no probe.
    last = run(tl.controlled("RACK-TLP", 0.08, "quickack", 1)).flow(0)
    assert (last["tlp_probes"], last["probe_retransmits"]) == (1, 1)
    assert (last["rack_marked_lost"], last["rack_reorder_timeouts"]) == (0, 0)
    sc = tl.controlled("RACK-TLP", 0.08, "quickack", 1)
    (imp,) = sc.impairments
    assert isinstance(imp, PositionedImpairment)
    imp.segments = [8]
    second = run(sc).flow(0)
    assert second["tlp_probes"] == 0
    assert (second["rack_marked_lost"], second["rack_reorder_timeouts"]) == (1, 1)
    base = run(tl.controlled("Linux-ER", 0.08, "quickack", 1)).flow(0)
    assert base["tlp_probes"] == base["rack_reorder_timeouts"] == 0


def test_fig1_quick_end_to_end(tmp_path: Path) -> None:
    claims = reproduce("tail-loss", "fig1", quick=True, out=tmp_path, store=None)["tail-loss"]
    assert len(claims) == 4
    table = pd.read_csv(tmp_path / "tail-loss" / "fig1.csv")
    assert set(table["variant"]) == set(tl.VARIANTS)
    base = table[table["variant"] == tl.BASELINE]
    assert (base["norm"] == 1.0).all()
    # RFC 7765 with quickack: RTOR saves exactly one RTT at every RTT.
    saved = next(c for c in claims if c.claim.startswith("quickack: RTOR"))
    assert saved.holds, saved.measured
