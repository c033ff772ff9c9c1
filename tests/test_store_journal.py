"""The store's journal: runs are durable before they reach DuckDB.

Each stored run is appended to ``<store>.journal`` and moved into DuckDB in
batches; a journal left by a killed process is replayed on the next open.
These tests kill real processes (``kill -9``, Ctrl-C) and tear journal lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

import reorderlab
from reorderlab import store as store_mod
from reorderlab.store import (
    Store,
    StoreRow,
    journal_path,
    read_journal,
    wait_for_background_closes,
)
from reorderlab.store import db as store_db
from reorderlab.store import journal as store_journal
from reorderlab.store import registry as store_registry
from reorderlab.store import rows as store_rows

from .conftest import ROOT, small_scenario
from .test_sweep import loss_grid_for_resume

#: Flush thresholds that are never reached: runs stay in the journal.
NEVER = {"flush_interval": 1e9, "flush_rows": 10**9}

#: The layout a store is brought to.
LAYOUT = store_db.LAYOUT


def same_json(a: str, b: str) -> bool:
    """Are two texts the same JSON value, keys in the same order, numbers
    of the same types?"""
    return json.dumps(json.loads(a)) == json.dumps(json.loads(b))


def fake_run(i: int) -> dict[str, object]:
    return {
        "scenario_name": f"s{i}",
        "seed": i,
        "engine_version": "v",
        "scenario_json": f'{{"name": "s{i}"}}',
        "result_json": f'{{"flows": [], "i": {i}}}',
        "wall_s": 0.001 * i,
    }


def db_keys(path: Path) -> list[str]:
    """Every key in the DuckDB file itself (not the journal), with repeats."""
    wait_for_background_closes()  # a sweep's store may still be closing
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [str(r[0]) for r in con.execute("SELECT key FROM runs ORDER BY key").fetchall()]
    finally:
        con.close()


def run_child(body: str) -> subprocess.CompletedProcess[str]:
    """Run Python code in a fresh process (it may kill itself)."""
    code = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n" + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )


def crash_after_puts(path: Path, n: int, *, then: str = "") -> None:
    """A process stores runs k0..k{n-1} (journal only), runs ``then``, and is killed -9."""
    proc = run_child(
        f"""
        import os, shutil, signal
        from reorderlab.store import Store
        from tests.test_store_journal import NEVER, fake_run
        st = Store({str(path)!r}, **NEVER)
        for i in range({n}):
            assert st.put(f"k{{i}}", **fake_run(i))
        {then}
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr


# -- in one process ----------------------------------------------------------


def test_lookups_see_journaled_runs(store_path: Path) -> None:
    with Store(store_path, **NEVER) as st:
        assert st.put("k1", **fake_run(1))
        assert not st.put("k1", **fake_run(1))  # already stored (in the journal)
        assert st.pending() == 1
        assert "k1" in st
        assert len(st) == 1
        assert st.keys() == ["k1"]
        assert st.existing(["k1", "k2"]) == {"k1"}
        assert st.get_results(["k1", "k2"]) == {"k1": ('{"flows": [], "i": 1}', 0.001)}
        got = st.get("k1")
        assert got is not None and got.seed == 1 and got.scenario_name == "s1"
        assert [r.key for r in st.runs()] == ["k1"]
        rows, ignored = read_journal(st.journal_path)
        assert [r[0] for r in rows] == ["k1"] and ignored == 0

        st.flush()
        assert st.pending() == 0
        assert st.journal_path.stat().st_size == 0
        assert st.put("k2", **fake_run(2))
        assert len(st) == 2
        assert [r.key for r in st.runs()] == ["k1", "k2"]
        assert st.get_results(["k1", "k2"]).keys() == {"k1", "k2"}
    assert not journal_path(store_path).exists()  # closing moved everything in
    assert db_keys(store_path) == ["k1", "k2"]


def test_flush_after_rows_or_interval(store_path: Path) -> None:
    with Store(store_path, flush_interval=1e9, flush_rows=3) as st:
        st.put("k0", **fake_run(0))
        st.put("k1", **fake_run(1))
        assert st.pending() == 2
        st.put("k2", **fake_run(2))
        assert st.pending() == 0
    with Store(store_path, flush_interval=0.0) as st:
        st.put("k3", **fake_run(3))
        assert st.pending() == 0
        assert len(st) == 4


def test_flush_when_the_journaled_text_reaches_flush_bytes(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Big results: their text is held until moved in, so its size bounds
    the wait too (whatever flush_rows and flush_interval say)."""
    big = dict(fake_run(0), result_json='{"x": "' + "y" * 5000 + '"}')
    monkeypatch.setattr(Store, "FLUSH_BYTES", 8_000)
    with Store(store_path, **NEVER) as st:  # type: ignore[arg-type]
        st.put("k0", **big)
        assert st.pending() == 1
        st.put("k1", **big)  # > 8 000 bytes journaled
        assert st.pending() == 0
        assert store_db.existing(st._con, ["k0", "k1"]) == {"k0", "k1"}  # in DuckDB now


@pytest.mark.parametrize("n", [3, 40])  # bound as parameters / as a DataFrame
def test_flushed_runs_keep_their_values(store_path: Path, n: int) -> None:
    rows = [
        StoreRow(
            key=f"k{i:02d}",
            scenario_name=f"s{i}",
            seed=2**64 - 1 - i,
            engine_version="v",
            scenario_json='{"a": "\\n\u00e9"}',
            result_json=f'{{"i": {i}}}',
            wall_s=None if i % 2 else 0.25 * i,
        )
        for i in range(n)
    ]
    with Store(store_path, **NEVER) as st:
        st.put_many(rows)
        before = list(st.runs())
        st.flush()
        after = list(st.runs())
    assert after == before
    assert [(r.key, r.seed, r.scenario_json, r.result_json, r.wall_s) for r in after] == [
        (r.key, r.seed, r.scenario_json, r.result_json, r.wall_s) for r in rows
    ]
    assert db_keys(store_path) == [r.key for r in rows]


def test_stores_of_one_process_share_the_journal(store_path: Path) -> None:
    a = Store(store_path, **NEVER)
    b = Store(store_path, **NEVER)
    try:
        assert a.put("k1", **fake_run(1))
        assert "k1" in b
        assert not b.put("k1", **fake_run(1))
        b.close()  # moves the shared journal into DuckDB
        assert a.pending() == 0
        assert a.put("k2", **fake_run(2))
    finally:
        a.close()
        b.close()
    assert db_keys(store_path) == ["k1", "k2"]


def test_delete_of_a_journaled_run_is_not_undone_by_replay(store_path: Path) -> None:
    with Store(store_path, **NEVER) as st:
        st.put("k1", **fake_run(1))
        st.put("k2", **fake_run(2))
        st.delete(["k1"])
        assert st.keys() == ["k2"]
        assert read_journal(st.journal_path) == ([], 0)
    assert db_keys(store_path) == ["k2"]


def test_interrupted_append_starts_a_new_line(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of a journal write: the fragment is ignored on replay."""
    real_write = os.write
    with Store(store_path, **NEVER) as st:
        st.put("k0", **fake_run(0))

        def half_then_interrupt(fd: int, data: bytes | memoryview) -> int:
            monkeypatch.setattr(store_journal.os, "write", real_write)
            real_write(fd, bytes(data[: len(data) // 2]))
            raise KeyboardInterrupt

        monkeypatch.setattr(store_journal.os, "write", half_then_interrupt)
        with pytest.raises(KeyboardInterrupt):
            st.put("k1", **fake_run(1))
        assert "k1" not in st  # the put did not complete
        st.put("k2", **fake_run(2))
        rows, ignored = read_journal(st.journal_path)
        assert [r[0] for r in rows] == ["k0", "k2"]
        assert ignored == 1  # the fragment of k1, ended by a newline
        assert st.keys() == ["k0", "k2"]
    assert db_keys(store_path) == ["k0", "k2"]


def test_runs_wait_in_journal_for_cache_lookups(store_path: Path) -> None:
    """``run`` and ``sweep`` find a run that is only in the journal."""
    sc = small_scenario(duration=2.0)
    with Store(store_path, **NEVER) as st:
        first = reorderlab.run(sc, seed=1, store=st)
        assert st.pending() == 1
        before = reorderlab.simulations_executed()
        again = reorderlab.run(sc, seed=1, store=st)
        assert again.cached
        df = reorderlab.sweep(sc, seeds=[1, 2], workers=1, store=st, progress=False)
        assert reorderlab.simulations_executed() == before + 1  # only seed 2
        assert df["cached"].tolist() == [True, False]
        assert df["key"].iloc[0] == first.key
        assert st.pending() == 0  # the end of the sweep moved both into DuckDB
    assert sorted(db_keys(store_path)) == sorted(df["key"])


# -- killed processes ----------------------------------------------------------


def test_torn_last_line_is_ignored(store_path: Path) -> None:
    crash_after_puts(store_path, 3)
    jpath = journal_path(store_path)
    good = jpath.read_bytes()
    assert good.count(b"\n") == 3 and good.endswith(b"\n")
    assert db_keys(store_path) == []  # the runs were only in the journal
    # a 4th record cut short by the kill: half a line, no newline
    line = store_journal.encode(("k3", "s3", 3, "v", "{}", '{"flows": []}', 0.5, 1.0, None))
    jpath.write_bytes(good + line[: len(line) // 2])
    rows, ignored = read_journal(jpath)
    assert [r[0] for r in rows] == ["k0", "k1", "k2"] and ignored == 1

    with Store(store_path) as st:
        assert st.keys() == ["k0", "k1", "k2"]
        assert jpath.stat().st_size == 0  # replayed, then emptied (the lock holds it)
        got = st.get("k2")
        assert got is not None and got.result_json == '{"flows": [], "i": 2}'
        assert got.wall_s == pytest.approx(0.002)
        # the store goes on normally after a replay
        assert st.put("k3", **fake_run(3))
    assert db_keys(store_path) == ["k0", "k1", "k2", "k3"]


def test_read_only_open_shows_but_keeps_a_leftover_journal(store_path: Path) -> None:
    crash_after_puts(store_path, 2)
    jpath = journal_path(store_path)
    content = jpath.read_bytes()
    with Store(store_path, read_only=True) as st:
        assert len(st) == 2
        assert st.existing(["k0", "k1", "k9"]) == {"k0", "k1"}
        with pytest.raises(PermissionError):
            st.put("k9", **fake_run(9))
    assert jpath.read_bytes() == content
    with Store(store_path) as st:
        assert len(st) == 2
    assert not jpath.exists()
    assert db_keys(store_path) == ["k0", "k1"]


def test_replay_is_idempotent(store_path: Path) -> None:
    """Killed after the commit but before the journal was emptied: no duplicates."""
    saved = store_path.with_name("saved.journal")
    crash_after_puts(
        store_path,
        3,
        then=(
            f"shutil.copyfile(st.journal_path, {str(saved)!r}); st.flush(); "
            "st.put('k3', **fake_run(3))"
        ),
    )
    jpath = journal_path(store_path)
    assert db_keys(store_path) == ["k0", "k1", "k2"]
    assert [r[0] for r in read_journal(jpath)[0]] == ["k3"]
    # the journal as it was before the flush, plus what came after it
    stale = saved.read_bytes()
    jpath.write_bytes(stale + jpath.read_bytes())

    with Store(store_path) as st:
        assert st.keys() == ["k0", "k1", "k2", "k3"]
    assert db_keys(store_path) == ["k0", "k1", "k2", "k3"]

    # the same journal replayed again changes nothing
    jpath.write_bytes(stale + stale)
    with Store(store_path) as st:
        assert len(st) == 4
    assert db_keys(store_path) == ["k0", "k1", "k2", "k3"]
    assert not jpath.exists()


def test_normal_exit_without_close_moves_the_journal_in(store_path: Path) -> None:
    proc = run_child(
        f"""
        from reorderlab.store import Store
        from tests.test_store_journal import NEVER, fake_run
        st = Store({str(store_path)!r}, **NEVER)
        st.put("k0", **fake_run(0))
        st.put("k1", **fake_run(1))
        # no close(): the interpreter's exit must do it
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert not journal_path(store_path).exists()
    assert db_keys(store_path) == ["k0", "k1"]


SWEEP_CHILD = textwrap.dedent(
    """
    import signal, sys, time
    # A shell without job control starts background commands with SIGINT
    # ignored, and Python then installs no KeyboardInterrupt handler: make
    # the Ctrl-C test independent of how the test run was started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, {root!r})
    import reorderlab
    from reorderlab.store import Store
    from tests.test_store_journal import NEVER
    from tests.test_sweep import loss_grid_for_resume

    stored = 0

    def on_run(job, text):
        # after {stop_after} durable runs, hang until the test signals us:
        # in short sleeps, as one long time.sleep() would miss a SIGINT that
        # arrives just before it starts (its handler has run; the sleep is
        # not interrupted) and the test would wait for it to end
        global stored
        stored += 1
        print("stored", job.key, flush=True)
        if stored >= {stop_after}:
            for _ in range(6000):
                time.sleep(0.1)

    # nothing is flushed into DuckDB during the sweep: runs wait in the journal
    st = Store({store!r}, **NEVER)
    reorderlab.sweep(
        loss_grid_for_resume(), seeds={seeds}, workers=2, store=st,
        progress=False, on_run=on_run,
    )
    print("finished", flush=True)
    """
)


def sweep_then_signal(store_path: Path, sig: int, seeds: int, stop_after: int) -> list[str]:
    """Start a sweep in a child, send ``sig`` after ``stop_after`` runs; the reported keys."""
    script = SWEEP_CHILD.format(
        root=str(ROOT), stop_after=stop_after, seeds=seeds, store=str(store_path)
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    keys: list[str] = []
    try:
        assert proc.stdout is not None
        while len(keys) < stop_after:
            line = proc.stdout.readline()
            assert line, f"sweep ended early: {proc.stderr.read() if proc.stderr else ''}"
            assert line.startswith("stored "), line
            keys.append(line.split()[1])
        proc.send_signal(sig)
        proc.wait(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):  # its workers (same session) too
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    return keys


def test_kill_9_with_runs_only_in_the_journal(store_path: Path) -> None:
    seeds, stop_after = 4, 6
    total = 5 * seeds
    reported = sweep_then_signal(store_path, signal.SIGKILL, seeds, stop_after)

    assert db_keys(store_path) == []  # nothing had reached DuckDB
    journaled, ignored = read_journal(journal_path(store_path))
    journaled_keys = {r[0] for r in journaled}
    assert set(reported) <= journaled_keys
    assert stop_after <= len(journaled_keys) < total
    assert ignored == 0

    before = reorderlab.simulations_executed()
    df = reorderlab.sweep(
        loss_grid_for_resume(), seeds=seeds, workers=2, store=store_path, progress=False
    )
    executed = reorderlab.simulations_executed() - before
    assert executed == df.attrs["executed"] == total - len(journaled_keys)
    assert df.attrs["cached"] == len(journaled_keys)
    assert set(df.loc[df["cached"], "key"]) == journaled_keys
    assert len(df) == total
    assert df["key"].is_unique
    assert not df.duplicated(subset=["impairments[0].p", "seed"]).any()
    wait_for_background_closes()  # the sweep closes its store in the background
    assert not journal_path(store_path).exists()
    in_db = db_keys(store_path)
    assert len(in_db) == len(set(in_db)) == total  # every run exactly once
    assert set(in_db) == set(df["key"])


def test_ctrl_c_moves_the_journal_into_duckdb(store_path: Path) -> None:
    seeds, stop_after = 4, 3
    reported = sweep_then_signal(store_path, signal.SIGINT, seeds, stop_after)
    assert not journal_path(store_path).exists()
    in_db = db_keys(store_path)
    assert set(reported) <= set(in_db)
    assert len(in_db) == len(set(in_db)) < 5 * seeds


def test_close_in_background_then_reopen_sees_every_run(tmp_path: Path) -> None:
    path = tmp_path / "bg.duckdb"
    st = Store(path, **NEVER)
    st.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(50))  # type: ignore[arg-type]
    assert st.pending() == 50
    st.close_in_background()
    # opening the file again waits for the background close
    with Store(path) as again:
        assert len(again) == 50
        assert again.pending() == 0
    assert not journal_path(path).exists()


def test_layout_1_store_is_rewritten_and_keeps_every_run(tmp_path: Path) -> None:
    """A store written before the JSON columns were stored uncompressed
    (no ``reorderlab_meta`` table) is rewritten on its first writable open."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, scenario_json VARCHAR NOT NULL, "
        "result_json VARCHAR NOT NULL, wall_s DOUBLE, created_at DOUBLE NOT NULL)"
    )
    for i in range(3):
        run = fake_run(i)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                f"k{i}",
                run["scenario_name"],
                run["seed"],
                run["engine_version"],
                run["scenario_json"],
                run["result_json"],
                run["wall_s"],
                1.0 + i,
            ],
        )
    con.close()
    with Store(path, read_only=True) as ro:  # read-only: served as it is
        assert ro.get("k1") is not None
    with Store(path) as st:
        assert sorted(st.keys()) == ["k0", "k1", "k2"]
        got = st.get("k2")
        assert got is not None and got.result_json == fake_run(2)["result_json"]
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
        compression = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('runs') "
            "WHERE column_name = 'result_json' AND segment_type = 'VARCHAR'"
        ).fetchall()
        assert compression == [("Uncompressed",)]
    finally:
        con.close()
    with Store(path) as again:  # a second open rewrites nothing
        assert len(again) == 3


def big_result(i: int) -> str:
    """A result with the parts that make real ones big (per-object records,
    series, traces), of ~1.2 KB."""
    objects = [{"start": 0.5 * k, "oct": 0.01 * k, "segments": k} for k in range(30)]
    data = {
        "scenario": f"s{i}",
        "flows": [{"flow": 0, "throughput_bps": 1000.0 + i}],
        "traffic": [{"name": "web", "objects": 30, "object_list": objects}],
        "series": {"f0": {"t": [0.0, 0.1], "cwnd": [1, 2]}},
        "traces": {"f0": [[0, 1]]},
    }
    return json.dumps(data)


@pytest.mark.parametrize("runs", [3, 40])  # both ways of inserting (parameters, a frame)
def test_a_big_result_is_stored_compressed_with_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs: int
) -> None:
    monkeypatch.setattr(store_rows, "COMPRESS_FROM", 1000)
    path = tmp_path / "big.duckdb"
    small = fake_run(0)
    with Store(path) as st:
        st.put_many(
            StoreRow(key=f"k{i}", **{**fake_run(i), "result_json": big_result(i)})
            for i in range(runs)
        )  # type: ignore[arg-type]
        st.put_many([StoreRow(key="small", **small)])  # type: ignore[arg-type]
    with Store(path, read_only=True) as ro:
        got = ro.get("k1")
        assert got is not None and same_json(got.result_json, big_result(1))
        results = ro.get_results(["k2", "small"])
        assert results.keys() == {"k2", "small"}
        assert same_json(results["k2"][0], big_result(2))
        assert results["k2"][1] == fake_run(2)["wall_s"]
        assert results["small"] == (small["result_json"], small["wall_s"])
        assert same_json({r.key: r.result_json for r in ro.runs()}["k0"], big_result(0))
        values = ro.get_values(["k2", "small"])
        assert json.dumps(values["k2"][0]) == json.dumps(json.loads(big_result(2)))
        assert values["small"] == (json.loads(str(small["result_json"])), small["wall_s"])
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = dict(con.execute("SELECT key, result_json FROM runs").fetchall())
        zipped = dict(con.execute("SELECT key, result_z FROM runs").fetchall())
        # SQL still finds the metrics in result_json
        tput = con.execute(
            "SELECT result_json->>'$.flows[0].throughput_bps' FROM runs WHERE key = 'k1'"
        )
        assert tput.fetchone() == ("1001.0",)
    finally:
        con.close()
    assert zipped["small"] is None and rows["small"] == small["result_json"]
    summary = json.loads(rows["k1"])
    assert summary["compressed"] == "result_z"
    assert "series" not in summary and "traces" not in summary
    assert summary["traffic"] == [{"name": "web", "objects": 30}]
    assert len(zipped["k1"]) < len(big_result(1)) / 3


def test_a_layout_2_store_gains_result_z_and_is_read_as_it_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, scenario_json VARCHAR NOT NULL, "
        "result_json VARCHAR NOT NULL, wall_s DOUBLE, created_at DOUBLE NOT NULL)"
    )
    con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute("INSERT INTO reorderlab_meta VALUES (2)")
    run = fake_run(1)
    con.execute(
        "INSERT INTO runs VALUES ('k1', ?, ?, ?, ?, ?, ?, 1.0)",
        [
            run[c]
            for c in (
                "scenario_name",
                "seed",
                "engine_version",
                "scenario_json",
                "result_json",
                "wall_s",
            )
        ],
    )
    con.close()
    with Store(path, read_only=True) as ro:  # not migrated: no result_z to read
        assert ro.get("k1").result_json == run["result_json"]  # type: ignore[union-attr]
    with Store(path) as st:
        st.put("k2", **{**fake_run(2), "result_json": "x" * (store_mod.COMPRESS_FROM + 1)})  # type: ignore[arg-type]
    with Store(path, read_only=True) as ro:
        assert ro.get("k1").result_json == run["result_json"]  # type: ignore[union-attr]
        assert ro.get("k2").result_json == "x" * (store_mod.COMPRESS_FROM + 1)  # type: ignore[union-attr]
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
        assert con.execute("SELECT result_json FROM runs WHERE key = 'k2'").fetchone() == (
            '{"compressed":"result_z"}',  # not JSON: nothing to summarise
        )
    finally:
        con.close()


def result_z_compressions(path: Path) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "SELECT DISTINCT compression FROM pragma_storage_info('runs') "
            "WHERE column_name = 'result_z' AND segment_type = 'BLOB'"
        ).fetchall()
    finally:
        con.close()
    return {str(r[0]) for r in rows}


def test_a_layout_3_store_is_rewritten_with_result_z_uncompressed(tmp_path: Path) -> None:
    """Layout 3 let DuckDB compress ``result_z`` (already zlib data): one
    ZSTD segment for the column, decompressed whole to fetch any row. Its
    first writable open rewrites the table with the column uncompressed and
    every run kept; so is a new store's."""
    path = tmp_path / "v3.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (key VARCHAR NOT NULL, scenario_name VARCHAR NOT NULL, "
        "seed UBIGINT NOT NULL, engine_version VARCHAR NOT NULL, "
        "scenario_json VARCHAR USING COMPRESSION uncompressed NOT NULL, "
        "result_json VARCHAR USING COMPRESSION uncompressed NOT NULL, wall_s DOUBLE, "
        "created_at DOUBLE NOT NULL, result_z BLOB USING COMPRESSION zstd)"
    )
    con.execute("CREATE TABLE reorderlab_meta (layout INTEGER NOT NULL)")
    con.execute("INSERT INTO reorderlab_meta VALUES (3)")
    texts = {f"k{i}": big_result(i) * 40 for i in range(30)}
    for i, (key, text) in enumerate(texts.items()):
        run = fake_run(i)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                key,
                run["scenario_name"],
                run["seed"],
                run["engine_version"],
                run["scenario_json"],
                '{"compressed":"result_z"}',
                run["wall_s"],
                1.0 + i,
                zlib.compress(text.encode(), 1),
            ],
        )
    con.close()
    assert result_z_compressions(path) == {"ZSTD"}
    with Store(path) as st:
        assert {k: v for k, (v, _) in st.get_results(texts).items()} == texts
    assert result_z_compressions(path) == {"Uncompressed"}
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT layout FROM reorderlab_meta").fetchall() == [(LAYOUT,)]
    finally:
        con.close()
    fresh = tmp_path / "new.duckdb"
    with Store(fresh) as st:
        st.put_many(StoreRow(key=k, **{**fake_run(0), "result_json": v}) for k, v in texts.items())  # type: ignore[arg-type]
    assert result_z_compressions(fresh) <= {"Uncompressed"}


def test_a_store_of_a_newer_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.duckdb"
    with Store(path):
        pass
    con = duckdb.connect(str(path))
    con.execute("UPDATE reorderlab_meta SET layout = 99")
    con.close()
    for read_only in (False, True):
        with pytest.raises(store_mod.StoreError, match="layout 99, written by a newer reorderlab"):
            Store(path, read_only=read_only)


# -- a new store, created when first needed (the sweep driver's) ------------


def test_runs_put_in_a_new_store_reach_duckdb(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    new = store_mod.NewStore(path)
    new.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(5))  # type: ignore[arg-type]
    # durable before the file exists: in the journal already
    rows, _ = read_journal(journal_path(path))
    assert {r[0] for r in rows} == {f"k{i}" for i in range(5)}
    assert (
        path.stat().st_size == 0 and not new.is_open()
    )  # no flush due: not created yet (the file its lock holds is empty)
    st = new.store()  # created now
    assert st.pending() == 5  # the store shares the journal: nothing replayed twice
    st.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(3, 8))  # type: ignore[arg-type]
    assert len(st) == 8
    st.close()
    assert sorted(db_keys(path)) == sorted(f"k{i}" for i in range(8))
    assert not journal_path(path).exists()
    with pytest.raises(ValueError, match="handed over"):
        new.put_many([])


def test_a_new_store_is_created_when_its_first_flush_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Store, "FLUSH_ROWS", 4)
    path = tmp_path / "due.duckdb"
    new = store_mod.NewStore(path)
    new.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(3))  # type: ignore[arg-type]
    assert new._thread is None  # 3 < 4 runs and young: nothing started
    new.put_many([StoreRow(key="k3", **fake_run(3))])  # type: ignore[arg-type]
    assert new._thread is not None  # created on a background thread
    st = new.store()
    assert path.exists() and sorted(st.keys()) == [f"k{i}" for i in range(4)]
    st.close()
    assert sorted(db_keys(path)) == [f"k{i}" for i in range(4)]


@pytest.mark.parametrize("started", [False, True])
def test_new_store_close_in_background_keeps_every_run(tmp_path: Path, started: bool) -> None:
    path = tmp_path / "bg-new.duckdb"
    new = store_mod.NewStore(path)
    new.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(6))  # type: ignore[arg-type]
    if started:
        new.create_soon()
    new.close_in_background()
    with Store(path) as again:  # waits for the background creation and close
        assert sorted(again.keys()) == [f"k{i}" for i in range(6)]
        assert again.pending() == 0
    assert sorted(db_keys(path)) == [f"k{i}" for i in range(6)]
    assert not journal_path(path).exists()
    assert os.path.realpath(path) not in store_registry._JOURNALS


def test_kill_9_before_a_new_store_exists_keeps_the_journaled_runs(tmp_path: Path) -> None:
    path = tmp_path / "killed.duckdb"
    proc = run_child(
        f"""
        import os, signal
        from reorderlab.store import NewStore, StoreRow
        from tests.test_store_journal import fake_run
        new = NewStore({str(path)!r})
        new.put_many(StoreRow(key=f"k{{i}}", **fake_run(i)) for i in range(4))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    with Store(path) as st:  # replays the journal
        assert sorted(st.keys()) == ["k0", "k1", "k2", "k3"]
    assert sorted(db_keys(path)) == ["k0", "k1", "k2", "k3"]


def test_read_only_open_of_a_store_that_only_has_a_journal_says_so(tmp_path: Path) -> None:
    path = tmp_path / "never-created.duckdb"
    new = store_mod.NewStore(path)
    new.put_many([StoreRow(key="k1", **fake_run(1))])  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="does not exist yet: its journal"):
        Store(path, read_only=True)
    st = new.store()  # opened for writing: created, the run moved in
    st.close()
    with Store(path, read_only=True) as ro:
        assert ro.keys() == ["k1"]


def test_a_store_that_fails_to_open_leaves_its_runs_in_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "garbage.duckdb"
    path.write_bytes(b"not a database" * 100)
    new = store_mod.NewStore(path)
    new.put_many([StoreRow(key="k1", **fake_run(1))])  # type: ignore[arg-type]
    with pytest.raises(store_mod.StoreError, match=r"is not a DuckDB file"):
        new.store()
    assert path.read_bytes() == b"not a database" * 100  # not touched
    rows, _ = read_journal(journal_path(path))
    assert [r[0] for r in rows] == ["k1"]
    assert os.path.realpath(path) not in store_registry._JOURNALS  # released


def test_a_path_that_cannot_be_a_store_says_why(tmp_path: Path) -> None:
    with pytest.raises(store_mod.StoreError, match=r"^results store .*: is a directory, not"):
        Store(tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(store_mod.StoreError, match=r"^results store .*: cannot reach .*file.*"):
        Store(tmp_path / "file" / "runs.duckdb")
    not_db = tmp_path / "notes.duckdb"
    not_db.write_text("not a database\n")
    with pytest.raises(store_mod.StoreError) as info:
        Store(not_db)
    assert not isinstance(info.value, store_mod.StoreBusyError)  # nobody else has it open
    assert "is not a DuckDB file" in str(info.value)


def test_new_store_refuses_a_leftover_journal(store_path: Path) -> None:
    crash_after_puts(store_path, 2)
    with pytest.raises(ValueError, match="journal to replay"):
        store_mod.NewStore(store_path)
    with Store(store_path) as st:
        assert len(st) == 2


class _WatchedLock:
    """A lock that notes when a thread has to wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.contended = threading.Event()

    def __enter__(self) -> _WatchedLock:
        if not self._lock.acquire(blocking=False):
            self.contended.set()
            self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_opening_a_store_waits_for_a_background_thread_registered_but_not_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store's background close or creation is registered, then started,
    under the registry's lock. ``Store()`` read the registry without it, so
    it could find the thread not started yet and ``join`` it: a
    ``RuntimeError``. Here the thread's start is held between the two until
    the opening store has either failed or waits for the lock."""
    path = tmp_path / "race.duckdb"
    with Store(path):
        pass
    real = os.path.realpath(path)
    watched = _WatchedLock()
    monkeypatch.setattr(store_registry, "_LOCK", watched)
    registered, go_on, opened = threading.Event(), threading.Event(), threading.Event()
    real_thread = threading.Thread

    class HeldStart(real_thread):  # type: ignore[valid-type,misc]
        def start(self) -> None:
            registered.set()  # in the registry, not started
            go_on.wait(timeout=120)
            super().start()

    errors: list[BaseException] = []

    def open_store() -> None:
        try:
            Store(path).close()
        except BaseException as exc:
            errors.append(exc)
        finally:
            opened.set()

    background = real_thread(
        target=lambda: store_registry.in_background(real, lambda: None, path), daemon=True
    )
    opener = real_thread(target=open_store, daemon=True)
    monkeypatch.setattr(threading, "Thread", HeldStart)
    try:
        background.start()
        assert registered.wait(timeout=120)
        opener.start()
        while not (opened.wait(0.01) or watched.contended.is_set()):
            pass
    finally:
        go_on.set()
        monkeypatch.setattr(threading, "Thread", real_thread)
    background.join(timeout=120)
    opener.join(timeout=120)
    assert errors == []
    assert opened.is_set()
    store_mod.wait_for_background_closes()


def test_a_store_opened_again_takes_many_runs_at_once(tmp_path: Path) -> None:
    """Opening an existing store read its layout with ``fetchone``, which
    leaves DuckDB's result unfinished; DuckDB 2.0 then refused to register
    the frame of a flush of more than a few runs ("connection has an
    unfinished result")."""
    path = tmp_path / "again.duckdb"
    with Store(path):
        pass
    with Store(path) as st:
        st.put_many(StoreRow(key=f"k{i}", **fake_run(i)) for i in range(40))  # type: ignore[arg-type]
    with Store(path, read_only=True) as ro:
        assert len(ro) == 40


def test_iter_values_gives_each_key_in_order_a_chunk_per_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``iter_values``: one ``(key, hit or None)`` per key asked, in that
    order (repeats and unknown keys included), across chunk boundaries, from
    the database and from the journal alike, the same values as
    ``get_values``, with one query per chunk of stored keys."""
    monkeypatch.setattr(store_rows, "COMPRESS_FROM", 1000)
    path = tmp_path / "chunks.duckdb"
    with Store(path) as st:
        st.put_many(
            StoreRow(key=f"k{i}", **{**fake_run(i), "result_json": big_result(i)}) for i in range(7)
        )  # type: ignore[arg-type]
    with Store(path) as st:
        st.put_many([StoreRow(key="pending", **fake_run(9))])  # type: ignore[arg-type]
        keys = ["k6", "nope", "k0", "pending", "k3", "k0", "k5", "k1", "k2"]
        queries: list[list[str]] = []
        lookup = st._lookup

        def counted(ks: list[str], *, blobs: bool) -> Iterator[tuple[str, Any, Any, float | None]]:
            queries.append(list(ks))
            return lookup(ks, blobs=blobs)

        monkeypatch.setattr(st, "_lookup", counted)
        got = list(st.iter_values(keys, chunk=4))
        expected = st.get_values(keys)
    assert [k for k, _ in got] == keys
    assert dict(got)["nope"] is None
    assert {k: v for k, v in got if v is not None} == expected
    assert len(queries) == 3 + 1  # three chunks, then get_values' one
