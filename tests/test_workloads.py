"""Fabric workloads from Python (``docs/fabrics.md``): the generated model,
refusals on one line, the cache key of scenarios without one, a run, and
``compare`` on a fabric; the ``spraying`` recipe's measures and claims on a
tiny grid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import reorderlab as rl
from reorderlab import run
from reorderlab.league import undisturbed
from reorderlab.papers import papers, select
from reorderlab.papers.kit.mode import Modes
from reorderlab.papers.spraying import fct as spray_fct
from reorderlab.papers.spraying import setting as spray_setting
from reorderlab.scenario import Scenario, ScenarioError

from .conftest import ROOT


def _fabric(**workload: Any) -> dict[str, Any]:
    return {
        "duration": 0.2,
        "topology": {"kind": "fat_tree", "k": 4, "rate": 10e9, "load_balancing": "spray"},
        "workloads": [{"pattern": "permutation", **workload}],
    }


def test_a_scenario_without_workloads_keeps_its_json_and_key() -> None:
    """No ``workloads`` key is written when there is none: every stored
    run's key stays what it was."""
    sc = Scenario.load(ROOT / "examples" / "ecmp.toml")
    assert "workloads" not in sc.to_dict()
    assert "workloads" not in sc.canonical_json(1)


def test_a_permutation_runs_from_python() -> None:
    sc = Scenario.from_dict(_fabric(flow_size={"dist": "constant", "value": 150_000}))
    first = run(sc, seed=4)
    flows = first.flows
    assert len(flows) == 16 and bool(flows["completed"].all())
    assert sorted(flows["dst"]) == sorted(f"h{i}" for i in range(16))
    assert first.flows.equals(run(sc, seed=4).flows)


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        ({"pattern": "incast", "fan_in": 20}, r"^workloads\[0\]\.fan_in: must be below"),
        ({"distribution": "web"}, r"^workloads\[0\]\.distribution: "),
        ({"jitter": -1.0}, r"^workloads\[0\]\.jitter: must be >= 0, got -1$"),
        ({"target": "h2"}, r'^workloads\[0\]\.target: is only used by pattern = "incast"$'),
    ],
)
def test_bad_workloads_are_refused_on_one_line(workload: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as info:
        Scenario.from_dict(_fabric(**workload))
    assert "\n" not in str(info.value)


def test_compare_ranks_senders_on_a_fabric_workload() -> None:
    sc = Scenario.from_dict(_fabric(flow_size={"dist": "constant", "value": 300_000}))
    calm = undisturbed(sc)
    assert calm.topology.load_balancing == "ecmp"  # type: ignore[union-attr]
    league = rl.compare(sc, "SACK,RACK-TLP", cc="reno", seeds=2, store=None, workers=1)
    assert league.attrs["ranked_by"] == "fct_s"
    assert set(league["variant"]) == {"SACK", "RACK-TLP"}
    assert (league["completed"] == 1.0).all()
    runs = league.attrs["runs"]
    # every run has the workload's 16 flows, each with the variant compared
    for _, row in runs.iterrows():
        assert {row[f"f{i}.variant"] for i in range(16)} == {row["variant"]}
    assert (league["fct_s"] > 0).all()


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two senders, two policies, two seeds: the recipe's steps in seconds."""
    monkeypatch.setattr(spray_fct, "VARIANTS", ("SACK", "Linux"))
    monkeypatch.setattr(spray_fct, "POLICIES", ("ecmp", "spray"))
    monkeypatch.setattr(spray_fct, "SEEDS", Modes(full=2, quick=2))


@pytest.mark.usefixtures("tiny")
def test_the_spraying_recipe_measures_and_claims(tmp_path: Path) -> None:
    rec = papers()["spraying"]["fct"]
    assert not rec.in_all and rec not in select()
    claims = rec.run(True, tmp_path, None)
    df = pd.read_csv(tmp_path / "fct.csv")
    assert len(df) == 2 * 2 * 3 * 2  # senders x policies x fabrics x seeds
    assert (df["completed"] == 1.0).all()
    assert (df["p99_slowdown"] >= df["p50_slowdown"]).all()
    assert (df["p50_slowdown"] >= 1.0).all(), "nothing beats the empty fabric"
    assert (df["goodput_gbps"] > 0).all() and (df["goodput_gbps"] < 16 * 10).all()
    assert len(claims) == 8
    assert {c.claim for c in claims} == {
        f"{v}: {what}"
        for v in ("Linux", "SACK")
        for what in (
            "random spraying beats ECMP's p99 FCT on the symmetric fabric",
            "spraying on the symmetric fabric resends at most 1 % of packets needlessly",
            "a failed link raises RPS's p99 FCT",
            "a link failing mid-run raises RPS's p99 FCT",
        )
    }
    assert all(c.quote and c.seed_share is not None for c in claims)
    assert (tmp_path / "fct-p99.png").exists()


def test_the_ideal_fct_is_the_fabric_without_contention() -> None:
    """A lone flow takes exactly its ideal time on an empty fabric."""
    sc = Scenario.from_dict(
        {
            "duration": 0.1,
            "topology": {
                "kind": "fat_tree",
                "k": 4,
                "rate": spray_setting.RATE,
                "hop_delay": spray_setting.HOP_DELAY,
            },
            "flows": [
                {
                    "src": "h0",
                    "dst": "h15",
                    "segments": 667,
                    "tcp": {"mss": 1500, "initial_window": 1000, "max_window": 1000},
                }
            ],
        }
    )
    fct = float(run(sc, seed=1).flows["fct"].iloc[0])
    assert fct == pytest.approx(spray_setting.ideal_fct(0, 15), rel=1e-6)


def test_a_workload_is_the_same_in_processes_threads_and_dask() -> None:
    """The same scenario and seeds: the same table in this process, in two
    worker processes, in two threads and on Dask (each flow's pair, size and
    start come from the run's seed alone; so do every switch's choices, and
    REPS's values, with a cable failing mid-run, trimming and ECN)."""
    sc = Scenario.from_dict(_fabric(distribution="web_search", jitter=1e-5) | {"duration": 0.05})
    busy = _fabric(flow_size={"dist": "constant", "value": 300_000}) | {"duration": 0.05}
    busy["topology"] |= {
        "load_balancing": "reps",
        "buffer_bytes": 30_000,
        "ecn_threshold_bytes": 15_000,
        "trimming": True,
        "events": [{"at": 0.0003, "link": "agg0->core0", "action": "down"}],
    }
    grid = [({"case": "permutation"}, sc), ({"case": "reps, failure"}, Scenario.from_dict(busy))]

    def table(**how: Any) -> pd.DataFrame:
        df = rl.sweep(grid, seeds=[1, 2], store=None, progress=False, **how)
        return df.drop(columns=["wall_s"])

    local = table(workers=1)
    pd.testing.assert_frame_equal(local, table(workers=2))
    pd.testing.assert_frame_equal(local, table(backend="threads", workers=2))
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    pd.testing.assert_frame_equal(local, table(backend="dask", workers=1))
    perm = local[local["case"] == "permutation"]
    assert perm["f15.start"].nunique() == 2, "each seed draws its own starts"
    busy_rows = local[local["case"] == "reps, failure"]
    assert len(busy_rows) == 2 and busy_rows.filter(like=".data_drops").to_numpy().sum() > 0
