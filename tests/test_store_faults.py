"""A store on a path that is no store file, a full disk, a read-only or a
busy store (issue 40, findings 2, 3 and 6): one line naming the path and
the cause, nothing replaced that is not a store, nothing lost.

Full disks are small tmpfs mounts when the tests run as root (CI), else a
file size limit (``RLIMIT_FSIZE``, ``ulimit -f``) in the child process."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

import reorderlab as rl
from reorderlab.store import (
    Store,
    StoreError,
    journal_path,
    read_journal,
    wait_for_background_closes,
)
from reorderlab.store.repair import check_store, repair_store

from .test_store_robust import real_run

CHAIN = """\
name = "tiny"
duration = 2.0
[topology]
kind = "chain"
bottleneck_rate = 2e6
bottleneck_delay = 0.01
[[flows]]
src = "S1"
dst = "D"
[record]
series = ["cwnd"]
interval = 0.001
"""
ROOT_ONLY = os.geteuid() == 0


def cli(
    *args: str, cwd: Path, limit: int | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``reorderlab ARGS``; ``limit``: the largest file it may write (bytes)."""

    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "reorderlab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=cap,
    )


def one_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """The process's stderr: one line, no traceback, with each of ``words``
    (after the scenario's warnings, ``reorderlab check``'s lines: the tiny
    chain's 100-packet queue is 17 bandwidth-delay products)."""
    lines = proc.stderr.splitlines(keepends=True)
    err = "".join(line for line in lines if not line.startswith("warning: "))
    assert "Traceback" not in err and err.count("\n") == 1, err
    for word in words:
        assert word in err, (word, err)
    return err


# -- what is not a store file -------------------------------------------------


def _make(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "device":
        if not ROOT_ONLY:
            pytest.skip("creating a device node (mknod) needs root")
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # a private null device
    else:
        raise AssertionError(kind)


KIND_WORDS = {
    "fifo": "is a FIFO (named pipe), not a store file",
    "directory": "is a directory, not a store file",
    "device": "is a character device, not a store file",
}
COMMANDS = [["store", "check"], ["store", "repair"], ["store", "compact"], ["run", "chain.toml"]]


@pytest.mark.parametrize("via_symlink", [False, True], ids=["itself", "symlink"])
@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_only_regular_files_are_stores(tmp_path: Path, kind: str, via_symlink: bool) -> None:
    """Finding 2: `store repair` renamed a private device node to
    `null.damaged` and wrote a DuckDB file in its place (and told to run it
    on /dev/null); a FIFO made DuckDB wait for ever. Each command refuses
    on one line and leaves the thing as it was."""
    (tmp_path / "chain.toml").write_text(CHAIN)
    target = tmp_path / f"{kind}.duckdb"
    _make(kind, target)
    given = target
    if via_symlink:
        given = tmp_path / "link.duckdb"
        given.symlink_to(target)
    before = target.lstat()
    for command in COMMANDS:
        args = (
            [*command, str(given)] if command[0] == "store" else [*command, "--store", str(given)]
        )
        proc = cli(*args, cwd=tmp_path, timeout=120)
        assert proc.returncode == 1, (args, proc.stderr)
        words = (
            KIND_WORDS[kind].replace("is a", "is a symlink to a")
            if via_symlink
            else KIND_WORDS[kind]
        )
        one_line(proc, str(given), words)
        assert "repair" not in proc.stderr and "damaged" not in proc.stderr
    after = target.lstat()
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (
        before.st_ino,
        stat.S_IFMT(before.st_mode),
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["chain.toml", target.name] + (["link.duckdb"] if via_symlink else [])
    )  # no .damaged, no lock or journal beside it


def test_a_fifo_beside_the_store_is_refused_not_waited_on(tmp_path: Path) -> None:
    """The journal, lock and write-ahead log must be regular files too."""
    store = tmp_path / "s.duckdb"
    with Store(store) as st:
        st.put_many([real_run(1)])
    wait_for_background_closes()
    for suffix in (".journal", ".wal", ".lock"):
        fifo = Path(f"{store}{suffix}")
        fifo.unlink(missing_ok=True)  # (the lock file stays)
        os.mkfifo(fifo)
        for read_only in (False, True):
            with pytest.raises(StoreError, match=rf"{re.escape(suffix)} is a FIFO \(named pipe\)"):
                Store(store, read_only=read_only)
        with pytest.raises(StoreError, match="is a FIFO"):
            check_store(store)
        fifo.unlink()
    with Store(store, read_only=True) as st:
        assert len(st) == 1


def test_repair_leaves_a_file_that_is_not_a_store_alone(tmp_path: Path) -> None:
    """Repair renamed whatever it could not open and wrote a store there:
    a file that does not start as a DuckDB file is refused, untouched."""
    notes = tmp_path / "notes.duckdb"
    notes.write_text("my notes\n")
    for command in ("check", "repair"):
        proc = cli("store", command, str(notes), cwd=tmp_path)
        assert proc.returncode == 1
        one_line(proc, str(notes), "is not a DuckDB file")
    with pytest.raises(StoreError, match="is not a DuckDB file"):
        repair_store(notes)
    assert notes.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.duckdb"]


# -- a new store whose creation was cut short ------------------------------------


def test_an_empty_store_file_with_a_journal_is_recovered_at_the_next_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Finding 3: a full disk left a 0-byte store and a journal of 7 runs;
    every later `run` and `sweep` failed with "not a valid DuckDB database
    file", until a manual `store repair`. The next open recovers it, with
    a one-line note."""
    store = tmp_path / "s.duckdb"
    rows = [real_run(seed) for seed in range(1, 8)]
    with Store(tmp_path / "other.duckdb", flush_interval=1e9, flush_rows=10**9) as other:
        other.put_many(rows)
        journal = other.journal_path.read_bytes()
    for content in (b"", None):  # empty; DuckDB's first header only
        if content is None:
            with Store(tmp_path / "head.duckdb"):
                pass
            content = (tmp_path / "head.duckdb").read_bytes()[:8192]
        store.write_bytes(content)
        journal_path(store).write_bytes(journal)
        caplog.clear()
        with Store(store) as st:
            assert sorted(st.keys()) == sorted(r.key for r in rows)
        notes = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert len(notes) == 1 and "\n" not in notes[0], notes
        assert "creation cut short" in notes[0] and str(store) in notes[0]
        assert check_store(store).healthy
        store.unlink()
    # the command line: the note, then the run
    store.write_bytes(b"")
    journal_path(store).write_bytes(journal)
    (tmp_path / "chain.toml").write_text(CHAIN)
    proc = cli("run", "chain.toml", "--store", str(store), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    one_line(proc, "creation cut short")
    with Store(store, read_only=True) as st:
        assert len(st) == 8


# -- full disks -------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Callable[[str], None] | None]:
    """A tmpfs of ``size`` mounted on ``folder`` (root), yielding a function
    that resizes it; None (nothing mounted) where it cannot be done."""
    folder.mkdir()
    if not ROOT_ONLY or shutil.which("mount") is None:
        yield None
        return
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)])
    if done.returncode != 0:
        yield None
        return

    def resize(new: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={new}", str(folder)], check=True)

    try:
        yield resize
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def journaled(store: Path) -> set[str]:
    """The keys a store holds, in its journal and its file (if it opens)."""
    keys = {r[0] for r in read_journal(journal_path(store))[0]}
    with contextlib.suppress(duckdb.Error, OSError):
        con = duckdb.connect(str(store), read_only=True)
        keys |= {str(r[0]) for r in con.execute("SELECT key FROM runs").fetchall()}
        con.close()
    return keys


FULL_WORDS = ("No space left on device", "File too large")


@pytest.mark.parametrize("size", ["256k", "300k"])
def test_a_full_disk_is_one_line_at_every_step_and_loses_nothing(tmp_path: Path, size: str) -> None:
    """Finding 3: 21-32-line tracebacks (DuckDB's TransactionException).
    Sweeps on a full disk: each says in one line which file it could not
    write and why; once there is room, every run that was journaled is
    found in the store (not simulated again), each once."""
    (tmp_path / "chain.toml").write_text(CHAIN)
    (tmp_path / "sw.toml").write_text('name = "sw"\nscenario = "chain.toml"\nseeds = 40\n')
    with small_disk(tmp_path / "disk", size) as resize:
        limit = None if resize is not None else 200_000
        store = tmp_path / "disk" / "s.duckdb"
        sweep = ("sweep", "sw.toml", "--store", str(store), "--workers", "1")
        for _attempt in range(2):  # a new store, then one the disk is full under
            proc = cli(*sweep, "--out", "out.csv", cwd=tmp_path, limit=limit)
            assert proc.returncode in (0, 1), proc.stderr
            if proc.returncode or proc.stderr:
                # (the second finds the first's store cut short: a one-line note first)
                proc.stderr = "".join(
                    line
                    for line in proc.stderr.splitlines(keepends=True)
                    if "creation cut short" not in line or "Traceback" in proc.stderr
                )
                line = one_line(proc, "results store", str(store.name))
                assert any(w in line for w in FULL_WORDS), line
                assert "damaged" not in line and "repair" not in line
        kept = journaled(store)
        assert kept  # the sweeps' runs went somewhere
        if resize is not None:
            resize("20m")
        proc = cli(*sweep, "--out", "out.csv", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        err = "".join(
            line for line in proc.stderr.splitlines(True) if not line.startswith("warning: ")
        )
        assert err.count("\n") <= 1 and "Traceback" not in err
        assert f"{40 - len(kept)} simulated, {len(kept)} from the store" in proc.stdout
        wait_for_background_closes()
        con = duckdb.connect(str(store), read_only=True)
        keys = [str(r[0]) for r in con.execute("SELECT key FROM runs").fetchall()]
        con.close()
        assert len(keys) == len(set(keys)) == 40


def test_run_out_and_compact_on_a_full_disk_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text(CHAIN)
    store = tmp_path / "s.duckdb"
    for seeds in ([1, 2], [3, 4], [5, 6]):  # three sessions: free space to compact
        rl.sweep(rl.Scenario.from_toml(CHAIN), seeds=seeds, store=store, workers=1)
        wait_for_background_closes()
    size = store.stat().st_size
    with small_disk(tmp_path / "disk", f"{size // 1024 + 64}k") as resize:
        limit = None if resize is not None else size // 2  # (the copy is as big)
        out = tmp_path / "disk" / "out"
        run_out = ("run", "chain.toml", "--no-cache", "--out", str(out))
        if resize is None:
            proc = cli(*run_out, cwd=tmp_path, limit=32_768)
        else:  # fill the disk, then write there
            filler = tmp_path / "disk" / "filler"
            with filler.open("wb") as f, contextlib.suppress(OSError):
                f.write(b"\0" * (size + (1 << 20)))
            proc = cli(*run_out, cwd=tmp_path)
            filler.unlink()
        assert proc.returncode == 1, proc.stderr
        line = one_line(proc, str(out))
        assert any(w in line for w in FULL_WORDS), line
        copy = tmp_path / "disk" / "s.duckdb"
        shutil.copyfile(store, copy)
        keys = sorted(journaled(copy))
        proc = cli("store", "compact", str(copy), cwd=tmp_path, limit=limit)
        assert proc.returncode == 1, proc.stderr
        line = one_line(proc, str(copy))
        assert any(w in line for w in FULL_WORDS), line
        assert "damaged" not in line
        assert not Path(f"{copy}.compact").exists()
        assert sorted(journaled(copy)) == keys and check_store(copy).healthy


# -- read-only and busy stores ----------------------------------------------------


@contextlib.contextmanager
def read_only_store(tmp_path: Path) -> Iterator[Path]:
    """A store with one run that cannot be written: on a read-only tmpfs
    (root), else a file and folder without write permission."""
    with small_disk(tmp_path / "ro", "4m") as resize:
        store = tmp_path / "ro" / "s.duckdb"
        with Store(store) as st:
            st.put_many([real_run(1)])
        wait_for_background_closes()
        if resize is not None:
            subprocess.run(["mount", "-o", "remount,ro", str(store.parent)], check=True)
        else:
            store.chmod(0o444)
            store.parent.chmod(0o555)
        try:
            yield store
        finally:
            if resize is None:
                store.parent.chmod(0o755)


def test_a_read_only_store_is_called_read_only_not_damaged(tmp_path: Path) -> None:
    """Finding 6: an immutable store (`chattr +i`) was called "damaged" and
    sent to `store repair`."""
    (tmp_path / "chain.toml").write_text(CHAIN)
    with read_only_store(tmp_path) as store:
        proc = cli("run", "chain.toml", "--store", str(store), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        line = one_line(proc, str(store), "is read-only")
        assert "damaged" not in line and "repair" not in line
        assert check_store(store).healthy  # reading it is fine
        with Store(store, read_only=True) as st:
            assert len(st) == 1


@pytest.mark.skipif(not ROOT_ONLY or shutil.which("chattr") is None, reason="chattr +i needs root")
def test_an_immutable_store_is_called_read_only(tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text(CHAIN)
    store = tmp_path / "s.duckdb"
    with Store(store) as st:
        st.put_many([real_run(1)])
    wait_for_background_closes()
    if subprocess.run(["chattr", "+i", str(store)], capture_output=True).returncode != 0:
        pytest.skip(f"the file system of {tmp_path} has no immutable flag")
    try:
        proc = cli("run", "chain.toml", "--store", str(store), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        line = one_line(proc, str(store), "is read-only")
        assert "damaged" not in line and "repair" not in line
    finally:
        subprocess.run(["chattr", "-i", str(store)], check=True)


def test_check_of_a_store_being_written_says_busy(tmp_path: Path) -> None:
    """Finding 6: `store check` during a sweep called the store damaged."""
    store = tmp_path / "s.duckdb"
    with Store(store) as st:
        st.put_many([real_run(1)])
        st.flush()
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time\nfrom reorderlab.store import Store\n"
                f"st = Store({str(store)!r})\nprint('ready', flush=True)\ntime.sleep(120)\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        proc = cli("store", "check", str(store), cwd=tmp_path)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        line = one_line(proc, str(store), "in use by another process")
        assert "damaged" not in line and "repair" not in line
    finally:
        holder.kill()
        holder.wait(timeout=60)
