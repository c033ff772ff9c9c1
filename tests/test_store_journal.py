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
from pathlib import Path

import duckdb
import pytest

import reorderlab
from reorderlab.store import (
    Store,
    StoreRow,
    journal_path,
    read_journal,
    wait_for_background_closes,
)
from reorderlab.store import db as store_db
from reorderlab.store import journal as store_journal

from .conftest import ROOT, small_scenario
from .test_sweep_workers import loss_grid_for_resume

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
    from tests.test_sweep_workers import loss_grid_for_resume

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
