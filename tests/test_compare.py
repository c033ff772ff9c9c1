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
