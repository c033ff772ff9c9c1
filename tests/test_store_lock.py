"""One writer per store, whatever happens to its lock file (issue 40,
finding 1): the lock file ``STORE.lock`` stays after every run, so deleting
it looks harmless; deleting it 4-6 s into a sweep let a second sweep in,
which replayed and removed the first one's journal while the first went on
writing to it (runs reported stored were then missing from the store: 3,
3, 1 and 1 in 4 trials). The writer now also holds a lock on the journal
itself (``reorderlab.store.lock``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import reorderlab as rl
from reorderlab.store import (
    NewStore,
    Store,
    StoreBusyError,
    journal_path,
    lock_path,
    read_journal,
    wait_for_background_closes,
)

from .conftest import ROOT, SMALL_TOML
from .test_store_robust import real_run

#: A sweep in a child process that pauses after ``pause_after`` durable
#: runs (``on_run``: journaled) until the file ``go`` exists, then goes on;
#: it prints the key of every run it was told is stored.
PAUSED_SWEEP = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    import reorderlab as rl
    from tests.conftest import small_scenario

    go = Path({go!r})
    count = 0

    def on_run(job, text):
        global count
        count += 1
        print("stored", job.key, flush=True)
        if count == {pause_after}:
            print("paused", flush=True)
            while not go.exists():
                time.sleep(0.02)

    grid = rl.Grid(small_scenario(duration=2.0), {{"impairments[0].p": [0.001, 0.01, 0.02]}})
    df = rl.sweep(grid, seeds={seeds}, workers=1, store={store!r}, on_run=on_run, progress=False)
    print("done", len(df), flush=True)
    """
)


@contextlib.contextmanager
def paused_sweep(
    store: Path, go: Path, seeds: int, pause_after: int
) -> Iterator[subprocess.Popen[str]]:
    """A child sweeping into ``store``, paused after ``pause_after`` runs
    (its "stored" lines read up to "paused"); killed if still alive at the end."""
    script = PAUSED_SWEEP.format(
        root=str(ROOT), go=str(go), seeds=seeds, pause_after=pause_after, store=str(store)
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)


def read_until(proc: subprocess.Popen[str], last: str) -> list[str]:
    """The child's stdout lines up to (and with) the one starting ``last``."""
    assert proc.stdout is not None
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        assert line, f"the child ended early: {proc.stderr.read() if proc.stderr else ''}"
        lines.append(line.strip())
        if line.startswith(last):
            return lines


def db_keys(path: Path) -> list[str]:
    wait_for_background_closes()
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [str(r[0]) for r in con.execute("SELECT key FROM runs").fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("removed", [(".lock",), (".lock", ".journal")], ids=["lock", "both"])
@pytest.mark.parametrize("existing", [False, True], ids=["new-store", "existing-store"])
def test_a_deleted_lock_file_lets_no_second_writer_in(
    tmp_path: Path, existing: bool, removed: tuple[str, ...]
) -> None:
    """Delete the lock file (and the journal) mid-sweep, start second
    writers (the Python API and the command line): each is refused; the
    first sweep ends and every run it reported stored is in the store,
    once. Deleting both of a new store, before its DuckDB file was
    created, let the second writer in (the first then stopped "in use by
    another process" and the runs it had journaled were lost): the lock
    on the store file itself refuses it now."""
    store = tmp_path / "s.duckdb"
    if existing:  # a store with a run in it: the sweep opens it (Store), not NewStore
        rl.sweep(rl.Scenario.from_toml(SMALL_TOML), seeds=[99], workers=1, store=store)
        wait_for_background_closes()
    go = tmp_path / "go"
    seeds = 4
    with paused_sweep(store, go, seeds=seeds, pause_after=5) as first:
        lines = read_until(first, "paused")
        assert journal_path(store).stat().st_size > 0  # its runs wait in the journal
        if not existing:  # its DuckDB file is not made yet (the first flush is far)
            assert not store.exists() or store.stat().st_size == 0
        for suffix in removed:
            Path(f"{store}{suffix}").unlink()
        with pytest.raises(StoreBusyError, match=r"in use by another process"):
            Store(store)
        with pytest.raises(StoreBusyError, match=r"in use by another process"):
            NewStore(store)
        (tmp_path / "small.toml").write_text(SMALL_TOML)
        (tmp_path / "other.toml").write_text(
            'name = "other"\nscenario = "small.toml"\nseeds = [11, 12, 13]\n'
        )
        second = subprocess.run(
            [sys.executable, "-m", "reorderlab", "sweep", "other.toml", "--store", str(store)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert second.returncode == 2, (second.stdout, second.stderr)
        assert second.stderr.count("\n") == 1 and "in use by another process" in second.stderr
        go.touch()
        lines += read_until(first, "done")
        assert first.wait(timeout=300) == 0, first.stderr.read() if first.stderr else ""
    reported = [line.split()[1] for line in lines if line.startswith("stored ")]
    assert len(reported) == 3 * seeds and lines[-1] == f"done {3 * seeds}"
    keys = db_keys(store)
    assert len(keys) == len(set(keys)) == 3 * seeds + existing
    assert set(reported) <= set(keys)
    assert not journal_path(store).exists()  # moved in; the empty journal removed
    assert not Path(f"{store}.create").exists()


def test_the_journal_is_locked_while_a_store_is_open_and_removed_after(tmp_path: Path) -> None:
    """The second lock is on the journal: it exists (empty) while a writer
    has the store open, and a closed store leaves no journal behind."""
    store = tmp_path / "s.duckdb"
    with Store(store) as st:
        assert journal_path(store).stat().st_size == 0
        lock_path(store).unlink()
        child = subprocess.run(
            [sys.executable, "-c", f"from reorderlab.store import Store\nStore({str(store)!r})"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode != 0
        assert "StoreBusyError" in child.stderr and "holds the journal" in child.stderr
        assert st.pending() == 0
    assert not journal_path(store).exists()
    with Store(store) as again:  # free again
        assert len(again) == 0


def test_a_journal_removed_mid_sweep_is_made_again_with_every_run_it_held(
    tmp_path: Path,
) -> None:
    """Deleting the journal while a writer has runs in it (not yet moved
    into DuckDB) deleted those runs for a writer killed before its next
    flush. The writer looks at the journal before each append: removed, it
    is made again (locked) with every run it held, then the new ones: the
    file a kill would leave holds them all, and it still refuses a second
    writer."""
    store = tmp_path / "s.duckdb"
    with Store(store, flush_interval=1e9, flush_rows=10**9) as st:
        st.put_many([real_run(1), real_run(2)])
        journal_path(store).unlink()
        lock_path(store).unlink()
        st.put_many([real_run(3)])
        rows, ignored = read_journal(journal_path(store))  # what a kill -9 now leaves
        assert ignored == 0
        assert sorted(r[0] for r in rows) == sorted(real_run(s).key for s in (1, 2, 3))
        child = subprocess.run(  # (a Store of this process would share the hold)
            [sys.executable, "-c", f"from reorderlab.store import Store\nStore({str(store)!r})"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode != 0 and "StoreBusyError" in child.stderr, child.stderr
        st.put_many([real_run(4)])  # appended to the new journal (nothing twice)
        assert len(read_journal(journal_path(store))[0]) == 4
        assert journal_path(store).read_bytes().count(b"\n") == 4
    assert len(db_keys(store)) == 4
    assert not journal_path(store).exists()


def test_a_new_store_being_written_is_busy_to_check_and_absent_to_readers(
    tmp_path: Path,
) -> None:
    """While a sweep journals the first runs of a new store, its file is
    the empty one the writer locks: `store check` says it is in use (not
    "empty", not damaged), a reader finds no store yet, and `store repair`
    is refused; once the writer is gone, the empty file is made a store."""
    store = tmp_path / "s.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom reorderlab.store import NewStore\n"
            f"new = NewStore({str(store)!r})\nprint('ready', flush=True)\ntime.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        assert store.stat().st_size == 0
        for command in ("check", "repair"):
            proc = subprocess.run(
                [sys.executable, "-m", "reorderlab", "store", command, str(store)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
            assert proc.stderr.count("\n") == 1 and "in use by another process" in proc.stderr
            assert "damaged" not in proc.stderr
        with pytest.raises(FileNotFoundError, match="does not exist"):
            Store(store, read_only=True)
    finally:
        holder.kill()
        holder.wait(timeout=60)
    assert store.stat().st_size == 0  # (left by the killed writer)
    with Store(store) as st:
        assert len(st) == 0
    with Store(store, read_only=True) as st:
        assert len(st) == 0
