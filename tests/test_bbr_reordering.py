"""The ``bbr-reordering`` recipe (issue 37): registered only for
``reproduce bbr-reordering``; the chain figure's table and claims from
saved kernel runs (no root needed), none without them; the kernel step
skipped with its reason where the emulator cannot run; the 1 Gb/s figure's
scenario and table."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from reorderlab.claims import explain
from reorderlab.deviations import explanations
from reorderlab.papers import papers, select
from reorderlab.papers.bbr_reordering import chain as bbr_chain
from reorderlab.papers.bbr_reordering import gigabit as bbr_gigabit
from reorderlab.papers.bbr_reordering import setting as bbr_setting
from reorderlab.papers.bbr_reordering import state as bbr_state
from reorderlab.papers.kit.mode import Mode, Modes
from reorderlab.papers.kit.runs import Runs

PAYLOAD = 948


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """10 Mb/s only, BBR and CUBIC, two fractions, 3 s runs, two seeds."""
    curves = {"BBR": "bbr", "CUBIC": "cubic"}
    fractions = Modes(full=bbr_setting.FRACTIONS, quick=(0.0, 0.3))
    mode = Modes(full=Mode(30.0, 5), quick=Mode(3.0, 2))
    for module in (bbr_setting, bbr_chain, bbr_gigabit):
        monkeypatch.setattr(module, "CURVES", curves)
    for module in (bbr_setting, bbr_chain, bbr_state):
        monkeypatch.setattr(module, "RATES", (10e6,))
        monkeypatch.setattr(module, "CHAIN_FRACTIONS", fractions)
        monkeypatch.setattr(module, "CHAIN_MODE", mode)


def chain_figure() -> bbr_chain.ChainFigure:
    rec = papers()["bbr-reordering"]["chain"]
    assert isinstance(rec, bbr_chain.ChainFigure)
    return rec


def test_it_runs_only_when_its_paper_is_named() -> None:
    figs = papers()["bbr-reordering"]
    assert all(not rec.in_all for rec in figs.values())
    assert not set(figs.values()) & set(select())
    # the kernel step is run by name only: it needs root and real time
    assert [r.figure for r in select("bbr-reordering")] == ["chain", "state", "gigabit"]
    assert select("bbr-reordering", "kernel")[0].figure == "kernel"


def test_the_chain_is_fig4s_with_the_rate_queue_and_sender_of_the_issue() -> None:
    sc = bbr_setting.chain("bbr", 100e6, 0.1, 10.0).to_dict()
    topo, flow = sc["topology"], sc["flows"][0]
    assert topo["bottleneck_rate"] == 100e6 and topo["bottleneck_delay"] == 0.05
    assert topo["queue"]["limit_packets"] == 1300  # one BDP of 1000-byte packets, 104 ms
    assert (flow["variant"], flow["cc"], flow["tcp"]["mss"]) == ("Linux", "bbr", 1000)
    (imp,) = sc["impairments"]
    assert (imp["link"], imp["fraction"]) == ("R1->R2", 0.1)
    assert (imp["delay"]["mean"], imp["delay"]["sd"]) == (0.025, 0.008)
    assert bbr_setting.chain("reno", 10e6, 0.0, 10.0).impairments == []


def test_without_the_emulator_the_kernel_step_says_why_and_claims_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("reorderlab.emulate.unavailable_reason", lambda: "no TUN here")
    rec = papers()["bbr-reordering"]["kernel"]
    assert rec.run(True, tmp_path, None) == []
    assert "bbr-reordering: kernel runs skipped: no TUN here" in capsys.readouterr().err
    assert not (tmp_path / "kernel").exists()


def save_kernel(out: Path, curve: str, x: float, pps: float, rexmit: int, p99: float) -> None:
    """A kernel run's result.json as emulate() writes it (the fields read)."""
    where = bbr_setting.kernel_dir(out, True, curve, 10e6, x)
    where.mkdir(parents=True, exist_ok=True)
    flow = {"throughput_bps": pps * 8 * PAYLOAD, "retransmits": rexmit, "spurious_retransmits": 1}
    data = {
        "flows": [flow],
        "emulation": {"segment_payload": PAYLOAD, "timing": {"p99_us": p99}},
    }
    (where / "result.json").write_text(json.dumps(data))


def derive(out: Path) -> list[dict[str, Any]]:
    rec = chain_figure()
    rows: list[dict[str, Any]] = rec.derive(Runs(rec.points(True), None), True, out).data
    return rows


def test_without_kernel_runs_the_chain_draws_the_simulator_alone(
    tiny: None, tmp_path: Path
) -> None:
    claims = chain_figure().run(True, tmp_path, None)
    assert claims == []
    rows = {(r["curve"], r["x"]): r for r in json_rows(tmp_path)}
    assert set(rows) == {(c, x) for c in ("BBR", "CUBIC") for x in (0.0, 0.3)}
    for r in rows.values():
        assert 0 < r["sim_pps"] <= 10e6 / 8 / 1000  # under the bottleneck's segments/s
        assert math.isnan(r["kernel_pps"]) and math.isnan(r["ratio"])
    assert (tmp_path / "chain-10M-goodput.png").exists()
    assert (tmp_path / "chain-10M-retransmissions.png").exists()


def json_rows(out: Path) -> list[dict[str, Any]]:
    return json_rows_of(out / "chain.csv")


def test_claims_come_from_the_saved_kernel_runs(tiny: None, tmp_path: Path) -> None:
    sims = {(r["curve"], r["x"]): r for r in derive(tmp_path)}
    # the kernel made up: BBR equal to the simulator at 0 %, 15 % slower and
    # retransmitting 3 x as much at 30 % (CUBIC left out: its points are drawn only)
    for x, speed, more in ((0.0, 1.0, 1.0), (0.3, 1 / 0.85, 3.0)):
        sim = sims[("BBR", x)]
        rexmit = round(sim["sim_retransmits"] * more) + (0 if more == 1.0 else 10)
        save_kernel(tmp_path, "BBR", x, sim["sim_pps"] * speed, rexmit, 90.0 + 5000 * x)
    rows = derive(tmp_path)
    bbr = {r["x"]: r for r in rows if r["curve"] == "BBR"}
    assert bbr[0.0]["ratio"] == pytest.approx(1.0)
    assert bbr[0.3]["ratio"] == pytest.approx(0.85)
    assert all(math.isnan(r["kernel_pps"]) for r in rows if r["curve"] == "CUBIC")
    claims = {c.claim: c for c in bbr_chain.claims(rows, True)}
    at = "BBR at 10 Mb/s: the simulator's"
    goodput = claims[f"{at} goodput within 10 % of the kernel's at every fraction"]
    counts = claims[f"{at} retransmissions within 20 % of the kernel's at every fraction"]
    timing = claims["The emulated path kept its schedule in every kernel run"]
    assert not goodput.holds and "30%: 0.850" in goodput.measured
    assert not counts.holds
    assert not timing.holds and "1590 us" in timing.measured
    assert goodput.quote == bbr_chain.AGREEMENT
    assert len(claims) == 3


def test_a_rate_with_a_kernel_run_missing_has_no_claim(tiny: None, tmp_path: Path) -> None:
    sim = {(r["curve"], r["x"]): r for r in derive(tmp_path)}[("BBR", 0.0)]
    save_kernel(tmp_path, "BBR", 0.0, sim["sim_pps"], round(sim["sim_retransmits"]), 90.0)
    rows = derive(tmp_path)
    assert bbr_chain.claims(rows, True) == []
    assert [r["x"] for r in rows if not math.isnan(r["kernel_pps"])] == [0.0]


def test_the_gigabit_figure_runs_the_linux_sender_on_the_high_speed_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sc = bbr_setting.gigabit("bbr", 20e-6, 12.0).to_dict()
    flow = sc["flows"][0]
    assert (flow["variant"], flow["cc"]) == ("Linux", "bbr")
    assert "rto_estimator" not in flow["tcp"] and "min_rto" not in flow["tcp"]
    assert sc["topology"]["bottleneck_rate"] == 1e9
    (gen,) = sc["impairments"]
    assert gen["delay"]["mean"] == 20e-6
    assert bbr_setting.gigabit("cubic", 0.0, 12.0).impairments == []
    monkeypatch.setattr(bbr_gigabit, "CURVES", {"BBR": "bbr"})
    monkeypatch.setattr(bbr_gigabit, "GIGABIT_DELAYS", Modes(full=(0.0,), quick=(0.0,)))
    monkeypatch.setattr(bbr_gigabit, "GIGABIT_MODE", Modes(full=Mode(60.0, 3), quick=Mode(11.0, 1)))
    rec = papers()["bbr-reordering"]["gigabit"]
    assert rec.run(True, tmp_path, None) == []
    (row,) = json_rows_of(tmp_path / "gigabit.csv")
    assert row["curve"] == "BBR" and 500 < row["mbps"] <= 1000
    assert (tmp_path / "gigabit-goodput.png").exists()


def json_rows_of(path: Path) -> list[dict[str, Any]]:
    import pandas as pd

    return [{str(k): v for k, v in r.items()} for r in pd.read_csv(path).to_dict("records")]


def kernel_series(sim: dict[str, list[float]], scale: float, after: float) -> dict[str, Any]:
    """The simulator's series as a kernel run's, every value x ``scale`` from ``after`` s."""
    t = sim["t"]
    out: dict[str, Any] = {"t": t}
    for name, ys in sim.items():
        if name != "t":
            out[name] = [y * (scale if tt >= after else 1.0) for tt, y in zip(t, ys, strict=True)]
    return out


def test_the_state_figure_compares_both_sides_window_by_window(tiny: None, tmp_path: Path) -> None:
    """BBR's recorded state: a kernel run equal to the simulator holds; one
    whose every quantity is 15 % higher from 2 s on fails."""
    rec = papers()["bbr-reordering"]["state"]
    runs = Runs(rec.points(True), None)
    (first, second) = rec.derive(runs, True, tmp_path).data
    assert first["kernel"] == {} and rec.check([first, second], True) == []
    sim = first["sim"]
    assert set(bbr_state.COMPARED) <= set(sim) and len(sim["t"]) >= 25  # every 0.1 s
    assert min(v for v in sim["bbr_bw"] if math.isfinite(v)) >= 0
    for x, scale in ((0.0, 1.0), (0.3, 1.15)):
        where = bbr_setting.kernel_dir(tmp_path, True, "BBR", 10e6, x)
        where.mkdir(parents=True)
        sim_x = first["sim"] if x == 0.0 else second["sim"]
        data = {"series": {"0": kernel_series(sim_x, scale, 2.0)}}
        (where / "result.json").write_text(json.dumps(data))
    rows = rec.derive(runs, True, tmp_path).data
    claims = rec.check(rows, True)
    assert [c.holds for c in claims] == [True, False]
    assert rows[0]["bbr_bw_min"] == pytest.approx(1.0) and rows[0]["cwnd_windows"] == 1
    assert rows[1]["pacing_rate_min"] == pytest.approx(1 / 1.15, rel=1e-6)
    assert "bbr_min_rtt 0.870-0.870" in claims[1].measured
    rec.plot(rows, tmp_path, True)
    assert (tmp_path / "state-10M-0pct.png").exists()


def test_window_means_skip_what_is_not_a_number() -> None:
    series = {"t": [2.0, 2.5, 3.0, 3.5], "cwnd": [10.0, math.nan, 30.0, 50.0]}
    assert bbr_state.window_means(series, "cwnd", 4.0) == [10.0, 40.0]
    assert bbr_state.window_means(series, "cwnd", 2.5) == []


#: Kernel runs recorded on this machine (6.18.44, quick mode: 10 s), trimmed
#: to the fields the recipe reads.
RECORDED = Path(__file__).parent / "data" / "bbr-reordering"


def test_bbr_at_10_mbps_agrees_with_the_recorded_kernel_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 37's targets on the recorded kernel runs at 10 Mb/s: BBR's
    goodput within 10 % at 0, 10 and 30 % delayed, and on those three cells
    its bandwidth estimate, min RTT, pacing rate and cwnd within 10 % in
    every 1-s window (a change to the BBR model that moves it fails here)."""
    shutil.copytree(RECORDED / "kernel", tmp_path / "kernel")
    for module in (bbr_setting, bbr_chain, bbr_state):
        monkeypatch.setattr(module, "RATES", (10e6,))
    for module in (bbr_setting, bbr_chain):
        monkeypatch.setattr(module, "CURVES", {"BBR": "bbr"})
    figs = papers()["bbr-reordering"]
    chain_rows = figs["chain"].derive(Runs(figs["chain"].points(True), None), True, tmp_path).data
    assert [r["kernel_pps"] > 1100 for r in chain_rows] == [True, True, True]
    chain_claims = figs["chain"].check(chain_rows, True)
    goodput = [c for c in chain_claims if "goodput" in c.claim]
    assert len(goodput) == 1 and goodput[0].holds, goodput[0].measured
    # The retransmission count misses (the receiver's PAWS drops vary run to
    # run in both); its deviation is recorded with the measured counts.
    (rexmit,) = explain([c for c in chain_claims if "retransmissions" in c.claim], quick=True)
    assert not rexmit.holds and rexmit.deviation is not None, rexmit.measured
    assert rexmit.deviation.cause == "model"
    why = " ".join(rexmit.deviation.why.split())
    means = [f"mean {s:.1f}" for _, s in rexmit.values["kernel_vs_sim"].values()]
    assert all(m in why for m in means[1:]), (means, why)
    state = figs["state"]
    state_rows = state.derive(Runs(state.points(True), None), True, tmp_path).data
    claims = state.check(state_rows, True)
    assert len(claims) == 3 and all(c.holds for c in claims), [c.measured for c in claims]


def test_the_deviations_quote_the_kernel_runs_kept() -> None:
    """The kernel's run-to-run spread that the retransmission deviations
    rest on: each run kept in ``extra`` (other seeds than the recorded
    runs) is quoted by its retransmission count."""
    why = {
        e.claim: " ".join(e.deviation.why.split())
        for e in explanations("bbr-reordering")
        if e.figure == "chain" and "retransmissions" in e.claim
    }
    runs = sorted((RECORDED / "extra").glob("BBR-*"))
    assert len(runs) == 10 and len(why) == 2
    for run in runs:
        point = bbr_setting.kernel_point(json.loads((run / "result.json").read_text()))
        rate = run.name.split("-")[1]
        text = why[
            f"BBR at {rate[:-1]} Mb/s: the simulator's retransmissions within 20 % "
            "of the kernel's at every fraction"
        ]
        assert f"{point.retransmits}" in text, (run.name, point.retransmits)
