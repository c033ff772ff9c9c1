"""Running from Python: results, determinism, the store as a cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reorderlab
from reorderlab.runner import Result
from reorderlab.scenario import Scenario, ScenarioError, format_value
from reorderlab.store import Store

from .conftest import small_scenario


def test_run_returns_flows_links_and_series(small: Scenario) -> None:
    res = reorderlab.run(small, seed=3)
    assert isinstance(res, Result)
    assert res.seed == 3
    assert res.scenario_name == "small"
    assert res.engine_version == reorderlab.engine_version()
    flows = res.flows
    assert isinstance(flows, pd.DataFrame)
    assert list(flows.index) == [0]
    assert flows.loc[0, "variant"] == "SACK"
    assert flows.loc[0, "throughput_bps"] > 0
    assert flows.loc[0, "retransmits"] > 0  # 1 % loss over 5 s
    assert "R1->R2" in res.links.index
    assert res.links.loc["R1->R2", "impairment_drops"] > 0
    series = res.series(0)
    assert set(series) >= {"t", "cwnd", "srtt"}
    assert all(isinstance(v, np.ndarray) for v in series.values())
    assert len(series["t"]) == len(series["cwnd"]) > 10
    assert res.series("f0").keys() == series.keys()
    data = res.to_dict()
    assert data["flows"][0]["flow"] == 0
    assert Result(data).flows.equals(flows)


def test_run_accepts_dicts_paths_and_toml(small_toml: Path, small: Scenario) -> None:
    a = reorderlab.run(small_toml, seed=2).to_dict()
    b = reorderlab.run(str(small_toml), seed=2).to_dict()
    c = reorderlab.run(small.to_dict(), seed=2).to_dict()
    d = reorderlab.run(small_toml.read_text(), seed=2).to_dict()
    assert a == b == c == d


def test_same_seed_same_result_different_seed_differs(small: Scenario) -> None:
    one = reorderlab.run(small, seed=5).to_dict()
    again = reorderlab.run(small, seed=5).to_dict()
    other = reorderlab.run(small, seed=6).to_dict()
    assert one == again
    assert one["flows"] != other["flows"]


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "7"])
def test_bad_seed_names_the_field_and_value(small: Scenario, seed: object) -> None:
    # the core takes a u64: without the check, an OverflowError or TypeError
    # from deep inside
    with pytest.raises(ScenarioError) as info:
        reorderlab.run(small, seed=seed)  # type: ignore[arg-type]
    expected = f"seed: must be an integer from 0 to {2**64 - 1}, got {format_value(seed)}"
    assert str(info.value) == expected


def test_numpy_integer_seed_is_a_seed(small: Scenario) -> None:
    assert (
        reorderlab.run(small, seed=np.int64(5)).to_dict() == reorderlab.run(small, seed=5).to_dict()
    )


def test_default_seed_is_the_scenarios(small: Scenario) -> None:
    sc = small.with_params({"seed": 9})
    assert reorderlab.run(sc).to_dict() == reorderlab.run(sc, seed=9).to_dict()


def test_second_run_is_a_cache_hit(small: Scenario, store_path: Path) -> None:
    before = reorderlab.simulations_executed()
    first = reorderlab.run(small, seed=1, store=store_path)
    assert reorderlab.simulations_executed() == before + 1
    assert not first.cached
    second = reorderlab.run(small, seed=1, store=store_path)
    assert reorderlab.simulations_executed() == before + 1  # no second simulation
    assert second.cached
    assert second.to_dict() == first.to_dict()
    assert second.key == first.key
    # another seed is another run
    reorderlab.run(small, seed=2, store=store_path)
    assert reorderlab.simulations_executed() == before + 2
    with Store(store_path, read_only=True) as st:
        assert len(st) == 2
        stored = st.get(first.key or "")
        assert stored is not None
        assert stored.seed == 1
        assert Scenario.from_json(stored.scenario_json) == small.with_params({"seed": 1})


def test_result_save_writes_files(small: Scenario, tmp_path: Path) -> None:
    res = reorderlab.run(small_scenario(p=0.0, duration=2.0))
    written = res.save(tmp_path / "out")
    names = {p.name for p in written}
    assert {"result.json", "flows.csv", "links.csv", "series_flow0.csv"} <= names
    assert pd.read_csv(tmp_path / "out" / "flows.csv")["throughput_bps"].iloc[0] > 0


def test_store_survives_reopen(store_path: Path) -> None:
    with Store(store_path) as st:
        assert st.put(
            "k1",
            scenario_name="x",
            seed=1,
            engine_version="v",
            scenario_json="{}",
            result_json='{"flows": []}',
            wall_s=0.5,
        )
        assert not st.put(
            "k1",
            scenario_name="x",
            seed=1,
            engine_version="v",
            scenario_json="{}",
            result_json="{}",
        )
    with Store(store_path) as st:
        assert "k1" in st
        assert st.existing(["k1", "k2"]) == {"k1"}
        assert st.get_results(["k1"]) == {"k1": ('{"flows": []}', 0.5)}
        assert [r.key for r in st.runs()] == ["k1"]


def test_reordering_outputs() -> None:
    sc = small_scenario(p=0.0).with_params(
        {
            "impairments[0]": {
                "link": "R1->R2",
                "kind": "delay",
                "fraction": 0.2,
                "delay": {"dist": "constant", "value": 0.01},
            }
        }
    )
    res = reorderlab.run(sc, seed=1)
    density = res.reorder_density(0)
    assert density.shape == (17,)
    assert density.sum() == pytest.approx(1.0, abs=1e-6)
    assert res.flows.loc[0, "reordered_ratio"] > 0
    assert res.impairments.loc[0, "held"] > 0


def test_second_writer_gets_a_clear_error(store_path: Path) -> None:
    import subprocess
    import sys

    from reorderlab.store import StoreBusyError

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from reorderlab.store import Store\n"
            f"st = Store({str(store_path)!r})\n"
            "print('ready', flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreBusyError, match="in use by another process"):
            Store(store_path)
    finally:
        holder.kill()
        holder.wait(timeout=60)
    with Store(store_path) as st:  # free again
        assert len(st) == 0
