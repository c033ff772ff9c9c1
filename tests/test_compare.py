"""``compare``: the league table of sender variants on one scenario."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import reorderlab as rl
from reorderlab.league import LEAGUE_COLUMNS, MeanCI, t975, undisturbed, write_league

from .conftest import ROOT, run_cli

#: The rr-tcp chain (P = 50 ms, 8 Mb/s, window M = 50 = the path's
#: bandwidth-delay product, a 100-packet queue that never fills) with 5 % of
#: the packets delayed by Normal(25 ms, 8 ms): reordering and nothing else.
REORDER_ONLY = """\
name = "reorder-only"
duration = 30.0
warmup = 2.0

[topology]
kind = "chain"
bottleneck_rate = 8e6
bottleneck_delay = 0.023

[[impairments]]
link = "R1->R2"
kind = "delay"
fraction = 0.05
delay = { dist = "normal", mean = 0.025, sd = 0.008 }

[[flows]]
src = "S1"
dst = "D"

[flows.tcp]
max_window = 50
"""


@pytest.fixture(scope="module")
def league() -> pd.DataFrame:
    sc = rl.Scenario.from_toml(REORDER_ONLY)
    return rl.compare(sc, "SACK,DSACK-TA,RACK-TLP", cc="reno", seeds=4, store=None, workers=2)


def test_ranking_on_a_reordering_only_path(league: pd.DataFrame) -> None:
    """The order is known from first principles. Nothing is ever lost here
    (no loss element, and a window of one bandwidth-delay product never
    fills the queue), so every retransmission is spurious. SACK (dupthresh
    3, no response to DSACK) takes each packet delayed past three later
    ones for a loss: it retransmits and halves its window, and never undoes
    it. DSACK-TA learns from the DSACKs that the retransmissions were
    spurious, undoes each reduction and raises dupthresh to the reordering
    it measured; RACK-TLP waits a reordering window (grown on DSACK)
    before calling a segment lost. Both must beat SACK, beyond the
    confidence intervals. All three run Reno congestion control (cc fixed),
    so only loss detection and response differ."""
    rows = league.set_index("variant")
    assert list(league.columns) == list(LEAGUE_COLUMNS)
    assert league.attrs["ranked_by"] == "goodput_mbps"
    assert list(league["rank"]) == [1, 2, 3]
    assert list(league["goodput_mbps"]) == sorted(league["goodput_mbps"], reverse=True)
    assert set(league["cc"]) == {"reno"}
    sack = rows.loc["SACK"]
    assert sack["rank"] == 3
    for better in ("DSACK-TA", "RACK-TLP"):
        row = rows.loc[better]
        assert row["rank"] < sack["rank"]
        assert row["goodput_mbps"] - row["goodput_ci"] > sack["goodput_mbps"] + sack["goodput_ci"]
        assert row["share_undisturbed"] > sack["share_undisturbed"]
        assert row["spurious_retransmits"] < sack["spurious_retransmits"]
    # ground truth: without loss every retransmission is spurious
    assert list(league["spurious_retransmits"]) == list(league["retransmits"])
    assert sack["retransmits"] > 0
    assert (league["timeouts"] == 0).all()
    # the undisturbed scenario (no delay element) is near the path's rate
    assert 0 < sack["share_undisturbed"] < 0.5
    runs = league.attrs["runs"]
    calm = runs[~runs["disturbed"]]
    assert len(runs) == 3 * 4 * 2 and len(calm) == 12
    assert (calm["retransmits"] == 0).all()
    assert ((calm["throughput_bps"] > 7e6) & (calm["throughput_bps"] <= 8e6)).all()


def test_confidence_intervals_are_student_t_over_seeds(league: pd.DataFrame) -> None:
    assert t975(1) == 12.706 and t975(30) == 2.042 and abs(t975(1000) - 1.962) < 1e-3
    ci = MeanCI.of([1.0, 2.0, 3.0])
    assert ci.mean == 2.0 and math.isclose(ci.half, 4.303 / math.sqrt(3))
    assert math.isnan(MeanCI.of([5.0]).half)
    runs = league.attrs["runs"]
    hit = runs[runs["disturbed"] & (runs["variant"] == "SACK")]["throughput_bps"] / 1e6
    expected = MeanCI.of(hit)
    row = league.set_index("variant").loc["SACK"]
    assert math.isclose(row["goodput_mbps"], expected.mean)
    assert math.isclose(row["goodput_ci"], expected.half)
    assert row["seeds"] == 4


def test_each_variant_runs_with_its_papers_congestion_control_unless_told() -> None:
    sc = rl.Scenario.from_toml(REORDER_ONLY).with_params({"duration": 3.0, "warmup": 0.0})
    default = rl.compare(sc, ["sack", "RACK-TLP", "TCP-RR"], seeds=1, store=None, workers=1)
    pairs = dict(zip(default["variant"], default["cc"], strict=True))
    assert pairs == {"SACK": "reno", "RACK-TLP": "cubic", "DSACK-TA": "reno"}  # TCP-RR: alias
    runs = default.attrs["runs"]
    assert set(zip(runs["variant"], runs["cc"], strict=True)) == set(pairs.items())
    forced = rl.compare(sc, "SACK,RACK-TLP", cc="BIC", seeds=1, store=None, workers=1)
    assert set(forced["cc"]) == {"bic"}


def test_finite_flows_rank_by_completion_time() -> None:
    sc = rl.Scenario.from_toml(REORDER_ONLY).with_params(
        {"flows[0].segments": 300, "duration": 20.0, "warmup": 0.0}
    )
    league = rl.compare(sc, "SACK,DSACK-TA,Reno", cc="reno", seeds=2, store=None, workers=1)
    assert league.attrs["ranked_by"] == "fct_s"
    assert list(league["fct_s"]) == sorted(league["fct_s"])
    assert (league["completed"] == 1.0).all()
    assert league["fct_s"].notna().all() and (league["fct_s"] > 0.3).all()


def test_undisturbed_drops_impairments_and_multipath_only() -> None:
    ecmp = rl.Scenario.load(ROOT / "examples" / "ecmp.toml")
    calm = undisturbed(ecmp)
    assert ecmp.multipath and not calm.multipath and not calm.impairments
    assert calm.flows == ecmp.flows and calm.topology == ecmp.topology


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variants": "SACK,NOPE"}, r"variants\[1\]: unknown variant 'NOPE' \(known: Reno"),
        ({"variants": ""}, "variants: must name at least one variant"),
        ({"cc": "vegas"}, "cc: unknown congestion control 'vegas' \\(known: reno"),
        ({"seeds": 0}, "seeds: must be >= 1, got 0"),
    ],
)
def test_bad_choices_are_named(kwargs: dict[str, object], message: str) -> None:
    sc = rl.Scenario.from_toml(REORDER_ONLY)
    with pytest.raises(rl.ScenarioError, match=message):
        rl.compare(sc, store=None, **kwargs)  # type: ignore[arg-type]


def test_cli_writes_the_table_chart_and_csv_and_caches_the_runs(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    scenario = tmp_path / "reorder.toml"
    scenario.write_text(REORDER_ONLY.replace("duration = 30.0", "duration = 5.0"), "utf-8")
    out = tmp_path / "league"
    args = ["compare", str(scenario), "--variants", "SACK,DSACK-TA", "--seeds", "2"]
    proc = run_cli([*args, "--out", str(out), "--workers", "2"], cli_env)
    assert proc.returncode == 0, proc.stderr
    assert "8 runs: 8 simulated, 0 from the store" in proc.stdout
    assert "undisturbed = the same scenario without its impairments" in proc.stdout
    table = pd.read_csv(out / "league.csv")
    assert list(table.columns) == list(LEAGUE_COLUMNS)
    assert list(table["variant"]) == ["DSACK-TA", "SACK"]
    assert json.loads((out / "league.json").read_text())["seeds"] == [1, 2]
    assert len(pd.read_csv(out / "runs.csv")) == 8
    for chart in ("league.png", "league.svg"):
        assert (out / chart).stat().st_size > 1000
    again = run_cli([*args, "--out", str(out)], cli_env)
    assert "8 runs: 0 simulated, 8 from the store" in again.stdout
    bad = run_cli([*args[:2], "--variants", "FOO"], cli_env)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        f"error: {scenario}: variants[0]: unknown variant 'FOO' (known: "
        + ", ".join(v["name"] for v in json.loads(rl._core.variants()))
        + ")"
    )


def test_the_league_chart_is_the_same_bytes_every_time(
    league: pd.DataFrame, tmp_path: Path
) -> None:
    write_league(league, tmp_path / "a")
    write_league(league, tmp_path / "b")
    for name in ("league.csv", "league.json", "league.png", "league.svg", "runs.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_compare_runs_on_dask_with_the_same_table(league: pd.DataFrame) -> None:
    sc = rl.Scenario.from_toml(REORDER_ONLY)
    on_dask = rl.compare(
        sc, "SACK,DSACK-TA,RACK-TLP", cc="reno", seeds=4, store=None, backend="dask", workers=1
    )
    pd.testing.assert_frame_equal(on_dask, league)


def _rows(means: list[float], halves: list[float]) -> list[dict[str, object]]:
    return [
        {"variant": f"V{i}", "cc": "reno", "goodput_mbps": m, "goodput_ci": h}
        for i, (m, h) in enumerate(zip(means, halves, strict=True))
    ]


def test_overlapping_intervals_share_a_rank_marked_with_an_equals_sign() -> None:
    """Issue 41: in the ECMP league ranks 1-3 read 50.00 +- 0.00 and were
    ranked 1, 2, 3. A sender's rank is one more than the number of senders
    wholly better; overlapping ones share it, and it is shown ``=N``."""
    from reorderlab.league import _rank
    from reorderlab.league_view import row_cells

    rows = _rows([50.0, 50.0, 50.0, 49.0, 48.9, 30.0], [0.0, 0.0, 0.0, 0.2, 0.2, 1.0])
    _rank(rows, "goodput_mbps", -1.0)
    assert [r["rank"] for r in rows] == [1, 1, 1, 4, 4, 6]
    assert [r["tied"] for r in rows] == [True, True, True, True, True, False]
    assert [row_cells(r, False)[0] for r in rows] == ["=1", "=1", "=1", "=4", "=4", "6"]
    # apart: 1, 2, 3, none tied; a missing mean ranks last
    apart = _rows([3.0, 2.0, 1.0, math.nan], [0.1, 0.1, 0.1, math.nan])
    _rank(apart, "goodput_mbps", -1.0)
    assert [r["rank"] for r in apart] == [1, 2, 3, 4] and not any(r["tied"] for r in apart)
    # a wide interval overlapping both neighbours: never below the rank above
    wide = _rows([3.0, 2.5, 2.0], [0.1, 2.0, 0.1])
    _rank(wide, "goodput_mbps", -1.0)
    assert [r["rank"] for r in wide] == [1, 1, 2]


def test_the_league_counts_queue_drops(league: pd.DataFrame) -> None:
    """Issue 41: the queue drops behind a low share were visible only from
    Python. A 3-packet bottleneck queue on the reordering path drops."""
    sc = rl.Scenario.from_toml(REORDER_ONLY).with_params(
        {"duration": 5.0, "topology.queue.limit_packets": 3}
    )
    small = rl.compare(sc, "SACK", cc="reno", seeds=2, store=None, workers=1)
    runs = small.attrs["runs"]
    assert (runs["queue_drops"] > 0).all()
    assert small["queue_drops"].iloc[0] == runs[runs["disturbed"]]["queue_drops"].mean()
    # the 100-packet queue of the module's league never fills
    assert (league["queue_drops"] == 0).all()


def test_queue_drops_of_stored_runs_are_read_back(tmp_path: Path) -> None:
    sc = rl.Scenario.from_toml(REORDER_ONLY).with_params(
        {"duration": 3.0, "topology.queue.limit_packets": 3}
    )
    store = tmp_path / "s.duckdb"
    first = rl.compare(sc, "SACK", cc="reno", seeds=1, store=store, workers=1)
    again = rl.compare(sc, "SACK", cc="reno", seeds=1, store=store, workers=1)
    assert again.attrs["stats"].cached == 2
    assert first["queue_drops"].iloc[0] > 0
    assert list(again["queue_drops"]) == list(first["queue_drops"])


def test_one_folder_per_compare_a_latest_link_and_the_report_rebuilt(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """Issue 41: a second compare overwrote the first's folder, and the
    report was not rebuilt. Each (scenario, variants, options) has its own
    folder, ``latest`` points at the last, ``results/index.html`` shows
    both leagues once each."""
    scenario = tmp_path / "reorder.toml"
    scenario.write_text(REORDER_ONLY.replace("duration = 30.0", "duration = 3.0"), "utf-8")
    base = ["compare", str(scenario), "--seeds", "1", "--workers", "1", "--no-cache"]
    one = run_cli([*base, "--variants", "SACK"], cli_env, cwd=tmp_path)
    two = run_cli([*base, "--variants", "SACK,DSACK-TA"], cli_env, cwd=tmp_path)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    folders = sorted(p.name for p in (tmp_path / "results" / "compare").iterdir())
    assert len(folders) == 3 and "latest" in folders
    made = [f for f in folders if f != "latest"]
    assert all(f.startswith("reorder-only-") and len(f) == len("reorder-only-") + 10 for f in made)
    latest = tmp_path / "results" / "compare" / "latest"
    assert latest.is_symlink()
    assert len(pd.read_csv(latest / "league.csv")) == 2  # the second compare's
    page = (tmp_path / "results" / "index.html").read_text("utf-8")
    assert page.count('<table class="league">') == 2
    assert "queue drops" in page
    assert f"wrote {Path('results') / 'index.html'}" in two.stdout
    # the same compare again: the same folder
    three = run_cli([*base, "--variants", "SACK"], cli_env, cwd=tmp_path)
    assert len(list((tmp_path / "results" / "compare").iterdir())) == 3, three.stderr


def test_markdown_is_the_text_table_s_cells(league: pd.DataFrame) -> None:
    from reorderlab.cli.output import league_table as text_table
    from reorderlab.league_view import heads, markdown

    rows = [{str(k): v for k, v in r.items()} for r in league.to_dict("records")]
    md = markdown(rows, finite=False).splitlines()
    assert md[0] == "| " + " | ".join(heads(False)) + " |"
    text = text_table(league)
    for line, cells in zip(md[2:], text.rows, strict=True):
        assert line == "| " + " | ".join(cells).replace("+-", "±") + " |"


# --- QUIC rows: tcp.max_window carried to quic.max_window --------------------

CHAIN = ROOT / "examples" / "chain.toml"


def _chain(max_window: int | None, duration: float) -> rl.Scenario:
    """examples/chain.toml (one flow, tcp.max_window = 50 and min_rto) for
    ``duration`` s with its window set to ``max_window`` (None: removed)."""
    data = rl.load_scenario(CHAIN).to_dict()
    data["duration"] = duration
    tcp = data["flows"][0]["tcp"]
    if max_window is None:
        tcp.pop("max_window")
    else:
        tcp["max_window"] = max_window
    return rl.Scenario.from_dict(data)


def test_a_quic_row_gets_the_flows_window_and_leaves_out_tcp_only_fields() -> None:
    from reorderlab.league import _with_sender

    sc = _chain(50, 10.0)
    quic, note = _with_sender(sc, "QUIC", "reno")
    flow = quic.flows[0]
    assert flow.quic is not None and flow.quic.max_window == 50
    assert flow.tcp.max_window is None and flow.tcp.min_rto is None
    assert (
        note == "QUIC rows: tcp.max_window carried to quic.max_window; tcp.min_rto not used by QUIC"
    )
    # a TCP row keeps its fields and says nothing
    tcp, none = _with_sender(sc, "RACK-TLP", "reno")
    assert tcp.flows[0].tcp.max_window == 50 and tcp.flows[0].quic is None and none is None


def test_compare_of_the_chain_example_with_rack_tlp_and_quic(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """The user's command: it was refused (flows[0].tcp.max_window: is for
    TCP flows); both rows run, the note line says what the QUIC rows did."""
    out = tmp_path / "league"
    args = ["compare", str(CHAIN), "--variants", "RACK-TLP,QUIC", "--seeds", "1"]
    proc = run_cli([*args, "--workers", "1", "--no-cache", "--out", str(out)], cli_env)
    assert proc.returncode == 0, proc.stderr
    note = "QUIC rows: tcp.max_window carried to quic.max_window; tcp.min_rto not used by QUIC"
    assert note in proc.stdout
    assert sorted(pd.read_csv(out / "league.csv")["variant"]) == ["QUIC", "RACK-TLP"]
    assert json.loads((out / "league.json").read_text("utf-8"))["notes"] == [note]


def test_the_quic_row_runs_under_the_window() -> None:
    """A window of 5 packets over the chain's 50 ms round trip allows at
    most 5 x 1500 B x 8 / 50 ms = 1.2 Mb/s; the same QUIC flow without a
    window goes well above it (so the bound fails without the carry)."""
    bound = 5 * 1500 * 8 / 0.050 / 1e6
    league = rl.compare(_chain(5, 20.0), "RACK-TLP,QUIC", seeds=1, store=None, workers=1)
    quic = league.set_index("variant").loc["QUIC"]
    assert 0.5 * bound < quic["goodput_mbps"] <= bound, quic["goodput_mbps"]
    data = _chain(None, 20.0).to_dict()
    data["flows"][0].update(variant="QUIC", cc="reno", tcp={})
    free = rl.run(rl.Scenario.from_dict(data), seed=1).flows["throughput_bps"].iloc[0] / 1e6
    assert free > 1.5 * bound, free
