"""A new store, created when first needed (the sweep driver's): runs reach its journal
before the file exists, and nothing is lost if it never comes to be."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reorderlab import store as store_mod
from reorderlab.store import (
    Store,
    StoreRow,
    journal_path,
    read_journal,
)
from reorderlab.store import registry as store_registry
from reorderlab.store import rows as store_rows

from .test_store_journal import (
    crash_after_puts,
    db_keys,
    fake_run,
    run_child,
)
from .test_store_old_layouts import big_result

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
