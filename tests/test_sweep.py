"""Sweeps: grid expansion, caching, the table of results, bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import reorderlab
from reorderlab import _core
from reorderlab import pool as pool_mod
from reorderlab import sweep as sweep_mod
from reorderlab import worker as worker_mod
from reorderlab.scenario import ScenarioError
from reorderlab.store import Store
from reorderlab.sweep import Grid, SweepFile, SweepStats, backends, batching, jobs_for, sink
from reorderlab.sweep import table as table_mod

from .conftest import small_scenario

P_VALUES = [0.0, 0.005, 0.01, 0.02]


def loss_grid(duration: float = 5.0) -> Grid:
    return Grid(small_scenario(duration=duration), {"impairments[0].p": P_VALUES})


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    """Drop what legitimately differs between two executions (timing, cache)."""
    return df.drop(columns=["wall_s", "cached"]).reset_index(drop=True)


def test_grid_is_a_cartesian_product() -> None:
    grid = Grid(
        small_scenario(),
        {"impairments[0].p": [0.0, 0.01], "flows[0].variant": ["SACK", "NewReno", "Reno"]},
    )
    points = grid.points()
    assert len(grid) == len(points) == 6
    assert points[1][0] == {"impairments[0].p": 0.0, "flows[0].variant": "NewReno"}
    assert points[1][1].flows[0].variant == "NewReno"
    jobs = jobs_for(grid, seeds=[1, 2])
    assert len(jobs) == 12
    assert len({j.key for j in jobs}) == 12
    # the keys and stored JSON jobs_for precomputes are the scenario's own
    version = reorderlab.engine_version()
    for job in jobs:
        assert job.key == job.scenario.cache_key(job.seed, version)
        assert job.stored_json() == job.scenario.canonical_json(job.seed)
        # the core gets the canonical text: the same scenario, with the seed
        core = json.loads(job.core_json())
        assert core == {**json.loads(job.scenario.to_json()), "seed": job.seed}
    # ... and simulates exactly what the scenario's own JSON gives
    job = jobs[3]
    assert _core.run(job.core_json(), job.seed) == _core.run(job.scenario.to_json(), job.seed)


def test_bad_grid_value_names_field_and_point() -> None:
    grid = Grid(small_scenario(), {"impairments[0].p": [0.01, 1.5]})
    with pytest.raises(ScenarioError, match=r"impairments\[0\]\.p: must be in \[0, 1\), got 1\.5"):
        grid.points()


def test_grid_values_must_be_lists() -> None:
    grid = Grid(small_scenario(), {"flows[0].variant": "SACK"})  # type: ignore[dict-item]
    with pytest.raises(
        ScenarioError,
        match=r"^grid\['flows\[0\]\.variant'\]: must be a list of values, got 'SACK'$",
    ):
        grid.points()
    # any other iterable of values is a list of values (a generator too)
    ranged = Grid(small_scenario(), {"flows[0].tcp.max_window": range(10, 13)})
    assert [v for v, _ in ranged.points()] == [{"flows[0].tcp.max_window": w} for w in (10, 11, 12)]
    once = Grid(small_scenario(), {"flows[0].tcp.max_window": (w for w in (10, 11))})
    assert [v for v, _ in once.points()] == [{"flows[0].tcp.max_window": w} for w in (10, 11)]


def test_grid_values_must_not_be_empty_and_paths_must_be_strings() -> None:
    """An empty list gave an empty table, silently (a sweep file refuses it);
    a path that is not a string failed with "object of type 'int' has no len()"."""
    empty = Grid(small_scenario(), {"flows[0].variant": []})
    with pytest.raises(ScenarioError, match=r"^grid\['flows\[0\]\.variant'\]: must not be empty$"):
        reorderlab.sweep(empty, store=None)
    numbered = Grid(small_scenario(), {3: [1]})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"^grid: field paths must be strings, got 3$"):
        reorderlab.sweep(numbered, store=None)


def test_what_is_not_a_grid_is_named() -> None:
    with pytest.raises(TypeError, match=r"^grid: must be a Grid, a Scenario, or a list .*got int$"):
        reorderlab.sweep(42, store=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^grid\[1\]: must be .*got str$"):
        reorderlab.sweep([small_scenario(), "small.toml"], store=None)  # type: ignore[list-item]


def test_a_dask_address_that_is_not_one_is_named() -> None:
    with pytest.raises(
        sweep_mod.BackendError, match=r"^dask: cannot use the scheduler at 'nope': .*port"
    ):
        reorderlab.sweep(small_scenario(), backend="dask", address="nope", store=None)


U64 = "from 0 to 18446744073709551615"


@pytest.mark.parametrize(
    ("seeds", "message"),
    [
        (0, "seeds: must be >= 1, got 0"),
        ([], "seeds: must not be empty"),
        ("12", "seeds: must be a count or a list of seeds, got '12'"),
        ([1, -2], f"seeds[1]: must be an integer {U64}, got -2"),
        ([2**64], f"seeds[0]: must be an integer {U64}, got 18446744073709551616"),
        ([1, 2.5], f"seeds[1]: must be an integer {U64}, got 2.5"),
        ([True], f"seeds[0]: must be an integer {U64}, got true"),
    ],
)
def test_bad_seeds_name_the_seed_and_value(seeds: object, message: str) -> None:
    # checked before any run: the core would raise an OverflowError
    with pytest.raises(ScenarioError) as info:
        reorderlab.sweep(small_scenario(), seeds=seeds, backend="serial", store=None)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_bad_seeds_in_a_sweep_file(tmp_path: Path) -> None:
    (tmp_path / "small.toml").write_text(small_scenario().to_toml())
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('scenario = "small.toml"\nseeds = [1, "a"]\n')
    with pytest.raises(ScenarioError, match=r"^seeds\[1\]: must be an integer .*, got 'a'$"):
        SweepFile.load(sweep_file)
    sweep_file.write_text('scenario = "small.toml"\nseeds = 1.5\n')
    with pytest.raises(
        ScenarioError, match=r"^seeds: must be a count or a list of seeds, got 1\.5$"
    ):
        SweepFile.load(sweep_file)


def test_local_sweep_table_and_cache(store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    df = reorderlab.sweep(loss_grid(), seeds=3, workers=2, store=store_path, progress=False)
    assert len(df) == len(P_VALUES) * 3
    assert list(df.columns[:2]) == ["impairments[0].p", "seed"]
    assert df.groupby("impairments[0].p").size().tolist() == [3] * len(P_VALUES)
    assert {"throughput_bps", "retransmits", "timeouts", "key"} <= set(df.columns)
    assert (df["throughput_bps"] > 0).all()
    assert (df.loc[df["impairments[0].p"] == 0.0, "retransmits"] == 0).all()
    stats = df.attrs["stats"]
    assert isinstance(stats, SweepStats)
    assert (stats.total, stats.executed, stats.cached) == (12, 12, 0)

    before = reorderlab.simulations_executed()
    # cached results are read a chunk at a time (12 runs: chunks of 5, 5, 2)
    monkeypatch.setattr(sink, "FETCH_CHUNK", 5)
    again = reorderlab.sweep(loss_grid(), seeds=3, workers=2, store=store_path, progress=False)
    assert reorderlab.simulations_executed() == before  # all from the store
    assert (again.attrs["executed"], again.attrs["cached"]) == (0, 12)
    assert again["cached"].all()
    pd.testing.assert_frame_equal(comparable(again), comparable(df))

    # one more seed: only the new runs are simulated
    more = reorderlab.sweep(loss_grid(), seeds=4, workers=2, store=store_path, progress=False)
    assert (more.attrs["executed"], more.attrs["cached"]) == (len(P_VALUES), 12)


def test_cached_only_reads_the_store_and_simulates_nothing(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cached_only``: the table of runs all in the store, with no run
    simulated; a run missing is named before anything is simulated."""
    with pytest.raises(sweep_mod.MissingRunsError, match="no results store at"):
        reorderlab.sweep(loss_grid(), seeds=2, store=store_path, cached_only=True)
    with pytest.raises(ValueError, match="cached_only: needs a store"):
        reorderlab.sweep(loss_grid(), seeds=2, store=None, cached_only=True)
    df = reorderlab.sweep(loss_grid(), seeds=2, workers=2, store=store_path, progress=False)

    def refuse(*args: Any) -> None:
        raise AssertionError("cached_only simulated a run")

    monkeypatch.setattr(worker_mod, "simulate", refuse)
    monkeypatch.setattr(worker_mod, "simulate_batch", refuse)
    monkeypatch.setattr(pool_mod, "get_pool", refuse)
    before = reorderlab.simulations_executed()
    again = reorderlab.sweep(loss_grid(), seeds=2, store=store_path, cached_only=True)
    assert reorderlab.simulations_executed() == before
    assert (again.attrs["executed"], again.attrs["cached"]) == (0, 8)
    pd.testing.assert_frame_equal(comparable(again), comparable(df))
    # a third seed is not stored: 4 of 12 runs missing, the first named
    with pytest.raises(
        sweep_mod.MissingRunsError,
        match=r"^4 of 12 runs are not in the store .*store\.duckdb "
        r"\(first: impairments\[0\]\.p=0, seed 3\)$",
    ):
        reorderlab.sweep(loss_grid(), seeds=3, store=store_path, cached_only=True)
    assert reorderlab.simulations_executed() == before


@pytest.mark.parametrize("store_kind", ["none", "new", "existing"])
def test_a_run_twice_in_a_grid_is_simulated_once(tmp_path: Path, store_kind: str) -> None:
    """Jobs are expanded as the workers take them when nothing can be cached
    (no store, a new one) and all at once otherwise: both give one row per
    grid point and simulate a repeated run once."""
    sc = small_scenario(duration=2.0)
    other = sc.with_params({"impairments[0].p": 0.02})
    path = tmp_path / "twice.duckdb"
    if store_kind == "existing":
        Store(path).close()
    store = None if store_kind == "none" else path
    before = reorderlab.simulations_executed()
    df = reorderlab.sweep([sc, other, sc], seeds=[1, 2], workers=2, store=store, progress=False)
    assert reorderlab.simulations_executed() - before == 4
    assert df.attrs["executed"] == 4 and df.attrs["total"] == 6
    assert df["key"].tolist()[:2] == df["key"].tolist()[4:]  # rows 0,1 == rows 4,5
    assert df["key"].nunique() == 4
    pd.testing.assert_frame_equal(
        comparable(df.iloc[:2]), comparable(df.iloc[4:]).set_axis([0, 1], axis=0)
    )
    stats = df.attrs["stats"]
    assert stats.sim_cpu_s > 0 and 0 <= stats.outside_fraction < 1


def test_serial_local_and_thread_backends_agree() -> None:
    a = reorderlab.sweep(loss_grid(), seeds=2, backend="serial", store=None, progress=False)
    b = reorderlab.sweep(loss_grid(), seeds=2, backend="local", workers=2, store=None)
    c = reorderlab.sweep(loss_grid(), seeds=2, backend="threads", workers=2, store=None)
    pd.testing.assert_frame_equal(comparable(a), comparable(b))
    pd.testing.assert_frame_equal(comparable(a), comparable(c))
    assert c.attrs["executed"] == len(P_VALUES) * 2


def test_a_sweep_into_a_new_store_creates_it_midway_when_a_flush_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reorderlab.store import NewStore, wait_for_background_closes

    created_while_running: list[bool] = []
    original = NewStore.create_soon

    def create_soon(self: NewStore) -> None:
        created_while_running.append(True)
        original(self)

    monkeypatch.setattr(NewStore, "create_soon", create_soon)
    monkeypatch.setattr(Store, "FLUSH_ROWS", 3)
    path = tmp_path / "midway.duckdb"
    df = reorderlab.sweep(loss_grid(2.0), seeds=3, workers=2, store=path, progress=False)
    assert created_while_running  # the journal reached 3 runs during the sweep
    wait_for_background_closes()
    with Store(path, read_only=True) as st:
        assert sorted(st.keys()) == sorted(df["key"])
        assert st.pending() == 0


@pytest.mark.parametrize("same_columns", [True, False])
def test_table_frame_is_pandas_frame_of_the_rows(same_columns: bool) -> None:
    rows: list[dict[str, object]] = [
        {
            "p": 0.1 * i,
            "seed": i,
            "scenario": "s",
            "events": 10**i,
            "rto": [None, 1.5][i % 2],
            "done": i % 2 == 0,
            "key": f"k{i}",
        }
        for i in range(6)
    ]
    if not same_columns:
        rows[3] = {"seed": 3, "p": 0.3, "extra": "x", "events": 7}
    got = table_mod.frame([(tuple(row), list(row.values())) for row in rows])
    pd.testing.assert_frame_equal(got, pd.DataFrame(rows), check_exact=True)
    assert list(got.dtypes) == list(pd.DataFrame(rows).dtypes)


def _flatten_by_dict_updates(result: dict[str, Any]) -> dict[str, Any]:
    """What ``flatten_result`` is specified to give, written as plain dict
    updates (the driver's version builds no dict per run and caches names)."""
    row: dict[str, Any] = {k: result.get(k) for k in ("scenario", "events", "packet_hops")}
    flows = result.get("flows", [])
    if len(flows) == 1:
        row.update(flows[0])
        row.pop("flow", None)
    else:
        for i, flow in enumerate(flows):
            row.update({f"f{i}.{k}": v for k, v in flow.items()})
            row.pop(f"f{i}.flow", None)
        row["throughput_bps"] = sum(float(f.get("throughput_bps") or 0.0) for f in flows)
    if result.get("fairness"):
        row["jain_index"] = result["fairness"].get("jain_index")
        for g in result["fairness"].get("groups", []):
            row[f"norm.{g['variant']}"] = g.get("mean_normalized_throughput")
            row[f"cov.{g['variant']}"] = g.get("cov")
    for gen in result.get("traffic", []):
        row.update(
            {f"{gen['name']}.{k}": v for k, v in gen.items() if k not in ("name", "object_list")}
        )
    return row


FLOW = {"flow": 0, "variant": "SACK", "throughput_bps": 5.0, "retransmits": 3, "srtt": None}


@pytest.mark.parametrize(
    "result",
    [
        {"scenario": "one", "events": 10, "packet_hops": 20, "flows": [FLOW]},
        {"scenario": "none", "events": 1, "flows": []},
        {"scenario": "no index", "flows": [{"throughput_bps": 1.0, "x": 2}]},
        # the index elsewhere than first; a flow metric named as a run total
        {"flows": [{"variant": "A", "flow": 0, "events": 99, "throughput_bps": None}]},
        {
            "scenario": "two",
            "flows": [FLOW, {**FLOW, "flow": 1, "throughput_bps": 7.5}, {**FLOW, "flow": 2}],
            "fairness": {
                "jain_index": 0.9,
                "groups": [{"variant": "SACK", "mean_normalized_throughput": 1.0, "cov": 0.1}],
            },
            "traffic": [
                {"name": "web", "pages": 3, "object_list": [1, 2]},
                {"name": "bulk", "bytes": 10},
                {"name": "web", "pages": 4},  # a repeated name: the last value, first place
            ],
        },
        {"flows": [FLOW, {"flow": 1, "cwnd": 2, "variant": "Reno"}]},  # flows of other shapes
    ],
)
def test_flatten_result_is_the_dict_updates(result: dict[str, Any]) -> None:
    expected = _flatten_by_dict_updates(result)
    for _ in range(2):  # the second time from the cached names
        got = sweep_mod.flatten_result(result)
        assert list(got.items()) == list(expected.items())


def test_sweep_table_is_the_table_of_the_rows_as_dicts() -> None:
    sc = small_scenario(duration=1.0)
    two = sc.with_params(
        {"name": "two", "flows": [sc.flows[0].model_dump(), sc.flows[0].model_dump()]}
    )
    # parameters named like a metric ("variant") or the seed: a row is built
    # as dict(params), then seed, metrics, key... set in that order
    points = [({"variant": "mine", "seed": 99, "p": 0.5}, sc), ({"variant": "x", "p": 1}, two)]
    df = reorderlab.sweep(points, seeds=[3], backend="serial", store=None)
    rows = []
    for (params, scenario), key in zip(points, df["key"], strict=True):
        row = dict(params)
        row["seed"] = 3
        row.update(_flatten_by_dict_updates(reorderlab.run(scenario, seed=3).to_dict()))
        row.update(key=key, cached=False)
        rows.append(row)
    expected = pd.DataFrame(rows)
    assert list(df.columns[:4]) == ["variant", "seed", "p", "scenario"]
    assert df.loc[0, "variant"] == "SACK" and df.loc[0, "seed"] == 3  # the run's
    pd.testing.assert_frame_equal(df.drop(columns="wall_s"), expected)
    # one shape of rows: the values are given to pandas without their names
    same = reorderlab.sweep([({"p": 1}, sc), ({"p": 2.5}, sc.with_params({"seed": 4}))], store=None)
    rows = [
        {"p": p, "seed": 1, **_flatten_by_dict_updates(reorderlab.run(s, seed=1).to_dict())}
        for p, s in ((1, sc), (2.5, sc.with_params({"seed": 4})))
    ]
    pd.testing.assert_frame_equal(
        same.drop(columns=["key", "cached", "wall_s"]), pd.DataFrame(rows)
    )


@pytest.mark.parametrize("backend", ["serial", "local"])
def test_an_error_of_on_run_is_not_a_scenario_error(backend: str) -> None:
    def on_run(job: object, text: str) -> None:
        raise ValueError("the caller's own error")

    with pytest.raises(ValueError, match="the caller's own error") as info:
        reorderlab.sweep(
            small_scenario(duration=1.0), seeds=2, backend=backend, store=None, on_run=on_run
        )  # type: ignore[arg-type]
    assert not isinstance(info.value, ScenarioError)


def test_a_scenario_the_core_refuses_is_a_scenario_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(scenario_json: str, seed: int | None) -> object:
        raise ValueError("flows[0].tcp.mss: must be <= 9000, got 65000")  # as the core words it

    monkeypatch.setattr(worker_mod, "simulate", refuse)
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.tcp\.mss: must be <= 9000") as info:
        reorderlab.sweep(small_scenario(), backend="serial", store=None)
    assert info.value.errors[0].path == "flows[0].tcp.mss"
    # the same from a task's results (the worker processes' way)
    into: list[Any] = []
    jobs = jobs_for(small_scenario(), seeds=[1])
    error = backends._completed(jobs, [ValueError("duration: must be > 0, got 0")], into)
    assert isinstance(error, ScenarioError) and error.errors[0].path == "duration"
    panic = RuntimeError("reorderlab core panicked")
    assert backends._completed(jobs, [panic], into) is panic


def test_importing_the_packages_starts_no_process() -> None:
    """Importing the sweep and store packages (and the command line) starts
    no process, not even the fork server: it starts with the first worker."""
    code = (
        "import os\n"
        "import reorderlab.cli, reorderlab.store, reorderlab.sweep\n"
        "from reorderlab import pool\n"
        "me = str(os.getpid())\n"
        "kids = [p for p in os.listdir('/proc') if p.isdigit() and\n"
        "        open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1] == me]\n"
        "print(pool.fork_server_started(), len(kids))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "0"]


def test_a_child_process_importing_the_sweep_starts_no_fork_server() -> None:
    """E.g. a Dask worker running a task that imports it."""
    import multiprocessing

    from .child_targets import import_sweep_and_report_fork_server

    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=import_sweep_and_report_fork_server, args=(theirs,))
    child.start()
    try:
        assert ours.poll(60) and ours.recv() is False
    finally:
        child.join(timeout=30)


def test_near_the_end_a_task_does_not_queue_behind_a_long_one() -> None:
    """A task queued behind a running one could keep its worker busy at the
    end while another has nothing left: it queues only while the runs left
    after it could keep the others busy twice as long."""
    grid = Grid(small_scenario(), {"impairments[0].p": [0.001 * i for i in range(1, 41)]})
    jobs = jobs_for(grid, seeds=[1])
    tasks = batching.Tasks(jobs, len(jobs), slots=4)
    tasks.record([(jobs[0], ("{}", 0.001, 0.001))])  # 1 ms runs: tasks of 40 // 4 = 10
    assert tasks.may_queue(behind=1, workers=2)  # 30 left after it >= 2 x (1 + 10)
    assert not tasks.may_queue(behind=10, workers=2)  # 30 < 2 x (10 + 10)
    assert tasks.may_queue(behind=10, workers=1)  # a single worker: nothing to balance
    assert len(tasks.next()) == 10
    assert len(tasks.next()) == 7  # 30 // 4
    assert tasks.may_queue(behind=1, workers=2)  # 23 - 5 = 18 >= 2 x (1 + 5)
    assert not tasks.may_queue(behind=5, workers=2)  # 18 < 2 x (5 + 5)


def test_runs_of_one_shape_share_one_tuple_of_column_names() -> None:
    """A sweep holds every run's metrics until its table is built: the
    ~200 names of a 4-flow run are one tuple for all its runs, not a copy
    each (1.7 KB per run)."""
    a = reorderlab.run(small_scenario(duration=1.0), seed=1).to_dict()
    b = reorderlab.run(small_scenario(duration=1.0), seed=2).to_dict()
    (names_a, values_a), (names_b, values_b) = table_mod.flat(a), table_mod.flat(b)
    assert names_a is names_b and values_a is not values_b


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"workers": 2.5},
            TypeError,
            "workers: must be a whole number or None (all cores), got 2.5",
        ),
        (
            {"workers": "2"},
            TypeError,
            "workers: must be a whole number or None (all cores), got '2'",
        ),
        (
            {"workers": True},
            TypeError,
            "workers: must be a whole number or None (all cores), got True",
        ),
        ({"workers": -1}, ValueError, "workers: must be >= 1, got -1"),
        ({"store": 123}, TypeError, "store: must be a path, a Store, None or DEFAULT, got 123"),
        ({"on_run": 5}, TypeError, "on_run: must be a function (job, result_json), got 5"),
    ],
)
def test_bad_sweep_arguments_are_named(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Before any run (an on_run that cannot be called failed after the
    first run was simulated; 2.5 workers failed deep in itertools)."""
    before = reorderlab.simulations_executed()
    kwargs = {"store": None, **kwargs}
    with pytest.raises(error) as info:
        reorderlab.sweep(small_scenario(duration=1.0), seeds=2, progress=False, **kwargs)
    assert str(info.value) == message
    assert reorderlab.simulations_executed() == before


def test_a_store_that_is_not_a_path_is_named() -> None:
    with pytest.raises(
        TypeError, match=r"^store: must be a path \(or None: the default\), got 123$"
    ):
        reorderlab.run(small_scenario(duration=1.0), store=123)  # type: ignore[arg-type]


def test_big_results_are_parsed_once_and_read_back_as_summaries(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big result (stored encoded with its summary) is parsed once by
    the sweep, which hands the store the parsed value; a later sweep builds
    its table from the stored summaries without decoding anything. The
    stored summary is the one of the whole result, and the tables agree."""
    from reorderlab import store as store_mod
    from reorderlab.store import rows, store

    monkeypatch.setattr(rows, "COMPRESS_FROM", 1000)  # every result here is "big"
    pack = rows.pack
    packed: list[bool] = []

    def counted(text: str, value: object = None) -> tuple[str, bytes | None]:
        packed.append(value is not None)  # else the store parses the text again
        return pack(text, value)

    monkeypatch.setattr(rows, "pack", counted)
    first = reorderlab.sweep(loss_grid(1.0), seeds=1, store=store_path, progress=False)
    store_mod.wait_for_background_closes()  # (the sweep's store is flushed as it closes)
    assert packed and all(packed)

    def no_unpack(result_json: object, result_z: object) -> str:
        if result_z is not None:
            raise AssertionError("decoded a result for the table")
        return str(result_json)

    monkeypatch.setattr(store, "unpack", no_unpack)
    again = reorderlab.sweep(loss_grid(1.0), seeds=1, store=store_path, progress=False)
    assert again.attrs["cached"] == len(P_VALUES)
    pd.testing.assert_frame_equal(comparable(first), comparable(again))
    monkeypatch.undo()
    with Store(store_path, read_only=True) as ro:
        for key in first["key"]:
            full = ro.get(key)
            assert full is not None and len(full.result_json) >= 1000
            [(summary, _)] = ro.get_results([key], summaries=True).values()
            assert summary == store_mod.summary_of(json.loads(full.result_json))
            assert json.loads(summary)["compressed"] == "result_z"


def test_summary_of_leaves_the_result_alone() -> None:
    from reorderlab import store as store_mod

    from .test_store_old_layouts import big_result

    text = big_result(1)
    data = json.loads(text)
    summary = json.loads(store_mod.summary_of(data))
    assert data == json.loads(text)
    assert summary == {
        "scenario": "s1",
        "flows": data["flows"],
        "traffic": [{"name": "web", "objects": 30}],
        "compressed": "result_z",
    }


@pytest.mark.parametrize("collide", [False, True])
def test_the_same_run_twice_reads_its_metrics_back_from_the_first_row(collide: bool) -> None:
    """A simulated run's metrics are kept once, in its table row; the same
    run later in the grid takes them from there (or, when a parameter is
    named like a metric and the row lost a value, from a copy kept for it).
    Both rows agree, whatever the parameters are called. (The old code kept
    every run's metrics twice; this test guards the new bookkeeping.)"""
    sc = small_scenario(duration=1.0)
    name = "throughput_bps" if collide else "p"
    points = [
        ({name: 1}, sc),
        ({name: 2}, sc.with_params({"impairments[0].p": 0.02})),
        ({name: 3}, sc),
    ]
    df = reorderlab.sweep(points, seeds=[1], backend="serial", store=None, progress=False)
    assert df.attrs["executed"] == 2 and len(df) == 3
    first, again = df.iloc[0].drop(name), df.iloc[2].drop(name)
    pd.testing.assert_series_equal(first, again, check_names=False)
    if collide:  # the metric's value, as a dict's last update (see flatten_result)
        assert df[name].iloc[0] == df[name].iloc[2] > 1000
    else:
        assert df[name].tolist() == [1, 2, 3]


def test_a_sweep_keeps_no_json_of_the_runs_it_has_stored() -> None:
    """Every job is held until the table is built; its scenario JSON (1.5 KB
    here) only until its run is stored."""
    seen: list[sweep_mod.Job] = []
    jobs = sweep_mod.jobs_for(loss_grid(1.0), seeds=[1])
    assert all(job.canonical_json for job in jobs)
    original = table_mod.Table.frame

    def frame(self: table_mod.Table, jobs: list[sweep_mod.Job]) -> pd.DataFrame:
        seen.extend(jobs)
        return original(self, jobs)

    import unittest.mock

    with unittest.mock.patch.object(table_mod.Table, "frame", frame):
        reorderlab.sweep(loss_grid(1.0), seeds=1, backend="serial", store=None, progress=False)
    assert len(seen) == len(P_VALUES)
    assert not any(job.canonical_json or job.scenario_json for job in seen)
